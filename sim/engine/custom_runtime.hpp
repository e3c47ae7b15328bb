#pragma once
// Runtime presets from outside kRuntimePresets (`--runtime path.yaml`, `decodesim calibrate`): the
// one table that names each RuntimeFactors member for the files that read and write them, and
// presets that own their name and description.

#include <array>
#include <memory>
#include <string>
#include <string_view>

#include "engine/runtime.hpp"

namespace decodesim::engine {

// One RuntimeFactors member as a preset file spells it. The reader, the writer and the report of
// a calibration all walk kRuntimeFactorFields, so a new member needs one row here.
struct RuntimeFactorField {
    std::string_view key;
    bool duration;  // a time with a unit ("5 us", at least 0); else a multiplier in (0, 1.5]
    double& (*value)(RuntimeFactors& factors);

    double get(const RuntimeFactors& factors) const { return value(const_cast<RuntimeFactors&>(factors)); }
};

inline constexpr std::array kRuntimeFactorFields{
    RuntimeFactorField{"kernel_overhead", true, [](RuntimeFactors& f) -> double& { return f.kernel_overhead.value; }},
    RuntimeFactorField{"quantized_weight_bandwidth", false,
                       [](RuntimeFactors& f) -> double& { return f.quantized_weight_bandwidth; }},
    RuntimeFactorField{"quantized_compute", false, [](RuntimeFactors& f) -> double& { return f.quantized_compute; }},
    RuntimeFactorField{"attention_bandwidth", false, [](RuntimeFactors& f) -> double& { return f.attention_bandwidth; }},
    RuntimeFactorField{"compute", false, [](RuntimeFactors& f) -> double& { return f.compute; }},
    RuntimeFactorField{"sequence_overhead", true, [](RuntimeFactors& f) -> double& { return f.sequence_overhead.value; }},
};
// Every member is a double (a Quantity holds one): a member without a row changes the size.
static_assert(sizeof(RuntimeFactors) == kRuntimeFactorFields.size() * sizeof(double),
              "every RuntimeFactors member needs a row in kRuntimeFactorFields");

// The most a multiplier may be: a runtime 50% above the measured defaults is a typo, not a stack.
inline constexpr double kMaxRuntimeFactor = 1.5;

// A preset that owns its name and description: the views of the returned RuntimePreset point into
// storage that lives as long as any copy of the pointer. `base` is the built-in runtime it refines.
std::shared_ptr<const RuntimePreset> make_custom_runtime(
    std::string name, std::string description, Runtime base,
    const std::array<RuntimeFactors, core::kMemoryFamilies.size()>& by_family);

}  // namespace decodesim::engine
