#include "serving/ownership_cost.hpp"

namespace decodesim::serving {

namespace {

constexpr double kHoursPerYear = 365.0 * 24.0;

// A datacenter board's host (CPUs, memory, chassis, NICs, storage, power supplies): Epoch AI's
// price database puts 8-GPU servers at 1.64x the sum of their GPUs' prices (average of P100, V100
// and A100 systems; epoch-research/training-cost-trends, hardware.py, 2024), so 0.64 of a board's
// price.
constexpr double kDatacenterHostShareOfBoardPrice = 0.64;
// The host's draw beside its boards: DGX H100 at most 10.2 kW for 8 x 700 W (4.6 kW more, 0.82 of
// the boards'), DGX B200 at most 14.3 kW for 8 x 1,000 W (0.79; NVIDIA's DGX user guides): 0.8.
constexpr double kDatacenterHostPowerShare = 0.8;
// The cluster network (switches, optics, cables) as a share of a whole cluster's cost: 19%
// (Epoch AI, training-cost-trends constants.py, CLUSTER_INTERCONNECT_COST_FRACTION), so 0.19/0.81
// of the devices and hosts it connects.
constexpr double kNetworkShareOfCluster = 0.19;
// A datacenter's power usage effectiveness: 1.58, the industry average of Uptime Institute's 2023
// Global Data Center Survey (Uptime Intelligence, 2023-11-23).
constexpr double kDatacenterPue = 1.58;
// A desk-side board's host, a desktop PC without its GPU (CPU, board, 64 GB, supply, case): about
// 1,300 USD, estimated from 2025 build guides' totals less the GPU (low confidence: no itemized
// public figure), one board a host; about 100 W at full CPU load (a measured desktop, 33 W idle and
// about 100 W loaded). Desks and offices pay no cooling overhead here (PUE 1).
constexpr double kDesktopHostUsd = 1300.0;
constexpr double kDesktopHostPowerW = 100.0;

}  // namespace

std::optional<OwnershipCost> ownership_cost(const profiles::HardwareProfile& hardware,
                                            const OwnershipAssumptions& assumptions) {
    if (!hardware.purchase || !hardware.power) return std::nullopt;
    const profiles::Purchase& purchase = *hardware.purchase;
    const bool datacenter = hardware.segment == profiles::DeviceSegment::datacenter;
    const double hours = assumptions.years * kHoursPerYear;
    OwnershipCost cost;
    cost.device = purchase.price_usd / hours;
    double host_power_w = 0.0;
    if (!purchase.covers_host) {
        cost.host = datacenter ? kDatacenterHostShareOfBoardPrice * purchase.price_usd / hours : kDesktopHostUsd / hours;
        host_power_w = datacenter ? kDatacenterHostPowerShare * hardware.power->value : kDesktopHostPowerW;
    }
    if (datacenter) cost.network = kNetworkShareOfCluster / (1.0 - kNetworkShareOfCluster) * (cost.device + cost.host);
    cost.pue = assumptions.pue.value_or(datacenter ? kDatacenterPue : 1.0);
    cost.wall_power_w = hardware.power->value + host_power_w;
    cost.energy = cost.wall_power_w * cost.pue / 1000.0 * assumptions.usd_per_kwh;
    return cost;
}

}  // namespace decodesim::serving
