#include "core/datatype.hpp"

namespace decodesim::core {

std::string_view datatype_name(Datatype datatype) {
    switch (datatype) {
        case Datatype::fp32: return "fp32";
        case Datatype::fp16: return "fp16";
        case Datatype::bf16: return "bf16";
        case Datatype::fp8: return "fp8";
        case Datatype::fp4: return "fp4";
        case Datatype::int8: return "int8";
    }
    return "?";
}

std::optional<Datatype> parse_datatype(std::string_view name) {
    for (Datatype datatype : kAllDatatypes) {
        if (datatype_name(datatype) == name) return datatype;
    }
    return std::nullopt;
}

double datatype_bytes(Datatype datatype) {
    switch (datatype) {
        case Datatype::fp32: return 4.0;
        case Datatype::fp16:
        case Datatype::bf16: return 2.0;
        case Datatype::fp8:
        case Datatype::int8: return 1.0;
        case Datatype::fp4: return 0.5;
    }
    return 2.0;
}

}  // namespace decodesim::core
