// libFuzzer target: the strict YAML profile reader (hardware and model profiles).

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "fuzz_checks.hpp"
#include "profiles/hardware_loader.hpp"
#include "profiles/model_loader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        decodesim::profiles::parse_hardware_profile(text, "fuzz.yaml");
    } catch (const decodesim::core::InputError&) {
    }
    try {
        decodesim::fuzz::evaluate(decodesim::profiles::parse_model_profile(text, "fuzz.yaml"));
    } catch (const decodesim::core::InputError&) {
    }
    return 0;
}
