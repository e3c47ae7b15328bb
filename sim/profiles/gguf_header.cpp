#include "profiles/gguf_header.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <memory>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

#include "core/error.hpp"
#include "core/registry.hpp"
#include "core/suggest.hpp"
#include "core/text_escape.hpp"
#include "profiles/checkpoint_folder.hpp"
#include "profiles/model_limits.hpp"
#include "profiles/model_loader.hpp"
#include "profiles/profile_id.hpp"

namespace decodesim::profiles {
namespace {

// Storage of each ggml type: block size and bytes per block, from the block structs and their
// static_asserts in ggml's src/ggml-common.h (e.g. block_q4_0: an fp16 scale and 16 bytes of
// 4-bit quants per 32 weights = 18 B; block_q6_K: 128 + 64 + 16 + 2 = 210 B per 256) and the type
// ids of include/ggml.h's enum ggml_type. Facts, not code: the ids are part of the file format.
struct GgmlTypeRow {
    std::uint32_t id;
    GgmlType type;
};
constexpr GgmlTypeRow kGgmlTypes[] = {
    {0, {"F32", 1, 4}},         {1, {"F16", 1, 2}},          {2, {"Q4_0", 32, 18}},      {3, {"Q4_1", 32, 20}},
    {6, {"Q5_0", 32, 22}},      {7, {"Q5_1", 32, 24}},       {8, {"Q8_0", 32, 34}},      {9, {"Q8_1", 32, 36}},
    {10, {"Q2_K", 256, 84}},    {11, {"Q3_K", 256, 110}},    {12, {"Q4_K", 256, 144}},   {13, {"Q5_K", 256, 176}},
    {14, {"Q6_K", 256, 210}},   {15, {"Q8_K", 256, 292}},    {16, {"IQ2_XXS", 256, 66}}, {17, {"IQ2_XS", 256, 74}},
    {18, {"IQ3_XXS", 256, 98}}, {19, {"IQ1_S", 256, 50}},    {20, {"IQ4_NL", 32, 18}},   {21, {"IQ3_S", 256, 110}},
    {22, {"IQ2_S", 256, 82}},   {23, {"IQ4_XS", 256, 136}},  {24, {"I8", 1, 1}},         {25, {"I16", 1, 2}},
    {26, {"I32", 1, 4}},        {27, {"I64", 1, 8}},         {28, {"F64", 1, 8}},        {29, {"IQ1_M", 256, 56}},
    {30, {"BF16", 1, 2}},       {34, {"TQ1_0", 256, 54}},    {35, {"TQ2_0", 256, 66}},   {39, {"MXFP4", 32, 17}},
};

// llama.cpp file types (include/llama.h, enum llama_ftype, stored as general.file_type) and the
// decodesim weight format each maps to. Empty: no format of ours matches; the nearest by bits is taken.
struct FileTypeRow {
    std::int64_t id;
    std::string_view name;
    std::string_view format;
};
constexpr FileTypeRow kFileTypes[] = {
    {0, "F32", "fp32"},          {1, "F16", "fp16"},          {2, "Q4_0", "q4_0"},         {3, "Q4_1", ""},
    {7, "Q8_0", "q8_0"},         {8, "Q5_0", ""},             {9, "Q5_1", ""},             {10, "Q2_K", "q2_k"},
    {11, "Q3_K_S", "q3_k_s"},    {12, "Q3_K_M", "q3_k_m"},    {13, "Q3_K_L", "q3_k_l"},    {14, "Q4_K_S", "q4_k_s"},
    {15, "Q4_K_M", "q4_k_m"},    {16, "Q5_K_S", "q5_k_s"},    {17, "Q5_K_M", "q5_k_m"},    {18, "Q6_K", "q6_k"},
    {19, "IQ2_XXS", "iq2_xxs"},  {20, "IQ2_XS", "iq2_xs"},    {21, "Q2_K_S", ""},          {22, "IQ3_XS", "iq3_xs"},
    {23, "IQ3_XXS", "iq3_xxs"},  {24, "IQ1_S", "iq1_s"},      {25, "IQ4_NL", "iq4_nl"},    {26, "IQ3_S", "iq3_s"},
    {27, "IQ3_M", "iq3_m"},      {28, "IQ2_S", "iq2_s"},      {29, "IQ2_M", "iq2_m"},      {30, "IQ4_XS", "iq4_xs"},
    {31, "IQ1_M", "iq1_m"},      {32, "BF16", "bf16"},        {36, "TQ1_0", ""},           {37, "TQ2_0", ""},
    {38, "MXFP4_MOE", "mxfp4_moe"},
};

// The decodesim format a dominant tensor type maps to, when a file states no general.file_type.
std::string_view format_of_tensor_type(std::string_view type) {
    if (type == "F32") return "fp32";
    if (type == "F16") return "fp16";
    if (type == "BF16") return "bf16";
    if (type == "Q8_0") return "q8_0";
    if (type == "Q6_K") return "q6_k";
    if (type == "Q5_K") return "q5_k_m";
    if (type == "Q4_K") return "q4_k_m";
    if (type == "Q4_0") return "q4_0";
    if (type == "Q3_K") return "q3_k_s";
    if (type == "Q2_K") return "q2_k";
    if (type == "MXFP4") return "mxfp4";
    if (type == "IQ4_XS") return "iq4_xs";
    if (type == "IQ4_NL") return "iq4_nl";
    if (type == "IQ3_S") return "iq3_s";
    if (type == "IQ3_XXS") return "iq3_xxs";
    if (type == "IQ2_S") return "iq2_m";     // IQ2_M files hold IQ2_S; IQ2_S files hold IQ2_XS
    if (type == "IQ2_XS") return "iq2_xs";
    if (type == "IQ2_XXS") return "iq2_xxs";
    if (type == "IQ1_M") return "iq1_m";
    if (type == "IQ1_S") return "iq1_s";
    return "";
}

// Thrown when a header runs past the bytes read so far but not past the file or the cap: the
// reader then reads a larger first part (most headers fit the first MiB; a 150 k-token vocabulary
// does not).
struct HeadTooShort {};

// Reads little-endian fields from the header bytes, refusing any read past them. GGUF is little-
// endian unless written for a big-endian host; such files are refused by the version check.
class Cursor {
public:
    Cursor(std::string_view head, std::uint64_t file_size, const std::string& path, bool may_grow)
        : head_(head), file_size_(file_size), path_(path), may_grow_(may_grow) {}

    std::size_t position() const { return position_; }
    std::size_t remaining() const { return head_.size() - position_; }
    // Bytes the header could still take: to the end of the file or the cap, whichever is first.
    std::uint64_t header_room() const {
        return std::min<std::uint64_t>(file_size_, kMaxGgufHeaderBytes) - std::min<std::uint64_t>(position_, file_size_);
    }

    // Says why `needed` more bytes are not there: the file ends, or the header outgrew our cap.
    // When only a first part of the file was read, asks the reader for more instead.
    [[noreturn]] void past_end(std::size_t needed, const std::string& what) const {
        if (may_grow_ && head_.size() < file_size_ && head_.size() < kMaxGgufHeaderBytes) throw HeadTooShort{};
        if (head_.size() < file_size_) {
            core::refuse_file(path_, "", fmt::format("the header is larger than {} MiB (at byte {}, {} needs {} bytes); not a "
                                          "GGUF file decodesim reads",
                                          kMaxGgufHeaderBytes >> 20, position_, what, needed));
        }
        core::refuse_file(path_, "", fmt::format("truncated: the file ends at byte {} inside the header, where {} needs {} bytes "
                                      "but {} remain",
                                      file_size_, what, needed, remaining()));
    }

    void require(std::uint64_t needed, const std::string& what) const {
        if (needed > remaining()) past_end(static_cast<std::size_t>(std::min<std::uint64_t>(needed, SIZE_MAX)), what);
    }

    template <typename T>
    T number(const std::string& what) {
        require(sizeof(T), what);
        unsigned char bytes[sizeof(T)];
        std::memcpy(bytes, head_.data() + position_, sizeof(T));
        position_ += sizeof(T);
        if constexpr (std::endian::native == std::endian::big) std::reverse(bytes, bytes + sizeof(T));
        T value;
        std::memcpy(&value, bytes, sizeof(T));
        return value;
    }

    // A gguf_string_t: a uint64 length and that many bytes (not NUL-terminated).
    std::string_view string(const std::string& what, std::uint64_t max_length) {
        const auto length = number<std::uint64_t>(what + "'s length");
        if (length > max_length) {
            core::refuse_file(path_, "", fmt::format("{} is {} bytes long; at most {} are allowed", what, length, max_length));
        }
        require(length, what);
        const std::string_view text = head_.substr(position_, static_cast<std::size_t>(length));
        position_ += static_cast<std::size_t>(length);
        return text;
    }

    void skip(std::uint64_t bytes, const std::string& what) {
        require(bytes, what);
        position_ += static_cast<std::size_t>(bytes);
    }

private:
    std::string_view head_;
    std::uint64_t file_size_;
    const std::string& path_;
    bool may_grow_;
    std::size_t position_ = 0;
};

// The GGUF specification caps key names at 65535 bytes; ggml caps tensor names at 64.
constexpr std::uint64_t kMaxKeyBytes = 65535;
constexpr std::uint32_t kMaxDims = 4;  // GGML_MAX_DIMS

std::size_t fixed_size(GgufType type) {
    switch (type) {
        case GgufType::uint8: case GgufType::int8: case GgufType::boolean: return 1;
        case GgufType::uint16: case GgufType::int16: return 2;
        case GgufType::uint32: case GgufType::int32: case GgufType::float32: return 4;
        case GgufType::uint64: case GgufType::int64: case GgufType::float64: return 8;
        default: return 0;  // strings and arrays have no fixed size
    }
}

bool known_type(std::uint32_t type) { return type <= static_cast<std::uint32_t>(GgufType::float64); }

// Reads one scalar or string value of `type` into `value`.
void read_scalar(Cursor& cursor, GgufType type, GgufValue& value, const std::string& what, const std::string& path) {
    value.type = type;
    switch (type) {
        case GgufType::uint8: value.integer = cursor.number<std::uint8_t>(what); break;
        case GgufType::int8: value.integer = cursor.number<std::int8_t>(what); break;
        case GgufType::uint16: value.integer = cursor.number<std::uint16_t>(what); break;
        case GgufType::int16: value.integer = cursor.number<std::int16_t>(what); break;
        case GgufType::uint32: value.integer = cursor.number<std::uint32_t>(what); break;
        case GgufType::int32: value.integer = cursor.number<std::int32_t>(what); break;
        case GgufType::int64: value.integer = cursor.number<std::int64_t>(what); break;
        case GgufType::uint64: {
            const auto raw = cursor.number<std::uint64_t>(what);
            if (raw > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
                core::refuse_file(path, "", fmt::format("{}: the value {} is too large", what, raw));
            }
            value.integer = static_cast<std::int64_t>(raw);
            break;
        }
        case GgufType::float32: value.real = cursor.number<float>(what); break;
        case GgufType::float64: value.real = cursor.number<double>(what); break;
        case GgufType::boolean: {
            const auto raw = cursor.number<std::uint8_t>(what);
            if (raw > 1) core::refuse_file(path, "", fmt::format("{}: a bool of value {}; expected 0 or 1", what, raw));
            value.integer = raw;
            break;
        }
        case GgufType::string: value.text = std::string(cursor.string(what, std::numeric_limits<std::uint64_t>::max())); break;
        case GgufType::array: break;  // handled by the caller
    }
}

GgufValue read_value(Cursor& cursor, const std::string& key, const std::string& path) {
    const std::string what = fmt::format("the value of '{}'", key);
    const auto raw_type = cursor.number<std::uint32_t>(what + "'s type");
    if (!known_type(raw_type)) core::refuse_file(path, key, fmt::format("unknown metadata value type {}; expected 0 to 12", raw_type));
    const auto type = static_cast<GgufType>(raw_type);
    GgufValue value;
    if (type != GgufType::array) {
        read_scalar(cursor, type, value, what, path);
        return value;
    }
    value.type = GgufType::array;
    const auto raw_element = cursor.number<std::uint32_t>(what + "'s element type");
    if (!known_type(raw_element)) {
        core::refuse_file(path, key, fmt::format("an array of unknown value type {}; expected 0 to 12", raw_element));
    }
    value.element_type = static_cast<GgufType>(raw_element);
    if (value.element_type == GgufType::array) {
        core::refuse_file(path, key, "an array of arrays; decodesim reads no nested arrays (no model key uses one)");
    }
    value.length = cursor.number<std::uint64_t>(what + "'s length");
    // Every element takes at least one byte (a string: its 8-byte length), so a length beyond the
    // remaining bytes is refused before any loop runs over it.
    const std::size_t element_bytes = value.element_type == GgufType::string ? 8 : fixed_size(value.element_type);
    if (value.length > cursor.remaining() / element_bytes) {
        cursor.past_end(static_cast<std::size_t>(std::min<std::uint64_t>(value.length, SIZE_MAX / element_bytes) *
                                                 element_bytes),
                        fmt::format("an array of {} elements", value.length));
    }
    if (value.element_type == GgufType::string) {
        for (std::uint64_t i = 0; i < value.length; ++i) cursor.string(what, std::numeric_limits<std::uint64_t>::max());
    } else {
        cursor.skip(value.length * element_bytes, what);
    }
    return value;
}

// The weight format named by a file type or, lacking one, the dominant tensor type; else the
// gguf_mixture format nearest in bits per weight to `bits`.
std::pair<const core::WeightFormat*, std::string> gguf_format(const GgufHeader& header, const GgufTotals& totals,
                                                              double bits) {
    std::string described;
    std::string_view name;
    if (const GgufValue* file_type = header.find("general.file_type"); file_type && file_type->is_integer()) {
        for (const auto& row : kFileTypes) {
            if (row.id == file_type->integer) {
                described = fmt::format("GGUF {}", row.name);
                name = row.format;
            }
        }
        if (described.empty()) described = fmt::format("GGUF file type {}", file_type->integer);
    } else {
        const auto dominant = ggml_type(totals.dominant_type);
        const std::string_view type_name = dominant ? dominant->name : std::string_view("?");
        described = fmt::format("GGUF, mostly {}", type_name);
        name = format_of_tensor_type(type_name);
    }
    if (!name.empty()) return {core::find_named(core::weight_formats(), name), described};
    const core::WeightFormat* nearest = nullptr;
    for (const auto& format : core::weight_formats()) {
        if (format.coverage != core::FormatCoverage::gguf_mixture) continue;
        if (nearest == nullptr || std::fabs(format.bits_per_weight - bits) < std::fabs(nearest->bits_per_weight - bits)) {
            nearest = &format;
        }
    }
    return {nearest, fmt::format("{}, nearest decodesim format {}", described, nearest ? nearest->name : "none")};
}

enum class GgufFamily { llama, qwen2, qwen3, qwen2moe, qwen3moe, gemma, gemma2, gemma3, phi3, deepseek2, glm4moe };
struct GgufArchitecture {
    const char* name;
    GgufFamily family;
};
// llama.cpp's architecture names (src/llama-arch.cpp). Mistral, Mixtral and the 2025 conversions
// of Mistral Small 3.x say "llama"; later Mistral Small conversions say "mistral3", with llama's
// keys and tensors (conversion/mistral3.py).
constexpr GgufArchitecture kArchitectures[] = {
    {"llama", GgufFamily::llama},         {"mistral3", GgufFamily::llama},    {"qwen2", GgufFamily::qwen2},
    {"qwen3", GgufFamily::qwen3},         {"qwen2moe", GgufFamily::qwen2moe}, {"qwen3moe", GgufFamily::qwen3moe},
    {"gemma", GgufFamily::gemma},         {"gemma2", GgufFamily::gemma2},     {"gemma3", GgufFamily::gemma3},
    {"phi3", GgufFamily::phi3},           {"deepseek2", GgufFamily::deepseek2}, {"glm4moe", GgufFamily::glm4moe},
};

bool is_gemma(GgufFamily family) {
    return family == GgufFamily::gemma || family == GgufFamily::gemma2 || family == GgufFamily::gemma3;
}

// Reads the <arch>.* integers of the shape, each within profiles/model_limits.hpp's range under
// the config.json key it stands for.
class ShapeReader {
public:
    ShapeReader(const GgufHeader& header, std::string prefix, std::vector<core::Diagnostic>& diagnostics)
        : header_(header), prefix_(std::move(prefix)), diagnostics_(diagnostics) {}

    std::optional<std::int64_t> integer(const std::string& suffix, const char* limit_key, bool required,
                                        std::int64_t minimum = 1) {
        const std::string key = prefix_ + suffix;
        const GgufValue* value = header_.find(key);
        if (value == nullptr) {
            if (required) fail(key, "missing required key; expected a whole number");
            return std::nullopt;
        }
        const std::int64_t maximum = model_size_limit(limit_key);
        if (!value->is_integer() || value->integer < minimum || value->integer > maximum) {
            fail(key, value->is_integer() ? fmt::format("expected a whole number from {} to {}, found {}", minimum,
                                                        maximum, value->integer)
                                          : "expected a whole number");
            return std::nullopt;
        }
        return value->integer;
    }

    void fail(const std::string& key, std::string message) {
        diagnostics_.push_back({{header_.path, 0, 0}, key, std::move(message)});
    }

private:
    const GgufHeader& header_;
    std::string prefix_;
    std::vector<core::Diagnostic>& diagnostics_;
};

const GgufTensorInfo* find_tensor(const std::vector<GgufHeader>& shards, std::string_view name) {
    for (const auto& shard : shards) {
        for (const auto& tensor : shard.tensors) {
            if (tensor.name == name) return &tensor;
        }
    }
    return nullptr;
}

}  // namespace

bool GgufValue::is_integer() const {
    return type != GgufType::float32 && type != GgufType::float64 && type != GgufType::string &&
           type != GgufType::array && type != GgufType::boolean;
}

std::optional<GgmlType> ggml_type(std::uint32_t id) {
    for (const auto& row : kGgmlTypes) {
        if (row.id == id) return row.type;
    }
    return std::nullopt;
}

const GgufValue* GgufHeader::find(const std::string& key) const {
    const auto found = metadata.find(key);
    return found == metadata.end() ? nullptr : &found->second;
}

namespace {

GgufHeader parse_header(std::string_view head, std::uint64_t file_size, const std::string& path, bool may_grow) {
    Cursor cursor(head, file_size, path, may_grow);
    GgufHeader header;
    header.path = path;
    if (head.size() < 4 || head.substr(0, 4) != "GGUF") {
        core::refuse_file(path, "", head.size() < 4 ? "truncated: shorter than the 4-byte GGUF magic"
                                         : "not a GGUF file (it does not start with the magic 'GGUF')");
    }
    cursor.skip(4, "the magic");
    header.version = cursor.number<std::uint32_t>("the version");
    if (header.version == 1) core::refuse_file(path, "", "GGUF version 1 (2023, 32-bit counts) is not supported; expected 2 or 3");
    if (header.version != 2 && header.version != 3) {
        // A big-endian file stores 3 as 0x03000000.
        core::refuse_file(path, "", fmt::format("GGUF version {} is not supported; expected 2 or 3{}", header.version,
                                     (header.version & 0x00ffffffu) == 0 && (header.version >> 24) <= 3 ? " (this file is big-endian)" : ""));
    }
    const auto tensor_count = cursor.number<std::uint64_t>("the tensor count");
    const auto kv_count = cursor.number<std::uint64_t>("the metadata count");
    // A key/value takes at least 13 bytes (8-byte key length, 4-byte type, a 1-byte value); a
    // tensor info at least 32 (name length, one dimension, type, offset).
    if (kv_count > cursor.header_room() / 13) {
        core::refuse_file(path, "", fmt::format("the header declares {} metadata entries, more than its {} bytes can hold",
                                     kv_count, cursor.header_room()));
    }
    for (std::uint64_t i = 0; i < kv_count; ++i) {
        const std::string key = core::printable(cursor.string(fmt::format("metadata key {}", i), kMaxKeyBytes));
        GgufValue value = read_value(cursor, key, path);
        if (!header.metadata.emplace(key, std::move(value)).second) {
            core::refuse_file(path, key, "duplicate metadata key; decodesim refuses to guess which one counts");
        }
    }
    if (tensor_count > cursor.header_room() / 32) {
        core::refuse_file(path, "", fmt::format("the header declares {} tensors, more than its remaining {} bytes can hold",
                                     tensor_count, cursor.header_room()));
    }
    std::uint64_t alignment = 32;  // GGUF_DEFAULT_ALIGNMENT
    if (const GgufValue* stated = header.find("general.alignment")) {
        if (!stated->is_integer() || stated->integer <= 0 || !std::has_single_bit(static_cast<std::uint64_t>(stated->integer))) {
            core::refuse_file(path, "general.alignment", "expected a power of two");
        }
        alignment = static_cast<std::uint64_t>(stated->integer);
    }
    std::set<std::string> names;  // copies: the infos move into the header
    for (std::uint64_t i = 0; i < tensor_count; ++i) {
        GgufTensorInfo tensor;
        tensor.name = core::printable(cursor.string(fmt::format("the name of tensor {}", i), kMaxKeyBytes));
        const std::string what = fmt::format("tensor '{}'", tensor.name);
        const auto n_dims = cursor.number<std::uint32_t>(what + "'s dimension count");
        if (n_dims == 0 || n_dims > kMaxDims) {
            core::refuse_file(path, tensor.name, fmt::format("{} dimensions; expected 1 to {}", n_dims, kMaxDims));
        }
        tensor.elements = 1;
        for (std::uint32_t d = 0; d < n_dims; ++d) {
            const auto dim = cursor.number<std::uint64_t>(what + "'s dimensions");
            // 2^48 per tensor is beyond any model and keeps every product exact in a double.
            if (dim == 0 || dim > (std::uint64_t{1} << 48) / tensor.elements) {
                core::refuse_file(path, tensor.name, fmt::format("a dimension of {} gives a tensor larger than 2^48 elements or empty",
                                                      dim));
            }
            tensor.dims.push_back(dim);
            tensor.elements *= dim;
        }
        tensor.type = cursor.number<std::uint32_t>(what + "'s type");
        tensor.offset = cursor.number<std::uint64_t>(what + "'s offset");
        const auto type = ggml_type(tensor.type);
        if (!type) core::refuse_file(path, tensor.name, fmt::format("ggml type {} is not one decodesim knows", tensor.type));
        if (tensor.dims[0] % type->block_size != 0) {
            core::refuse_file(path, tensor.name, fmt::format("rows of {} weights do not fill whole {} blocks of {}", tensor.dims[0],
                                                  type->name, type->block_size));
        }
        tensor.bytes = tensor.elements / type->block_size * type->block_bytes;
        if (tensor.offset % alignment != 0) {
            core::refuse_file(path, tensor.name, fmt::format("data offset {} is not a multiple of the alignment {}", tensor.offset,
                                                  alignment));
        }
        if (!names.insert(tensor.name).second) core::refuse_file(path, tensor.name, "a tensor name given twice");
        header.tensors.push_back(std::move(tensor));
    }
    // The data section starts at the next multiple of the alignment; every tensor must lie in the file.
    const std::uint64_t data_start = (cursor.position() + alignment - 1) / alignment * alignment;
    for (const auto& tensor : header.tensors) {
        if (tensor.offset > file_size || tensor.bytes > file_size - tensor.offset ||
            data_start > file_size - tensor.offset - tensor.bytes) {
            core::refuse_file(path, tensor.name, fmt::format("its {} bytes of data at offset {} run past the end of the {}-byte "
                                                  "file (an incomplete download?)",
                                                  tensor.bytes, data_start + tensor.offset, file_size));
        }
    }
    return header;
}

}  // namespace

GgufHeader parse_gguf_header(std::string_view head, std::uint64_t file_size, const std::string& path) {
    return parse_header(head, file_size, path, false);
}

GgufHeader read_gguf_header(const std::string& path) {
    for (std::size_t size = std::size_t{1} << 20;; size = std::min(size * 8, kMaxGgufHeaderBytes)) {
        const FileHead head = read_file_head(path, size);
        try {
            return parse_header(head.bytes, head.file_size, path, true);
        } catch (const HeadTooShort&) {
            continue;  // cannot loop forever: the cap or the file's end stops the growth
        }
    }
}

const std::vector<std::string>& supported_gguf_architectures() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> list;
        for (const auto& entry : kArchitectures) list.emplace_back(entry.name);
        return list;
    }();
    return names;
}

GgufTotals gguf_totals(const std::vector<GgufHeader>& shards) {
    GgufTotals totals;
    std::map<std::uint32_t, double> weights_by_type;
    for (const auto& shard : shards) {
        for (const auto& tensor : shard.tensors) {
            totals.weights += static_cast<double>(tensor.elements);
            totals.bytes += static_cast<double>(tensor.bytes);
            weights_by_type[tensor.type] += static_cast<double>(tensor.elements);
        }
    }
    double most = -1;
    for (const auto& [type, weights] : weights_by_type) {
        if (weights > most) {
            most = weights;
            totals.dominant_type = type;
        }
    }
    return totals;
}

namespace {

// The roles a llama.cpp tensor name stands for (src/llama-arch.cpp's LLM_TENSOR_* names), and
// whether it is a routed expert's 3-D tensor. A fused QKV tensor stands for all three; the MLA
// tensors map as the cost model prices MLA (q: attn_q_a and attn_q_b; k: the kv down-projection
// attn_kv_a_mqa; v: the kv up-projection attn_kv_b, or its split attn_k_b and attn_v_b). Names
// the cost model does not price (norms, routers, convolutions) stand for none.
struct TensorRoles {
    std::vector<core::TensorRole> roles;
    bool routed = false;
};

TensorRoles roles_of(std::string_view name) {
    using core::TensorRole;
    const bool routed = name.ends_with("_exps");
    if (name == "attn_q" || name == "attn_q_a" || name == "attn_q_b") return {{TensorRole::attn_q}};
    if (name == "attn_k" || name == "attn_kv_a_mqa") return {{TensorRole::attn_k}};
    if (name == "attn_v" || name == "attn_kv_b" || name == "attn_k_b" || name == "attn_v_b") return {{TensorRole::attn_v}};
    if (name == "attn_qkv") return {{TensorRole::attn_q, TensorRole::attn_k, TensorRole::attn_v}};
    if (name == "attn_output") return {{TensorRole::attn_output}};
    for (std::string_view stem : {"ffn_gate", "ffn_up", "ffn_gate_up"}) {
        if (name == stem || name == std::string(stem) + "_exps" || name == std::string(stem) + "_shexp") {
            return {{TensorRole::mlp_gate_up}, routed};
        }
    }
    if (name == "ffn_down" || name == "ffn_down_exps" || name == "ffn_down_shexp") return {{TensorRole::mlp_down}, routed};
    return {};
}

// The file's tensor types by layer and role, weighted by each tensor's weights.
std::shared_ptr<const core::StoredTensorBits> stored_tensor_bits(const std::vector<GgufHeader>& shards, int num_layers) {
    if (num_layers <= 0) return nullptr;
    constexpr int kRoles = core::StoredTensorBits::kRoles;
    struct Sum {
        double bytes = 0, weights = 0;
        double bits() const { return weights > 0 ? 8.0 * bytes / weights : 0.0; }
    };
    std::vector<std::array<Sum, 2 * kRoles>> layers(static_cast<std::size_t>(num_layers));
    Sum embedding, lm_head;
    for (const auto& shard : shards) {
        for (const auto& tensor : shard.tensors) {
            const std::string_view name = tensor.name;
            const auto add = [&](Sum& sum) {
                sum.bytes += static_cast<double>(tensor.bytes);
                sum.weights += static_cast<double>(tensor.elements);
            };
            if (name == "token_embd.weight") add(embedding);
            if (name == "output.weight") add(lm_head);
            if (!name.starts_with("blk.") || !name.ends_with(".weight")) continue;
            const std::size_t dot = name.find('.', 4);
            if (dot == std::string_view::npos) continue;
            int layer = -1;
            const auto digits = name.substr(4, dot - 4);
            if (std::from_chars(digits.data(), digits.data() + digits.size(), layer).ec != std::errc{} || layer < 0 ||
                layer >= num_layers) {
                continue;  // NextN/MTP blocks past the stack are not priced
            }
            const TensorRoles found = roles_of(name.substr(dot + 1, name.size() - dot - 1 - std::string_view(".weight").size()));
            for (const core::TensorRole role : found.roles) {
                add(layers[static_cast<std::size_t>(layer)][static_cast<std::size_t>(role) + (found.routed ? kRoles : 0)]);
            }
        }
    }
    auto table = std::make_shared<core::StoredTensorBits>();
    table->embedding = embedding.bits();
    // A tied model's one matrix is its output matrix as well (llama.cpp writes no output.weight).
    table->lm_head = lm_head.weights > 0 ? lm_head.bits() : embedding.bits();
    for (const auto& sums : layers) {
        core::StoredTensorBits::Layer layer;
        for (int role = 0; role < kRoles; ++role) {
            layer.bits[role] = sums[static_cast<std::size_t>(role)].bits();
            layer.routed_bits[role] = sums[static_cast<std::size_t>(role + kRoles)].bits();
        }
        table->layers.push_back(layer);
    }
    return table;
}

}  // namespace

void take_gguf_storage(ModelProfile& model, const std::vector<GgufHeader>& shards) {
    const GgufTotals totals = gguf_totals(shards);
    if (totals.weights <= 0) return;
    model.checkpoint_parameters = totals.weights;
    model.checkpoint_bytes = totals.bytes;
    model.checkpoint_bits_per_weight = 8.0 * totals.bytes / totals.weights;
    const auto [format, described] = gguf_format(shards.front(), totals, *model.checkpoint_bits_per_weight);
    model.checkpoint_weights = format;
    model.checkpoint_quantization = described;
    model.stored_tensor_bits = stored_tensor_bits(shards, model.num_hidden_layers);
}

ModelProfile model_from_gguf(const std::vector<GgufHeader>& shards) {
    const GgufHeader& header = shards.front();
    const std::string& path = header.path;
    const GgufValue* architecture = header.find("general.architecture");
    if (architecture == nullptr || architecture->type != GgufType::string) {
        core::refuse_file(path, "general.architecture", "missing, or not a string; a GGUF model names its architecture");
    }
    const std::string arch = core::printable(architecture->text);
    const GgufArchitecture* entry = nullptr;
    for (const auto& candidate : kArchitectures) {
        if (arch == candidate.name) entry = &candidate;
    }
    if (entry == nullptr) {
        core::refuse_file(path, "general.architecture",
               fmt::format("architecture '{}' is not one decodesim maps{}; supported: {} (or use the model's config.json)",
                           arch, core::suggestion_note(arch, supported_gguf_architectures()),
                           fmt::join(supported_gguf_architectures(), " ")));
    }
    std::vector<core::Diagnostic> diagnostics;
    ShapeReader shape(header, arch + ".", diagnostics);
    ModelProfile model;
    model.id = id_from_path(path);
    if (const GgufValue* name = header.find("general.name"); name && name->type == GgufType::string) {
        model.name = core::printable(name->text);
    } else {
        model.name = model.id;
    }
    model.source = path;
    // Gemma's MLP is GeGLU (gelu_pytorch_tanh); every other architecture above uses SwiGLU.
    model.hidden_act = is_gemma(entry->family) ? "gelu_pytorch_tanh" : "silu";
    model.num_hidden_layers = static_cast<int>(shape.integer("block_count", "num_hidden_layers", true).value_or(0));
    if (entry->family == GgufFamily::glm4moe) {
        // GLM's block_count includes its multi-token-prediction (NextN) blocks, which the forward
        // pass skips (conversion/glm.py; GLM-4.5: 92 + 1 = 93).
        const auto nextn = shape.integer("nextn_predict_layers", "num_nextn_predict_layers", false, 0).value_or(0);
        if (nextn >= model.num_hidden_layers) {
            shape.fail(entry->name + std::string(".nextn_predict_layers"),
                       fmt::format("{} NextN layers of a {}-block file leave no transformer layer", nextn,
                                   model.num_hidden_layers));
        } else {
            model.num_hidden_layers -= static_cast<int>(nextn);
            model.mtp_layers = static_cast<int>(nextn);
        }
    }
    model.hidden_size = shape.integer("embedding_length", "hidden_size", true).value_or(0);
    model.num_attention_heads = static_cast<int>(shape.integer("attention.head_count", "num_attention_heads", true).value_or(0));
    model.num_key_value_heads = static_cast<int>(
        shape.integer("attention.head_count_kv", "num_key_value_heads", false).value_or(model.num_attention_heads));
    const auto key_length = shape.integer("attention.key_length", "head_dim", false);
    model.head_dim = key_length.value_or(model.num_attention_heads > 0 ? model.hidden_size / model.num_attention_heads : 0);
    model.max_position_embeddings = shape.integer("context_length", "max_position_embeddings", false);

    // Vocabulary: the tokenizer's token list, else the embedding table's second dimension.
    if (const GgufValue* tokens = header.find("tokenizer.ggml.tokens"); tokens && tokens->type == GgufType::array) {
        model.vocab_size = static_cast<std::int64_t>(tokens->length);
    } else if (const GgufTensorInfo* embedding = find_tensor(shards, "token_embd.weight"); embedding && embedding->dims.size() >= 2) {
        model.vocab_size = static_cast<std::int64_t>(embedding->dims[1]);
    } else {
        shape.fail("tokenizer.ggml.tokens", "no token list and no token_embd.weight tensor to give the vocabulary size");
    }
    if (model.vocab_size > kMaxVocabulary) {
        shape.fail("tokenizer.ggml.tokens", fmt::format("a vocabulary of {} tokens; at most {}", model.vocab_size, kMaxVocabulary));
    }
    // llama.cpp writes output.weight only when the output matrix is not the embedding's.
    model.tie_word_embeddings = find_tensor(shards, "output.weight") == nullptr;

    // Gemma 2 and 3 store the window but not which layers slide: llama.cpp fixes every second
    // (Gemma 2) and every sixth (Gemma 3) layer as global (set_swa_pattern 2 and 6), as their
    // configs do. A Gemma 3 file without a window has none. Phi-3's window is not applied by
    // llama.cpp ("Phi SWA is currently disabled"), so a phi3 file runs full attention.
    if (entry->family == GgufFamily::gemma2 || entry->family == GgufFamily::gemma3) {
        const auto window = shape.integer("attention.sliding_window", "sliding_window", entry->family == GgufFamily::gemma2, 0);
        if (window.value_or(0) > 0) model.sliding_window = SlidingWindow{*window, entry->family == GgufFamily::gemma2 ? 2 : 6};
    }

    // DeepSeek's multi-head latent attention (conversion/deepseek.py): the latent and rope widths,
    // and the per-head key and value widths, which files written since llama.cpp split MLA's
    // kv_b (2025) state as key_length_mla/value_length_mla (their key_length is then the latent's).
    if (entry->family == GgufFamily::deepseek2) {
        LatentAttention mla;
        mla.kv_lora_rank = shape.integer("attention.kv_lora_rank", "kv_lora_rank", true).value_or(0);
        mla.q_lora_rank = shape.integer("attention.q_lora_rank", "q_lora_rank", false, 0).value_or(0);
        mla.qk_rope_head_dim = shape.integer("rope.dimension_count", "qk_rope_head_dim", true).value_or(0);
        const bool split = header.find(arch + ".attention.key_length_mla") != nullptr;
        const auto qk_head = shape.integer(split ? "attention.key_length_mla" : "attention.key_length", "head_dim", true);
        const auto value = shape.integer(split ? "attention.value_length_mla" : "attention.value_length", "v_head_dim", true);
        if (qk_head && *qk_head <= mla.qk_rope_head_dim) {
            shape.fail(arch + (split ? ".attention.key_length_mla" : ".attention.key_length"),
                       fmt::format("a key width of {} leaves nothing beside the {} rope dimensions", *qk_head,
                                   mla.qk_rope_head_dim));
        }
        mla.qk_nope_head_dim = qk_head.value_or(0) - mla.qk_rope_head_dim;
        mla.v_head_dim = value.value_or(0);
        model.head_dim = qk_head.value_or(0);
        model.num_key_value_heads = model.num_attention_heads;  // the file says 1: MLA run as MQA
        model.mla = mla;
    }

    const auto experts = shape.integer("expert_count", "num_experts", false, 0);
    const bool moe = entry->family == GgufFamily::qwen2moe || entry->family == GgufFamily::qwen3moe ||
                     entry->family == GgufFamily::deepseek2 || entry->family == GgufFamily::glm4moe ||
                     experts.value_or(0) > 0;
    if (!moe) {
        model.intermediate_size = shape.integer("feed_forward_length", "intermediate_size", true).value_or(0);
    } else {
        MixtureOfExperts routed;
        routed.n_routed_experts = static_cast<int>(shape.integer("expert_count", "num_experts", true).value_or(0));
        routed.num_experts_per_tok =
            static_cast<int>(shape.integer("expert_used_count", "num_experts_per_tok", true).value_or(0));
        if (entry->family == GgufFamily::llama) {
            // Mixtral-style: every layer's MLP is the experts, each of feed_forward_length.
            routed.moe_intermediate_size = shape.integer("feed_forward_length", "intermediate_size", true).value_or(0);
        } else {
            routed.moe_intermediate_size =
                shape.integer("expert_feed_forward_length", "moe_intermediate_size", true).value_or(0);
            if (const auto shared = shape.integer("expert_shared_feed_forward_length", "shared_expert_intermediate_size", false)) {
                routed.n_shared_experts = 1;
                routed.shared_expert_intermediate_size = *shared;
            }
            if (entry->family == GgufFamily::qwen2moe) {
                model.intermediate_size = shape.integer("feed_forward_length", "intermediate_size", false).value_or(0);
            }
            // DeepSeek and GLM: n shared experts of the expert width (llama.cpp fuses them into one
            // *_shexp FFN of that width times n), and dense leading layers of feed_forward_length.
            if (entry->family == GgufFamily::deepseek2 || entry->family == GgufFamily::glm4moe) {
                routed.n_shared_experts = static_cast<int>(
                    shape.integer("expert_shared_count", "n_shared_experts", false, 0).value_or(0));
                routed.shared_expert_intermediate_size = routed.moe_intermediate_size;
                routed.first_k_dense_replace = static_cast<int>(
                    shape.integer("leading_dense_block_count", "first_k_dense_replace", false, 0).value_or(0));
                if (routed.first_k_dense_replace > 0) {
                    model.intermediate_size = shape.integer("feed_forward_length", "intermediate_size", true).value_or(0);
                }
            }
        }
        if (routed.shared_expert_intermediate_size == 0) routed.shared_expert_intermediate_size = routed.moe_intermediate_size;
        model.moe = routed;
    }

    take_gguf_storage(model, shards);

    if (diagnostics.empty()) {
        check_model_consistency(
            model, [&path](const std::string&) { return core::SourceLocation{path, 0, 0}; }, diagnostics);
    }
    if (!diagnostics.empty()) throw core::InputError(std::move(diagnostics));
    return model;
}

ModelProfile load_gguf_model(const std::string& path) { return model_from_gguf({read_gguf_header(path)}); }

}  // namespace decodesim::profiles
