#pragma once
// Where a deployment's devices sit: which parallel groups fit in one scale-up domain and which
// cross into the scale-out network. Devices are placed tensor-innermost (engine/deployment.hpp),
// so this is the one place that decides which links each group's collectives use.

#include <optional>
#include <string>
#include <vector>

#include "engine/collectives.hpp"
#include "engine/deployment.hpp"
#include "profiles/hardware_profile.hpp"

namespace decodesim::engine {

struct DeploymentTopology {
    GroupTopology tensor;        // the tensor-parallel all-reduce group
    GroupTopology expert;        // the expert-parallel all-to-all group
    GroupTopology hop_inside;    // a pipeline hop between stages in the same domain
    GroupTopology hop_crossing;  // a pipeline hop between domains
    double crossing_hop_share = 0.0;  // of the pipeline's stage-to-stage hops
};

// `link_efficiency`: the achieved share of each link's listed bandwidth (engine::Efficiency).
DeploymentTopology deployment_topology(const profiles::HardwareProfile& hardware, const Parallelism& parallelism,
                                       double link_efficiency);

// The scale-up domain the profile states, or the documented default of 8 devices.
int scale_up_domain(const profiles::HardwareProfile& hardware);

// Throws core::InputError when a group needs a link the profile does not list: any parallelism
// without an interconnect, or a group beyond the scale-up domain without a scale_out network.
void validate_topology(const profiles::HardwareProfile& hardware, const Parallelism& parallelism);

// What the output should say about the topology: each group that crosses the scale-up domain,
// with the links it then uses. Empty when everything fits in one domain.
std::vector<std::string> topology_notes(const profiles::HardwareProfile& hardware, const Parallelism& parallelism);

}  // namespace decodesim::engine
