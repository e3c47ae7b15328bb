#include "profiles/residual_band_table.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <sstream>

#include "core/error.hpp"
#include "core/units.hpp"
#include "profiles/csv_record.hpp"
#include "profiles/input_file.hpp"

namespace decodesim::profiles {

namespace {

const std::vector<std::string> kBandColumns{"memory", "fit_group", "pass", "low", "high", "rows"};
constexpr std::string_view kAll = "all";
// A band wider than this on either side is not a spread of errors but a broken table.
constexpr double kMaxBandRatio = 100.0;

}  // namespace

BandRatios band_for(std::span<const ShippedBand> table, core::MemoryFamily family, std::string_view fit_group,
                    PassKind kind) {
    if (fit_group.empty()) return {};
    const ResidualBand* pooled = nullptr;
    for (const ShippedBand& entry : table) {
        const ResidualBand& band = entry.band;
        if (band.kind != kind) continue;
        if (entry.pooled) {
            pooled = &band;
        } else if (band.family == family && band.fit_group == fit_group) {
            return {band.low, band.high};
        }
    }
    return pooled ? BandRatios{pooled->low, pooled->high} : BandRatios{};
}

std::vector<ShippedBand> load_residual_bands(const std::string& path) {
    std::istringstream stream(read_input_file(path));
    std::vector<core::Diagnostic> problems;
    std::vector<ShippedBand> table;
    std::string line;
    int number = 0;
    bool pooled_decode = false, pooled_prefill = false;
    while (std::getline(stream, line)) {
        ++number;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        bool well_formed = true;
        const auto fields = split_csv_record(line, well_formed);
        if (number == 1) {
            if (fields != kBandColumns) {
                throw core::InputError(
                    core::Diagnostic{{path, 1, 1}, "", fmt::format("expected the header {}", fmt::join(kBandColumns, ","))});
            }
            continue;
        }
        if (line.empty()) continue;
        if (!well_formed || fields.size() != kBandColumns.size()) {
            problems.push_back({{path, number, 1}, "", fmt::format("expected {} fields, found {}", kBandColumns.size(), fields.size())});
            continue;
        }
        const auto problem = [&](int column, const std::string& message) {
            problems.push_back({{path, number, column}, kBandColumns[static_cast<std::size_t>(column - 1)], message});
        };
        ShippedBand entry{fields[0] == kAll, {core::MemoryFamily::hbm, "", PassKind::decode, 0.0, 0.0, 0}};
        if (!entry.pooled) {
            bool known = false;
            for (core::MemoryFamily family : core::kMemoryFamilies) {
                if (core::memory_family_name(family) == fields[0]) {
                    entry.band.family = family;
                    known = true;
                }
            }
            if (!known) problem(1, fmt::format("unknown memory family '{}'; expected hbm, gddr, unified or all", fields[0]));
            if (fields[1].empty() || fields[1] == kAll) problem(2, "a class names its fit group (vllm, llama.cpp, ...)");
            entry.band.fit_group = fields[1];
        } else if (fields[1] != kAll) {
            problem(2, "a pooled row (memory all) has fit group all");
        }
        if (fields[2] == "decode" || fields[2] == "prefill") {
            entry.band.kind = fields[2] == "decode" ? PassKind::decode : PassKind::prefill;
        } else {
            problem(3, fmt::format("unknown pass '{}'; expected decode or prefill", fields[2]));
        }
        double low = 0.0, high = 0.0, rows = 0.0;
        const bool ratios = core::parse_number(fields[3], low) && core::parse_number(fields[4], high) && low > 0.0 &&
                            high <= kMaxBandRatio && low < high && low >= 1.0 / kMaxBandRatio;
        if (!ratios) {
            problem(4, fmt::format("expected ratios with 0.01 <= low < high <= 100, found low '{}', high '{}'", fields[3], fields[4]));
        }
        if (!core::parse_number(fields[5], rows) || rows < 1.0 || rows != static_cast<double>(static_cast<int>(rows))) {
            problem(6, fmt::format("expected a whole number of rows, found '{}'", fields[5]));
        }
        entry.band.low = low;
        entry.band.high = high;
        entry.band.rows = static_cast<int>(rows);
        if (entry.pooled) (entry.band.kind == PassKind::decode ? pooled_decode : pooled_prefill) = true;
        table.push_back(std::move(entry));
    }
    if (problems.empty() && (!pooled_decode || !pooled_prefill)) {
        problems.push_back({{path, number, 1}, "", "the table needs a pooled row (memory all) for decode and for prefill"});
    }
    if (!problems.empty()) throw core::InputError(std::move(problems));
    return table;
}

std::string residual_bands_csv(std::span<const ShippedBand> table) {
    std::string text = fmt::format("{}\n", fmt::join(kBandColumns, ","));
    for (const ShippedBand& entry : table) {
        const ResidualBand& band = entry.band;
        text += fmt::format("{},{},{},{:.2f},{:.2f},{}\n", entry.pooled ? kAll : core::memory_family_name(band.family),
                            entry.pooled ? std::string(kAll) : band.fit_group, pass_kind_name(band.kind), band.low,
                            band.high, band.rows);
    }
    return text;
}

}  // namespace decodesim::profiles
