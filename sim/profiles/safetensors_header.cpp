#include "profiles/safetensors_header.hpp"

#include <fmt/format.h>

#include <optional>
#include <yaml-cpp/yaml.h>

#include <cstring>
#include <set>

#include "core/error.hpp"
#include "core/units.hpp"
#include "core/text_escape.hpp"
#include "profiles/checkpoint_folder.hpp"
#include "profiles/strict_map.hpp"

namespace decodesim::profiles {
namespace {

// Bytes per element of each dtype the safetensors format defines (its Dtype enum); 0 for the ones
// narrower than a byte (F4, F6_*), whose size is taken from the data offsets alone; nullopt for a
// name the format does not define, which is refused (a misread header, not a format to guess).
std::optional<int> dtype_bytes(std::string_view dtype) {
    if (dtype == "BOOL" || dtype == "U8" || dtype == "I8" || dtype == "F8_E4M3" || dtype == "F8_E5M2" ||
        dtype == "F8_E8M0") {
        return 1;
    }
    if (dtype == "F16" || dtype == "BF16" || dtype == "I16" || dtype == "U16") return 2;
    if (dtype == "F32" || dtype == "I32" || dtype == "U32") return 4;
    if (dtype == "F64" || dtype == "I64" || dtype == "U64" || dtype == "C64") return 8;
    if (dtype == "F4" || dtype == "F6_E2M3" || dtype == "F6_E3M2") return 0;
    return std::nullopt;
}

constexpr std::string_view kDtypeNames =
    "BOOL, F4, F6_E2M3, F6_E3M2, U8, I8, F8_E5M2, F8_E4M3, F8_E8M0, I16, U16, F16, BF16, I32, U32, F32, F64, C64, I64, U64";

bool is_float(std::string_view dtype) { return dtype.starts_with("F") || dtype == "BF16"; }

// Scales and zero points of quantized checkpoints: FP8 (weight_scale, weight_scale_inv,
// input_scale), AWQ/GPTQ (scales, qzeros, g_idx), MXFP4 (*_scales), NVFP4 (weight_scale_2).
bool is_scale(std::string_view name) {
    for (const std::string_view suffix : {"_scale", "_scales", ".scales", "scale_inv", "_scale_2", "qzeros", "g_idx"}) {
        if (name.ends_with(suffix)) return true;
    }
    return false;
}

std::uint64_t whole_number(const YAML::Node& node, const std::string& path, const std::string& key, const char* what) {
    std::int64_t value = 0;
    if (!node.IsScalar() || !core::parse_whole_number(node.Scalar(), value) || value < 0) {
        core::refuse_file(path, key, fmt::format("{}: expected a whole number, found '{}'", what,
                                      node.IsScalar() ? core::printable(node.Scalar()) : "a list or an object"));
    }
    return static_cast<std::uint64_t>(value);
}

}  // namespace

void SafetensorsSummary::add(const SafetensorsSummary& other) {
    for (const auto& [dtype, count] : other.bytes_by_dtype) bytes_by_dtype[dtype] += count;
    bytes += other.bytes;
    scale_bytes += other.scale_bytes;
    weights += other.weights;
    weights_exact = weights_exact && other.weights_exact;
    tensors += other.tensors;
}

std::optional<double> SafetensorsSummary::bits_per_weight() const {
    if (!weights_exact || weights <= 0) return std::nullopt;
    return 8.0 * bytes / weights;
}

SafetensorsSummary parse_safetensors_header(std::string_view head, std::uint64_t file_size, const std::string& path) {
    if (head.size() < 8) core::refuse_file(path, "", "truncated: shorter than the 8-byte safetensors header length");
    unsigned char raw[8];
    std::memcpy(raw, head.data(), 8);
    std::uint64_t length = 0;
    for (int i = 7; i >= 0; --i) length = (length << 8) | raw[i];  // little-endian whatever the host
    if (length > kMaxSafetensorsHeaderBytes) {
        core::refuse_file(path, "", fmt::format("the header claims {} bytes; safetensors allows at most {} (not a safetensors "
                                     "file?)",
                                     length, kMaxSafetensorsHeaderBytes));
    }
    if (length > file_size - 8 || length > head.size() - 8) {
        core::refuse_file(path, "", fmt::format("truncated: the header claims {} bytes but the file holds {} after the length",
                                     length, file_size - 8));
    }
    const std::uint64_t data_size = file_size - 8 - length;
    const YAML::Node document = parse_document(std::string(head.substr(8, static_cast<std::size_t>(length))), path);
    if (!document.IsMap()) core::refuse_file(path, "", "the header is not a JSON object");

    SafetensorsSummary summary;
    std::set<std::string> seen;
    for (const auto& entry : document) {
        const std::string name = core::printable(entry.first.Scalar());
        if (name == "__metadata__") continue;
        if (!seen.insert(name).second) core::refuse_file(path, name, "a tensor named twice");
        const YAML::Node tensor = entry.second;
        if (!tensor.IsMap() || !tensor["dtype"] || !tensor["shape"] || !tensor["data_offsets"]) {
            core::refuse_file(path, name, "expected an object with dtype, shape and data_offsets");
        }
        const std::string dtype = tensor["dtype"].IsScalar() ? core::printable(tensor["dtype"].Scalar()) : "";
        if (dtype.empty()) core::refuse_file(path, name, "dtype: expected a string");
        const YAML::Node shape = tensor["shape"];
        const YAML::Node offsets = tensor["data_offsets"];
        if (!shape.IsSequence()) core::refuse_file(path, name, "shape: expected a list of whole numbers");
        if (!offsets.IsSequence() || offsets.size() != 2) core::refuse_file(path, name, "data_offsets: expected [begin, end]");
        double elements = 1;
        for (const auto& dim : shape) {
            elements *= static_cast<double>(whole_number(dim, path, name, "shape"));
            if (elements > 1e15) core::refuse_file(path, name, "shape: more than 10^15 elements in one tensor");
        }
        const std::uint64_t begin = whole_number(offsets[0], path, name, "data_offsets");
        const std::uint64_t end = whole_number(offsets[1], path, name, "data_offsets");
        if (begin > end || end > data_size) {
            core::refuse_file(path, name, fmt::format("data_offsets [{}, {}] lie outside the {} bytes of data in the file (an "
                                           "incomplete download?)",
                                           begin, end, data_size));
        }
        const double bytes = static_cast<double>(end - begin);
        const std::optional<int> size = dtype_bytes(dtype);
        if (!size) {
            core::refuse_file(path, name, fmt::format("dtype '{}' is not one the safetensors format defines ({})", dtype, kDtypeNames));
        }
        if (*size > 0 && elements * *size != bytes) {
            core::refuse_file(path, name, fmt::format("{} elements of {} take {} bytes, but data_offsets span {}", elements, dtype,
                                           elements * *size, bytes));
        }
        summary.bytes_by_dtype[dtype] += bytes;
        summary.bytes += bytes;
        summary.tensors += 1;
        if (is_scale(name)) {
            summary.scale_bytes += bytes;
        } else if (dtype == "U8" && name.ends_with("_blocks")) {
            summary.weights += 2 * bytes;
        } else if (is_float(dtype) || dtype == "I8") {
            summary.weights += elements;
        } else {
            summary.weights_exact = false;
        }
    }
    return summary;
}

SafetensorsSummary read_safetensors_header(const std::string& path) {
    // The length first, then exactly the header it announces: never the tensor data.
    const FileHead length_bytes = read_file_head(path, 8);
    if (length_bytes.bytes.size() < 8) return parse_safetensors_header(length_bytes.bytes, length_bytes.file_size, path);
    std::uint64_t length = 0;
    for (int i = 7; i >= 0; --i) length = (length << 8) | static_cast<unsigned char>(length_bytes.bytes[i]);
    const FileHead head = read_file_head(path, 8 + std::min<std::uint64_t>(length, kMaxSafetensorsHeaderBytes));
    return parse_safetensors_header(head.bytes, head.file_size, path);
}

SafetensorsIndex parse_safetensors_index(const std::string& text, const std::string& path) {
    const YAML::Node document = parse_document(text, path);
    if (!document.IsMap()) core::refuse_file(path, "", "expected a JSON object");
    const YAML::Node map = document["weight_map"];
    if (!map || !map.IsMap()) core::refuse_file(path, "weight_map", "missing, or not an object of tensor name to file");
    SafetensorsIndex index;
    std::set<std::string> shards;
    for (const auto& entry : map) {
        const std::string file = entry.second.IsScalar() ? entry.second.Scalar() : "";
        // A shard is a file beside the index: no folders, no way out of the model folder.
        if (file.empty() || file.find('/') != std::string::npos || file == "." || file == "..") {
            core::refuse_file(path, "weight_map." + core::printable(entry.first.Scalar()),
                   fmt::format("'{}' is not a file name in the model folder", core::printable(file)));
        }
        shards.insert(file);
    }
    index.shards.assign(shards.begin(), shards.end());
    if (const YAML::Node metadata = document["metadata"]; metadata && metadata.IsMap() && metadata["total_size"]) {
        const YAML::Node total = metadata["total_size"];
        double value = 0;
        if (!total.IsScalar() || !core::parse_number(total.Scalar(), value) || value < 0) {
            core::refuse_file(path, "metadata.total_size", "expected a number of bytes");
        }
        index.total_size = value;
    }
    return index;
}

}  // namespace decodesim::profiles
