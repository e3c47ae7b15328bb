#pragma once
// `decodesim profiles list` and `show` as text: a profile's own fields beside its derived figures.

#include <string>
#include <vector>

#include "profiles/hardware_profile.hpp"
#include "profiles/model_profile.hpp"
#include "explore/profile_summary.hpp"

namespace decodesim::report {

struct HardwareEntry {
    profiles::HardwareProfile hardware;
    explore::HardwareSummary summary;
};

struct ModelEntry {
    profiles::ModelProfile model;
    explore::ModelSummary summary;
};

// One row per profile, in the order given: id, name, memory, bandwidth and the dense peaks.
std::string hardware_list_to_text(const std::vector<HardwareEntry>& entries);
// One row per profile: id, name, parameters, layers, attention, MLP and KV bytes per token.
std::string model_list_to_text(const std::vector<ModelEntry>& entries);

// One profile resolved, `path` being the file it was read from.
std::string hardware_to_text(const profiles::HardwareProfile& hardware, const explore::HardwareSummary& summary,
                             const std::string& path);
std::string model_to_text(const profiles::ModelProfile& model, const explore::ModelSummary& summary,
                          const std::string& path);

}  // namespace decodesim::report
