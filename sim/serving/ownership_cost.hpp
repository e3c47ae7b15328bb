#pragma once
// What owning a bought device costs an hour: the device, its share of a host and of the network,
// spread over the years it is used, and the energy it and its host draw at the wall (docs/serving.md,
// "Total cost of ownership"). A cloud rental needs none of this: its rate is the cost.

#include <optional>

#include "profiles/hardware_profile.hpp"

namespace decodesim::serving {

struct OwnershipAssumptions {
    double years = profiles::kPurchaseYears;             // the purchase spread over this many years
    double usd_per_kwh = profiles::kPurchaseUsdPerKwh;   // electricity at the meter
    std::optional<double> pue;                           // unset: by segment (ownership_cost)
};

// USD per device-hour, by part.
struct OwnershipCost {
    double device = 0.0;   // the purchase price over the years
    double host = 0.0;     // a board's share of the machine around it
    double network = 0.0;  // a datacenter device's share of the cluster network
    double energy = 0.0;   // device and host power at the wall, times the PUE
    double wall_power_w = 0.0;  // device and host power, before the PUE
    double pue = 1.0;

    double total() const { return device + host + network + energy; }
};

// Nothing for a device without a `purchase:` block or a board power. The host, network and PUE
// defaults, and where each comes from, are in ownership_cost.cpp.
std::optional<OwnershipCost> ownership_cost(const profiles::HardwareProfile& hardware,
                                            const OwnershipAssumptions& assumptions);

}  // namespace decodesim::serving
