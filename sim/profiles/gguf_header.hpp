#pragma once
// Reads the header of a GGUF file (llama.cpp's checkpoint format, versions 2 and 3): its metadata
// and its tensor list, never the tensor data. The header alone gives the model's shape and the
// exact bytes of every tensor, so a multi-gigabyte download costs a read of a few megabytes.
// Layout from the GGUF specification (gguf.md in the docs folder of github.com/ggml-org/ggml,
// "File Structure"). Every count and length is checked against the bytes actually present, so a
// hostile or truncated file is refused with an InputError naming the file and what is wrong, never
// an allocation of its claimed size.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "profiles/model_profile.hpp"

namespace decodesim::profiles {

// The header of a real model is a few MB (the tokenizer's vocabulary dominates); 64 MiB is far beyond.
inline constexpr std::size_t kMaxGgufHeaderBytes = std::size_t{64} << 20;

// gguf_metadata_value_type of the GGUF specification.
enum class GgufType : std::uint32_t {
    uint8 = 0, int8 = 1, uint16 = 2, int16 = 3, uint32 = 4, int32 = 5, float32 = 6, boolean = 7,
    string = 8, array = 9, uint64 = 10, int64 = 11, float64 = 12,
};

// One metadata value. Arrays keep their element type and length only: the one array decodesim
// needs (tokenizer.ggml.tokens) matters by its length, and keeping 150 k strings would not.
struct GgufValue {
    GgufType type = GgufType::uint8;
    std::int64_t integer = 0;     // every integer type and bool (uint64 above 2^63 is refused)
    double real = 0;              // float32, float64
    std::string text;             // string
    GgufType element_type = GgufType::uint8;  // array
    std::uint64_t length = 0;                 // array

    bool is_integer() const;
};

// A ggml tensor type's storage: `block_size` weights take `block_bytes` bytes.
struct GgmlType {
    std::string_view name;
    std::uint32_t block_size;
    std::uint32_t block_bytes;
    double bits_per_weight() const { return 8.0 * block_bytes / block_size; }
};

// The storage of ggml type `id` (ggml.h's enum ggml_type), or nullopt for an id ggml does not
// define (or no longer does: the removed Q4_2, Q4_3 and repacked Q4_0_4_4 ids).
std::optional<GgmlType> ggml_type(std::uint32_t id);

struct GgufTensorInfo {
    std::string name;
    std::vector<std::uint64_t> dims;  // ggml order: dims[0] is the row length (contiguous)
    std::uint32_t type = 0;           // enum ggml_type
    std::uint64_t offset = 0;         // from the start of the data section
    std::uint64_t elements = 0;
    std::uint64_t bytes = 0;          // exact, from the type's block layout
};

struct GgufHeader {
    std::string path;
    std::uint32_t version = 0;
    std::map<std::string, GgufValue> metadata;
    std::vector<GgufTensorInfo> tensors;

    const GgufValue* find(const std::string& key) const;
};

// Parses a header from the first bytes of a file. `head` holds the file's first bytes (all of it,
// or the first kMaxGgufHeaderBytes), `file_size` the whole file's size (to check that every
// tensor's data lies inside it); `path` names the file in errors.
GgufHeader parse_gguf_header(std::string_view head, std::uint64_t file_size, const std::string& path);

// Reads at most kMaxGgufHeaderBytes of the file at `path` and parses them.
GgufHeader read_gguf_header(const std::string& path);

// The model a GGUF checkpoint holds: its shape from the metadata (general.architecture and the
// <arch>.* keys), its weight format from general.file_type or the tensor types, and the exact
// weights and bits per weight from the tensor list. `shards` are the files of one split checkpoint
// (a single file: one), first shard first; metadata is read from the first. Throws InputError for
// an architecture decodesim cannot map and for a shape out of the model limits.
ModelProfile model_from_gguf(const std::vector<GgufHeader>& shards);

// read_gguf_header + model_from_gguf for a single-file checkpoint.
ModelProfile load_gguf_model(const std::string& path);

// The architectures model_from_gguf maps (general.architecture values).
const std::vector<std::string>& supported_gguf_architectures();

// What a GGUF checkpoint stores, summed over its tensors.
struct GgufTotals {
    double weights = 0;  // elements of every tensor
    double bytes = 0;
    std::uint32_t dominant_type = 0;  // the ggml type holding the most weights
};
GgufTotals gguf_totals(const std::vector<GgufHeader>& shards);

// What the files of one GGUF checkpoint store, whatever its architecture: the checkpoint_* fields
// (weights, bytes, bits per weight, and the format its file type names). Sets nothing when the
// files hold no tensors.
void take_gguf_storage(ModelProfile& model, const std::vector<GgufHeader>& shards);

}  // namespace decodesim::profiles
