// libFuzzer target: the checkpoint readers (GGUF headers, safetensors headers and index files),
// which take files downloaded from anywhere. The first byte picks the reader; for the two header
// readers the next eight give the file's size (little-endian, at least the bytes given), so that
// the fuzzer reaches the checks on tensor data past the end as well as a truncated header.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "fuzz_checks.hpp"
#include "profiles/gguf_header.hpp"
#include "profiles/safetensors_header.hpp"

namespace {

std::uint64_t stated_size(const std::uint8_t* data, std::size_t size) {
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < 8 && i < size; ++i) value |= static_cast<std::uint64_t>(data[i]) << (8 * i);
    return value;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const std::uint8_t reader = data[0] % 3;
    const std::uint8_t* rest = data + 1;
    const std::size_t rest_size = size - 1;
    try {
        if (reader == 2) {
            const std::string text(reinterpret_cast<const char*>(rest), rest_size);
            (void)decodesim::profiles::parse_safetensors_index(text, "model.safetensors.index.json");
            return 0;
        }
        const std::size_t skip = rest_size < 8 ? rest_size : 8;
        const std::string_view head(reinterpret_cast<const char*>(rest + skip), rest_size - skip);
        const std::uint64_t file_size = std::max<std::uint64_t>(stated_size(rest, skip), head.size());
        if (reader == 0) {
            const auto header = decodesim::profiles::parse_gguf_header(head, file_size, "model.gguf");
            decodesim::fuzz::evaluate(decodesim::profiles::model_from_gguf({header}));
        } else {
            const auto summary = decodesim::profiles::parse_safetensors_header(head, file_size, "model.safetensors");
            if (const auto bits = summary.bits_per_weight()) decodesim::fuzz::require_finite(*bits);
        }
    } catch (const decodesim::core::InputError&) {
    }
    return 0;
}
