#include "profiles/hardware_loader.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.hpp"
#include "core/memory_family.hpp"
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
        link->reject_unknown_keys({"bandwidth", "latency"});
        profile.interconnect = interconnect;
    }

    if (auto power = root.quantity("power", Dimension::power, Presence::optional)) profile.power = core::Watts(*power);
    profile.price_per_hour = root.positive_number("price_per_hour", Presence::optional, 1e6);

    if (auto efficiency = root.map("efficiency", Presence::optional)) {
        profile.efficiency.memory_bandwidth = efficiency->fraction("memory_bandwidth", Presence::optional);
        profile.efficiency.compute = efficiency->fraction("compute", Presence::optional);
        if (auto overhead = efficiency->quantity("kernel_overhead", Dimension::time, Presence::optional)) {
            profile.efficiency.kernel_overhead = core::Seconds(*overhead);
        }
        efficiency->reject_unknown_keys({"memory_bandwidth", "compute", "kernel_overhead"});
    }

    root.reject_unknown_keys(
        {"name", "source", "memory", "compute", "interconnect", "power", "price_per_hour", "efficiency"});
    if (!diagnostics.empty()) throw core::InputError(std::move(diagnostics));
    return profile;
}

}  // namespace decodesim::profiles
