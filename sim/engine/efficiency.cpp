#include "engine/efficiency.hpp"

#include <algorithm>

namespace decodesim::engine {
namespace {

// Defaults and their sources: docs/model.md, "Efficiency defaults".
constexpr double kHbmBandwidthFraction = 0.82;      // median of 8 HBM devices in validation/bandwidth.csv
constexpr double kGddrBandwidthFraction = 0.89;     // median of 7 GDDR devices
constexpr double kUnifiedBandwidthFraction = 0.83;  // median of 7 unified-memory devices
constexpr double kComputeFraction = 0.80;          // median large-GEMM fraction, docs/evidence section 1
constexpr double kLinkBandwidthFraction = 0.77;     // median NCCL bus bandwidth / peak, section 3
constexpr double kDiscreteUsableFraction = 0.90;  // vLLM's default gpu_memory_utilization
constexpr double kUnifiedUsableFraction = 0.75;   // macOS default GPU working-set limit on large configurations

}  // namespace

Efficiency ideal_efficiency() { return {}; }

MemoryFamily memory_family(const profiles::HardwareProfile& hardware) {
    const std::string& type = hardware.memory_type;
    if (type.starts_with("HBM")) return MemoryFamily::hbm;
    if (type.starts_with("GDDR")) return MemoryFamily::gddr;
    return MemoryFamily::unified;
}

Efficiency default_efficiency(const profiles::HardwareProfile& hardware, const RuntimePreset& runtime) {
    if (runtime.ideal) return ideal_efficiency();
    Efficiency efficiency;
    switch (memory_family(hardware)) {
        case MemoryFamily::hbm: efficiency.memory_bandwidth = kHbmBandwidthFraction; break;
        case MemoryFamily::gddr: efficiency.memory_bandwidth = kGddrBandwidthFraction; break;
        case MemoryFamily::unified: efficiency.memory_bandwidth = kUnifiedBandwidthFraction; break;
    }
    const RuntimeFactors& factors = runtime.factors(memory_family(hardware));
    efficiency.compute = kComputeFraction;
    efficiency.kernel_overhead_s = factors.kernel_overhead_s;
    efficiency.link_bandwidth = kLinkBandwidthFraction;
    const auto& overrides = hardware.efficiency;
    if (overrides.memory_bandwidth) efficiency.memory_bandwidth = *overrides.memory_bandwidth;
    if (overrides.compute) efficiency.compute = *overrides.compute;
    if (overrides.kernel_overhead) efficiency.kernel_overhead_s = overrides.kernel_overhead->value;
    efficiency.compute = std::min(1.0, efficiency.compute * factors.compute);
    efficiency.quantized_weight_bandwidth = factors.quantized_weight_bandwidth;
    efficiency.quantized_compute = factors.quantized_compute;
    efficiency.attention_bandwidth = factors.attention_bandwidth;
    return efficiency;
}

EfficiencyBand efficiency_band(const profiles::HardwareProfile& hardware, const Efficiency& nominal) {
    // Measured ranges (docs/model.md): copy bandwidth per family over its median, large-GEMM
    // efficiency 0.50 to 0.97 around 0.80, kernel launches 3 to 6 us around 4 us.
    double bandwidth_low = 0.73 / 0.82, bandwidth_high = 0.88 / 0.82;
    switch (memory_family(hardware)) {
        case MemoryFamily::hbm: break;
        case MemoryFamily::gddr:
            bandwidth_low = 0.78 / 0.89;
            bandwidth_high = 0.95 / 0.89;
            break;
        case MemoryFamily::unified:
            bandwidth_low = 0.80 / 0.83;
            bandwidth_high = 0.90 / 0.83;
            break;
    }
    EfficiencyBand band{nominal, nominal};
    band.low.memory_bandwidth = nominal.memory_bandwidth * bandwidth_low;
    band.high.memory_bandwidth = std::min(1.0, nominal.memory_bandwidth * bandwidth_high);
    band.low.compute = nominal.compute * 0.50 / 0.80;
    band.high.compute = std::min(1.0, nominal.compute * 0.97 / 0.80);
    band.low.kernel_overhead_s = nominal.kernel_overhead_s * 1.5;
    band.high.kernel_overhead_s = nominal.kernel_overhead_s * 0.75;
    band.low.link_bandwidth = nominal.link_bandwidth * 0.65 / 0.77;
    band.high.link_bandwidth = std::min(1.0, nominal.link_bandwidth * 0.84 / 0.77);
    return band;
}

double usable_memory_fraction(const profiles::HardwareProfile& hardware) {
    return memory_family(hardware) == MemoryFamily::unified ? kUnifiedUsableFraction : kDiscreteUsableFraction;
}

}  // namespace decodesim::engine
