#pragma once
// Turns operator costs into times on a device: time = max(compute time, memory time) plus fixed
// per-kernel overhead, and the time of the collectives between devices (engine/collectives.hpp).

#include <array>
#include <optional>
#include <string>

#include "core/enum_names.hpp"
#include "core/backend.hpp"
#include "core/datatype.hpp"
#include "core/quantization.hpp"
#include "engine/clocks.hpp"
#include "engine/collectives.hpp"
#include "engine/deployment.hpp"
#include "engine/efficiency.hpp"
#include "engine/operators.hpp"
#include "profiles/hardware_profile.hpp"

namespace decodesim::engine {

enum class Bound { memory, compute, communication, overhead };
inline constexpr std::array<core::NamedValue<Bound>, 4> kBoundNames{
    {{Bound::memory, "memory"}, {Bound::compute, "compute"}, {Bound::communication, "communication"}, {Bound::overhead, "overhead"}}};
inline std::string bound_name(Bound bound) { return std::string(core::name_of(kBoundNames, bound)); }

// The rates a step runs at, resolved once per (hardware, deployment, efficiency). The per-operator
// reciprocals are what a step evaluation multiplies by: rates are constants of a deployment.
struct DeviceRates {
    core::Bandwidth memory_bandwidth;     // efficiency applied
    core::Bandwidth weight_bandwidth;     // weight matrices (dequantization may slow it)
    core::Bandwidth kv_bandwidth;         // KV-cache reads and writes
    core::FlopRate matmul_rate;           // weight matrix products, efficiency applied
    core::FlopRate activation_rate;       // element-wise work, efficiency applied
    core::FlopRate attention_rate;        // attention over the cache: the activation rate x the attention kernels' factor
    core::Bandwidth host_bandwidth;       // device to CPU memory, 0 without a host link
    core::Seconds kernel_overhead;
    core::Seconds sequence_overhead;  // host time per sequence in the step (RuntimeFactors)
    double tile_setup_rows = 0.0;     // a weight tile's staging, in rows of multiply-adds (RuntimeFactors)
    core::Seconds eager_op_time;      // the host's time per op of an eager pass (StepCosts::eager_ops)
    // A 16-bit GEMM on dequantized copies (OperatorCost::on_16bit_copy): the activation datatype's
    // matrix peak at the runtime's compute efficiency, no quantized-kernel factor, reading the
    // copy at the device's achievable bandwidth.
    core::SecondsPerFlop copy_seconds_per_flop;
    core::SecondsPerByte copy_seconds_per_byte;
    Parallelism parallelism;

    // Derived, per row of kOperators.
    std::array<core::SecondsPerByte, kOperatorCount> seconds_per_byte{};
    std::array<core::SecondsPerFlop, kOperatorCount> seconds_per_flop{};
    // Interconnect operators: the collective each message is, and the group it runs among.
    struct CollectivePlan {
        Collective collective = Collective::all_reduce;
        GroupTopology group;
        GroupTopology crossing;       // pipeline hops: a hop between domains
        double crossing_share = 0.0;  // of the messages that take `crossing`
    };
    std::array<CollectivePlan, kOperatorCount> collectives{};

    core::Bandwidth bandwidth(StreamClass stream) const;
    core::FlopRate rate(ArithmeticClass arithmetic) const;
};

// Peak matmul FLOP/s over peak bandwidth: the arithmetic intensity above which a step is
// compute-bound on this device. The one definition (evaluate it on roofline rates).
double machine_balance(const DeviceRates& rates);

// The rate a computation in `datatype` runs at: the device's own peak for it when listed, else the
// best of the wider types a runtime would substitute (fp4 -> fp8 -> bf16/fp16 -> fp32;
// int8 -> fp16/bf16 -> fp32). 0 when the device lists none of them.
core::FlopRate effective_peak(const profiles::HardwareProfile& hardware, core::Datatype datatype);

// The int8 rate of one SM through mma.sync, the warp-level matrix instruction llama.cpp's quantized
// matmuls (MMQ, ggml-cuda/mma.cuh) are built on, on the parts those kernels are tiled for: GA10x,
// AD10x and GB20x list int8 peaks of exactly SMs x 2048 x boost clock (RTX 3090: 82 x 2048 x
// 1.695 GHz = 284.5 TOPS; RTX 4090: 128 x 2048 x 2.52 GHz = 660.6 TOPS). GA100's, GH100's and
// GB100's larger tensor cores (4096, 8192 and 16384 a clock) are not reached by these kernels:
// llama.cpp discussion #15013 measures an A100 at 0.40 of an RTX 4090's q4_0 prompt rate and an
// H100 at 0.83, where SMs x clock gives 0.47 and 0.75 and the listed int8 peaks 0.94 and 3.0
// (docs/model.md, "Issue-bound quantized matmuls").
inline constexpr double kMmqOpsPerSmClock = 2048.0;

// The matmul peak a runtime's kernels can reach on `hardware` for `weights` multiplied in
// `matmul_datatype`: the listed (or substituted) peak, except for a block format whose kernels on
// this backend are issue-bound (`block_path`, the runtime's: llama.cpp's MMQ on CUDA), whose rate
// is SMs x kMmqOpsPerSmClock x the peak clock where the profile states its SMs, when that is the
// lower.
core::FlopRate kernel_matmul_peak(const profiles::HardwareProfile& hardware, const core::WeightFormat& weights,
                                  core::Datatype matmul_datatype, const BlockFormatMatmul& block_path);

// `weight_only_quantized`: the weights are dequantized inside the matmul kernels, so the runtime's
// quantized_* factors apply to them. `clocks`: the shares of the listed compute and memory peaks
// the device runs at (engine/clocks.hpp); null for the datasheet peaks. `kernel_peak`: the matmul
// peak the runtime's kernels reach (kernel_matmul_peak), at the peak clock; nullopt for the listed
// peak (the roofline bound).
DeviceRates device_rates(const profiles::HardwareProfile& hardware, core::Datatype matmul_datatype,
                         core::Datatype activation_datatype, const Parallelism& parallelism, const Efficiency& efficiency,
                         bool weight_only_quantized = false, const ClockState* clocks = nullptr,
                         std::optional<core::FlopRate> kernel_peak = std::nullopt);

struct OperatorTime {
    core::Seconds compute;
    core::Seconds memory;
    core::Seconds overhead;
    core::Seconds communication;
    core::Seconds time;  // max(compute, memory) + overhead + communication
    Bound bound = Bound::memory;
};

// Up to this many rows a runtime multiplies by the weights with matrix-vector kernels that stream
// them and convert each weight as it arrives, with no tile to stage (llama.cpp's MMVQ takes up to
// 8 columns; docs/model.md, "Expert tiles"): their cost is the bytes.
inline constexpr double kMatrixVectorRows = 8.0;

// The arithmetic time of a product over `rows` rows per weight, against the same work with no
// staging: (rows + setup) / rows above the matrix-vector kernels' reach, else 1.
inline double tile_setup_factor(double rows, double setup_rows) {
    return rows > kMatrixVectorRows && setup_rows > 0.0 ? (rows + setup_rows) / rows : 1.0;
}

// One operator of kOperators, timed: the single definition every step evaluation uses.
inline OperatorTime time_operator(std::size_t index, const OperatorCost& cost, const DeviceRates& rates) {
    OperatorTime time;
    if (kOperators[index].stream == StreamClass::interconnect) {
        // Each message is one collective of bytes / messages on its group's links.
        if (cost.messages > 0.0) {
            const auto& plan = rates.collectives[index];
            const core::Bytes each = cost.bytes / cost.messages;
            core::Seconds one = collective_time(plan.collective, each, plan.group).time;
            if (plan.crossing_share > 0.0) {
                one = one * (1.0 - plan.crossing_share) +
                      collective_time(plan.collective, each, plan.crossing).time * plan.crossing_share;
            }
            time.communication = one * cost.messages;
        }
        time.time = time.communication;
        time.bound = Bound::communication;
        return time;
    }
    time.compute = cost.flops * (cost.on_16bit_copy ? rates.copy_seconds_per_flop : rates.seconds_per_flop[index]) *
                   tile_setup_factor(cost.rows_per_weight, rates.tile_setup_rows);
    time.memory = cost.bytes * (cost.on_16bit_copy ? rates.copy_seconds_per_byte : rates.seconds_per_byte[index]);
    time.overhead = cost.kernels * rates.kernel_overhead + cost.sequences * rates.sequence_overhead;
    time.bound = time.compute > time.memory ? Bound::compute : Bound::memory;
    time.time = core::max(time.compute, time.memory) + time.overhead;
    return time;
}

// A step's time, attributed to its limiters: an operator's max(compute, memory) goes to whichever
// is larger.
struct StepTotals {
    core::Seconds time;
    core::Seconds memory_bound;
    core::Seconds compute_bound;
    core::Seconds overhead;
    core::Seconds communication;
    Bound bound = Bound::memory;  // the largest of the four

    void add(const OperatorTime& time);
    // A pass dispatched op by op lasts at least its dispatch: the host's time beyond the device's
    // is fixed overhead (EagerPasses).
    void hold_for_dispatch(const StepCosts& costs, const DeviceRates& rates);
    void settle_bound();
};

struct StepTime {
    std::array<OperatorTime, kOperatorCount> operators;
    StepTotals totals;
};

// Every operator's time and the totals.
StepTime time_step(const StepCosts& costs, const DeviceRates& rates);
// The totals alone, for loops over many points (the same arithmetic as time_step).
StepTotals step_totals(const StepCosts& costs, const DeviceRates& rates);

// The totals at two sets of rates (predicted and roofline) in one pass over the costs.
struct PairedTotals {
    StepTotals first;
    StepTotals second;
};
PairedTotals step_totals(const StepCosts& costs, const DeviceRates& first, const DeviceRates& second);

inline void StepTotals::add(const OperatorTime& op) {
    time += op.time;
    overhead += op.overhead;
    communication += op.communication;
    if (op.bound == Bound::compute) {
        compute_bound += op.compute;
    } else if (op.bound == Bound::memory) {
        memory_bound += op.memory;
    }
}

}  // namespace decodesim::engine
