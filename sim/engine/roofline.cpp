#include "engine/roofline.hpp"

#include <algorithm>
#include <cmath>

#include "engine/topology.hpp"

namespace decodesim::engine {

using core::Datatype;
using core::FlopRate;

core::Bandwidth DeviceRates::bandwidth(StreamClass stream) const {
    switch (stream) {
        case StreamClass::device: return memory_bandwidth;
        case StreamClass::weights: return weight_bandwidth;
        case StreamClass::kv_cache: return kv_bandwidth;
        case StreamClass::interconnect: return core::Bandwidth();  // timed by collective_time
        case StreamClass::host: return host_bandwidth;
    }
    return memory_bandwidth;
}

FlopRate DeviceRates::rate(ArithmeticClass arithmetic) const {
    switch (arithmetic) {
        case ArithmeticClass::matmul: return matmul_rate;
        case ArithmeticClass::activation: return activation_rate;
        case ArithmeticClass::attention: return attention_rate;
    }
    return activation_rate;
}

double machine_balance(const DeviceRates& rates) { return rates.matmul_rate / rates.memory_bandwidth; }

FlopRate effective_peak(const profiles::HardwareProfile& hardware, Datatype datatype) {
    // A listed rate is used as is; a missing one falls back to the best of the wider types a
    // runtime would substitute.
    if (hardware.listed_peak(datatype).value > 0.0) return hardware.listed_peak(datatype);
    auto best_of = [&](std::initializer_list<Datatype> candidates) {
        FlopRate best;
        for (Datatype candidate : candidates) best = core::max(best, hardware.listed_peak(candidate));
        return best;
    };
    switch (datatype) {
        case Datatype::fp4: return best_of({Datatype::fp8, Datatype::bf16, Datatype::fp16, Datatype::fp32});
        case Datatype::fp8: return best_of({Datatype::bf16, Datatype::fp16, Datatype::fp32});
        case Datatype::int8: return best_of({Datatype::fp16, Datatype::bf16, Datatype::fp32});
        case Datatype::bf16: return best_of({Datatype::fp16, Datatype::fp32});
        case Datatype::fp16: return best_of({Datatype::bf16, Datatype::fp32});
        case Datatype::fp32: return FlopRate();
    }
    return FlopRate();
}

core::FlopRate kernel_matmul_peak(const profiles::HardwareProfile& hardware, const core::WeightFormat& weights,
                                  Datatype matmul_datatype, const BlockFormatMatmul& block_path) {
    const FlopRate listed = effective_peak(hardware, matmul_datatype);
    const bool mmq = weights.is_block_format() && block_path.issue_bound;
    if (!mmq || !hardware.compute_units || !hardware.clocks) return listed;
    // Issue-bound: every SM issues the same mma.sync tiles whatever its tensor cores could do.
    const FlopRate issue_bound(*hardware.compute_units * kMmqOpsPerSmClock * hardware.clocks->peak.value);
    return listed.value <= issue_bound.value ? listed : issue_bound;
}

DeviceRates device_rates(const profiles::HardwareProfile& hardware, Datatype matmul_datatype,
                         Datatype activation_datatype, const Parallelism& parallelism, const Efficiency& efficiency,
                         bool weight_only_quantized, const ClockState* clocks, std::optional<FlopRate> kernel_peak) {
    DeviceRates rates;
    const double compute_share = clocks != nullptr ? clocks->compute_share : 1.0;
    const double memory_share = clocks != nullptr ? clocks->memory_share : 1.0;
    rates.memory_bandwidth = hardware.memory_bandwidth * (efficiency.memory_bandwidth * memory_share);
    // A runtime's multipliers (a profile allows up to 1.5, a backend's up to 8) may raise a rate
    // above the achievable default, never above the datasheet at the clocks it runs at: every rate
    // derived here is capped at its peak, so no preset can predict past the roofline bound.
    const double bandwidth_peak = hardware.memory_bandwidth.value * memory_share;
    const auto capped_bandwidth = [&](core::Bandwidth rate) {
        return core::Bandwidth(std::min(rate.value, bandwidth_peak));
    };
    rates.weight_bandwidth = capped_bandwidth(
        rates.memory_bandwidth * (weight_only_quantized ? efficiency.quantized_weight_bandwidth : 1.0));
    rates.kv_bandwidth = capped_bandwidth(rates.memory_bandwidth * efficiency.attention_bandwidth);
    const double matmul_peak = kernel_peak.value_or(effective_peak(hardware, matmul_datatype)).value * compute_share;
    rates.matmul_rate = FlopRate(std::min(
        matmul_peak * efficiency.compute * (weight_only_quantized ? efficiency.quantized_compute : 1.0), matmul_peak));
    rates.activation_rate = effective_peak(hardware, activation_datatype) * (efficiency.compute * compute_share);
    const double copy_peak = effective_peak(hardware, activation_datatype).value * compute_share;
    rates.copy_seconds_per_flop =
        core::reciprocal(FlopRate(std::min(copy_peak * efficiency.compute, copy_peak)));
    rates.copy_seconds_per_byte = core::reciprocal(rates.memory_bandwidth);
    rates.attention_rate = FlopRate(std::min((rates.activation_rate * efficiency.attention_compute).value,
                                             effective_peak(hardware, activation_datatype).value * compute_share));
    if (hardware.host_link) rates.host_bandwidth = hardware.host_link->bandwidth * efficiency.link_bandwidth;
    rates.kernel_overhead = efficiency.kernel_overhead;
    rates.sequence_overhead = efficiency.sequence_overhead;
    rates.tile_setup_rows = efficiency.tile_setup_rows;
    rates.eager_op_time = efficiency.eager_op_time;
    rates.parallelism = parallelism;

    for (std::size_t i = 0; i < kOperatorCount; ++i) {
        const OperatorInfo& info = kOperators[i];
        rates.seconds_per_flop[i] = core::reciprocal(rates.rate(info.arithmetic));
        rates.seconds_per_byte[i] = core::reciprocal(rates.bandwidth(info.stream));
    }
    // Collectives on the groups' links (engine/topology.hpp). Without an interconnect every group
    // is one device (validate_topology refuses anything else).
    if (hardware.interconnect) {
        const DeploymentTopology topology = deployment_topology(hardware, parallelism, efficiency.link_bandwidth);
        rates.collectives[index_of(OperatorKind::all_reduce)] = {Collective::all_reduce, topology.tensor, {}, 0.0};
        rates.collectives[index_of(OperatorKind::all_to_all)] = {Collective::all_to_all, topology.expert, {}, 0.0};
        rates.collectives[index_of(OperatorKind::pipeline_send)] = {Collective::send, topology.hop_inside,
                                                                   topology.hop_crossing, topology.crossing_hop_share};
    }
    return rates;
}

void StepTotals::hold_for_dispatch(const StepCosts& costs, const DeviceRates& rates) {
    const core::Seconds dispatch = rates.eager_op_time * costs.eager_ops;
    if (dispatch.value <= time.value) return;
    overhead += dispatch - time;
    time = dispatch;
}

void StepTotals::settle_bound() {
    const std::array<std::pair<core::Seconds, Bound>, 4> shares{{{memory_bound, Bound::memory},
                                                                 {compute_bound, Bound::compute},
                                                                 {communication, Bound::communication},
                                                                 {overhead, Bound::overhead}}};
    bound = std::max_element(shares.begin(), shares.end(), [](const auto& a, const auto& b) {
                return a.first < b.first;
            })->second;
}

StepTime time_step(const StepCosts& costs, const DeviceRates& rates) {
    StepTime step;
    for (std::size_t i = 0; i < kOperatorCount; ++i) {
        step.operators[i] = time_operator(i, costs.operators[i], rates);
        step.totals.add(step.operators[i]);
    }
    step.totals.hold_for_dispatch(costs, rates);
    step.totals.settle_bound();
    return step;
}

StepTotals step_totals(const StepCosts& costs, const DeviceRates& rates) {
    StepTotals totals;
    for (std::size_t i = 0; i < kOperatorCount; ++i) totals.add(time_operator(i, costs.operators[i], rates));
    totals.hold_for_dispatch(costs, rates);
    totals.settle_bound();
    return totals;
}

PairedTotals step_totals(const StepCosts& costs, const DeviceRates& first, const DeviceRates& second) {
    PairedTotals totals;
    for (std::size_t i = 0; i < kOperatorCount; ++i) {
        totals.first.add(time_operator(i, costs.operators[i], first));
        totals.second.add(time_operator(i, costs.operators[i], second));
    }
    totals.first.hold_for_dispatch(costs, first);
    totals.second.hold_for_dispatch(costs, second);
    totals.first.settle_bound();
    totals.second.settle_bound();
    return totals;
}

}  // namespace decodesim::engine
