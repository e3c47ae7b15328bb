#include "report/serving/frontier_output.hpp"

#include <fmt/format.h>

#include "core/text_escape.hpp"
#include "core/units.hpp"
#include "report/serving/serve_output.hpp"
#include "report/svg_chart.hpp"
#include "report/text_table.hpp"

namespace decodesim::report {

namespace {

using nlohmann::json;

// The chart's colours, one a deployment, repeating past ten (matplotlib's "tab10").
constexpr std::array<const char*, 10> kColors{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                              "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

std::string price_text(const FrontierDeployment& deployment) {
    if (!deployment.price_per_device_hour) return "no price";
    return fmt::format("${:.2f}/h a device, {}", *deployment.price_per_device_hour, deployment.price_basis);
}

std::string workload_text(const FrontierConditions& conditions) {
    return fmt::format("prompts {} and outputs {} tokens; closed loops, {} requests a client (at least {}), seed {}",
                       conditions.prompt, conditions.output, conditions.requests_per_client, conditions.min_requests,
                       conditions.seed);
}

}  // namespace

std::string frontier_to_text(const FrontierConditions& conditions, const std::vector<FrontierDeployment>& deployments) {
    std::string text = fmt::format("Throughput against interactivity: {}\n{}\n", core::printable(conditions.model),
                                   workload_text(conditions));
    for (const auto& deployment : deployments) {
        const serving::Frontier& frontier = deployment.frontier;
        text += fmt::format("\n{} ({} device{}, {} weights, {} KV, {}; {})\n", deployment.label, frontier.devices,
                            frontier.devices == 1 ? "" : "s", deployment.point.weights, deployment.point.kv,
                            deployment.point.runtime, price_text(deployment));
        TextTable table({"clients", "tokens/s a user", "tokens/s a device", "TTFT p50", "TPOT p50", "batch", "$/M tokens"});
        for (std::size_t i = 0; i < frontier.points.size(); ++i) {
            const serving::FrontierPoint& point = frontier.points[i];
            const bool knee = frontier.knee && *frontier.knee == i;
            table.add_row({fmt::format("{}{}", point.concurrency, knee ? " (knee)" : ""),
                           core::format_significant(point.tokens_per_s_per_user),
                           core::format_significant(point.tokens_per_s_per_device), core::format_seconds(point.ttft_s.p50),
                           core::format_seconds(point.tpot_s.p50), core::format_significant(point.mean_running_batch, 3),
                           point.usd_per_million_output_tokens ? fmt::format("{:.3f}", *point.usd_per_million_output_tokens)
                                                               : std::string("-")});
        }
        text += table.render();
    }
    text += "\nThe knee: the last concurrency each of whose steps raised throughput a device by at least 1% and by as "
            "large a share as it cut each user's tokens/s (docs/serving.md, \"The frontier\"). Tokens/s a user is 1 / "
            "median TPOT; $/M tokens is the devices' hourly price over an hour's output tokens.\n";
    return text;
}

json frontier_to_json(const FrontierConditions& conditions, const std::vector<FrontierDeployment>& deployments) {
    json document = schema_document();
    document["model"] = core::printable(conditions.model);
    document["workload"] = {{"prompt", conditions.prompt},
                            {"output", conditions.output},
                            {"requests_per_client", conditions.requests_per_client},
                            {"min_requests", conditions.min_requests},
                            {"seed", conditions.seed}};
    json list = json::array();
    for (const auto& deployment : deployments) {
        json points = json::array();
        for (const auto& point : deployment.frontier.points) {
            json entry = {{"concurrency", point.concurrency},
                          {"tokens_per_s_per_user", point.tokens_per_s_per_user},
                          {"tokens_per_s_per_device", point.tokens_per_s_per_device},
                          {"output_tokens_per_s", point.output_tokens_per_s},
                          {"ttft_s", percentiles_to_json(point.ttft_s)},
                          {"tpot_s", percentiles_to_json(point.tpot_s)},
                          {"mean_running_batch", point.mean_running_batch},
                          {"preemptions", point.preemptions},
                          {"requests", point.requests}};
            entry["usd_per_million_output_tokens"] =
                point.usd_per_million_output_tokens ? json(*point.usd_per_million_output_tokens) : json(nullptr);
            points.push_back(std::move(entry));
        }
        json entry = {{"label", core::printable(deployment.label)},
                      {"conditions", conditions_to_json(deployment.point)},
                      {"hardware", deployment.point.hardware},
                      {"devices", deployment.frontier.devices},
                      {"points", std::move(points)}};
        entry["price_per_device_hour_usd"] =
            deployment.price_per_device_hour ? json(*deployment.price_per_device_hour) : json(nullptr);
        entry["price_basis"] = deployment.price_basis.empty() ? json(nullptr) : json(deployment.price_basis);
        entry["knee_concurrency"] = deployment.frontier.knee
                                        ? json(deployment.frontier.points[*deployment.frontier.knee].concurrency)
                                        : json(nullptr);
        list.push_back(std::move(entry));
    }
    document["deployments"] = std::move(list);
    return document;
}

std::string frontier_chart(const FrontierConditions& conditions, const std::vector<FrontierDeployment>& deployments) {
    Chart chart;
    chart.title = fmt::format("{}: throughput a device against tokens/s a user", conditions.model);
    chart.x = {"tokens/s a user (1 / median TPOT)", true, std::nullopt, std::nullopt, LogBase::ten};
    chart.y = {"output tokens/s a device", true, std::nullopt, std::nullopt, LogBase::ten};
    for (std::size_t d = 0; d < deployments.size(); ++d) {
        const FrontierDeployment& deployment = deployments[d];
        const std::string color = kColors[d % kColors.size()];
        Series series = line_series(deployment.label, {}, {}, color);
        series.points = true;
        series.label_points = true;
        for (const auto& point : deployment.frontier.points) {
            series.x.push_back(point.tokens_per_s_per_user);
            series.y.push_back(point.tokens_per_s_per_device);
            series.point_labels.push_back(fmt::format("{}", point.concurrency));
        }
        chart.series.push_back(std::move(series));
        if (deployment.frontier.knee) {
            const serving::FrontierPoint& knee = deployment.frontier.points[*deployment.frontier.knee];
            std::string label = fmt::format("{} knee: {} clients", deployment.label, knee.concurrency);
            if (knee.usd_per_million_output_tokens) label += fmt::format(", ${:.3f}/M tokens", *knee.usd_per_million_output_tokens);
            chart.points.push_back({knee.tokens_per_s_per_user, knee.tokens_per_s_per_device, label, color});
        }
    }
    return render_chart(chart);
}

}  // namespace decodesim::report
