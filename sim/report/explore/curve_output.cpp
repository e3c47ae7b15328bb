#include "report/explore/curve_output.hpp"

#include "core/text_escape.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/units.hpp"
#include "report/text_table.hpp"

namespace decodesim::report {

namespace {

bool is_power_of_two(long long value) { return value > 0 && (value & (value - 1)) == 0; }

}  // namespace

std::string curve_to_text(const Conditions& conditions, const explore::Curve& curve) {
    std::string text = fmt::format("{} on {}: weights {}, KV {}, context {:.0f} tokens\n", conditions.model,
                                   conditions.hardware, conditions.weights, conditions.kv, curve.context);
    text += fmt::format("  memory wall: {} concurrent streams fit\n", curve.max_batch);
    text += curve.knee_batch
                ? fmt::format("  knee: decode turns compute-bound at about {} streams\n", *curve.knee_batch)
                : std::string("  knee: decode stays bandwidth-bound at every batch (KV reads grow with the batch)\n");
    text += "\n";
    const bool request = !curve.points.empty() && curve.points.front().time_to_last_token.has_value();
    std::vector<std::string> headers{"batch", "tok/s per stream", "tok/s total", "step", "TTFT"};
    if (request) headers.push_back("last token");
    for (const char* header : {"batch prefill", "bound", "fits", "note"}) headers.push_back(header);
    TextTable table(headers);
    for (const auto& point : curve.points) {
        const bool knee = curve.knee_batch && point.batch == *curve.knee_batch;
        const bool wall = point.batch == curve.max_batch;
        const bool last = &point == &curve.points.back();
        if (!is_power_of_two(point.batch) && !knee && !wall && !last) continue;
        std::string note = knee ? "knee" : "";
        if (wall) note += note.empty() ? "memory wall" : ", memory wall";
        std::vector<std::string> cells{std::to_string(point.batch), core::format_si(point.tokens_per_s_per_stream),
                                       core::format_si(point.tokens_per_s_total), core::format(point.step_time),
                                       core::format(point.ttft)};
        if (request) cells.push_back(core::format(*point.time_to_last_token));
        for (std::string cell : {core::format(point.batch_prefill), std::string(engine::bound_name(point.bound)),
                                 std::string(point.fits ? "yes" : "no"), note}) {
            cells.push_back(std::move(cell));
        }
        table.add_row(cells);
    }
    text += table.render();
    text += "(every batch is in --csv and --json; the table shows powers of two, the knee and the wall)\n";
    return text;
}

std::string curve_to_csv(const Conditions& conditions, const explore::Curve& curve) {
    std::string csv =
        "hardware,model,weights,kv,activation,tensor_parallel,runtime,clocks,context_tokens,batch,tokens_per_s_per_stream,"
        "tokens_per_s_total,step_time_s,ttft_s,batch_prefill_s,bound,fits,time_to_last_token_s\n";
    const std::string prefix =
        fmt::format("{},{},{},{},{},{},{},{},{},", core::csv_field(conditions.hardware), core::csv_field(conditions.model), conditions.weights,
                    conditions.kv, conditions.activation, conditions.tensor_parallel, conditions.runtime,
                    conditions.clocks, curve.context);
    for (const auto& point : curve.points) {
        csv += prefix;
        csv += fmt::format("{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{},{},{}\n", point.batch, point.tokens_per_s_per_stream,
                           point.tokens_per_s_total, point.step_time.value, point.ttft.value, point.batch_prefill.value,
                           engine::bound_name(point.bound), point.fits ? "true" : "false",
                           point.time_to_last_token ? fmt::format("{:.9g}", point.time_to_last_token->value) : "");
    }
    return csv;
}

void write_curve_json(std::ostream& out, const Conditions& conditions, const explore::Curve& curve) {
    nlohmann::json document = document_for(conditions);
    document["conditions"]["context_tokens"] = curve.context;
    document["knee_batch"] = curve.knee_batch ? nlohmann::json(*curve.knee_batch) : nlohmann::json(nullptr);
    document["max_batch"] = curve.max_batch;
    // A curve may hold a million points: they are streamed into the place the document keeps for
    // them, in the layout json_text gives every document (keys sorted, two spaces a level), rather
    // than built as a million JSON objects first.
    constexpr std::string_view kPlaceholder = "\"@points@\"";
    document["points"] = "@points@";
    const std::string text = json_text(std::move(document));
    const std::size_t at = text.find(kPlaceholder);
    out << std::string_view(text).substr(0, at);
    if (curve.points.empty()) {
        out << "[]";
    } else {
        std::string buffer = "[\n";
        for (const auto& point : curve.points) {
            const auto number = [&](std::string_view key, double value, bool last = false) {
                buffer += fmt::format("      \"{}\": {}{}\n", key, json_number_text(value), last ? "" : ",");
            };
            buffer += "    {\n";
            number("batch", point.batch);
            number("batch_prefill_s", point.batch_prefill.value);
            buffer += fmt::format("      \"bound\": \"{}\",\n", engine::bound_name(point.bound));
            buffer += fmt::format("      \"fits\": {},\n", point.fits ? "true" : "false");
            number("step_time_s", point.step_time.value);
            if (point.time_to_last_token) {
                number("time_to_last_token_s", point.time_to_last_token->value);
            } else {
                buffer += "      \"time_to_last_token_s\": null,\n";
            }
            number("tokens_per_s_per_stream", point.tokens_per_s_per_stream);
            number("tokens_per_s_total", point.tokens_per_s_total);
            number("ttft_s", point.ttft.value, true);
            buffer += &point == &curve.points.back() ? "    }\n  ]" : "    },\n";
            if (buffer.size() > (1u << 20)) {
                out << buffer;
                buffer.clear();
            }
        }
        out << buffer;
    }
    out << std::string_view(text).substr(at + kPlaceholder.size());
}

Chart curve_chart(const Conditions& conditions, const explore::Curve& curve,
                  const std::optional<explore::CurveBand>& band, std::optional<double> marked_batch) {
    Chart chart;
    chart.title = fmt::format("{} on {}: throughput against concurrency (context {:.0f})", conditions.model,
                              conditions.hardware, curve.context);
    chart.x = {"concurrent streams (batch)", true, std::nullopt, std::nullopt, LogBase::two};
    chart.y = {"tokens/s", true, std::nullopt, std::nullopt, LogBase::ten};
    Series total = line_series("total tokens/s", {}, {}, "#1f77b4");
    Series stream = line_series("tokens/s per stream", {}, {}, "#ff7f0e");
    for (const auto& point : curve.points) {
        total.x.push_back(static_cast<double>(point.batch));
        total.y.push_back(point.tokens_per_s_total);
        stream.x.push_back(static_cast<double>(point.batch));
        stream.y.push_back(point.tokens_per_s_per_stream);
    }
    chart.series = {total, stream};
    if (band) {
        chart.bands = {band_series("total: low to high estimate", band->batches, band->low_tokens_per_s_total,
                                   band->high_tokens_per_s_total, "#1f77b4"),
                       band_series("per stream: low to high estimate", band->batches, band->low_tokens_per_s_per_stream,
                                   band->high_tokens_per_s_per_stream, "#ff7f0e")};
    }
    // The knee and the wall are always handed over; the chart draws each only where its batches reach it.
    if (curve.knee_batch) {
        chart.markers.push_back(
            {static_cast<double>(*curve.knee_batch), fmt::format("knee: {} streams", *curve.knee_batch), "#2ca02c"});
    }
    if (curve.max_batch > 0) {
        chart.markers.push_back(
            {static_cast<double>(curve.max_batch), fmt::format("memory wall: {} streams", curve.max_batch), "#d62728"});
    }
    const double batch = marked_batch.value_or(curve.requested_batch);
    const auto at = std::find_if(curve.points.begin(), curve.points.end(),
                                 [&](const explore::CurvePoint& point) { return static_cast<double>(point.batch) == batch; });
    // A batch the curve does not reach has no y; the chart then names it below the plot.
    chart.points.push_back({batch, at != curve.points.end() ? at->tokens_per_s_total : std::nan(""),
                            at != curve.points.end() ? fmt::format("batch {:.0f}: {:.4g} tokens/s", batch, at->tokens_per_s_total)
                                                     : fmt::format("batch {:.0f}", batch),
                            "#000000"});
    return chart;
}

}  // namespace decodesim::report
