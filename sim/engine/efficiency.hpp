#pragma once
// What fraction of the datasheet a real software stack achieves, and the fixed costs it adds.
// Every default here is documented with its provenance in docs/model.md.

#include <string>

#include "engine/deployment.hpp"
#include "engine/runtime.hpp"
#include "profiles/hardware_profile.hpp"

namespace decodesim::engine {

struct Efficiency {
    double memory_bandwidth = 1.0;  // achieved / peak memory bandwidth, (0, 1]
    double compute = 1.0;           // achieved / peak matrix rate, (0, 1]
    core::Seconds kernel_overhead;  // fixed time per kernel launch
    core::Seconds sequence_overhead;  // host time per sequence per step (serving runtimes' scheduling, sampling)
    double link_bandwidth = 1.0;    // achieved / peak interconnect bandwidth, (0, 1]
    // Runtime factors, multiplying the above for some operators (1 = no change):
    double quantized_weight_bandwidth = 1.0;  // weight-only quantized matmuls (dequantization in the kernel)
    double quantized_compute = 1.0;
    double attention_bandwidth = 1.0;         // KV-cache reads and writes
    double attention_compute = 1.0;           // attention's arithmetic over the cache (the backend's attention kernels)
    double tile_setup_rows = 0.0;             // a weight tile's staging, in rows of multiply-adds (RuntimeFactors)
    core::Seconds eager_op_time;              // host time per op of a pass run without a graph (EagerPasses)
    // The fit group these figures come from (RuntimeProfile::fit_group); empty: the datasheet's.
    std::string fit_group;
    // The spread of that group's held-out errors on this device's memory family (efficiency_band).
    BandRatios decode_band;
    BandRatios prefill_band;
};

// A measured efficiency: the median the defaults use, and the ends of the measured range
// (docs/model.md, "Efficiency defaults" and "Uncertainty band").
struct MeasuredRange {
    double low;
    double median;
    double high;
};

// Copy-benchmark bandwidth over peak, per memory family (validation/bandwidth.csv).
MeasuredRange measured_bandwidth_fraction(core::MemoryFamily family);
// Large-GEMM throughput over the dense peak (docs/evidence/efficiency-sources.md, section 1).
inline constexpr MeasuredRange kMeasuredComputeFraction{0.50, 0.80, 0.97};
// NCCL all-reduce bus bandwidth over the link's peak (section 3).
inline constexpr MeasuredRange kMeasuredLinkFraction{0.65, 0.77, 0.84};

// Datasheet peaks, no overheads: the physical ceiling.
Efficiency ideal_efficiency();

// The engine's defaults for this device (by memory family), with the hardware profile's overrides
// applied, under a runtime profile whose kernels are compiled for `backend` (an ideal runtime: the
// datasheet). Its launches cost the launch time of the runtime's kernel graph counted on the
// device's family where that graph states one (KernelGraph::launch_time), else the fitted factor.
Efficiency runtime_efficiency(const profiles::HardwareProfile& hardware, const RuntimeProfile& runtime,
                              core::Backend backend);
// The same on the device's native backend.
Efficiency runtime_efficiency(const profiles::HardwareProfile& hardware, const RuntimeProfile& runtime);
// The efficiency a deployment runs at: its runtime's on its backend. Every caller with a
// Deployment uses this one.
Efficiency deployment_efficiency(const profiles::HardwareProfile& hardware, const Deployment& deployment);

// The plausible range of an efficiency: the spread of decodesim's held-out errors for this device
// class and the nominal efficiency's fit group (Efficiency::decode_band, prefill_band; the table is
// validation/residual_bands.csv, profiles/residual_band_table.hpp), applied to the rates each
// pass is bound by: decode's memory bandwidth and fixed costs, the compute rate; the link
// bandwidth moves over its measured range.
struct EfficiencyBand {
    Efficiency low;   // everything at the slow end of its measured range
    Efficiency high;  // everything at the fast end (never above the datasheet)
};
EfficiencyBand efficiency_band(const Efficiency& nominal);

// Fraction of capacity a runtime's weights, workspace and KV cache may fill: its sizing's
// capacity_share, at most the operating system's limit on unified memory (the rest is the reserve
// for activations, the runtime and, on unified memory, the operating system).
double usable_memory_fraction(const profiles::HardwareProfile& hardware, const KvCacheSizing& sizing);

}  // namespace decodesim::engine
