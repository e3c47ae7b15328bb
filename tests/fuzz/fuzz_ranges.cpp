// libFuzzer target: the list and range parser of the command line ("1:256:x2,0:131072:+4096").

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/error.hpp"
#include "core/value_range.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const auto values = decodesim::core::parse_integer_list(text, "--batch", 0, 10000);
        if (values.size() > 10000) std::abort();
        for (long long value : values) {
            if (value < 0) std::abort();
        }
    } catch (const decodesim::core::UsageError&) {
    }
    try {
        decodesim::core::parse_name_list(text, "--model");
    } catch (const decodesim::core::UsageError&) {
    }
    return 0;
}
