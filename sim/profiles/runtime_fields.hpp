#pragma once
// The one table that names each RuntimeFactors member for the files that read and write them
// (runtime profiles, `decodesim calibrate`'s output, the fit's report).

#include <array>
#include <cstdint>
#include <string_view>

#include "core/factor_unit.hpp"
#include "profiles/runtime_profile.hpp"

namespace decodesim::profiles {

// One RuntimeFactors member as a runtime profile spells it. The reader, the writer and the report of
// a calibration all walk kRuntimeFactorFields, so a new member needs one row here.
struct RuntimeFactorField {
    std::string_view key;
    core::FactorUnit unit;  // a time with a unit ("5 us", at least 0), a multiplier in (0, maximum], or rows in [0, maximum]
    double maximum;             // for a multiplier or a count of rows
    double& (*value)(RuntimeFactors& factors);

    double get(const RuntimeFactors& factors) const { return value(const_cast<RuntimeFactors&>(factors)); }
};

// The most a multiplier may be: a runtime 50% above the measured defaults is a typo, not a stack.
inline constexpr double kMaxRuntimeFactor = 1.5;
// The least: the fits search down to 0.1 and the slowest shipped build reads 0.134; a hundredth of
// the measured defaults is a typo too, and a factor of 1e-300 would price a pass at 1e298 s.
inline constexpr double kMinRuntimeFactor = 0.01;
// A backend's multiplier is relative to the family's compute factor, which a fit may set for a
// slower backend: Metal's kernels reach about 4x the fraction of peak that ROCm's reach on
// RDNA 3.5 (docs/model.md, "Backends"). Beyond 8x is a typo.
inline constexpr double kMaxBackendComputeFactor = 8.0;
// Rows of multiply-adds a weight tile's staging may cost: a matrix kernel's tile is at most 256
// rows tall; four tiles' worth is a typo.
inline constexpr double kMaxTileSetupRows = 1024.0;

inline constexpr std::array kRuntimeFactorFields{
    RuntimeFactorField{"kernel_overhead", core::FactorUnit::duration, kMaxRuntimeFactor, [](RuntimeFactors& f) -> double& { return f.kernel_overhead.value; }},
    RuntimeFactorField{"quantized_weight_bandwidth", core::FactorUnit::multiplier, kMaxRuntimeFactor,
                       [](RuntimeFactors& f) -> double& { return f.quantized_weight_bandwidth; }},
    RuntimeFactorField{"quantized_compute", core::FactorUnit::multiplier, kMaxRuntimeFactor, [](RuntimeFactors& f) -> double& { return f.quantized_compute; }},
    RuntimeFactorField{"attention_bandwidth", core::FactorUnit::multiplier, kMaxRuntimeFactor, [](RuntimeFactors& f) -> double& { return f.attention_bandwidth; }},
    RuntimeFactorField{"compute", core::FactorUnit::multiplier, kMaxRuntimeFactor, [](RuntimeFactors& f) -> double& { return f.compute; }},
    RuntimeFactorField{"sequence_overhead", core::FactorUnit::duration, kMaxRuntimeFactor, [](RuntimeFactors& f) -> double& { return f.sequence_overhead.value; }},
    RuntimeFactorField{"cross_die_kernel_overhead", core::FactorUnit::duration, kMaxRuntimeFactor,
                       [](RuntimeFactors& f) -> double& { return f.cross_die_kernel_overhead.value; }},
    RuntimeFactorField{"tile_setup_rows", core::FactorUnit::rows, kMaxTileSetupRows,
                       [](RuntimeFactors& f) -> double& { return f.tile_setup_rows; }},
    // One row per core::Backend, in kBackends order (checked below).
    RuntimeFactorField{"compute_on_cuda", core::FactorUnit::multiplier, kMaxBackendComputeFactor, [](RuntimeFactors& f) -> double& { return f.backend_compute[0]; }},
    RuntimeFactorField{"compute_on_rocm", core::FactorUnit::multiplier, kMaxBackendComputeFactor, [](RuntimeFactors& f) -> double& { return f.backend_compute[1]; }},
    RuntimeFactorField{"compute_on_metal", core::FactorUnit::multiplier, kMaxBackendComputeFactor, [](RuntimeFactors& f) -> double& { return f.backend_compute[2]; }},
    RuntimeFactorField{"compute_on_vulkan", core::FactorUnit::multiplier, kMaxBackendComputeFactor, [](RuntimeFactors& f) -> double& { return f.backend_compute[3]; }},
    RuntimeFactorField{"compute_on_sycl", core::FactorUnit::multiplier, kMaxBackendComputeFactor, [](RuntimeFactors& f) -> double& { return f.backend_compute[4]; }},
    RuntimeFactorField{"compute_on_other", core::FactorUnit::multiplier, kMaxBackendComputeFactor, [](RuntimeFactors& f) -> double& { return f.backend_compute[5]; }},
    RuntimeFactorField{"attention_compute_on_cuda", core::FactorUnit::multiplier, kMaxBackendComputeFactor, [](RuntimeFactors& f) -> double& { return f.backend_attention[0]; }},
    RuntimeFactorField{"attention_compute_on_rocm", core::FactorUnit::multiplier, kMaxBackendComputeFactor, [](RuntimeFactors& f) -> double& { return f.backend_attention[1]; }},
    RuntimeFactorField{"attention_compute_on_metal", core::FactorUnit::multiplier, kMaxBackendComputeFactor, [](RuntimeFactors& f) -> double& { return f.backend_attention[2]; }},
    RuntimeFactorField{"attention_compute_on_vulkan", core::FactorUnit::multiplier, kMaxBackendComputeFactor, [](RuntimeFactors& f) -> double& { return f.backend_attention[3]; }},
    RuntimeFactorField{"attention_compute_on_sycl", core::FactorUnit::multiplier, kMaxBackendComputeFactor, [](RuntimeFactors& f) -> double& { return f.backend_attention[4]; }},
    RuntimeFactorField{"attention_compute_on_other", core::FactorUnit::multiplier, kMaxBackendComputeFactor, [](RuntimeFactors& f) -> double& { return f.backend_attention[5]; }},
};
// The two blocks of per-backend rows, compute_on_<backend> then attention_compute_on_<backend>,
// each in kBackends order.
consteval bool backend_rows_in_order() {
    constexpr std::size_t backends = core::kBackends.size();
    std::size_t first = 0;
    while (first < kRuntimeFactorFields.size() && kRuntimeFactorFields[first].key.substr(0, 11) != "compute_on_") ++first;
    if (first + 2 * backends > kRuntimeFactorFields.size()) return false;
    const auto named = [](std::string_view key, std::string_view prefix, std::string_view backend) {
        return key.substr(0, prefix.size()) == prefix && key.substr(prefix.size()) == backend;
    };
    for (std::size_t i = 0; i < backends; ++i) {
        if (!named(kRuntimeFactorFields[first + i].key, "compute_on_", core::kBackends[i].name)) return false;
        if (!named(kRuntimeFactorFields[first + backends + i].key, "attention_compute_on_", core::kBackends[i].name)) {
            return false;
        }
    }
    return true;
}
static_assert(backend_rows_in_order(), "the compute_on_<backend> rows must follow core::kBackends");
// Every member is a double (a Quantity holds one): a member without a row changes the size.
static_assert(sizeof(RuntimeFactors) == kRuntimeFactorFields.size() * sizeof(double),
              "every RuntimeFactors member needs a row in kRuntimeFactorFields");
// RuntimeProfile::own_factors marks the stated members, one bit a row of the table.
static_assert(kRuntimeFactorFields.size() <= 8 * sizeof(decltype(RuntimeProfile::own_factors)::value_type),
              "RuntimeProfile::own_factors needs a wider mask for this many factor fields");

// `group`, the factors a fit of the group gives on `family`, with those `runtime` states itself
// there (RuntimeProfile::own_factors) in their place.
inline RuntimeFactors with_own_factors(const RuntimeProfile& runtime, core::MemoryFamily family, RuntimeFactors group) {
    const RuntimeFactors& own = runtime.factors(family);
    const std::uint32_t stated = runtime.own_factors[static_cast<std::size_t>(family)];
    for (std::size_t i = 0; i < kRuntimeFactorFields.size(); ++i) {
        if ((stated >> i) & 1U) kRuntimeFactorFields[i].value(group) = kRuntimeFactorFields[i].get(own);
    }
    return group;
}

}  // namespace decodesim::profiles
