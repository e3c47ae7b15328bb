#include "profiles/catalog.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fmt/ranges.h>

#include "core/error.hpp"
#include "core/suggest.hpp"
#include "profiles/checkpoint_folder.hpp"
#include "profiles/gguf_header.hpp"
#include "profiles/hardware_loader.hpp"
#include "profiles/hf_config.hpp"
#include "profiles/input_file.hpp"
#include "profiles/model_loader.hpp"
#include "profiles/profile_id.hpp"
#include "profiles/residual_band_table.hpp"
#include "profiles/runtime_loader.hpp"
#include "profiles/strict_map.hpp"

namespace decodesim::profiles {
namespace fs = std::filesystem;

namespace {

std::vector<std::string> ids_in(const fs::path& folder) {
    std::vector<std::string> ids;
    std::error_code error;
    // Only files are profiles: a folder named "x.yaml" is no id (it would be suggested as itself).
    for (const auto& entry : fs::directory_iterator(folder, error)) {
        if (entry.path().extension() == ".yaml" && path_kind(entry.path().string()) == PathKind::regular_file) {
            ids.push_back(entry.path().stem().string());
        }
    }
    std::sort(ids.begin(), ids.end());
    return ids;
}

bool looks_like_path(const std::string& text) {
    return text.find('/') != std::string::npos || text.ends_with(".yaml") || text.ends_with(".yml") ||
           text.ends_with(".json") || text.ends_with(".gguf");
}

std::string resolve(const std::string& id_or_path, const fs::path& folder, const std::vector<std::string>& ids,
                    const char* what) {
    if (looks_like_path(id_or_path)) {
        if (path_kind(id_or_path) == PathKind::folder) {
            throw core::InputError(core::Diagnostic{
                {id_or_path, 0, 0}, "",
                what[0] == 'm' ? "a folder without a config.json or a .gguf file; expected a model profile YAML, a "
                                 "config.json, a .gguf file, or a Hugging Face model folder holding config.json"
                               : "a folder; expected a hardware profile YAML"});
        }
        return id_or_path;  // read_input_file names whatever else is wrong with it
    }
    const fs::path candidate = folder / (id_or_path + ".yaml");
    // Anything else standing at the id's file (a folder, a link loop, a FIFO) is named by the
    // reader, rather than reported as an unknown id.
    std::error_code error;
    if (fs::symlink_status(candidate, error).type() != fs::file_type::not_found && !error) return candidate.string();
    if (ids.empty()) {
        throw core::InputError(core::unlocated(
            "", fmt::format("unknown {} '{}': the folder {} holds no profiles (is --profiles-dir right?)", what,
                            id_or_path, folder.string())));
    }
    throw core::InputError(core::unlocated(
        "", fmt::format("unknown {} '{}'{} (list them with: decodesim profiles list {})", what, id_or_path,
                        core::did_you_mean(id_or_path, ids), what[0] == 'h' ? "hardware" : "models")));
}

}  // namespace

Catalog::Catalog(std::string root, std::string hf_hub_cache)
    : root_(std::move(root)), hf_hub_cache_(std::move(hf_hub_cache)) {
    require_folder(root_, "the profiles folder");
}

std::optional<std::string> Catalog::hf_cache_snapshot(const std::string& id_or_path) const {
    if (!is_hf_repo_id(id_or_path) || path_kind(id_or_path) != PathKind::missing) return std::nullopt;
    if (auto snapshot = find_hf_snapshot(hf_hub_cache_, id_or_path)) return snapshot;
    // A shipped profile of the same name is offered, not taken: the cached config may be a fine-tune.
    std::string name = id_or_path.substr(id_or_path.find('/') + 1);
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    const std::vector<std::string> ids = model_ids();
    const std::string shipped = std::find(ids.begin(), ids.end(), name) != ids.end()
                                    ? fmt::format("; the shipped profile '{}' may be the one meant: --model {}", name, name)
                                    : "";
    const std::string where = hf_hub_cache_.empty()
                                  ? std::string("there is no Hugging Face cache to look in (HF_HUB_CACHE, HF_HOME, "
                                                "XDG_CACHE_HOME and HOME are all unset)")
                                  : fmt::format("not in the Hugging Face cache either (looked for {}/snapshots; set "
                                                "HF_HUB_CACHE or HF_HOME for another cache, or fetch its config with: "
                                                "huggingface-cli download {} config.json)",
                                                hf_cache_repo_folder(hf_hub_cache_, id_or_path), id_or_path);
    throw core::InputError(core::unlocated(
        "", fmt::format("unknown model '{}': no such file or folder, and {}{}", id_or_path, where, shipped)));
}

std::vector<std::string> Catalog::hardware_ids() const { return ids_in(fs::path(root_) / "hardware_profiles"); }
std::vector<std::string> Catalog::model_ids() const { return ids_in(fs::path(root_) / "model_profiles"); }

std::string Catalog::hardware_path(const std::string& id_or_path) const {
    return resolve(id_or_path, fs::path(root_) / "hardware_profiles", hardware_ids(), "hardware");
}

std::string Catalog::model_path(const std::string& id_or_path) const {
    if (const auto snapshot = hf_cache_snapshot(id_or_path)) return model_path(*snapshot);
    // A Hugging Face model folder: its config.json, or the folder itself when GGUF files alone describe it.
    if (is_model_folder(id_or_path)) {
        const fs::path config = fs::path(id_or_path) / "config.json";
        return path_kind(config.string()) != PathKind::missing ? config.string() : id_or_path;
    }
    return resolve(id_or_path, fs::path(root_) / "model_profiles", model_ids(), "model");
}

HardwareProfile Catalog::hardware(const std::string& id_or_path) const {
    return load_hardware_profile(hardware_path(id_or_path));
}

ModelProfile Catalog::model(const std::string& id_or_path) const {
    if (const auto snapshot = hf_cache_snapshot(id_or_path)) {
        // A snapshot folder is named by its commit hash: the repository names the model.
        ModelProfile model = this->model(*snapshot);
        model.id = id_from_path(id_or_path.substr(id_or_path.find('/') + 1) + ".json");
        return model;
    }
    // A folder is read whole: config.json for the shape, the checkpoint files for what they store.
    if (is_model_folder(id_or_path)) return load_model_folder(id_or_path);
    const std::string path = model_path(id_or_path);
    if (path.ends_with(".json")) return load_hf_config(path);
    if (path.ends_with(".gguf")) return load_gguf_model(path);
    return load_model_profile(path);
}

namespace {

// A chain of bases longer than this loops (a runtime build refines one or two others).
constexpr int kMaxRuntimeBaseDepth = 8;

std::vector<RuntimeProfileHead> read_runtime_heads(const fs::path& folder) {
    std::vector<RuntimeProfileHead> heads;
    std::error_code error;
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(folder, error)) {
        if (entry.path().extension() == ".yaml") files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) heads.push_back(read_runtime_head(file.string()));
    std::sort(heads.begin(), heads.end(), [](const RuntimeProfileHead& a, const RuntimeProfileHead& b) {
        return a.name != b.name ? a.name < b.name : compare_versions(a.version, b.version) < 0;
    });
    return heads;
}

// The file a runtime id names (see Catalog::runtime).
std::string resolve_runtime(const std::string& query, const std::vector<RuntimeProfileHead>& heads,
                            const fs::path& folder) {
    if (heads.empty()) {
        // Located at the folder: not a mistake in the name but in where the profiles are.
        throw core::InputError(core::Diagnostic{
            {folder.string(), 0, 0}, "", "the folder holds no profiles (is --profiles-dir right?)"});
    }
    for (const RuntimeProfileHead& head : heads) {
        if (head.id == query) return head.path;
    }
    const std::size_t at = query.find('@');
    const std::string name = query.substr(0, at);
    const std::string version = at == std::string::npos ? std::string() : query.substr(at + 1);
    std::vector<const RuntimeProfileHead*> builds;
    std::vector<std::string> ids;
    for (const RuntimeProfileHead& head : heads) {
        if (std::find(ids.begin(), ids.end(), head.name) == ids.end()) ids.push_back(head.name);
        if (head.id != head.name) ids.push_back(head.id);
        if (head.name == name) builds.push_back(&head);
    }
    if (builds.empty()) {
        throw core::InputError(core::unlocated(
            "", fmt::format("unknown runtime '{}'{} (list them with: decodesim profiles list runtimes)", query,
                            core::suggestion_note(query, ids))));
    }
    std::vector<std::string> build_ids;
    for (const RuntimeProfileHead* head : builds) build_ids.push_back(head->id);
    if (version.empty()) {
        if (builds.size() == 1) return builds.front()->path;
        for (const RuntimeProfileHead* head : builds) {
            if (head->current) return head->path;
        }
        throw core::InputError(core::unlocated(
            "", fmt::format("runtime '{}' has several builds and none is marked current; name one: {}", name,
                            fmt::join(build_ids, ", "))));
    }
    // The newest build not later than the version asked for: a build's profile holds until the next.
    const RuntimeProfileHead* chosen = nullptr;
    for (const RuntimeProfileHead* head : builds) {
        if (!head->version.empty() && compare_versions(head->version, version) <= 0) chosen = head;
    }
    if (chosen == nullptr) {
        throw core::InputError(core::unlocated(
            "", fmt::format("runtime '{}': no profile of {} covers version {}; the builds are {}", query, name,
                            version, fmt::join(build_ids, ", "))));
    }
    return chosen->path;
}

}  // namespace

std::vector<std::string> Catalog::runtime_ids() const {
    std::vector<std::string> ids;
    for (const RuntimeProfileHead& head : runtime_heads()) ids.push_back(head.id);
    return ids;
}

std::string Catalog::runtime_path(const std::string& id_or_path) const {
    if (looks_like_path(id_or_path)) return id_or_path;
    const fs::path folder = fs::path(root_) / "runtime_profiles";
    return resolve_runtime(id_or_path, runtime_heads(), folder);
}

const std::vector<RuntimeProfileHead>& Catalog::runtime_heads() const {
    if (!runtime_heads_) {
        runtime_heads_ = std::make_shared<const std::vector<RuntimeProfileHead>>(
            read_runtime_heads(fs::path(root_) / "runtime_profiles"));
    }
    return *runtime_heads_;
}

std::shared_ptr<const RuntimeProfile> Catalog::runtime(const std::string& id_or_path) const {
    RuntimeProfile profile = *runtime_at(runtime_path(id_or_path), 0);
    // Its band: the held-out spread of its fit group, per memory family (the ideal runtime has none).
    // Read once for the build asked for, not again for each base in its chain.
    if (!profile.ideal && !profile.fit_group.empty()) {
        const std::vector<ShippedBand> table =
            load_residual_bands((fs::path(root_) / "validation" / "residual_bands.csv").string());
        for (core::MemoryFamily family : core::kMemoryFamilies) {
            const auto at = static_cast<std::size_t>(family);
            profile.decode_band[at] = band_for(table, family, profile.fit_group, PassKind::decode);
            profile.prefill_band[at] = band_for(table, family, profile.fit_group, PassKind::prefill);
        }
    }
    return std::make_shared<const RuntimeProfile>(std::move(profile));
}

std::shared_ptr<const RuntimeProfile> Catalog::runtime_by_id(const std::string& id, int depth) const {
    // A base is named by its id, never by a path: a profile's meaning does not depend on where it is read.
    if (looks_like_path(id)) {
        throw core::InputError(core::unlocated("", fmt::format("'{}' is a path; a base is a runtime id", id)));
    }
    const fs::path folder = fs::path(root_) / "runtime_profiles";
    return runtime_at(resolve_runtime(id, runtime_heads(), folder), depth);
}

std::shared_ptr<const RuntimeProfile> Catalog::runtime_at(const std::string& path, int depth) const {
    if (depth > kMaxRuntimeBaseDepth) {
        throw core::InputError(core::unlocated(
            "", fmt::format("the chain of bases through {} is longer than {}: does it loop?", path, kMaxRuntimeBaseDepth)));
    }
    const RuntimeBaseLookup bases = [this, depth](const std::string& id) { return runtime_by_id(id, depth + 1); };
    return std::make_shared<const RuntimeProfile>(load_runtime_profile(path, bases));
}

ProfileKind detect_profile_kind(const std::string& path) {
    const YAML::Node document = load_document(path);
    if (document.IsMap()) {
        if (document["model_type"]) return ProfileKind::hf_config;
        if (document["num_hidden_layers"]) return ProfileKind::model;
        if (document["measurements"] || document["factors"]) return ProfileKind::runtime;
        if (document["memory"] || document["compute"]) return ProfileKind::hardware;
    }
    // Fall back on the folder name so the real loader reports what is missing.
    if (path.find("model") != std::string::npos) return ProfileKind::model;
    return ProfileKind::hardware;
}

std::string default_profile_root() {
    if (const char* override_root = std::getenv("DECODESIM_PROFILE_DIR")) return override_root;
    return DECODESIM_SOURCE_DIR;
}

}  // namespace decodesim::profiles
