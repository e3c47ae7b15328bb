#include "profiles/hardware_loader.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

#include "core/error.hpp"
#include "core/backend.hpp"
#include "core/memory_family.hpp"
#include "core/registry.hpp"
#include "core/suggest.hpp"
#include "profiles/profile_id.hpp"
#include "profiles/strict_map.hpp"

namespace decodesim::profiles {
namespace {

using core::Dimension;

std::vector<std::string> memory_type_names() {
    std::vector<std::string> names;
    for (const auto& type : core::kMemoryTypes) names.emplace_back(type.name);
    return names;
}

// Default per-hop latency of a scale-up link when a profile gives none (docs/model.md).
constexpr double kDefaultLinkLatencySeconds = 2e-6;
// One InfiniBand hop through a switch, end to end, as nccl-tests show for small messages across
// InfiniBand nodes; EFA, RoCE and TCPXO clusters take several times that, and state their own
// (docs/model.md, "Topology"; docs/validation.md, "Collectives").
constexpr double kDefaultScaleOutLatencySeconds = 5e-6;
// The largest scale-up domain accepted: above any shipped system (NVL576 is the largest announced).
constexpr std::int64_t kMaxScaleUpDomain = 1024;

// Plausible clocks: from an embedded part's lowest mode to well above any shipping GPU.
constexpr double kLowestClockHz = 10e6;
constexpr double kHighestClockHz = 10e9;
// A sustained clock far below or above the peak is a typo (MHz for GHz), not a device: the
// lowest published sustained share we know is about half, and GeForce boost runs ~10% above the
// rated clock (docs/clocks.md).
constexpr double kLowestSustainedShare = 0.2;
constexpr double kHighestSustainedShare = 1.5;

std::optional<ClockBasis> clock_basis_named(const std::string& name) {
    if (name == "measured") return ClockBasis::measured;
    if (name == "base-clock") return ClockBasis::base_clock;
    if (name == "vendor") return ClockBasis::vendor;
    return std::nullopt;
}

std::optional<core::Hertz> clock(StrictMap& map, const std::string& key) {
    const auto hertz = map.quantity(key, Dimension::frequency, Presence::required);
    if (!hertz) return std::nullopt;
    if (*hertz < kLowestClockHz || *hertz > kHighestClockHz) {
        map.error(key, fmt::format("a clock of {:g} MHz is not plausible; expected 10 MHz to 10 GHz", *hertz / 1e6));
        return std::nullopt;
    }
    return core::Hertz(*hertz);
}

std::optional<SustainedClocks> load_clocks(StrictMap& section, const HardwareProfile& profile) {
    SustainedClocks clocks;
    const auto peak = clock(section, "peak");
    const auto sustained = clock(section, "sustained");
    if (auto basis = section.string("basis", Presence::required)) {
        if (const auto known = clock_basis_named(*basis)) {
            clocks.basis = *known;
        } else {
            section.error("basis", fmt::format("unknown basis '{}'{}; expected measured, base-clock or vendor", *basis,
                                               core::suggestion_note(*basis, {"measured", "base-clock", "vendor"})));
        }
    }
    if (auto bandwidth = section.quantity("memory_bandwidth", Dimension::bandwidth, Presence::optional)) {
        if (profile.memory_bandwidth.value > 0.0 && *bandwidth > profile.memory_bandwidth.value) {
            section.error("memory_bandwidth", "the sustained memory bandwidth exceeds memory.bandwidth, the peak");
        } else {
            clocks.memory_bandwidth = core::Bandwidth(*bandwidth);
        }
    }
    clocks.source = section.string("source", Presence::required).value_or("");
    section.reject_unknown_keys({"peak", "sustained", "basis", "memory_bandwidth", "source"});
    if (!peak || !sustained) return std::nullopt;
    const double share = *sustained / *peak;
    if (share < kLowestSustainedShare || share > kHighestSustainedShare) {
        section.error("sustained", fmt::format("the sustained clock is {:.2g}x the peak; expected {}x to {}x "
                                               "(check the units: MHz and GHz)",
                                               share, kLowestSustainedShare, kHighestSustainedShare));
        return std::nullopt;
    }
    clocks.peak = *peak;
    clocks.sustained = *sustained;
    return clocks;
}

std::optional<PowerLimitRange> load_power_limit(StrictMap& section, const HardwareProfile& profile) {
    const auto low = section.quantity("min", Dimension::power, Presence::required);
    const auto high = section.quantity("max", Dimension::power, Presence::required);
    const std::string source = section.string("source", Presence::required).value_or("");
    section.reject_unknown_keys({"min", "max", "source"});
    if (!low || !high) return std::nullopt;
    if (*low > *high) {
        section.error("min", "the lowest power limit is above the highest");
        return std::nullopt;
    }
    if (profile.power && (profile.power->value < *low || profile.power->value > *high)) {
        section.error("max", fmt::format("the board power ({:g} W) lies outside the configurable range {:g}-{:g} W",
                                         profile.power->value, *low, *high));
        return std::nullopt;
    }
    return PowerLimitRange{core::Watts(*low), core::Watts(*high), source};
}

// `purchase:` price_usd (required), covers (system or board, required), source. With price_basis
// purchase, price_per_hour must be what the convention makes of them (hardware_profile.hpp).
void load_purchase(StrictMap& section, HardwareProfile& profile) {
    Purchase purchase;
    purchase.price_usd = section.positive_number("price_usd", Presence::required, kMaxPurchaseUsd).value_or(0.0);
    if (const auto covers = section.string("covers", Presence::required)) {
        if (*covers == "system" || *covers == "board") {
            purchase.covers_host = *covers == "system";
        } else {
            section.error("covers", fmt::format("'{}' is neither system (a whole machine) nor board (a card that needs a "
                                                "host)", *covers));
        }
    }
    purchase.source = section.string("source", Presence::optional).value_or("");
    section.reject_unknown_keys({"price_usd", "covers", "source"});
    if (profile.price_basis == PriceBasis::purchase && profile.price_per_hour && profile.power && purchase.price_usd > 0.0) {
        const double hours = kPurchaseYears * 365.0 * 24.0;
        const double expected = purchase.price_usd / hours + profile.power->value / 1000.0 * kPurchaseUsdPerKwh;
        if (std::fabs(*profile.price_per_hour / expected - 1.0) > 0.02) {
            section.error("price_usd", fmt::format("with price_basis purchase, price_per_hour {:g} should be this price over "
                                                   "{:g} years plus the board's power at {:g} USD/kWh: {:.4g}",
                                                   *profile.price_per_hour, kPurchaseYears, kPurchaseUsdPerKwh, expected));
        }
    }
    profile.purchase = purchase;
}

void load_power_modes(StrictMap& section, HardwareProfile& profile) {
    profile.power_modes_source = section.string("source", Presence::required).value_or("");
    for (StrictMap& item : section.list_of_maps("modes", Presence::required)) {
        PowerMode mode;
        mode.name = item.string("name", Presence::required).value_or("");
        mode.power = core::Watts(item.quantity("power", Dimension::power, Presence::required).value_or(0.0));
        mode.compute_fraction = item.fraction("compute_fraction", Presence::required).value_or(1.0);
        mode.memory_bandwidth =
            core::Bandwidth(item.quantity("memory_bandwidth", Dimension::bandwidth, Presence::required).value_or(0.0));
        if (profile.memory_bandwidth.value > 0.0 && mode.memory_bandwidth > profile.memory_bandwidth) {
            item.error("memory_bandwidth", "a power mode's memory bandwidth exceeds memory.bandwidth, the peak");
        }
        item.reject_unknown_keys({"name", "power", "compute_fraction", "memory_bandwidth"});
        for (const PowerMode& other : profile.power_modes) {
            if (other.name == mode.name) item.error("name", "duplicate power mode name");
        }
        profile.power_modes.push_back(mode);
    }
    section.reject_unknown_keys({"source", "modes"});
    std::sort(profile.power_modes.begin(), profile.power_modes.end(),
              [](const PowerMode& a, const PowerMode& b) { return a.power < b.power; });
}

}  // namespace

HardwareProfile load_hardware_profile(const std::string& path) { return parse_hardware_profile(read_input_file(path), path); }

HardwareProfile parse_hardware_profile(const std::string& text, const std::string& path) {
    const YAML::Node document = parse_document(text, path);
    std::vector<core::Diagnostic> diagnostics;
    StrictMap root(document, path, "", diagnostics);

    HardwareProfile profile;
    profile.id = id_from_path(path);
    profile.name = root.string("name", Presence::required).value_or("");
    profile.source = root.string("source", Presence::required).value_or("");
    if (auto vendor = root.string("vendor", Presence::required)) {
        if (const auto* info = core::find_named(core::kVendors, *vendor)) {
            profile.vendor = *vendor;
            profile.native_backend = info->native_backend;
        } else {
            const auto names = core::names_of(core::kVendors);
            root.error("vendor", fmt::format("unknown vendor '{}'{}; expected one of {}", *vendor,
                                             core::suggestion_note(*vendor, names), fmt::join(names, " ")));
        }
    }
    profile.architecture = root.string("architecture", Presence::required).value_or("");
    if (!profile.architecture.empty() &&
        !std::all_of(profile.architecture.begin(), profile.architecture.end(), [](unsigned char c) {
            return (std::islower(c) != 0) || (std::isdigit(c) != 0) || c == '-' || c == '.';
        })) {
        root.error("architecture", "expected lower-case letters, digits, '-' and '.' (hopper, rdna, m3, tpu-v5)");
    }
    if (auto segment = root.string("segment", Presence::optional)) {
        if (const auto stated = stated_segment(*segment)) {
            profile.segment = *stated;
        } else {
            root.error("segment", fmt::format("unknown segment '{}'; expected one of {}", *segment, kStatedSegments));
        }
    }
    if (auto backend = root.string("backend", Presence::optional)) {
        if (const auto chosen = core::backend_of(*backend)) {
            profile.native_backend = *chosen;
        } else {
            const auto names = core::names_of(core::kBackends);
            root.error("backend", fmt::format("unknown backend '{}'{}; expected one of {}", *backend,
                                              core::suggestion_note(*backend, names), fmt::join(names, " ")));
        }
    }

    if (auto memory = root.map("memory", Presence::required)) {
        if (auto type = memory->string("type", Presence::required)) {
            if (const auto family = core::memory_family_of(*type)) {
                profile.memory_family = *family;
            } else {
                const auto names = memory_type_names();
                memory->error("type", fmt::format("unknown memory type '{}'{}; expected one of {}", *type,
                                                  core::suggestion_note(*type, names), fmt::join(names, " ")));
            }
            profile.memory_type = *type;
        }
        profile.memory_capacity = core::Bytes(memory->quantity("capacity", Dimension::bytes, Presence::required).value_or(0));
        profile.memory_bandwidth =
            core::Bandwidth(memory->quantity("bandwidth", Dimension::bandwidth, Presence::required).value_or(0));
        memory->reject_unknown_keys({"type", "capacity", "bandwidth"});
    }

    if (auto compute = root.map("compute", Presence::required)) {
        std::vector<std::string> datatype_names;
        bool any = false;
        for (core::Datatype datatype : core::kAllDatatypes) {
            const std::string key(core::datatype_name(datatype));
            datatype_names.push_back(key);
            if (auto peak = compute->quantity(key, Dimension::throughput, Presence::optional)) {
                profile.peak_ops_per_s[static_cast<std::size_t>(datatype)] = core::FlopRate(*peak);
                any = true;
            }
        }
        if (!any) {
            bool has_keys = false;
            for (const auto& name : datatype_names) has_keys = has_keys || compute->has(name);
            if (!has_keys) {
                diagnostics.push_back({compute->location(), "compute",
                                       "expected at least one dense peak (fp32, fp16, bf16, fp8, fp4 or int8)"});
            }
        }
        compute->reject_unknown_keys(datatype_names);
    }

    if (auto link = root.map("interconnect", Presence::optional)) {
        Interconnect interconnect;
        interconnect.bandwidth =
            core::Bandwidth(link->quantity("bandwidth", Dimension::bandwidth, Presence::required).value_or(0));
        interconnect.latency = core::Seconds(
            link->quantity("latency", Dimension::time, Presence::optional).value_or(kDefaultLinkLatencySeconds));
        interconnect.kind = link->string("kind", Presence::optional).value_or("");
        if (auto domain = link->positive_integer("domain", Presence::optional, kMaxScaleUpDomain)) {
            interconnect.domain = static_cast<int>(*domain);
            interconnect.domain_stated = true;
        }
        interconnect.source = link->string("source", Presence::optional).value_or("");
        link->reject_unknown_keys({"bandwidth", "latency", "kind", "domain", "source"});
        profile.interconnect = interconnect;
    }
    if (auto network = root.map("scale_out", Presence::optional)) {
        ScaleOut scale_out;
        scale_out.bandwidth =
            core::Bandwidth(network->quantity("bandwidth", Dimension::bandwidth, Presence::required).value_or(0));
        scale_out.latency = core::Seconds(
            network->quantity("latency", Dimension::time, Presence::optional).value_or(kDefaultScaleOutLatencySeconds));
        scale_out.kind = network->string("kind", Presence::optional).value_or("");
        scale_out.source = network->string("source", Presence::optional).value_or("");
        network->reject_unknown_keys({"bandwidth", "latency", "kind", "source"});
        profile.scale_out = scale_out;
    }
    if (auto host = root.map("host_link", Presence::optional)) {
        HostLink host_link;
        host_link.bandwidth =
            core::Bandwidth(host->quantity("bandwidth", Dimension::bandwidth, Presence::required).value_or(0));
        host_link.kind = host->string("kind", Presence::optional).value_or("");
        host_link.source = host->string("source", Presence::optional).value_or("");
        host->reject_unknown_keys({"bandwidth", "kind", "source"});
        profile.host_link = host_link;
    }

    if (auto dies = root.positive_integer("dies", Presence::optional, kMaxDies)) profile.dies = static_cast<int>(*dies);
    if (auto units = root.positive_integer("compute_units", Presence::optional, kMaxComputeUnits)) {
        profile.compute_units = static_cast<int>(*units);
    }
    if (auto power = root.quantity("power", Dimension::power, Presence::optional)) profile.power = core::Watts(*power);
    profile.price_per_hour = root.positive_number("price_per_hour", Presence::optional, kMaxPricePerHour);
    if (profile.price_per_hour && *profile.price_per_hour < kMinPricePerHour) {
        root.error("price_per_hour", fmt::format("expected USD per device-hour from {:g} to {:g}, found {:g}", kMinPricePerHour,
                                                 kMaxPricePerHour, *profile.price_per_hour));
        profile.price_per_hour.reset();
    }
    if (const auto basis = root.string("price_basis", Presence::optional)) {
        bool known = false;
        for (const auto& row : kPriceBasisNames) {
            if (row.name == *basis && row.value != PriceBasis::unstated) {
                profile.price_basis = row.value;
                known = true;
            }
        }
        if (!known) root.error("price_basis", fmt::format("'{}' is not a basis; expected cloud, purchase or proxy", *basis));
        if (!profile.price_per_hour) root.error("price_basis", "a basis without a price_per_hour");
    }
    if (auto section = root.map("purchase", Presence::optional)) load_purchase(*section, profile);

    if (auto efficiency = root.map("efficiency", Presence::optional)) {
        profile.efficiency.memory_bandwidth = efficiency->fraction("memory_bandwidth", Presence::optional);
        profile.efficiency.compute = efficiency->fraction("compute", Presence::optional);
        if (auto overhead = efficiency->quantity("kernel_overhead", Dimension::time, Presence::optional)) {
            profile.efficiency.kernel_overhead = core::Seconds(*overhead);
        }
        efficiency->reject_unknown_keys({"memory_bandwidth", "compute", "kernel_overhead"});
    }

    if (auto section = root.map("clocks", Presence::optional)) profile.clocks = load_clocks(*section, profile);
    if (auto section = root.map("power_limit", Presence::optional)) {
        profile.power_limit = load_power_limit(*section, profile);
    }
    if (auto section = root.map("power_modes", Presence::optional)) load_power_modes(*section, profile);

    root.reject_unknown_keys({"name", "vendor", "architecture", "segment", "backend", "source", "memory", "compute", "interconnect", "scale_out", "host_link", "power", "price_per_hour",
                              "price_basis", "purchase", "dies", "compute_units", "efficiency", "clocks", "power_limit", "power_modes"});
    if (!diagnostics.empty()) throw core::InputError(std::move(diagnostics));
    return profile;
}

}  // namespace decodesim::profiles
