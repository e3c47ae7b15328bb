#pragma once
// Reads runtime profiles (runtime_profiles/*.yaml, `--runtime path.yaml`, `decodesim calibrate`'s
// output: one format; docs/profiles.md, "Runtime profiles") into profiles::RuntimeProfile.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "profiles/runtime_profile.hpp"

namespace decodesim::profiles {

// What the reader needs of the profiles around a file: a base named by its id (`base:`), already
// resolved. Throws core::InputError when there is none by that id.
using RuntimeBaseLookup = std::function<std::shared_ptr<const RuntimeProfile>(const std::string& id)>;

// The head of a runtime profile file: enough to list and resolve it without reading its base.
struct RuntimeProfileHead {
    std::string path;
    std::string id;       // name@version, or name
    std::string name;
    std::string version;  // empty: none
    bool current = false; // the build the bare name means
    std::string base;     // empty: none
};

RuntimeProfileHead read_runtime_head(const std::string& path);

// Reads and checks a runtime profile. A file with `base:` starts from that profile and replaces the
// sections it states (factors key by key); one without states every required section. Unknown
// keys, values out of range, a missing source and an unknown base are errors naming the file, line
// and key (core::InputError, every problem found).
RuntimeProfile load_runtime_profile(const std::string& path, const RuntimeBaseLookup& base_lookup);
RuntimeProfile parse_runtime_profile(const std::string& text, const std::string& path,
                                     const RuntimeBaseLookup& base_lookup);

// Orders two versions: dotted or dashed runs of digits compare as numbers, component by
// component ("0.10" > "0.6", "2024-06" > "2023-11"); a version that is a prefix of the other is the
// smaller. Negative, zero or positive as a is below, equal to or above b.
int compare_versions(const std::string& a, const std::string& b);

}  // namespace decodesim::profiles
