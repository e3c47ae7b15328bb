#pragma once
// Turns operator costs into times on a device: time = max(compute time, memory time) plus fixed
// per-kernel overhead, and the interconnect time of tensor-parallel reductions.

#include <array>

#include "core/datatype.hpp"
#include "engine/efficiency.hpp"
#include "engine/operators.hpp"
#include "profiles/hardware_profile.hpp"

namespace decodesim::engine {

enum class Bound { memory, compute, communication, overhead };
const char* bound_name(Bound bound);

// The rates a step runs at, resolved once per (hardware, deployment, efficiency).
struct DeviceRates {
    double memory_bandwidth = 0.0;   // B/s, efficiency applied
    double matmul_memory_bandwidth = 0.0;     // for weight matrices (dequantization may slow it)
    double attention_memory_bandwidth = 0.0;  // for KV-cache reads and writes
    double matmul_ops_per_s = 0.0;   // weight matrix products, efficiency applied
    double activation_ops_per_s = 0.0;  // attention and element-wise work, efficiency applied
    double link_bandwidth = 0.0;     // B/s per direction, 0 without a link
    double link_latency_s = 0.0;
    double kernel_overhead_s = 0.0;
    int tensor_parallel = 1;
};

// The rate a computation in `datatype` runs at: the device's own peak for it when listed, else the
// best of the wider types a runtime would substitute (fp4 -> fp8 -> bf16/fp16 -> fp32;
// int8 -> fp16/bf16 -> fp32). 0 when the device lists none of them.
double effective_peak(const profiles::HardwareProfile& hardware, core::Datatype datatype);

// `weight_only_quantized`: the weights are dequantized inside the matmul kernels, so the runtime's
// quantized_* factors apply to them.
DeviceRates device_rates(const profiles::HardwareProfile& hardware, core::Datatype matmul_datatype,
                         core::Datatype activation_datatype, int tensor_parallel, const Efficiency& efficiency,
                         bool weight_only_quantized = false);

struct OperatorTime {
    double compute_s = 0.0;
    double memory_s = 0.0;
    double overhead_s = 0.0;
    double communication_s = 0.0;
    double time_s = 0.0;  // max(compute, memory) + overhead + communication
    Bound bound = Bound::memory;
};

struct StepTime {
    std::array<OperatorTime, kOperatorCount> operators{};
    double time_s = 0.0;
    // Time attributed to each limiter: an operator's max(compute, memory) goes to whichever is larger.
    double memory_bound_s = 0.0;
    double compute_bound_s = 0.0;
    double overhead_s = 0.0;
    double communication_s = 0.0;
    Bound bound = Bound::memory;  // the largest of the four
};

StepTime time_step(const StepCosts& costs, const DeviceRates& rates);

}  // namespace decodesim::engine
