#include "report/fit/calibrate_output.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/text_escape.hpp"
#include "profiles/runtime_fields.hpp"
#include "report/json_units.hpp"
#include "report/predict_json.hpp"
#include "report/text_table.hpp"

namespace decodesim::report {
namespace {

using core::format_percent;

// A factor as a runtime profile writes it: a time in us, else a plain multiplier.
std::string factor_text(const profiles::RuntimeFactorField& field, const engine::RuntimeFactors& factors) {
    const double value = field.get(factors);
    if (field.unit == core::FactorUnit::duration) return fmt::format("{:g} us", std::round(value * 1e8) / 100.0);
    return fmt::format("{:g}", std::round(value * 1e4) / 1e4);
}

bool was_fitted(const fit::UserCalibration& calibration, std::string_view key) {
    return std::find(calibration.fitted.begin(), calibration.fitted.end(), key) != calibration.fitted.end();
}

std::string errors_summary(const fit::UserCalibration& calibration) {
    std::vector<std::string> parts;
    for (const auto& errors : calibration.errors) {
        parts.push_back(fmt::format("{} {} -> {}", errors.label, format_percent(errors.before),
                                    format_percent(errors.after)));
    }
    return fmt::format("{}", fmt::join(parts, ", "));
}

// YAML double-quoted scalar: the characters that need it escaped.
std::string yaml_quoted(std::string_view text) {
    std::string out = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + "\"";
}

}  // namespace

std::string calibrate_source(const fit::UserCalibration& calibration, const CalibrateContext& context) {
    return fmt::format("{} on {} ({} rows: {}; {} error {})", context.command, context.date, calibration.rows,
                       calibration.in_sample ? "too few to hold any out"
                                             : fmt::format("{} fitted, {} held out, then refitted on all",
                                                           calibration.fitting_rows, calibration.held_out_rows),
                       calibration.in_sample ? "in-sample" : "held-out", errors_summary(calibration));
}

std::string runtime_preset_yaml(const fit::UserCalibration& calibration, const CalibrateContext& context) {
    std::string text;
    text += fmt::format("name: {}\n", yaml_quoted(context.name));
    text += fmt::format("base: {}\n", yaml_quoted(context.base));
    text += fmt::format("source: {}\n", yaml_quoted(core::printable(calibrate_source(calibration, context))));
    // Measured by the user's own rows: every output that uses it says it is theirs, not the shipped fit.
    text += "measured: true\n";
    text += fmt::format("measurements: {}\n",
                        yaml_quoted(fmt::format("{} rows of the user's {} benchmark of {} on {}", calibration.rows,
                                                context.format, context.model, context.hardware)));
    text += fmt::format("factors:  # {} on {} ({}); the other families keep {}'s\n", context.model, context.hardware,
                        core::memory_family_name(calibration.family), context.base);
    text += fmt::format("  fitted_by: {}\n", yaml_quoted(core::printable(context.command)));
    text += fmt::format("  {}:\n", core::memory_family_name(calibration.family));
    for (const auto& field : profiles::kRuntimeFactorFields) {
        text += fmt::format("    {}: {}{}\n", field.key, factor_text(field, calibration.factors),
                            was_fitted(calibration, field.key) ? "" : fmt::format("  # {}'s", context.base));
    }
    if (calibration.request_path_fitted) {
        const engine::RequestPath& path = calibration.request_path;
        text += "request_path:\n";
        text += fmt::format("  source: {}\n",
                            yaml_quoted(fmt::format("fitted by decodesim calibrate on the TTFT of {} closed-loop rows; "
                                                    "the in/out shape, tokenization and streaming cost kept from {}",
                                                    calibration.closed_loop_rows, context.base)));
        text += fmt::format("  before_scheduler: {:.6g} ms\n", path.before_scheduler.value * 1e3);
        text += fmt::format("  per_prompt_token: {:.6g} us\n", path.per_prompt_token.value * 1e6);
        text += fmt::format("  after_step: {:.6g} ms\n", path.after_step.value * 1e3);
        // A section replaces the base's whole: the streaming cost the fit ran with is written too.
        if (path.per_output_token.value > 0.0) {
            text += fmt::format("  per_output_token: {:.6g} us\n", path.per_output_token.value * 1e6);
        }
    }
    return text;
}

std::string calibrate_to_text(const fit::UserCalibration& calibration, const CalibrateContext& context) {
    std::string text = fmt::format("calibrate: {} rows of {} ({}), {} on {} ({}), base {}\n", calibration.rows,
                                   context.format, context.skipped_rows > 0 ? fmt::format("{} more skipped", context.skipped_rows) : "none skipped",
                                   context.model, context.hardware, core::memory_family_name(calibration.family),
                                   context.base);
    if (calibration.in_sample) {
        text += fmt::format("fewer than {} rows: none held out; the errors below are IN SAMPLE (on the rows fitted)\n",
                            fit::kMinimumHeldOutRows);
    } else {
        text += fmt::format("held out: every 4th row by (metric, prompt, output, context, batch): {} rows; fitted on {}\n",
                            calibration.held_out_rows, calibration.fitting_rows);
    }
    TextTable errors({"metric", "rows", "before", "after"});
    for (const auto& e : calibration.errors) {
        errors.add_row({e.label, std::to_string(e.rows), format_percent(e.before),
                        format_percent(e.after)});
    }
    text += fmt::format("\nmedian |error| {} ({} -> fitted)\n", calibration.in_sample ? "in sample" : "on the held-out rows",
                        context.base);
    text += errors.render();
    if (calibration.base_within_two_percent) text += fmt::format("{} was already within 2% on these rows\n", context.base);

    TextTable factors({"factor", "base", calibration.in_sample ? "fitted" : "fitted without held-out", "written (all rows)"});
    for (const auto& field : profiles::kRuntimeFactorFields) {
        factors.add_row({std::string(field.key), factor_text(field, calibration.base),
                         factor_text(field, calibration.held_out_fit),
                         factor_text(field, calibration.factors) + (was_fitted(calibration, field.key) ? "" : " (base)")});
    }
    text += fmt::format("\nfactors for {} ({} single-stream decode, {} batched decode, {} prefill and TTFT rows; a kind "
                        "with fewer than 10 keeps the base's)\n",
                        core::memory_family_name(calibration.family), calibration.single_stream_rows,
                        calibration.batched_rows, calibration.prefill_rows);
    text += factors.render();
    if (calibration.closed_loop_rows > 0) {
        auto path_text = [](const engine::RequestPath& path) {
            return fmt::format("{} + {} a prompt token in, {} out", core::format_seconds(path.before_scheduler.value),
                               core::format_seconds(path.per_prompt_token.value), core::format_seconds(path.after_step.value));
        };
        text += fmt::format("\nserving costs from {} closed-loop rows, replayed (sequence_overhead above from their TPOT and "
                            "throughput)\n",
                            calibration.closed_loop_rows);
        text += fmt::format("request path: base {}; {}\n", path_text(calibration.base_request_path),
                            calibration.request_path_fitted
                                ? fmt::format("{} {}; written {}", calibration.in_sample ? "fitted" : "fitted without held-out",
                                              path_text(calibration.held_out_request_path), path_text(calibration.request_path))
                                : std::string("no TTFT row: the base's kept"));
    }
    return text;
}

std::string calibrate_to_json(const fit::UserCalibration& calibration, const CalibrateContext& context,
                              const std::string& preset_path) {
    auto factors_json = [](const engine::RuntimeFactors& factors) {
        nlohmann::json object = nlohmann::json::object();
        for (const auto& field : profiles::kRuntimeFactorFields) {
            object[std::string(field.key) + (field.unit == core::FactorUnit::duration ? "_s" : "")] = field.get(factors);
        }
        return object;
    };
    nlohmann::json errors = nlohmann::json::array();
    for (const auto& e : calibration.errors) {
        errors.push_back({{"metric", e.label},
                          {"rows", e.rows},
                          {"median_abs_error_before", e.before},
                          {"median_abs_error_after", e.after}});
    }
    nlohmann::json document = {{"schema_version", kSchemaVersion},
                               {"format", context.format},
                               {"hardware", context.hardware},
                               {"model", context.model},
                               {"base_runtime", context.base},
                               {"name", context.name},
                               {"memory_family", core::memory_family_name(calibration.family)},
                               {"rows", calibration.rows},
                               {"skipped_rows", context.skipped_rows},
                               {"fitting_rows", calibration.fitting_rows},
                               {"held_out_rows", calibration.held_out_rows},
                               {"in_sample", calibration.in_sample},
                               {"errors", errors},
                               {"base_within_two_percent", calibration.base_within_two_percent},
                               {"base_factors", factors_json(calibration.base)},
                               {"held_out_fit_factors", factors_json(calibration.held_out_fit)},
                               {"factors", factors_json(calibration.factors)},
                               {"fitted", std::vector<std::string>(calibration.fitted.begin(), calibration.fitted.end())},
                               {"closed_loop_rows", calibration.closed_loop_rows},
                               {"request_path_fitted", calibration.request_path_fitted},
                               {"request_path",
                                {{"before_scheduler_s", calibration.request_path.before_scheduler.value},
                                 {"per_prompt_token_s", calibration.request_path.per_prompt_token.value},
                                 {"after_step_s", calibration.request_path.after_step.value}}},
                               {"source", calibrate_source(calibration, context)}};
    if (!preset_path.empty()) document["output"] = preset_path;
    return json_text(document);
}

}  // namespace decodesim::report
