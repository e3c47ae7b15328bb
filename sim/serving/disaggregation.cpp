#include "serving/disaggregation.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace decodesim::serving {

KvLink kv_link(const profiles::HardwareProfile& hardware, const engine::RuntimeProfile& runtime) {
    KvLink link;
    link.efficiency = engine::runtime_efficiency(hardware, runtime).link_bandwidth;
    if (hardware.scale_out) {
        link.bandwidth = hardware.scale_out->bandwidth;
        link.latency = hardware.scale_out->latency;
        link.name = hardware.scale_out->kind.empty() ? "scale-out" : fmt::format("scale-out ({})", hardware.scale_out->kind);
        return link;
    }
    if (hardware.interconnect) {
        link.bandwidth = hardware.interconnect->bandwidth;
        link.latency = hardware.interconnect->latency;
        link.name = hardware.interconnect->kind.empty() ? "interconnect"
                                                        : fmt::format("interconnect ({})", hardware.interconnect->kind);
        return link;
    }
    throw core::InputError(core::unlocated(
        "disaggregation", fmt::format("{} has neither a scale_out network nor an interconnect in its profile: there is "
                                      "no link to send the KV cache from a prefill to a decode instance over",
                                      hardware.name)));
}

double kv_transfer_seconds(const engine::CostModel& cost, const engine::Deployment& deployment, const KvLink& link,
                           double tokens) {
    const double devices = static_cast<double>(deployment.parallelism.devices());
    const double bytes = cost.kv_bytes_per_sequence(tokens).value * devices;
    return link.latency.value + bytes / (link.bandwidth.value * devices * link.efficiency);
}

}  // namespace decodesim::serving
