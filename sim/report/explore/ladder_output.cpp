#include "report/explore/ladder_output.hpp"

#include <fmt/format.h>

#include "core/units.hpp"
#include "report/svg_chart.hpp"
#include "report/text_table.hpp"

namespace decodesim::report {

namespace {

std::string conditions_text(const explore::LadderStep& step) {
    return fmt::format("{} weights, {:.0f} tokens, {:.0f} stream{}, {} clocks", step.deployment.weights->name,
                       step.conditions.context, step.conditions.batch, step.conditions.batch == 1.0 ? "" : "s",
                       engine::clock_label(step.deployment.clocks));
}

// Each step's change of the per-stream speed, as a percentage of the step before.
std::string change_text(const std::vector<explore::LadderStep>& steps, std::size_t i) {
    if (i == 0) return "";
    return fmt::format("{:+.0f}%", 100.0 * (steps[i].tokens_per_s_per_stream / steps[i - 1].tokens_per_s_per_stream - 1.0));
}

}  // namespace

std::string ladder_to_text(const LadderReport& report) {
    std::string text = fmt::format("{} on {}: from the vendor's conditions to yours, one condition at a time\n",
                                   report.model, report.hardware);
    if (report.claimed_tokens_per_s_per_stream) {
        text += fmt::format("  the vendor's claim: {:.4g} tokens/s per stream\n", *report.claimed_tokens_per_s_per_stream);
    }
    text += "\n";
    TextTable table({"step", "tok/s/stream", "change", "tok/s total", "TTFT", "bound", "fits"});
    for (std::size_t i = 0; i < report.steps.size(); ++i) {
        const auto& step = report.steps[i];
        table.add_row({step.change, core::format_si(step.tokens_per_s_per_stream), change_text(report.steps, i),
                       core::format_si(step.tokens_per_s_total), core::format(step.ttft), engine::bound_name(step.bound),
                       step.fits ? "yes" : "no"});
    }
    text += table.render();
    if (!report.steps.empty()) {
        const auto& first = report.steps.front();
        const auto& last = report.steps.back();
        text += fmt::format("\nvendor's conditions: {}\nyours:               {}\n", conditions_text(first), conditions_text(last));
        text += fmt::format("per stream, yours run at {:.0f}% of the vendor's conditions' speed\n",
                            100.0 * last.tokens_per_s_per_stream / first.tokens_per_s_per_stream);
    }
    return text;
}

nlohmann::json ladder_to_json(const LadderReport& report) {
    nlohmann::json document = {{"schema_version", kSchemaVersion}, {"hardware", report.hardware}, {"model", report.model}};
    if (report.claimed_tokens_per_s_per_stream) document["claimed_tokens_per_s_per_stream"] = *report.claimed_tokens_per_s_per_stream;
    nlohmann::json steps = nlohmann::json::array();
    for (const auto& step : report.steps) {
        nlohmann::json conditions = conditions_to_json(conditions_of(report.hardware, report.model, step.deployment,
                                                                     engine::Workload::step(step.conditions.batch,
                                                                                            step.conditions.context)));
        steps.push_back({{"change", step.change},
                         {"conditions", std::move(conditions)},
                         {"tokens_per_s_per_stream", step.tokens_per_s_per_stream},
                         {"band", {{"tokens_per_s_per_stream_low", step.tokens_per_s_per_stream_low},
                                   {"tokens_per_s_per_stream_high", step.tokens_per_s_per_stream_high}}},
                         {"tokens_per_s_total", step.tokens_per_s_total},
                         {"ttft_s", step.ttft.value},
                         {"bound", engine::bound_name(step.bound)},
                         {"fits", step.fits}});
    }
    document["steps"] = std::move(steps);
    return document;
}

std::string ladder_chart(const LadderReport& report) {
    std::vector<Bar> bars;
    if (report.claimed_tokens_per_s_per_stream) {
        bars.push_back({"the vendor's claim", *report.claimed_tokens_per_s_per_stream,
                        core::format_si(*report.claimed_tokens_per_s_per_stream, "tok/s per stream"), "#999999",
                        std::nullopt});
    }
    for (std::size_t i = 0; i < report.steps.size(); ++i) {
        const auto& step = report.steps[i];
        bars.push_back({step.change, step.tokens_per_s_per_stream,
                        fmt::format("{} {} ({} total, TTFT {})", core::format_si(step.tokens_per_s_per_stream, "tok/s/stream"),
                                    change_text(report.steps, i), core::format_si(step.tokens_per_s_total),
                                    core::format(step.ttft)),
                        i == 0 ? "#2ca02c" : i + 1 == report.steps.size() ? "#d62728" : "#1f77b4",
                        std::pair{step.tokens_per_s_per_stream_low, step.tokens_per_s_per_stream_high}});
    }
    return render_bars(fmt::format("{} on {}: the vendor's number against yours", report.model, report.hardware_name),
                       bars, "decodesim versus: each bar keeps the changes above it; per-stream decode speed, predicted; shaded: the "
                       "band of measured efficiencies");
}

}  // namespace decodesim::report
