#include "engine/efficiency.hpp"

#include <algorithm>


namespace decodesim::engine {
namespace {

// Sources: docs/model.md, "Efficiency defaults".
constexpr double kUnifiedUsableFraction = 0.75;   // macOS default GPU working-set limit on large configurations

}  // namespace

MeasuredRange measured_bandwidth_fraction(core::MemoryFamily family) {
    // Median and range of copy benchmarks in validation/bandwidth.csv: 8 HBM, 7 GDDR and 7
    // unified-memory devices.
    switch (family) {
        case core::MemoryFamily::hbm: return {0.73, 0.82, 0.88};
        case core::MemoryFamily::gddr: return {0.78, 0.89, 0.95};
        case core::MemoryFamily::unified: return {0.80, 0.83, 0.90};
    }
    return {0.73, 0.82, 0.88};
}

Efficiency ideal_efficiency() { return {}; }

Efficiency runtime_efficiency(const profiles::HardwareProfile& hardware, const RuntimeProfile& runtime) {
    return runtime_efficiency(hardware, runtime, hardware.native_backend);
}

Efficiency deployment_efficiency(const profiles::HardwareProfile& hardware, const Deployment& deployment) {
    return runtime_efficiency(hardware, deployment.runtime_profile(), deployment.backend);
}

Efficiency runtime_efficiency(const profiles::HardwareProfile& hardware, const RuntimeProfile& preset,
                              core::Backend backend) {
    if (preset.ideal) return ideal_efficiency();
    const RuntimeFactors& factors = preset.factors(hardware.memory_family);
    Efficiency efficiency;
    efficiency.memory_bandwidth = measured_bandwidth_fraction(hardware.memory_family).median;
    efficiency.compute = kMeasuredComputeFraction.median;
    efficiency.kernel_overhead = factors.kernel_overhead;
    efficiency.sequence_overhead = factors.sequence_overhead;
    efficiency.fit_group = preset.fit_group;
    efficiency.decode_band = preset.band(hardware.memory_family, PassKind::decode);
    efficiency.prefill_band = preset.band(hardware.memory_family, PassKind::prefill);
    efficiency.link_bandwidth = kMeasuredLinkFraction.median;
    const auto& overrides = hardware.efficiency;
    if (overrides.memory_bandwidth) efficiency.memory_bandwidth = *overrides.memory_bandwidth;
    if (overrides.compute) efficiency.compute = *overrides.compute;
    // A kernel graph counted on this device's family with a launch time of its own prices its
    // launches so; a device's own measured kernel overhead still wins.
    if (const KernelGraph* graph = preset.graph.on_family(hardware.family(), hardware.memory_family); graph != nullptr && graph->launch_time) {
        efficiency.kernel_overhead = *graph->launch_time;
    }
    if (overrides.kernel_overhead) efficiency.kernel_overhead = *overrides.kernel_overhead;
    // On a multi-die package every kernel spans the dies: each one beyond the first adds its cost.
    efficiency.kernel_overhead = efficiency.kernel_overhead + factors.cross_die_kernel_overhead * (hardware.dies - 1.0);
    efficiency.compute = std::min(1.0, efficiency.compute * factors.compute_on(backend));
    efficiency.quantized_weight_bandwidth = factors.quantized_weight_bandwidth;
    efficiency.quantized_compute = factors.quantized_compute;
    efficiency.attention_bandwidth = factors.attention_bandwidth;
    efficiency.attention_compute = factors.attention_on(backend);
    efficiency.tile_setup_rows = factors.tile_setup_rows;
    efficiency.eager_op_time = preset.eager.op_time;  // its ops are counted only where passes run eagerly
    return efficiency;
}

EfficiencyBand efficiency_band(const Efficiency& nominal) {
    const BandRatios decode = nominal.decode_band;
    const BandRatios prefill = nominal.prefill_band;
    // A bandwidth-bound step's time is bytes / bandwidth plus its fixed costs: scaling the
    // bandwidth by r and the fixed costs by 1/r scales its rate by r. A compute-bound pass scales
    // with the compute rate. Neither end goes past the datasheet.
    const auto at = [&](double decode_ratio, double prefill_ratio) {
        Efficiency end = nominal;
        end.memory_bandwidth = std::min(1.0, nominal.memory_bandwidth * decode_ratio);
        end.kernel_overhead = nominal.kernel_overhead / decode_ratio;
        end.sequence_overhead = nominal.sequence_overhead / decode_ratio;
        end.compute = std::min(1.0, nominal.compute * prefill_ratio);
        return end;
    };
    EfficiencyBand band{at(decode.low, prefill.low), at(decode.high, prefill.high)};
    auto scaled = [](double value, double end, const MeasuredRange& range) {
        return std::min(1.0, value * end / range.median);
    };
    band.low.link_bandwidth = scaled(nominal.link_bandwidth, kMeasuredLinkFraction.low, kMeasuredLinkFraction);
    band.high.link_bandwidth = scaled(nominal.link_bandwidth, kMeasuredLinkFraction.high, kMeasuredLinkFraction);
    return band;
}

double usable_memory_fraction(const profiles::HardwareProfile& hardware, const KvCacheSizing& sizing) {
    return hardware.memory_family == core::MemoryFamily::unified ? std::min(kUnifiedUsableFraction, sizing.capacity_share)
                                                                 : sizing.capacity_share;
}

}  // namespace decodesim::engine
