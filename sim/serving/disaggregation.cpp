#include "serving/disaggregation.hpp"

#include <algorithm>

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

KvLink kv_link_between(const engine::Evaluator& prefill, const engine::Evaluator& decode) {
    if (prefill.hardware().id == decode.hardware().id) {
        return kv_link(decode.hardware(), decode.deployment().runtime_profile());
    }
    for (const engine::Evaluator* side : {&prefill, &decode}) {
        if (!side->hardware().scale_out) {
            throw core::InputError(core::unlocated(
                "prefill-hardware",
                fmt::format("{} has no scale_out network in its profile: pools on two kinds of device sit in "
                            "different nodes, and the KV cache crosses their NICs",
                            side->hardware().name)));
        }
    }
    const KvLink from = kv_link(prefill.hardware(), prefill.deployment().runtime_profile());
    const KvLink to = kv_link(decode.hardware(), decode.deployment().runtime_profile());
    KvLink link;
    link.bandwidth = core::Bandwidth(std::min(from.bandwidth.value, to.bandwidth.value));
    link.latency = core::Seconds(std::max(from.latency.value, to.latency.value));
    link.efficiency = std::min(from.efficiency, to.efficiency);
    link.name = from.name == to.name ? from.name : fmt::format("{} to {}", from.name, to.name);
    return link;
}

double kv_transfer_seconds_between(const engine::Evaluator& prefill, const engine::Evaluator& decode,
                                   const KvLink& link, double tokens) {
    const engine::Evaluator& fewer =
        prefill.deployment().parallelism.devices() <= decode.deployment().parallelism.devices() ? prefill : decode;
    return kv_transfer_seconds(fewer.cost_model(), fewer.deployment(), link, tokens);
}

double kv_transfer_seconds(const engine::CostModel& cost, const engine::Deployment& deployment, const KvLink& link,
                           double tokens) {
    const double devices = static_cast<double>(deployment.parallelism.devices());
    const double bytes = cost.kv_bytes_per_sequence(tokens).value * devices;
    return link.latency.value + bytes / (link.bandwidth.value * devices * link.efficiency);
}

}  // namespace decodesim::serving
