#pragma once
// Arithmetic datatypes that a device lists peak rates for.

#include <array>
#include <optional>
#include <string_view>

namespace decodesim::core {

enum class Datatype { fp32, fp16, bf16, fp8, fp4, int8 };

inline constexpr std::array kAllDatatypes{Datatype::fp32, Datatype::fp16, Datatype::bf16,
                                          Datatype::fp8,  Datatype::fp4,  Datatype::int8};

std::string_view datatype_name(Datatype datatype);
std::optional<Datatype> parse_datatype(std::string_view name);

// Bytes one element occupies (fp4 is half a byte).
double datatype_bytes(Datatype datatype);

}  // namespace decodesim::core
