#include "fit/residual_bands.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "core/statistics.hpp"

namespace decodesim::fit {
namespace {

using Class = std::tuple<core::MemoryFamily, std::string, engine::PassKind>;  // family, fit group, pass

struct Ratio {
    Class of;
    double value;
    std::size_t row;  // index into the cases
};

engine::ResidualBand band_of(std::vector<double> values, const Class& of) {
    std::sort(values.begin(), values.end());
    const double tail = (1.0 - engine::kBandCentralShare) / 2.0;
    return {std::get<0>(of), std::get<1>(of), std::get<2>(of), core::quantile_of_sorted(values, tail), core::quantile_of_sorted(values, 1.0 - tail),
            static_cast<int>(values.size())};
}

// The pooled band of each pass kind, then every class with kBandMinimumRows ratios, from the
// ratios `use` keeps.
template <typename Keep>
std::vector<engine::ShippedBand> bands_from(const std::vector<Ratio>& ratios, Keep use) {
    std::map<engine::PassKind, std::vector<double>> pooled;
    std::map<Class, std::vector<double>> classes;
    for (const Ratio& r : ratios) {
        if (!use(r)) continue;
        pooled[std::get<2>(r.of)].push_back(r.value);
        classes[r.of].push_back(r.value);
    }
    std::vector<engine::ShippedBand> bands;
    for (auto& [kind, values] : pooled) {
        bands.push_back({true, band_of(std::move(values), {core::MemoryFamily::hbm, std::string(), kind})});
    }
    for (auto& [of, values] : classes) {
        if (static_cast<int>(values.size()) >= engine::kBandMinimumRows) bands.push_back({false, band_of(std::move(values), of)});
    }
    return bands;
}

// The band a class gets from `bands`, as engine::residual_band looks it up.
engine::BandRatios lookup(const std::vector<engine::ShippedBand>& bands, const Class& of) {
    const engine::ResidualBand* pooled = nullptr;
    for (const auto& entry : bands) {
        if (entry.band.kind != std::get<2>(of)) continue;
        if (entry.pooled) {
            pooled = &entry.band;
        } else if (entry.band.family == std::get<0>(of) && entry.band.fit_group == std::get<1>(of)) {
            return {entry.band.low, entry.band.high};
        }
    }
    return pooled ? engine::BandRatios{pooled->low, pooled->high} : engine::BandRatios{};
}

// The share of `ratios` inside the band `band_for` gives each, overall and per metric.
template <typename BandFor>
std::vector<BandCoverage> coverage(const std::vector<Ratio>& ratios, const std::vector<CalibrationCase>& cases,
                                   BandFor band_for) {
    std::map<std::string, std::pair<int, int>> counts;  // name -> (rows, inside)
    for (const Ratio& r : ratios) {
        const engine::BandRatios band = band_for(r);
        const bool inside = r.value >= band.low && r.value <= band.high;
        for (const std::string& name :
             {std::string("all"), profiles::metric_label(*cases[r.row].measurement)}) {
            ++counts[name].first;
            counts[name].second += inside ? 1 : 0;
        }
    }
    std::vector<BandCoverage> result;
    for (const auto& [name, count] : counts) {
        result.push_back({name, count.first, static_cast<double>(count.second) / count.first});
    }
    return result;
}

}  // namespace

double rate_ratio(const AccuracyRow& row) {
    const double measured = row.measurement->value;
    return profiles::metric_info(row.measurement->metric).lower_is_better ? row.predicted / measured
                                                                         : measured / row.predicted;
}

engine::PassKind pass_kind(profiles::Metric metric) {
    return metric == profiles::Metric::prefill_tokens_per_s || metric == profiles::Metric::ttft_s
               ? engine::PassKind::prefill
               : engine::PassKind::decode;
}

DerivedBands derive_residual_bands(const std::vector<CalibrationCase>& cases, const HeldOutErrors& by_source) {
    std::vector<Ratio> ratios;
    for (std::size_t i = 0; i < cases.size() && i < by_source.rows.size(); ++i) {
        const AccuracyRow& row = by_source.rows[i];
        // A band is drawn around a prediction at a stated operating point; a request-rate row is
        // a whole serving run, queueing included, and is reported apart (profiles::metric_label).
        if (!row.skipped.empty() || !(row.predicted > 0.0) || row.measurement->replayed()) continue;
        const Class of{cases[i].hardware->memory_family, cases[i].deployment.runtime_profile().fit_group,
                       pass_kind(cases[i].measurement->metric)};
        ratios.push_back({of, rate_ratio(row), i});
    }
    DerivedBands derived;
    derived.bands = bands_from(ratios, [](const Ratio&) { return true; });

    // Nested: each source's rows against the band of every other source's held-out ratios.
    std::map<std::string, std::vector<engine::ShippedBand>> without;
    for (const Ratio& r : ratios) {
        const std::string& source = by_source.group_of_row[r.row];
        if (!without.contains(source)) {
            without[source] = bands_from(ratios, [&](const Ratio& other) { return by_source.group_of_row[other.row] != source; });
        }
    }
    derived.nested = coverage(ratios, cases, [&](const Ratio& r) { return lookup(without.at(by_source.group_of_row[r.row]), r.of); });
    derived.shipped = coverage(ratios, cases, [&cases](const Ratio& r) {
        // The table the row's runtime profile was given (validation/residual_bands.csv).
        return cases[r.row].deployment.runtime_profile().band(std::get<0>(r.of), std::get<2>(r.of));
    });
    return derived;
}

}  // namespace decodesim::fit
