#pragma once
// Resolves what a user passes to --hardware / --model (an id or a path) to a loaded profile.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "profiles/hardware_profile.hpp"
#include "profiles/hf_cache.hpp"
#include "profiles/model_profile.hpp"
#include "profiles/runtime_profile.hpp"

namespace decodesim::profiles {

struct RuntimeProfileHead;  // profiles/runtime_loader.hpp

class Catalog {
public:
    // `root` holds hardware_profiles/ and model_profiles/; `hf_hub_cache` is the Hugging Face hub
    // cache that --model ORG/NAME is looked up in (profiles/hf_cache.hpp; empty: none).
    explicit Catalog(std::string root, std::string hf_hub_cache = default_hf_hub_cache());

    std::vector<std::string> hardware_ids() const;
    std::vector<std::string> model_ids() const;

    // An id ("h100-sxm") or a path to a .yaml file. Unknown ids get "did you mean".
    HardwareProfile hardware(const std::string& id_or_path) const;
    // An id, a path to a .yaml profile, a config.json, a .gguf file or a model folder, or a Hugging
    // Face repository id (ORG/NAME) that is no path here, found in the hub cache.
    ModelProfile model(const std::string& id_or_path) const;

    // Runtime builds (runtime_profiles/): their ids (name@version, or name), sorted.
    std::vector<std::string> runtime_ids() const;
    // An id ("llama.cpp@2024-06"), a name with a version that no file names exactly
    // ("llama.cpp@2024-09": the newest build of that name whose version is not later), a bare name
    // ("vllm": the build marked current, or the only one), or a path to a runtime profile file.
    // Unknown names get "did you mean"; a version older than every build is refused with the list.
    std::shared_ptr<const RuntimeProfile> runtime(const std::string& id_or_path) const;
    std::string runtime_path(const std::string& id_or_path) const;

    std::string hardware_path(const std::string& id_or_path) const;
    std::string model_path(const std::string& id_or_path) const;
    const std::string& root() const { return root_; }

private:
    std::shared_ptr<const RuntimeProfile> runtime_at(const std::string& path, int depth) const;
    std::shared_ptr<const RuntimeProfile> runtime_by_id(const std::string& id, int depth) const;
    // The heads of runtime_profiles/, read on first use and kept: resolving a build and each base of
    // its chain would otherwise read every file's head again. Copies of a catalog share them.
    const std::vector<RuntimeProfileHead>& runtime_heads() const;

    // The cache snapshot folder of a repository id that is no path here; nullopt for anything else.
    // Throws, saying where it looked, when the id is in no cache.
    std::optional<std::string> hf_cache_snapshot(const std::string& id_or_path) const;

    std::string root_;
    std::string hf_hub_cache_;
    mutable std::shared_ptr<const std::vector<RuntimeProfileHead>> runtime_heads_;
};

// Loads any profile file by its content: a config.json (has model_type), a model profile
// (has num_hidden_layers), a runtime profile (has measurements) or a hardware profile. For `profiles validate`.
enum class ProfileKind { hardware, model, hf_config, runtime };
ProfileKind detect_profile_kind(const std::string& path);

// The profile root: $DECODESIM_PROFILE_DIR when set, else the source tree the binary was built from.
std::string default_profile_root();

}  // namespace decodesim::profiles
