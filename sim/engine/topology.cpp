#include "engine/topology.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace decodesim::engine {
namespace {

std::string link_name(const std::string& kind, const char* fallback) { return kind.empty() ? fallback : kind; }

// Pipeline stage boundaries between domains: stage k holds devices [kS, (k+1)S); the hop after it
// crosses when its last device and the next stage's first lie in different domains.
int crossing_hops(const Parallelism& parallelism, int domain) {
    const int stage = parallelism.stage_devices();
    int crossing = 0;
    for (int k = 0; k + 1 < parallelism.pipeline; ++k) {
        const int last = (k + 1) * stage - 1;
        const int next = (k + 1) * stage;
        if (last / domain != next / domain) ++crossing;
    }
    return crossing;
}

}  // namespace

int scale_up_domain(const profiles::HardwareProfile& hardware) {
    return hardware.interconnect ? hardware.interconnect->domain : 1;
}

DeploymentTopology deployment_topology(const profiles::HardwareProfile& hardware, const Parallelism& parallelism,
                                       double link_efficiency) {
    LinkLevel up{};
    LinkLevel out{};
    if (hardware.interconnect) up = {hardware.interconnect->bandwidth * link_efficiency, hardware.interconnect->latency};
    if (hardware.scale_out) out = {hardware.scale_out->bandwidth * link_efficiency, hardware.scale_out->latency};
    const int domain = scale_up_domain(hardware);

    DeploymentTopology topology;
    topology.tensor = group_topology(parallelism.tensor, domain, up, out);
    topology.expert = group_topology(parallelism.expert, domain, up, out);
    topology.hop_inside = group_topology(2, 2, up, out);
    topology.hop_crossing = group_topology(2, 1, up, out);
    if (parallelism.pipeline > 1) {
        topology.crossing_hop_share =
            static_cast<double>(crossing_hops(parallelism, domain)) / static_cast<double>(parallelism.pipeline - 1);
    }
    return topology;
}

void validate_topology(const profiles::HardwareProfile& hardware, const Parallelism& parallelism) {
    auto refuse = [](const char* key, const std::string& message) {
        throw core::InputError(core::unlocated(key, message));
    };
    if (parallelism.devices() > 1 && !hardware.interconnect) {
        refuse("interconnect", fmt::format("a deployment over {} devices needs an interconnect, and {} lists none (add "
                                           "an interconnect: block to its profile)",
                                           parallelism.devices(), hardware.name));
    }
    if (parallelism.devices() > scale_up_domain(hardware) && !hardware.scale_out) {
        refuse("scale_out", fmt::format("{} devices exceed the {}-device {} domain of {}, and its profile lists no "
                                        "scale_out network to reach beyond it (add a scale_out: block)",
                                        parallelism.devices(), scale_up_domain(hardware),
                                        link_name(hardware.interconnect->kind, "scale-up"), hardware.name));
    }
}

std::vector<std::string> topology_notes(const profiles::HardwareProfile& hardware, const Parallelism& parallelism) {
    std::vector<std::string> notes;
    if (!hardware.interconnect || !hardware.scale_out || parallelism.devices() <= 1) return notes;
    const int domain = scale_up_domain(hardware);
    if (parallelism.devices() <= domain) return notes;
    const std::string up = link_name(hardware.interconnect->kind, "scale-up");
    const std::string out = fmt::format("{} at {:.0f} GB/s per device", link_name(hardware.scale_out->kind, "scale-out network"),
                                        hardware.scale_out->bandwidth.value / 1e9);
    const std::string assumed = hardware.interconnect->domain_stated ? "" : " (the profile states none: 8 assumed)";
    auto group_note = [&](const char* what, int devices, const char* collective) {
        if (devices <= domain) return;
        notes.push_back(fmt::format("the {} group of {} devices exceeds the {}-device {} domain{}: its {} crosses "
                                    "between domains over {}",
                                    what, devices, domain, up, assumed, collective, out));
    };
    group_note("tensor-parallel", parallelism.tensor, "all-reduce");
    group_note("expert-parallel", parallelism.expert, "all-to-all");
    if (parallelism.pipeline > 1) {
        const int crossing = crossing_hops(parallelism, domain);
        if (crossing > 0) {
            notes.push_back(fmt::format("{} of the {} pipeline hops cross between {}-device {} domains, over {}", crossing,
                                        parallelism.pipeline - 1, domain, up, out));
        }
    }
    if (notes.empty()) {
        notes.push_back(fmt::format("the deployment's {} devices span {} {}-device {} domains; every collective stays "
                                    "inside one",
                                    parallelism.devices(), (parallelism.devices() + domain - 1) / domain, domain, up));
    }
    return notes;
}

}  // namespace decodesim::engine
