#include "report/fit/accuracy_output.hpp"

#include <fmt/format.h>

#include "core/units.hpp"
#include <fmt/ranges.h>

#include <algorithm>

#include "report/predict_json.hpp"
#include "report/text_table.hpp"

namespace decodesim::report {

namespace {

using nlohmann::json;

using core::format_percent;

std::string summary_table(const std::string& first_column, const std::vector<fit::SubsetSummary>& summaries) {
    TextTable table({first_column, "rows", "median |error|", "mean |error|", "median error", "beat bound"});
    for (const auto& s : summaries) {
        table.add_row({s.name, std::to_string(s.rows), format_percent(s.median_absolute_error), format_percent(s.mean_absolute_error),
                       format_percent(s.median_signed_error), std::to_string(s.beats_bound)});
    }
    return table.render();
}

json summaries_to_json(const std::vector<fit::SubsetSummary>& summaries) {
    json array = json::array();
    for (const auto& s : summaries) {
        array.push_back({{"subset", s.name}, {"rows", s.rows}, {"median_absolute_error", s.median_absolute_error},
                         {"mean_absolute_error", s.mean_absolute_error}, {"median_signed_error", s.median_signed_error},
                         {"rows_beating_bound", s.beats_bound}});
    }
    return array;
}

std::string metric_name(const fit::AccuracyRow& row) {
    return profiles::metric_label(*row.measurement);
}

// The headline table: one row per (what was left out, metric), held-out figures first.
std::string held_out_table(const fit::HeldOutFigures& figures) {
    TextTable table({"left out | metric", "rows", "groups", "median |error|", "mean |error|", "median error"});
    const auto add = [&](const std::string& label, const fit::HeldOutErrors& errors, bool grouped) {
        for (const auto& metric : errors.by_metric) {
            const auto& s = metric.errors;
            table.add_row({label + " | " + s.name, std::to_string(s.rows),
                           grouped ? std::to_string(metric.groups) : "-", format_percent(s.median_absolute_error),
                           format_percent(s.mean_absolute_error), format_percent(s.median_signed_error)});
        }
    };
    add("source", figures.by_source, true);
    add("family", figures.by_family, true);
    add("none", figures.in_sample, false);
    return table.render();
}

std::string band_label(const engine::ShippedBand& entry) {
    const auto& b = entry.band;
    if (entry.pooled) return fmt::format("all | all | {}", engine::pass_kind_name(b.kind));
    return fmt::format("{} | {} | {}", core::memory_family_name(b.family), b.fit_group,
                       engine::pass_kind_name(b.kind));
}

// The band derived from the leave-one-source-out ratios, and how often it holds a measurement.
std::string band_text(const fit::DerivedBands& derived) {
    TextTable bands({"memory | runtime | pass", "rows", "low", "high"});
    for (const auto& entry : derived.bands) {
        bands.add_row({band_label(entry), std::to_string(entry.band.rows), fmt::format("{:.2f}", entry.band.low),
                       fmt::format("{:.2f}", entry.band.high)});
    }
    TextTable coverage({"metric", "rows", "inside, nested", "inside, shipped table"});
    for (std::size_t i = 0; i < derived.nested.size(); ++i) {
        const auto& nested = derived.nested[i];
        const auto shipped = std::find_if(derived.shipped.begin(), derived.shipped.end(),
                                          [&](const auto& s) { return s.name == nested.name; });
        coverage.add_row({nested.name, std::to_string(nested.rows), format_percent(nested.inside),
                          shipped != derived.shipped.end() ? format_percent(shipped->inside) : "-"});
    }
    return fmt::format("Band: measured / predicted as a rate, the central {:.0f}% of the leave-one-source-out "
                       "ratios (a class with fewer than {} rows takes its pass's pooled band):\n",
                       engine::kBandCentralShare * 100.0, engine::kBandMinimumRows) +
           bands.render() +
           "\nCoverage: the share of measurements inside the band; nested: each source's rows against the band "
           "derived without that source; shipped: against engine/residual_band.cpp's table.\n" +
           coverage.render();
}

json band_to_json(const fit::DerivedBands& derived) {
    json bands = json::array();
    for (const auto& entry : derived.bands) {
        const auto& b = entry.band;
        bands.push_back({{"memory", entry.pooled ? "all" : std::string(core::memory_family_name(b.family))},
                         {"runtime", entry.pooled ? "all" : std::string(b.fit_group)},
                         {"pass", engine::pass_kind_name(b.kind)}, {"rows", b.rows}, {"low", b.low}, {"high", b.high}});
    }
    const auto coverage_json = [](const std::vector<fit::BandCoverage>& coverage) {
        json array = json::array();
        for (const auto& c : coverage) array.push_back({{"metric", c.name}, {"rows", c.rows}, {"inside", c.inside}});
        return array;
    };
    return {{"central_share", engine::kBandCentralShare}, {"bands", bands},
            {"nested_coverage", coverage_json(derived.nested)}, {"shipped_coverage", coverage_json(derived.shipped)}};
}

json held_out_to_json(const fit::HeldOutErrors& errors) {
    json by_metric = json::array();
    for (const auto& metric : errors.by_metric) {
        const auto& s = metric.errors;
        by_metric.push_back({{"metric", s.name},
                             {"rows", s.rows},
                             {"groups", metric.groups},
                             {"median_absolute_error", s.median_absolute_error},
                             {"mean_absolute_error", s.mean_absolute_error},
                             {"median_signed_error", s.median_signed_error}});
    }
    // Each evaluated row's held-out prediction, so that a user can see which of a source's rows
    // the others fail to predict.
    json rows = json::array();
    for (std::size_t i = 0; i < errors.rows.size(); ++i) {
        const auto& row = errors.rows[i];
        if (!row.skipped.empty() || row.measurement == nullptr) continue;
        rows.push_back({{"id", row.measurement->id},
                        {"group", errors.group_of_row[i]},
                        {"measured", row.measurement->value},
                        {"predicted", row.predicted},
                        {"error", row.error}});
    }
    return {{"held_out", errors.grouping},
            {"groups", errors.groups},
            {"by_metric", std::move(by_metric)},
            {"by_group", summaries_to_json(errors.by_group)},
            {"rows", std::move(rows)}};
}

}  // namespace

std::string accuracy_to_text(const fit::AccuracyResult& result, const std::string& file, int worst) {
    const std::size_t evaluated = result.evaluated();
    std::string text = fmt::format("{}: {} rows, {} evaluated, {} skipped\n\n", file, result.rows.size(), evaluated,
                                   result.rows.size() - evaluated);
    if (result.held_out) {
        text += accuracy_held_out_to_text(result) + "\n";
        text += "With the shipped runtime profiles (fitted on the training split), by hardware split:\n";
    }
    text += summary_table("split and metric", result.by_split_and_metric) + "\n";
    text += summary_table("split | engine | memory | metric", result.by_subset) + "\n";

    TextTable worst_rows({"worst rows", "split", "metric", "measured", "predicted", "error"});
    const std::size_t shown = std::min(evaluated, static_cast<std::size_t>(std::max(worst, 0)));
    for (std::size_t i = 0; i < shown; ++i) {
        const auto& row = result.rows[result.worst_first[i]];
        worst_rows.add_row({row.measurement->id, fit::split_name(row.split), metric_name(row),
                            core::format_si(row.measurement->value), core::format_si(row.predicted),
                            fmt::format("{:+.1f}%", row.error * 100.0)});
    }
    text += worst_rows.render() + "\n";

    if (!result.beating_bound.empty()) text += "Measurements better than the roofline bound:\n";
    for (const auto& beating : result.beating_bound) {
        const auto& row = result.rows[beating.row];
        text += fmt::format("  {} (line {}): measured {:.4g}, bound {:.4g}: {}\n", row.measurement->id,
                            row.measurement->line, row.measurement->value, row.bound, beating.explanation);
    }
    text += fmt::format("{} of {} evaluated rows beat the roofline bound.\n\nSkipped rows:\n",
                        result.beating_bound.size(), evaluated);
    for (const auto& [reason, count] : result.skip_reasons) text += fmt::format("  {:4} {}\n", count, reason);
    return text;
}

std::string accuracy_held_out_to_text(const fit::AccuracyResult& result) {
    if (!result.held_out) return {};
    return "Headline: each row predicted by the runtime factors refitted (as --fit does) on every other source's rows "
           "(source), or every other hardware family's (family); none: fitted on every row, in sample.\n" +
           held_out_table(*result.held_out) + "\n" + band_text(result.held_out->bands);
}

std::string accuracy_fit_to_text(const fit::AccuracyResult& result) {
    TextTable table({"runtime", "memory", "decode rows", "prefill rows", "kernel overhead", "quantized bw",
                     "attention bw", "compute", "quantized compute", "per-sequence overhead", "tile setup rows",
                     "decode error", "prefill error"});
    TextTable backends({"runtime", "memory", "backend", "multiplier on compute", "on attention", "compute from"});
    TextTable dies({"runtime", "memory", "multi-die rows", "per kernel, each die beyond the first"});
    for (const auto& fit : result.fits) {
        std::vector<std::string_view> families;
        for (const auto family : fit.families) families.push_back(core::memory_family_name(family));
        const auto& factors = fit.factors;
        // Only the backends whose multiplier the fit moved from 1 (the others run at `compute`).
        for (const auto& info : core::kBackends) {
            const double multiplier = factors.backend_compute[static_cast<std::size_t>(info.backend)];
            const double attention = factors.attention_on(info.backend);
            if (multiplier != 1.0 || attention != 1.0) {
                const auto listed = [&](const std::vector<core::Backend>& backends) {
                    return std::find(backends.begin(), backends.end(), info.backend) != backends.end();
                };
                backends.add_row({fit.fit_group, fmt::format("{}", fmt::join(families, "+")),
                                  std::string(info.name), fmt::format("{:.3f}", multiplier),
                                  fmt::format("{:.3f}", attention),
                                  listed(fit.borrowed) ? "another family"
                                  : listed(fit.typical) ? "typical of the measured"
                                                        : "these rows"});
            }
        }
        if (fit.multi_die_rows > 0) {
            dies.add_row({fit.fit_group, fmt::format("{}", fmt::join(families, "+")),
                          std::to_string(fit.multi_die_rows),
                          fmt::format("{:.0f} us", factors.cross_die_kernel_overhead.value * 1e6)});
        }
        table.add_row({fit.fit_group, fmt::format("{}", fmt::join(families, "+")),
                       std::to_string(fit.decode_rows), std::to_string(fit.prefill_rows),
                       fmt::format("{:.0f} us", factors.kernel_overhead.value * 1e6),
                       fmt::format("{:.2f}", factors.quantized_weight_bandwidth),
                       fmt::format("{:.2f}", factors.attention_bandwidth), fmt::format("{:.2f}", factors.compute),
                       fmt::format("{:.2f}", factors.quantized_compute),
                       fmt::format("{:.0f} us", factors.sequence_overhead.value * 1e6),
                       fmt::format("{:.0f}{}", factors.tile_setup_rows, fit.tile_setup_borrowed ? " (another family)" : ""),
                       fmt::format("{} -> {}", format_percent(fit.decode_error_before), format_percent(fit.decode_error_after)),
                       fmt::format("{} -> {}", format_percent(fit.prefill_error_before), format_percent(fit.prefill_error_after))});
    }
    return "Fitted on the training split (median absolute error before -> after):\n" + table.render() +
           "\nBackends with their own multipliers on compute and on attention (the rest run at the family's "
           "compute, attention at its compute):\n" +
           backends.render() +
           "\nMulti-die packages (fitted with 10 or more single-stream rows, else 0: one die's cost):\n" +
           dies.render();
}

json accuracy_to_json(const fit::AccuracyResult& result, const std::string& file) {
    json document = schema_document();
    document["file"] = file;
    if (result.held_out) {
        document["leave_one_source_out"] = held_out_to_json(result.held_out->by_source);
        document["leave_one_family_out"] = held_out_to_json(result.held_out->by_family);
        document["in_sample"] = held_out_to_json(result.held_out->in_sample);
        document["band"] = band_to_json(result.held_out->bands);
    }
    document["by_split_and_metric"] = summaries_to_json(result.by_split_and_metric);
    document["by_subset"] = summaries_to_json(result.by_subset);
    json rows = json::array();
    for (const auto& row : result.rows) {
        json entry = {{"id", row.measurement->id}, {"split", fit::split_name(row.split)}};
        if (row.skipped.empty()) {
            entry["measured"] = row.measurement->value;
            entry["predicted"] = row.predicted;
            entry["bound"] = row.bound;
            entry["error"] = row.error;
            entry["beats_bound"] = row.beats_bound;
        } else {
            entry["skipped"] = row.skipped;
        }
        rows.push_back(std::move(entry));
    }
    document["rows"] = std::move(rows);
    return document;
}

}  // namespace decodesim::report
