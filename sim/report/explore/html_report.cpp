#include "report/explore/html_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/units.hpp"
#include "report/explore/curve_output.hpp"
#include "report/svg_chart.hpp"
#include "report/text_table.hpp"
#include "report/explore/why_output.hpp"

namespace decodesim::report {

namespace {

constexpr const char* kStyle = R"(
body { font-family: sans-serif; margin: 24px auto; max-width: 820px; color: #222; }
h1 { font-size: 22px; } h2 { font-size: 17px; margin-top: 32px; }
.verdict { background: #f3f6fa; border-left: 4px solid #1f77b4; padding: 10px 14px; }
table { border-collapse: collapse; margin-top: 8px; } td, th { padding: 3px 10px; border-bottom: 1px solid #ddd; }
td:not(:first-child), th:not(:first-child) { text-align: right; }
.conditions { color: #555; }
)";

// Records load errors and the size of every chart in data attributes, so a headless browser's
// DOM dump shows whether the page rendered (tests/report_check.sh).
constexpr const char* kSelfCheck = R"(
<script>
window.addEventListener('load', function () {
  if (window.decodesimErrors > 0) document.body.setAttribute('data-errors', String(window.decodesimErrors));
  var charts = document.querySelectorAll('svg.chart');
  var sizes = [];
  var ok = charts.length > 0;
  charts.forEach(function (c) { var r = c.getBoundingClientRect(); sizes.push(Math.round(r.width) + 'x' + Math.round(r.height)); if (r.width <= 0 || r.height <= 0) ok = false; });
  document.body.setAttribute('data-chart-sizes', sizes.join(' '));
  document.body.setAttribute('data-chart-check', ok ? 'ok' : 'failed');
});
</script>
)";

std::string roofline_chart(const ReportInputs& inputs) {
    Chart chart;
    chart.title = "Roofline: the decode step's operators against the machine";
    chart.x = {"arithmetic intensity (FLOP/byte)", true, std::nullopt, std::nullopt, LogBase::ten};
    chart.y = {"attainable FLOP/s", true, std::nullopt, std::nullopt, LogBase::ten};
    const double peak_rate = inputs.roofline_rates.matmul_rate.value;
    const double peak_bandwidth = inputs.roofline_rates.memory_bandwidth.value;
    const double balance = inputs.explanation.prediction.machine_balance;
    Series operators = line_series("operators (achieved in the prediction)", {}, {}, "#d62728");
    operators.line = false;
    operators.points = true;
    operators.label_points = true;
    // The roof spans the operators and the ridge with a factor of four to spare on each side, so the
    // x axis covers what is there to see and no more.
    double lowest = balance, highest = balance;
    for (const auto& op : inputs.explanation.prediction.decode.operators) {
        if (op.flops.value <= 0.0 || op.bytes.value <= 0.0 || op.time.value <= 0.0) continue;
        operators.x.push_back(op.flops / op.bytes);
        operators.y.push_back(op.flops.value / op.time.value);
        operators.point_labels.emplace_back(engine::operator_name(op.kind));
        lowest = std::min(lowest, operators.x.back());
        highest = std::max(highest, operators.x.back());
    }
    Series roof = line_series("roof (peak bandwidth x intensity, capped by peak FLOP/s)", {}, {}, "#333333");
    const double first = std::log10(lowest / 4.0), last = std::log10(highest * 4.0);
    for (int i = 0; i <= 100; ++i) {
        const double intensity = std::pow(10.0, first + (last - first) * i / 100.0);
        roof.x.push_back(intensity);
        roof.y.push_back(std::min(peak_rate, intensity * peak_bandwidth));
    }
    chart.series = {roof, operators};
    chart.markers.push_back({balance, fmt::format("machine balance {:.0f}", balance), "#2ca02c"});
    return render_chart(chart);
}

std::string context_chart(const ReportInputs& inputs) {
    const auto& series = inputs.context_series;
    const auto& decode = inputs.explanation.prediction.decode;
    Chart chart;
    chart.title = fmt::format("Tokens/s against context length (batch {:.0f})", inputs.explanation.effective_batch);
    chart.x = {"context (tokens)", true, std::nullopt, std::nullopt, LogBase::two};
    chart.y = {"tokens/s", true, std::nullopt, std::nullopt, LogBase::ten};
    chart.series = {line_series("per stream", series.contexts, series.tokens_per_s_per_stream, "#ff7f0e"),
                    line_series("total", series.contexts, series.tokens_per_s_total, "#1f77b4")};
    if (inputs.context_series_low && inputs.context_series_high) {
        const auto& low = *inputs.context_series_low;
        const auto& high = *inputs.context_series_high;
        chart.bands = {band_series("per stream: low to high estimate", low.contexts, low.tokens_per_s_per_stream,
                                   high.tokens_per_s_per_stream, "#ff7f0e"),
                       band_series("total: low to high estimate", low.contexts, low.tokens_per_s_total,
                                   high.tokens_per_s_total, "#1f77b4")};
    }
    if (inputs.longest_context_that_fits) {
        chart.markers.push_back({*inputs.longest_context_that_fits,
                                 fmt::format("memory wall: {:.0f} tokens at {:.0f} streams", *inputs.longest_context_that_fits,
                                             inputs.explanation.effective_batch),
                                 "#d62728"});
    }
    chart.points.push_back({decode.context, decode.tokens_per_s_total,
                            fmt::format("context {:.0f}: {:.4g} tokens/s", decode.context, decode.tokens_per_s_total),
                            "#000000"});
    return render_chart(chart);
}

std::string memory_chart(const ReportInputs& inputs) {
    const auto& memory = inputs.explanation.prediction.memory;
    const core::Bytes free = core::max(core::Bytes(), memory.headroom());
    return render_stacked_bar(
        fmt::format("Memory at batch {:.0f}: {} of {} used", inputs.explanation.effective_batch,
                    memory.weights + memory.kv + memory.reserve, memory.capacity),
        {{"weights " + core::format(memory.weights), memory.weights.value, "#1f77b4"},
         {"KV cache " + core::format(memory.kv), memory.kv.value, "#ff7f0e"},
         {"reserve " + core::format(memory.reserve), memory.reserve.value, "#999999"},
         {"free " + core::format(free), free.value, "#d9ead3"}},
        memory.capacity.value, "capacity " + core::format(memory.capacity));
}

std::string html_table(const std::vector<std::pair<std::string, std::string>>& rows) {
    std::string html = "<table>\n";
    for (const auto& [label, value] : rows) {
        html += fmt::format("<tr><td>{}</td><td>{}</td></tr>\n", xml_escape(label), xml_escape(value));
    }
    return html + "</table>\n";
}

// "We support 128k": TTFT, speed, completion time and memory at 8k, 32k and 128k, side by side.
std::string context_levels_table(const ReportInputs& inputs) {
    if (inputs.context_levels.empty()) return {};
    std::string html = fmt::format(
        "<h3>At 8k, 32k and 128k tokens of prompt ({:.0f} streams, {:.0f} output tokens each)</h3>\n<table>\n"
        "<tr><td>prompt tokens</td><td>TTFT</td><td>tokens/s per stream</td><td>tokens/s total</td>"
        "<td>time to last token</td><td>fits</td><td>max streams</td></tr>\n",
        inputs.context_series.batch, inputs.context_levels_output);
    for (const auto& level : inputs.context_levels) {
        html += fmt::format("<tr><td>{:.0f}{}</td><td>{}</td><td>{:.4g}</td><td>{:.4g}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                            level.context,
                            level.requested ? fmt::format(" (for {:.0f}: the model's context, less the output)", *level.requested)
                                            : std::string{},
                            xml_escape(core::format(level.ttft)), level.tokens_per_s_per_stream, level.tokens_per_s_total,
                            xml_escape(core::format(level.time_to_last_token)), level.fits ? "yes" : "no", level.max_batch);
    }
    return html + "</table>\n";
}

}  // namespace

std::string render_html_report(const ReportInputs& inputs) {
    const auto& explanation = inputs.explanation;
    const auto& decode = explanation.prediction.decode;
    const auto& conditions = inputs.conditions;
    std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
    // Counts script errors from the first moment, for the self-check at the end of the page.
    html += "<script>window.decodesimErrors = 0; window.addEventListener('error', function () { window.decodesimErrors += 1; });</script>\n";
    html += fmt::format("<title>decodesim: {} on {}</title>\n<style>{}</style>\n</head>\n<body>\n",
                        xml_escape(inputs.model_name), xml_escape(inputs.hardware_name), kStyle);
    html += fmt::format("<h1>{} on {}</h1>\n", xml_escape(inputs.model_name), xml_escape(inputs.hardware_name));
    html += fmt::format(
        "<p class=\"conditions\">Context {:.0f} tokens per stream, {:.0f} concurrent stream(s), weights {}, KV cache {}, "
        "activations {}{}, runtime {}.</p>\n",
        decode.context, explanation.effective_batch, xml_escape(conditions.weights), xml_escape(conditions.kv),
        xml_escape(conditions.activation),
        conditions.parallelism.any() ? ", " + parallelism_text(conditions.parallelism) : std::string(),
        xml_escape(conditions.runtime));
    html += "<h2>Will more FLOPS help?</h2>\n";
    html += fmt::format("<p class=\"verdict\">{}</p>\n", xml_escape(why_verdict(explanation)));
    html += html_table({
        {"tokens/s per stream (predicted / roofline bound)",
         fmt::format("{:.4g} / {:.4g}", decode.tokens_per_s_per_stream, decode.roofline_tokens_per_s_per_stream)},
        {"tokens/s total (predicted / roofline bound)",
         fmt::format("{:.4g} / {:.4g}", decode.tokens_per_s_total, decode.roofline_tokens_per_s_total)},
        {"time to first token (one request at an idle server)", core::format(explanation.prediction.ttft)},
        {fmt::format("prefill of all {:.0f} streams at once", explanation.effective_batch),
         core::format(explanation.prediction.batch_prefill.time)},
        {"step time bound by memory / compute / overhead / communication",
         fmt::format("{:.0f}% / {:.0f}% / {:.0f}% / {:.0f}%", decode.memory_fraction * 100, decode.compute_fraction * 100,
                     decode.overhead_fraction * 100, decode.communication_fraction * 100)},
        {"2x bandwidth / 2x FLOPS / 2x capacity / 2x interconnect",
         fmt::format("{:.2f}x / {:.2f}x / {:.2f}x / {:.2f}x", explanation.what_if.bandwidth_x2, explanation.what_if.flops_x2,
                     explanation.what_if.capacity_x2, explanation.what_if.interconnect_x2)},
        {"machine balance / step intensity",
         fmt::format("{:.4g} / {:.4g} FLOP/byte", explanation.prediction.machine_balance, decode.arithmetic_intensity)},
    });
    html += "<h2>Roofline</h2>\n" + roofline_chart(inputs);
    html += "<h2>Tokens/s against context length</h2>\n" + context_chart(inputs);
    html += context_levels_table(inputs);
    html += "<h2>Throughput against concurrency</h2>\n" + render_chart(curve_chart(conditions, inputs.curve, inputs.curve_band, explanation.effective_batch));
    html += "<h2>Memory</h2>\n" + memory_chart(inputs);
    html += "<p class=\"conditions\">Generated by decodesim. Predictions apply the efficiency model of docs/model.md; "
            "roofline bounds use datasheet peaks.</p>\n";
    html += kSelfCheck;
    html += "</body>\n</html>\n";
    return html;
}

}  // namespace decodesim::report
