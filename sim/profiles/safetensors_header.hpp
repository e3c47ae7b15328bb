#pragma once
// Reads the header of a .safetensors file (an 8-byte little-endian length, then that many bytes of
// JSON naming each tensor's dtype, shape and data offsets; github.com/huggingface/safetensors,
// "Format") and of a model.safetensors.index.json, never the tensor data. Sizes are checked against
// the file before anything is parsed, so a hostile length is refused, not allocated.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace decodesim::profiles {

// safetensors itself refuses headers over 100 MB (its MAX_HEADER_SIZE); so do we.
inline constexpr std::size_t kMaxSafetensorsHeaderBytes = 100'000'000;

// What a set of safetensors files stores.
struct SafetensorsSummary {
    std::map<std::string, double> bytes_by_dtype;  // "BF16" -> bytes
    double bytes = 0;                               // every tensor's data
    double scale_bytes = 0;   // of those, scales and zero points (names ending _scale, _scales, scale_inv, qzeros, g_idx)
    // Weights stored: one per element of a float or int8 tensor, two per byte of a U8 "*_blocks"
    // tensor (MXFP4 packs two E2M1 values in a byte, as GPT-OSS ships); scales count none.
    double weights = 0;
    // False when a tensor packs weights into an integer dtype whose packing the name does not say
    // (GPTQ's I32 qweight, NVFP4's U8 weight): `weights` then undercounts and is not to be used.
    bool weights_exact = true;
    std::size_t tensors = 0;

    void add(const SafetensorsSummary& other);
    // Exact bits per stored weight, scales included; nullopt when the weights are not countable.
    std::optional<double> bits_per_weight() const;
};

// Parses a header from the first bytes of a file (`head`: the whole file, or at least its first
// 8 + header-length bytes); `file_size` checks that the data offsets lie inside the file.
SafetensorsSummary parse_safetensors_header(std::string_view head, std::uint64_t file_size, const std::string& path);
SafetensorsSummary read_safetensors_header(const std::string& path);

// model.safetensors.index.json: the shard files its weight_map names (sorted, once each) and its
// metadata.total_size (bytes of tensor data) when stated.
struct SafetensorsIndex {
    std::vector<std::string> shards;
    std::optional<double> total_size;
};
SafetensorsIndex parse_safetensors_index(const std::string& text, const std::string& path);

}  // namespace decodesim::profiles
