#pragma once
// The clock condition a prediction assumes. A datasheet's peaks hold at the vendor's boost
// clock; under long dense load a device settles at the clock its board power and cooling allow,
// and an operator may lower the power limit further. Compute rates scale with the clock; memory
// bandwidth only where the profile says the memory clock drops (docs/clocks.md). The roofline
// bound always stays at the datasheet peak.

#include <optional>
#include <string>

#include "core/units.hpp"
#include "profiles/hardware_profile.hpp"

namespace decodesim::engine {

enum class ClockCondition { peak, sustained };

// What a user chose: --clocks and --power-limit.
struct ClockChoice {
    ClockCondition condition = ClockCondition::sustained;
    std::optional<core::Watts> power_limit;  // implies sustained, at this board power
};

// The shares of the listed peaks a deployment runs at, resolved from the hardware profile.
struct ClockState {
    ClockChoice choice;
    double compute_share = 1.0;  // of the listed compute peaks
    double memory_share = 1.0;   // of the listed memory bandwidth
    std::string power_mode;      // the vendor mode a power limit selected, if the device has modes
    // False when the profile gives no sustained figure (or only the vendor's base clock) and the
    // peak stands in for it.
    bool sustained_known = true;
};

// The clock a power limit allows, as a share of the clock at the default board power, for a
// limit at `power_ratio` of that power. Dynamic power ~ C V^2 f with V roughly proportional to f
// over the DVFS range gives the cube root; below about 75% of the default the voltage reaches its
// floor and the clock falls in proportion to the power (linear, meeting the cube root at 75%).
// Checked on 147 capped points from 20 public sweeps: mean error 0.034 of throughput at or
// above 75%, 0.079 below (docs/evidence/power-capping.md).
double clock_share_at_power(double power_ratio);
inline constexpr double kClockPowerExponent = 1.0 / 3.0;
inline constexpr double kVoltageFloorPowerRatio = 0.75;

// Throws core::InputError (key "clocks" or "power_limit") when the profile cannot support the
// choice: a power limit outside the configurable range, below every power mode, on a device
// with no configurable power, or combined with peak clocks.
ClockState resolve_clocks(const profiles::HardwareProfile& hardware, const ClockChoice& choice);

const char* clock_condition_name(ClockCondition condition);
// "peak", "sustained", "sustained at 300 W", "power mode 15W": what outputs record.
std::string clock_label(const ClockState& clocks);

}  // namespace decodesim::engine
