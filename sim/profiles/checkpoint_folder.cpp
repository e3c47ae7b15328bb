#include "profiles/checkpoint_folder.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>

#include "core/error.hpp"
#include "core/text_escape.hpp"
#include "profiles/gguf_header.hpp"
#include "profiles/hf_config.hpp"
#include "profiles/input_file.hpp"
#include "profiles/profile_id.hpp"
#include "profiles/safetensors_header.hpp"

namespace decodesim::profiles {
namespace fs = std::filesystem;

namespace {

// The regular files in `folder` whose names end with `extension`, sorted.
std::vector<std::string> files_ending(const fs::path& folder, std::string_view extension) {
    std::vector<std::string> names;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(folder, error)) {
        const std::string name = entry.path().filename().string();
        if (name.ends_with(extension) && entry.is_regular_file(error)) names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    return names;
}

// The GGUF checkpoint of a folder: its only .gguf, or every shard of one split file
// ("<name>-00001-of-00003.gguf", as llama.cpp's gguf-split names them). Vision projectors
// (mmproj*.gguf) ship beside the language model and are not part of it.
std::vector<std::string> gguf_checkpoint(const fs::path& folder) {
    std::vector<std::string> files;
    for (auto& name : files_ending(folder, ".gguf")) {
        if (!name.starts_with("mmproj")) files.push_back((folder / name).string());
    }
    if (files.size() <= 1) return files;
    static const std::regex split(R"((.*)-(\d{5})-of-(\d{5})\.gguf)");
    std::smatch first;
    const std::string first_name = fs::path(files.front()).filename().string();
    bool one_split_set = std::regex_match(first_name, first, split) &&
                         std::stoul(first[3].str()) == files.size();
    for (std::size_t i = 0; one_split_set && i < files.size(); ++i) {
        const std::string name = fs::path(files[i]).filename().string();
        std::smatch part;
        one_split_set = std::regex_match(name, part, split) && part[1] == first[1] && part[3] == first[3] &&
                        std::stoul(part[2].str()) == i + 1;
    }
    if (!one_split_set) {
        std::vector<std::string> names;
        for (const auto& file : files) names.push_back(fs::path(file).filename().string());
        core::refuse_file(folder.string(), "", fmt::format("holds {} .gguf files ({}) that are not the shards of one checkpoint; pass "
                                            "the one meant: --model {}",
                                            files.size(), fmt::join(names, ", "), files.front()));
    }
    return files;
}

// Beside a config.json, which gives the shape, a GGUF only says what it stores: its architecture
// need not be one decodesim maps (docs/profiles.md, "Model folders": config.json first).
void take_gguf_checkpoint(ModelProfile& model, const std::vector<GgufHeader>& shards) {
    ModelProfile from_files;
    from_files.num_hidden_layers = model.num_hidden_layers;  // the layers whose tensors are read
    take_gguf_storage(from_files, shards);
    model.checkpoint_parameters = from_files.checkpoint_parameters;
    model.checkpoint_bytes = from_files.checkpoint_bytes;
    model.checkpoint_bits_per_weight = from_files.checkpoint_bits_per_weight;
    // config.json's quantization_config, where stated, describes the same weights; else the files say.
    if (model.checkpoint_weights == nullptr && model.checkpoint_quantization.empty()) {
        model.checkpoint_weights = from_files.checkpoint_weights;
        model.checkpoint_quantization = from_files.checkpoint_quantization;
        model.stored_tensor_bits = from_files.stored_tensor_bits;
    }
}

void take_safetensors_checkpoint(ModelProfile& model, const fs::path& folder) {
    const fs::path index_path = folder / "model.safetensors.index.json";
    std::vector<std::string> shards;
    std::optional<double> index_total;
    if (path_kind(index_path.string()) == PathKind::regular_file) {
        const SafetensorsIndex index = parse_safetensors_index(read_input_file(index_path.string(), std::size_t{64} << 20,
                                                                               "an index is at most a few MB"),
                                                               index_path.string());
        index_total = index.total_size;
        bool all_present = true;
        for (const auto& shard : index.shards) {
            all_present = all_present && path_kind((folder / shard).string()) == PathKind::regular_file;
        }
        // Without its shards (only config and index downloaded), the index still gives the bytes.
        if (!all_present) {
            model.checkpoint_bytes = index_total;
            return;
        }
        shards = index.shards;
    } else {
        shards = files_ending(folder, ".safetensors");
    }
    if (shards.empty()) return;
    SafetensorsSummary summary;
    for (const auto& shard : shards) summary.add(read_safetensors_header((folder / shard).string()));
    model.checkpoint_bytes = summary.bytes;
    if (const auto bits = summary.bits_per_weight()) {
        model.checkpoint_parameters = summary.weights;
        model.checkpoint_bits_per_weight = bits;
    }
}

}  // namespace

FileHead read_file_head(const std::string& path, std::size_t max_bytes) {
    // Anything but a regular file gets read_input_file's message for it (missing, folder, FIFO, ...).
    if (path_kind(path) != PathKind::regular_file) read_input_file(path);
    std::ifstream file(path, std::ios::binary);
    if (!file) core::refuse_file(path, "", "cannot open the file");
    FileHead head;
    std::error_code error;
    head.file_size = fs::file_size(path, error);
    if (error) core::refuse_file(path, "", fmt::format("cannot read the file's size: {}", error.message()));
    head.bytes.resize(static_cast<std::size_t>(std::min<std::uint64_t>(head.file_size, max_bytes)));
    file.read(head.bytes.data(), static_cast<std::streamsize>(head.bytes.size()));
    head.bytes.resize(static_cast<std::size_t>(file.gcount()));  // a file that shrank while read
    return head;
}

namespace {

// Whether anything stands at the folder's config.json: a file, but also a link loop, a FIFO or a
// folder, which read_input_file then names, rather than the folder seeming to hold no config.json.
bool has_config_entry(const fs::path& folder) {
    std::error_code error;
    return fs::symlink_status(folder / "config.json", error).type() != fs::file_type::not_found && !error;
}

}  // namespace

bool is_model_folder(const std::string& folder) {
    if (path_kind(folder) != PathKind::folder) return false;
    return has_config_entry(folder) || !files_ending(folder, ".gguf").empty();
}

ModelProfile load_model_folder(const std::string& folder_name) {
    const fs::path folder(folder_name);
    const fs::path config = folder / "config.json";
    const std::vector<std::string> ggufs = gguf_checkpoint(folder);
    const auto read_ggufs = [&ggufs] {
        std::vector<GgufHeader> shards;
        for (const auto& file : ggufs) shards.push_back(read_gguf_header(file));
        return shards;
    };
    ModelProfile model;
    if (has_config_entry(folder)) {
        model = load_hf_config(config.string());  // read_input_file refuses a loop, a FIFO or a folder by name
        const bool has_safetensors = path_kind((folder / "model.safetensors.index.json").string()) == PathKind::regular_file ||
                                     !files_ending(folder, ".safetensors").empty();
        if (has_safetensors) {
            take_safetensors_checkpoint(model, folder);
        } else if (!ggufs.empty()) {
            take_gguf_checkpoint(model, read_ggufs());
        }
    } else if (!ggufs.empty()) {
        model = model_from_gguf(read_ggufs());
    } else {
        core::refuse_file(folder_name, "", "a folder without a config.json or a .gguf file; expected a model profile YAML, a "
                            "config.json, a .gguf file, or a Hugging Face model folder holding config.json");
    }
    // A model folder names the model (".../Llama-3.1-8B/config.json" is "Llama-3.1-8B").
    const fs::path normal = folder.lexically_normal();
    const std::string name = (normal.has_filename() ? normal.filename() : normal.parent_path().filename()).string();
    if (!name.empty() && name != "." && name != "..") model.id = id_from_path(name + ".json");
    return model;
}

}  // namespace decodesim::profiles
