// libFuzzer target: the Hugging Face config.json importer.

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "fuzz_checks.hpp"
#include "profiles/hf_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        decodesim::fuzz::evaluate(decodesim::profiles::parse_hf_config(text, "config.json"));
    } catch (const decodesim::core::InputError&) {
    }
    return 0;
}
