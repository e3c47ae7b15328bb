#include "engine/roofline.hpp"

#include <algorithm>
#include <cmath>

namespace decodesim::engine {

using core::Datatype;

const char* bound_name(Bound bound) {
    switch (bound) {
        case Bound::memory: return "memory";
        case Bound::compute: return "compute";
        case Bound::communication: return "communication";
        case Bound::overhead: return "overhead";
    }
    return "?";
}

double effective_peak(const profiles::HardwareProfile& hardware, Datatype datatype) {
    // A listed rate is used as is; a missing one falls back to the best of the wider types a
    // runtime would substitute.
    if (hardware.listed_peak(datatype) > 0.0) return hardware.listed_peak(datatype);
    auto best_of = [&](std::initializer_list<Datatype> candidates) {
        double best = 0.0;
        for (Datatype candidate : candidates) best = std::max(best, hardware.listed_peak(candidate));
        return best;
    };
    switch (datatype) {
        case Datatype::fp4: return best_of({Datatype::fp8, Datatype::bf16, Datatype::fp16, Datatype::fp32});
        case Datatype::fp8: return best_of({Datatype::bf16, Datatype::fp16, Datatype::fp32});
        case Datatype::int8: return best_of({Datatype::fp16, Datatype::bf16, Datatype::fp32});
        case Datatype::bf16: return best_of({Datatype::fp16, Datatype::fp32});
        case Datatype::fp16: return best_of({Datatype::bf16, Datatype::fp32});
        case Datatype::fp32: return 0.0;
    }
    return 0.0;
}

DeviceRates device_rates(const profiles::HardwareProfile& hardware, Datatype matmul_datatype,
                         Datatype activation_datatype, int tensor_parallel, const Efficiency& efficiency,
                         bool weight_only_quantized) {
    DeviceRates rates;
    rates.memory_bandwidth = hardware.memory_bandwidth.value * efficiency.memory_bandwidth;
    rates.matmul_memory_bandwidth =
        rates.memory_bandwidth * (weight_only_quantized ? efficiency.quantized_weight_bandwidth : 1.0);
    rates.attention_memory_bandwidth = rates.memory_bandwidth * efficiency.attention_bandwidth;
    rates.matmul_ops_per_s = effective_peak(hardware, matmul_datatype) * efficiency.compute *
                             (weight_only_quantized ? efficiency.quantized_compute : 1.0);
    rates.activation_ops_per_s = effective_peak(hardware, activation_datatype) * efficiency.compute;
    if (hardware.interconnect) {
        rates.link_bandwidth = hardware.interconnect->bandwidth.value * efficiency.link_bandwidth;
        rates.link_latency_s = hardware.interconnect->latency.value;
    }
    rates.kernel_overhead_s = efficiency.kernel_overhead_s;
    rates.tensor_parallel = tensor_parallel;
    return rates;
}

StepTime time_step(const StepCosts& costs, const DeviceRates& rates) {
    StepTime step;
    for (std::size_t i = 0; i < kOperatorCount; ++i) {
        const auto kind = static_cast<OperatorKind>(i);
        const OperatorCost& cost = costs.operators[i];
        OperatorTime& time = step.operators[i];
        if (kind == OperatorKind::all_reduce) {
            if (cost.messages > 0.0 && rates.tensor_parallel > 1) {
                // Bandwidth: a ring moves 2(T-1)/T of the data over each link. Latency: small messages
                // use tree or recursive-doubling algorithms, 2 * ceil(log2 T) hops (docs/model.md).
                const double tp = rates.tensor_parallel;
                const double hops = 2.0 * std::ceil(std::log2(tp));
                time.communication_s = cost.messages * hops * rates.link_latency_s +
                                       2.0 * (tp - 1.0) / tp * cost.bytes / rates.link_bandwidth;
            }
            time.time_s = time.communication_s;
            time.bound = Bound::communication;
            step.communication_s += time.communication_s;
            step.time_s += time.time_s;
            continue;
        }
        const double peak =
            arithmetic_class(kind) == ArithmeticClass::matmul ? rates.matmul_ops_per_s : rates.activation_ops_per_s;
        time.compute_s = cost.flops > 0.0 ? cost.flops / peak : 0.0;
        const bool matmul = arithmetic_class(kind) == ArithmeticClass::matmul;
        const bool attention = kind == OperatorKind::attention_score || kind == OperatorKind::attention_value ||
                               kind == OperatorKind::kv_write;
        time.memory_s = cost.bytes / (matmul      ? rates.matmul_memory_bandwidth
                                      : attention ? rates.attention_memory_bandwidth
                                                  : rates.memory_bandwidth);
        time.overhead_s = cost.kernels * rates.kernel_overhead_s;
        const bool compute_bound = time.compute_s > time.memory_s;
        time.bound = compute_bound ? Bound::compute : Bound::memory;
        const double roof = std::max(time.compute_s, time.memory_s);
        time.time_s = roof + time.overhead_s;
        (compute_bound ? step.compute_bound_s : step.memory_bound_s) += roof;
        step.overhead_s += time.overhead_s;
        step.time_s += time.time_s;
    }
    const std::array<std::pair<double, Bound>, 4> shares{{{step.memory_bound_s, Bound::memory},
                                                         {step.compute_bound_s, Bound::compute},
                                                         {step.communication_s, Bound::communication},
                                                         {step.overhead_s, Bound::overhead}}};
    step.bound = std::max_element(shares.begin(), shares.end(), [](const auto& a, const auto& b) {
                     return a.first < b.first;
                 })->second;
    return step;
}

}  // namespace decodesim::engine
