// libFuzzer target: the unit parser ("3.35 TB/s") and the plain number parser.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/units.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    using decodesim::core::Dimension;
    for (Dimension dimension : {Dimension::bytes, Dimension::bandwidth, Dimension::throughput, Dimension::time,
                                Dimension::power}) {
        try {
            const double value = decodesim::core::parse_quantity(text, dimension);
            if (!std::isfinite(value) || value <= 0.0) std::abort();  // the contract: positive and finite
        } catch (const decodesim::core::UnitError&) {
        }
    }
    double number = 0.0;
    if (decodesim::core::parse_number(text, number) && !std::isfinite(number)) std::abort();
    return 0;
}
