#include "profiles/runtime_file.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/error.hpp"
#include "core/suggest.hpp"
#include "core/units.hpp"
#include "profiles/input_file.hpp"
#include "profiles/strict_map.hpp"

namespace decodesim::profiles {

namespace {

// A time overhead: "5 us", or zero ("0 us"), which parse_quantity refuses for the dimensions of a
// device but a runtime may well have; its unit is checked on one of it.
std::optional<double> overhead(StrictMap& section, const std::string& key) {
    const auto text = section.string(key, Presence::optional);
    if (!text) return std::nullopt;
    const std::size_t unit_at = text->find_last_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ");
    const std::string number = unit_at == std::string::npos ? std::string() : text->substr(0, unit_at + 1);
    const std::string unit = unit_at == std::string::npos ? *text : text->substr(unit_at + 1);
    const std::string range = fmt::format("expected a time from 0 us to {:g} us", kMaxRuntimeOverheadSeconds * 1e6);
    double amount = 0.0;
    try {
        if (core::parse_number(number, amount) && amount <= 0.0) {
            if (amount < 0.0) {
                section.error(key, range);
                return std::nullopt;
            }
            // "0 us" and "0us", not "0" or "0 GB": the unit is checked on one of it.
            if (unit.empty()) {
                section.error(key, fmt::format("'{}' has no unit; expected a time such as '0 us' (units: {})", *text,
                                               core::accepted_units(core::Dimension::time)));
                return std::nullopt;
            }
            core::parse_quantity("1 " + unit, core::Dimension::time);
            return 0.0;
        }
        const double seconds = core::parse_quantity(*text, core::Dimension::time);
        if (seconds > kMaxRuntimeOverheadSeconds) {
            section.error(key, range);
            return std::nullopt;
        }
        return seconds;
    } catch (const core::UnitError& problem) {
        section.error(key, problem.what());
        return std::nullopt;
    }
}

}  // namespace

RuntimeFile load_runtime_file(const std::string& path, std::span<const RuntimeFactorKey> keys,
                              std::span<const std::string_view> bases) {
    return parse_runtime_file(read_input_file(path), path, keys, bases);
}

RuntimeFile parse_runtime_file(const std::string& text, const std::string& path,
                               std::span<const RuntimeFactorKey> keys, std::span<const std::string_view> bases) {
    const YAML::Node document = parse_document(text, path);
    std::vector<core::Diagnostic> diagnostics;
    StrictMap root(document, path, "", diagnostics);

    RuntimeFile file;
    file.path = path;
    file.name = root.string("name", Presence::required).value_or("");
    file.source = root.string("source", Presence::required).value_or("");
    const std::vector<std::string> base_names(bases.begin(), bases.end());
    if (auto base = root.string("base", Presence::required)) {
        if (std::find(base_names.begin(), base_names.end(), *base) == base_names.end()) {
            root.error("base", fmt::format("unknown runtime '{}'{}; expected one of {}", *base,
                                           core::suggestion_note(*base, base_names), fmt::join(base_names, " ")));
        }
        file.base = *base;
    }

    std::vector<std::string> key_names;
    for (const RuntimeFactorKey& key : keys) key_names.emplace_back(key.key);
    if (auto factors = root.map("factors", Presence::optional)) {
        std::vector<std::string> family_names;
        for (core::MemoryFamily family : core::kMemoryFamilies) {
            const std::string family_name(core::memory_family_name(family));
            family_names.push_back(family_name);
            auto section = factors->map(family_name, Presence::optional);
            if (!section) continue;
            RuntimeFileFamily stated{family, {}};
            for (const RuntimeFactorKey& key : keys) {
                const std::string name(key.key);
                std::optional<double> value;
                switch (key.unit) {
                    case core::FactorUnit::duration: value = overhead(*section, name); break;
                    case core::FactorUnit::multiplier:
                        value = section->positive_number(name, Presence::optional, key.maximum);
                        break;
                    case core::FactorUnit::rows: value = section->non_negative_number(name, Presence::optional, key.maximum); break;
                }
                stated.values.push_back(value);
            }
            section->reject_unknown_keys(key_names);
            file.families.push_back(std::move(stated));
        }
        factors->reject_unknown_keys(family_names);
    }
    root.reject_unknown_keys({"name", "base", "source", "factors"});
    if (!diagnostics.empty()) throw core::InputError(std::move(diagnostics));
    return file;
}

}  // namespace decodesim::profiles
