#include "engine/clocks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace decodesim::engine {

namespace {

[[noreturn]] void refuse(const char* key, const std::string& message) {
    throw core::InputError(core::unlocated(key, message));
}

// The sustained clock as a share of the peak, capped at the peak: the listed peaks are the most
// the datasheet promises, and GeForce boost above the rated clock is not counted on.
double sustained_share(const profiles::SustainedClocks& clocks) {
    return std::min(1.0, clocks.sustained / clocks.peak);
}

}  // namespace

double clock_share_at_power(double power_ratio) {
    if (power_ratio >= kVoltageFloorPowerRatio) return std::pow(power_ratio, kClockPowerExponent);
    return std::pow(kVoltageFloorPowerRatio, kClockPowerExponent) * power_ratio / kVoltageFloorPowerRatio;
}

const char* clock_condition_name(ClockCondition condition) {
    return condition == ClockCondition::peak ? "peak" : "sustained";
}

ClockState resolve_clocks(const profiles::HardwareProfile& hardware, const ClockChoice& choice) {
    ClockState state;
    state.choice = choice;
    if (choice.condition == ClockCondition::peak) {
        if (choice.power_limit) {
            refuse("power_limit", "a power limit sets the sustained clock; it cannot be combined with --clocks peak");
        }
        return state;
    }
    // A vendor base clock is the floor for a worst-case load, often a third of the peak on Ada
    // boards, not what a device settles at under GEMMs: it is kept as data but never stands in for
    // a measurement, so such a device runs at its peak share (docs/clocks.md).
    const auto& listed = hardware.clocks;
    const bool usable = listed && listed->basis != profiles::ClockBasis::base_clock;
    const std::optional<profiles::SustainedClocks> profile_clocks = usable ? listed : std::nullopt;
    // A memory clock that drops under long load is a measurement of its own, whatever the
    // compute clock's basis.
    const double memory_share = listed && listed->memory_bandwidth ? *listed->memory_bandwidth / hardware.memory_bandwidth
                                                                   : 1.0;
    state.sustained_known = profile_clocks.has_value();
    if (!choice.power_limit) {
        state.compute_share = profile_clocks ? sustained_share(*profile_clocks) : 1.0;
        state.memory_share = memory_share;
        return state;
    }
    const double limit = choice.power_limit->value;
    if (!std::isfinite(limit) || limit <= 0.0) refuse("power_limit", "a power limit must be a positive, finite number of watts");
    if (!hardware.power_modes.empty()) {
        // Named modes (Jetson nvpmodel): the most capable one the limit allows.
        const profiles::PowerMode* chosen = nullptr;
        for (const auto& mode : hardware.power_modes) {
            if (mode.power.value <= limit) chosen = &mode;
        }
        if (chosen == nullptr) {
            refuse("power_limit", fmt::format("{} has no power mode at or below {:g} W; its lowest is {} at {:g} W",
                                              hardware.name, limit, hardware.power_modes.front().name,
                                              hardware.power_modes.front().power.value));
        }
        state.power_mode = chosen->name;
        state.compute_share = chosen->compute_fraction;
        state.memory_share = chosen->memory_bandwidth / hardware.memory_bandwidth;
        state.sustained_known = true;
        return state;
    }
    if (!hardware.power_limit) {
        refuse("power_limit", fmt::format("{} lists no configurable power limit (add power_limit: or power_modes: "
                                          "to its profile)",
                                          hardware.name));
    }
    const profiles::PowerLimitRange& range = *hardware.power_limit;
    if (limit < range.min.value || limit > range.max.value) {
        refuse("power_limit", fmt::format("{:g} W is outside {}'s configurable range, {:g}-{:g} W", limit,
                                          hardware.name, range.min.value, range.max.value));
    }
    if (!hardware.power) {
        refuse("power_limit", fmt::format("{} lists no board power (power:), so a limit has nothing to scale from",
                                          hardware.name));
    }
    // The sustained clock at the default board power, scaled by the power law, never above peak.
    const double base = profile_clocks ? profile_clocks->sustained / profile_clocks->peak : 1.0;
    const double scaled = base * clock_share_at_power(limit / hardware.power->value);
    state.compute_share = std::min(1.0, scaled);
    state.memory_share = memory_share;
    return state;
}

std::string clock_label(const ClockState& clocks) {
    if (clocks.choice.condition == ClockCondition::peak) return "peak";
    if (!clocks.power_mode.empty()) return fmt::format("power mode {}", clocks.power_mode);
    if (clocks.choice.power_limit) return fmt::format("sustained at {:g} W", clocks.choice.power_limit->value);
    return clocks.sustained_known ? "sustained" : "sustained (not measured; peak used)";
}

}  // namespace decodesim::engine
