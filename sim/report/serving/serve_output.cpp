#include "report/serving/serve_output.hpp"
#include "report/serving/scheduler_json.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/units.hpp"
#include "report/svg_chart.hpp"
#include "report/text_table.hpp"

namespace decodesim::report {

nlohmann::json percentiles_to_json(const serving::Percentiles& p) {
    return {{"p50", p.p50}, {"p90", p.p90}, {"p99", p.p99}, {"mean", p.mean}, {"max", p.max}};
}

namespace {

std::string seconds(double value) { return core::format_seconds(value); }

std::string plural(int count, const char* noun) { return fmt::format("{} {}{}", count, noun, count == 1 ? "" : "s"); }

// A mixed fleet's groups with their replicas' part of the run summed (utilization and batch as
// their replicas' mean).
struct GroupLoad {
    const FleetGroup* group;
    serving::ReplicaLoad load;
};

std::vector<GroupLoad> group_loads(const ServeConditions& c, const serving::ServeResult& r) {
    std::vector<GroupLoad> groups;
    std::size_t first = 0;
    for (const FleetGroup& group : c.fleet) {
        GroupLoad summed{&group, {}};
        for (std::size_t i = first; i < first + static_cast<std::size_t>(group.replicas) && i < r.replica_loads.size(); ++i) {
            summed.load.requests += r.replica_loads[i].requests;
            summed.load.utilization += r.replica_loads[i].utilization / group.replicas;
            summed.load.mean_running_batch += r.replica_loads[i].mean_running_batch / group.replicas;
        }
        first += static_cast<std::size_t>(group.replicas);
        groups.push_back(summed);
    }
    return groups;
}

// ", warm cache: each prompt's first 2048 tokens, the first prompt whole"; empty without one.
std::string warm_cache_text(const serving::WarmCache& warm) {
    if (!warm.any()) return "";
    std::vector<std::string> parts;
    if (warm.prefix_tokens > 0) parts.push_back(fmt::format("each prompt's first {} tokens", warm.prefix_tokens));
    if (warm.whole_prompts == 1) parts.push_back("the first prompt whole");
    if (warm.whole_prompts > 1) parts.push_back(fmt::format("the first {} prompts whole", warm.whole_prompts));
    return ", warm cache: " + fmt::format("{}", fmt::join(parts, ", "));
}

std::string fleet_text(const std::vector<FleetGroup>& fleet) {
    std::vector<std::string> parts;
    for (const FleetGroup& group : fleet) {
        parts.push_back(fmt::format("{} x{}{}", group.hardware, group.replicas,
                                    group.parallelism.any() ? fmt::format(" ({} each)", parallelism_text(group.parallelism)) : ""));
    }
    return fmt::format("{}", fmt::join(parts, " and "));
}

}  // namespace

std::string serve_to_text(const ServeConditions& c, const serving::ServeResult& r, const serving::SteadyState& a) {
    const Conditions& p = c.point;
    const std::string each = p.parallelism.any() ? fmt::format(" ({} each)", parallelism_text(p.parallelism)) : "";
    std::string text =
        r.disaggregation && !c.prefill_hardware.empty()
            ? fmt::format("{}: {} on {}{} and {} on {}{}, disaggregated\n", p.model,
                          plural(r.disaggregation->pools.prefill_instances, "prefill instance"), c.prefill_hardware,
                          c.prefill_parallelism.any() ? fmt::format(" ({} each)", parallelism_text(c.prefill_parallelism)) : "",
                          plural(r.disaggregation->pools.decode_instances, "decode instance"), p.hardware, each)
        : !c.fleet.empty() ? fmt::format("{} on a mixed fleet: {}\n", p.model, fleet_text(c.fleet))
        : r.disaggregation
            ? fmt::format("{} on {}: {} and {}, disaggregated{}\n", p.model, p.hardware,
                          plural(r.disaggregation->pools.prefill_instances, "prefill instance"),
                          plural(r.disaggregation->pools.decode_instances, "decode instance"), each)
            : fmt::format("{} on {} x{} replica{}{}\n", p.model, p.hardware, c.replicas, c.replicas == 1 ? "" : "s", each);
    text += fmt::format("  formats       weights {}, KV cache {}, activations {}, runtime {}{}{}, clocks {}\n",
                        p.weights, p.kv, p.activation, p.runtime,
                        p.in_process            ? std::string(" (client in process)")
                        : p.api_servers > 1     ? fmt::format(" ({} API server processes)", p.api_servers)
                                                : std::string(),
                        p.eager_op_time_s > 0.0
                            ? fmt::format(" ({} eager, {} an op)", p.every_pass_eager ? "every pass" : "prompt passes",
                                          core::format_seconds(p.eager_op_time_s))
                            : "",
                        p.clocks);
    text += fmt::format("  stream        {} requests, arrivals {}, prompt {}, output {}, seed {}{}\n", c.requests,
                        c.arrivals, c.prompt, c.output, c.seed, warm_cache_text(c.warm));
    text += fmt::format("  scheduler     max {} sequences, {} tokens per pass, {}-token KV blocks{}{}{}\n\n",
                        c.limits.max_sequences, c.limits.max_batched_tokens, c.limits.block_tokens,
                        c.limits.chunked_prefill ? ", chunked prefill" : "",
                        c.limits.prefix_caching ? ", prefix caching" : "", serving::scheduler_traits(c.limits));
    if (r.saturated) {
        text += fmt::format("SATURATED: {} requests were still queued at the last arrival; arrivals outrun service "
                            "(the steady state saturates at {:.3g} requests/s {})\n\n",
                            r.waiting_at_last_arrival, a.saturation_rate_per_s,
                            r.disaggregation ? "in all" : "per replica");
    }
    TextTable latency({"latency", "p50", "p90", "p99", "mean"});
    auto row = [&](const char* name, const serving::Percentiles& q) {
        latency.add_row({name, seconds(q.p50), seconds(q.p90), seconds(q.p99), seconds(q.mean)});
    };
    row("time to first token", r.ttft_s);
    // The request path (runtime profile's request_path) is what the client sees beyond the server.
    if (r.server_ttft_s.mean != r.ttft_s.mean) row("  at the server", r.server_ttft_s);
    row("time per output token", r.tpot_s);
    row("inter-token latency", r.itl_s);
    row("time to last token", r.e2e_s);
    text += latency.render();
    // The simulation offers 0 when every request arrived at one instant (a closed loop with a client
    // for each request, a burst): no rate is offered there, and "offered 0" would say none came.
    const std::string offered = r.offered_rate_per_s > 0.0
                                    ? fmt::format("offered {:.4g}", r.offered_rate_per_s)
                                    : std::string("offered rate not defined: all arrived at once");
    text += fmt::format("\nthroughput    {:.4g} output tokens/s, {:.4g} tokens/s in all, {:.4g} requests/s ({})\n",
                        r.output_tokens_per_s, r.total_tokens_per_s, r.requests_per_s, offered);
    if (c.targets.ttft_s || c.targets.tpot_s || c.targets.e2e_s) {
        std::string targets;
        auto add = [&](const char* name, const std::optional<double>& value) {
            if (value) targets += fmt::format("{}{} <= {}", targets.empty() ? "" : ", ", name, seconds(*value));
        };
        add("TTFT", c.targets.ttft_s);
        add("TPOT", c.targets.tpot_s);
        add("time to last token", c.targets.e2e_s);
        text += fmt::format("goodput       {:.4g} requests/s met the targets ({}): {:.1f}% of requests\n",
                            r.goodput_requests_per_s, targets, 100.0 * r.goodput_fraction);
    }
    if (c.output_cap) {
        const auto& cap = *c.output_cap;
        text += fmt::format("output cap    {:.0f} tokens: mean output {:.0f} instead of {:.0f}; at saturation {:.3g} instead of "
                            "{:.3g} device-seconds per request ({:.0f}% less GPU time){}\n",
                            cap.cap_tokens, cap.mean_output_capped, cap.mean_output_uncapped,
                            cap.device_seconds_per_request_capped, cap.device_seconds_per_request_uncapped,
                            100.0 * cap.saving_fraction(),
                            cap.cost_per_million_requests_capped
                                ? fmt::format(", ${:.4g} instead of ${:.4g} per million requests",
                                              *cap.cost_per_million_requests_capped,
                                              *cap.cost_per_million_requests_uncapped)
                                : std::string{});
    }
    text += fmt::format("load          mean running batch {:.1f} per replica, mean queue {:.1f}, peak KV use {:.0f}% "
                        "of {:.0f} tokens, {} preemptions, {} prefix hits, {} passes{}\n",
                        r.mean_running_batch, r.mean_waiting, 100.0 * r.peak_kv_fraction, r.kv_capacity_tokens,
                        r.preemptions, r.prefix_hits, r.steps,
                        r.decode_passes_without_graph > 0
                            ? fmt::format(" ({} of them decode passes no captured graph holds, dispatched op by op)",
                                          r.decode_passes_without_graph)
                            : std::string());
    for (const GroupLoad& group : group_loads(c, r)) {
        text += fmt::format("fleet         {} x{}: {} requests, {:.0f}% busy, mean running batch {:.1f} per replica\n",
                            group.group->hardware, group.group->replicas, group.load.requests,
                            100.0 * group.load.utilization, group.load.mean_running_batch);
    }
    if (r.rejected > r.rejected_longer_than_pass) {
        text += fmt::format("rejected      {} requests too long for a replica to ever hold\n", r.rejected - r.rejected_longer_than_pass);
    }
    if (r.rejected_longer_than_pass > 0) {
        text += fmt::format("rejected      {} requests whose prompt is longer than a pass of {} tokens without chunked\n"
                            "  prefill (raise --max-batched-tokens, or chunk: the runtime's own flag)\n",
                            r.rejected_longer_than_pass, c.limits.max_batched_tokens);
    }
    if (r.speculation) {
        const serving::SpeculationStats& s = *r.speculation;
        text += fmt::format("speculation   draft {}, {} per verification, acceptance {:g}: {:.3f} tokens per verification "
                            "(expected {:.3f}) over {} verifications; drafting {:.0f}% of pass time\n",
                            p.draft, plural(s.length, "draft token"), s.acceptance, s.mean_tokens_per_verification,
                            s.expected_tokens_per_verification, s.verifications, 100.0 * s.draft_time_fraction);
    }
    if (r.disaggregation) {
        const serving::DisaggregationStats& d = *r.disaggregation;
        text += fmt::format("pools         prefill {:.0f}% busy, {:.2f} prompts in flight per instance; decode {:.0f}% busy, "
                            "batch {:.1f} per instance\n",
                            100.0 * d.prefill_utilization, d.mean_prefill_batch, 100.0 * d.decode_utilization,
                            d.mean_decode_batch);
        text += fmt::format("KV transfer   mean {} per request ({}) over {} at {} per device x {:.2f} efficiency, "
                            "latency {}; mean wait before it {} (first token counted when it ends)\n",
                            seconds(d.mean_kv_transfer_s), core::format_bytes(d.mean_kv_transfer_bytes), d.link.name,
                            core::format_bandwidth(d.link.bandwidth.value), d.link.efficiency,
                            seconds(d.link.latency.value), seconds(d.mean_kv_transfer_wait_s));
    }
    if (c.disaggregation) {
        const serving::DisaggregatedState& d = *c.disaggregation;
        if (a.stable) {
            text += fmt::format("steady state  decode batch {:.1f} per instance, prefill pool {:.0f}% loaded, TTFT p99 {}, "
                                "TPOT p99 {}; saturates at {:.3g} requests/s in all ({} bound)\n",
                                a.batch, 100.0 * d.prefill_utilization, seconds(a.ttft_s.p99), seconds(a.tpot_s.p99),
                                a.saturation_rate_per_s, a.binding);
        } else {
            text += fmt::format("steady state  none: the load is above the saturation rate of {:.3g} requests/s in all "
                                "({} bound)\n",
                                a.saturation_rate_per_s, a.binding);
        }
    } else if (a.stable) {
        text += fmt::format("steady state  batch {:.1f}, TTFT p99 {}, TPOT p99 {}; saturates at {:.3g} requests/s "
                            "per replica ({} bound)\n",
                            a.batch, seconds(a.ttft_s.p99), seconds(a.tpot_s.p99), a.saturation_rate_per_s, a.binding);
    } else {
        text += fmt::format("steady state  none: the load is above the saturation rate of {:.3g} requests/s per "
                            "replica ({} bound)\n",
                            a.saturation_rate_per_s, a.binding);
    }
    return text;
}

nlohmann::json serve_to_json(const ServeConditions& c, const serving::ServeResult& r, const serving::SteadyState& a) {
    nlohmann::json document = document_for(c.point);
    auto& given = document["conditions"];
    given["replicas"] = c.replicas;
    if (r.disaggregation) {
        given["disaggregation"] = fmt::format("{}P{}D", r.disaggregation->pools.prefill_instances,
                                              r.disaggregation->pools.decode_instances);
        // The prefill pool's device when it is not the decode pool's (`hardware` above).
        if (!c.prefill_hardware.empty()) {
            given["prefill_hardware"] = c.prefill_hardware;
            given["prefill_tensor_parallel"] = c.prefill_parallelism.tensor;
        }
    }
    if (!c.fleet.empty()) {
        nlohmann::json groups = nlohmann::json::array();
        nlohmann::json loads = nlohmann::json::array();
        for (const GroupLoad& group : group_loads(c, r)) {
            groups.push_back({{"hardware", group.group->hardware},
                              {"tensor_parallel", group.group->parallelism.tensor},
                              {"replicas", group.group->replicas}});
            loads.push_back({{"hardware", group.group->hardware},
                             {"replicas", group.group->replicas},
                             {"requests", group.load.requests},
                             {"utilization", group.load.utilization},
                             {"mean_running_batch", group.load.mean_running_batch}});
        }
        given["fleet"] = groups;
        document["fleet"] = loads;
    }
    given["arrivals"] = c.arrivals;
    given["prompt_tokens"] = c.prompt;
    given["output_tokens"] = c.output;
    given["requests"] = c.requests;
    given["seed"] = c.seed;
    if (c.warm.any()) given["warm_cache"] = {{"prefix_tokens", c.warm.prefix_tokens}, {"whole_prompts", c.warm.whole_prompts}};
    given["scheduler"] = scheduler_json(c.limits);
    if (c.targets.ttft_s) given["ttft_slo_s"] = *c.targets.ttft_s;
    if (c.targets.tpot_s) given["tpot_slo_s"] = *c.targets.tpot_s;
    if (c.targets.e2e_s) given["e2e_slo_s"] = *c.targets.e2e_s;
    if (c.output_cap) {
        const auto& cap = *c.output_cap;
        given["max_output_tokens"] = cap.cap_tokens;
        auto optional = [](const std::optional<double>& value) {
            return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
        };
        document["output_cap"] = {{"max_output_tokens", cap.cap_tokens},
                                  {"mean_output_tokens_capped", cap.mean_output_capped},
                                  {"mean_output_tokens_uncapped", cap.mean_output_uncapped},
                                  {"device_seconds_per_request_capped", cap.device_seconds_per_request_capped},
                                  {"device_seconds_per_request_uncapped", cap.device_seconds_per_request_uncapped},
                                  {"gpu_time_saving_fraction", cap.saving_fraction()},
                                  {"usd_per_million_requests_capped", optional(cap.cost_per_million_requests_capped)},
                                  {"usd_per_million_requests_uncapped", optional(cap.cost_per_million_requests_uncapped)}};
    }
    document["ttft_s"] = percentiles_to_json(r.ttft_s);
    document["server_ttft_s"] = percentiles_to_json(r.server_ttft_s);
    document["tpot_s"] = percentiles_to_json(r.tpot_s);
    document["itl_s"] = percentiles_to_json(r.itl_s);
    document["e2e_s"] = percentiles_to_json(r.e2e_s);
    document["throughput"] = {
        {"output_tokens_per_s", r.output_tokens_per_s},
        {"total_tokens_per_s", r.total_tokens_per_s},
        {"requests_per_s", r.requests_per_s},
        {"offered_requests_per_s",
         r.offered_rate_per_s > 0.0 ? nlohmann::json(r.offered_rate_per_s) : nlohmann::json(nullptr)}};
    document["goodput"] = {{"requests_per_s", r.goodput_requests_per_s}, {"fraction", r.goodput_fraction}};
    document["saturated"] = r.saturated;
    document["waiting_at_last_arrival"] = r.waiting_at_last_arrival;
    document["mean_running_batch"] = r.mean_running_batch;
    document["mean_waiting"] = r.mean_waiting;
    document["peak_kv_fraction"] = r.peak_kv_fraction;
    document["kv_capacity_tokens"] = r.kv_capacity_tokens;
    document["preemptions"] = r.preemptions;
    document["prefix_hits"] = r.prefix_hits;
    document["rejected"] = r.rejected;
    document["rejected_longer_than_pass"] = r.rejected_longer_than_pass;
    document["decode_passes_without_graph"] = r.decode_passes_without_graph;
    document["passes"] = r.steps;
    document["duration_s"] = r.duration_s;
    if (r.speculation) {
        const serving::SpeculationStats& s = *r.speculation;
        document["speculation"] = {{"draft", c.point.draft},
                                   {"length", s.length},
                                   {"acceptance", s.acceptance},
                                   {"expected_tokens_per_verification", s.expected_tokens_per_verification},
                                   {"mean_tokens_per_verification", s.mean_tokens_per_verification},
                                   {"verifications", s.verifications},
                                   {"draft_time_fraction", s.draft_time_fraction}};
    }
    document["steady_state"] = {{"stable", a.stable},
                                {"batch", a.batch},
                                {"step_s", a.step_s},
                                {"ttft_s", percentiles_to_json(a.ttft_s)},
                                {"tpot_s", percentiles_to_json(a.tpot_s)},
                                {"e2e_s", percentiles_to_json(a.e2e_s)},
                                {"saturation_requests_per_s", a.saturation_rate_per_s},
                                {"binding", a.binding}};
    if (c.disaggregation) {
        const serving::DisaggregatedState& d = *c.disaggregation;
        auto& state = document["steady_state"];
        state["prefill_s"] = d.prefill_s;
        state["prefill_utilization"] = d.prefill_utilization;
        state["prefill_wait_s"] = d.prefill_wait_s;
        state["decode_utilization"] = d.decode_utilization;
        state["kv_transfer_s"] = d.kv_transfer_s;
    }
    if (r.disaggregation) {
        const serving::DisaggregationStats& d = *r.disaggregation;
        document["disaggregation"] = {{"prefill_instances", d.pools.prefill_instances},
                                      {"decode_instances", d.pools.decode_instances},
                                      {"prefill_utilization", d.prefill_utilization},
                                      {"decode_utilization", d.decode_utilization},
                                      {"mean_prefill_batch", d.mean_prefill_batch},
                                      {"mean_decode_batch", d.mean_decode_batch},
                                      {"mean_kv_transfer_s", d.mean_kv_transfer_s},
                                      {"mean_kv_transfer_wait_s", d.mean_kv_transfer_wait_s},
                                      {"mean_kv_transfer_bytes", d.mean_kv_transfer_bytes},
                                      {"transfers", d.transfers},
                                      {"link", d.link.name},
                                      {"link_bandwidth_bytes_per_s", d.link.bandwidth.value},
                                      {"link_latency_s", d.link.latency.value},
                                      {"link_efficiency", d.link.efficiency}};
    }
    nlohmann::json timeline = {{"time_s", nlohmann::json::array()},
                               {"waiting", nlohmann::json::array()},
                               {"running", nlohmann::json::array()},
                               {"kv_fraction", nlohmann::json::array()}};
    for (const auto& sample : r.timeline) {
        timeline["time_s"].push_back(sample.time_s);
        timeline["waiting"].push_back(sample.waiting);
        timeline["running"].push_back(sample.running);
        timeline["kv_fraction"].push_back(sample.kv_fraction);
    }
    document["timeline"] = std::move(timeline);
    return document;
}

std::string requests_to_csv(const serving::ServeResult& result) {
    std::string csv =
        "id,replica,arrival_s,prompt_tokens,output_tokens,prefix_id,prefix_hit,ttft_s,tpot_s,e2e_s,preemptions,"
        "rejected,server_ttft_s\n";
    for (std::size_t i = 0; i < result.requests.size(); ++i) {
        const auto& record = result.requests[i];
        const auto& request = record.request;
        if (record.rejected) {
            csv += fmt::format("{},{},{:.9g},{},{},{},false,,,,0,true,\n", i, record.replica, request.arrival_s,
                               request.prompt_tokens, request.output_tokens, request.prefix_id);
            continue;
        }
        csv += fmt::format("{},{},{:.9g},{},{},{},{},{:.9g},{:.9g},{:.9g},{},false,{:.9g}\n", i, record.replica,
                           request.arrival_s, request.prompt_tokens, request.output_tokens, request.prefix_id,
                           record.prefix_hit ? "true" : "false", record.ttft(), record.tpot(), record.e2e(),
                           record.preemptions, record.server_ttft());
    }
    return csv;
}

std::string serve_chart(const ServeConditions& c, const serving::ServeResult& r) {
    // Two panels in one file: latency of each request against its arrival, and the server's state.
    Chart latency;
    latency.title = fmt::format("{} on {} x{}: latency of each request", c.point.model, c.point.hardware, c.replicas);
    latency.x = {"arrival time (s)", false, std::nullopt, std::nullopt};
    latency.y = {"seconds", true, std::nullopt, std::nullopt};
    Series ttft = line_series("time to first token", {}, {}, "#1f77b4");
    Series tpot = line_series("time per output token", {}, {}, "#ff7f0e");
    ttft.line = tpot.line = false;
    ttft.points = tpot.points = true;
    const std::size_t stride = std::max<std::size_t>(1, r.requests.size() / 2000);
    for (std::size_t i = 0; i < r.requests.size(); i += stride) {
        const auto& record = r.requests[i];
        if (record.rejected) continue;
        ttft.x.push_back(record.request.arrival_s);
        ttft.y.push_back(record.ttft());
        if (record.request.output_tokens > 1) {
            tpot.x.push_back(record.request.arrival_s);
            tpot.y.push_back(record.tpot());
        }
    }
    latency.series = {ttft, tpot};
    // Each target the run was held to, as a dashed line across the arrivals in its metric's colour.
    if (!ttft.x.empty()) {
        const double first = ttft.x.front();
        const double last = std::max(ttft.x.back(), first + 1e-9);
        const auto target_line = [&](const char* label, const std::optional<double>& target, const char* color) {
            if (!target) return;
            Series line = line_series(fmt::format("{} target ({})", label, core::format(core::Seconds(*target))), {first, last},
                                      {*target, *target}, color);
            line.dashed = true;
            latency.series.push_back(std::move(line));
        };
        target_line("TTFT", c.targets.ttft_s, "#1f77b4");
        target_line("TPOT", c.targets.tpot_s, "#ff7f0e");
        target_line("end-to-end", c.targets.e2e_s, "#7f7f7f");
    }
    Chart state;
    state.title = "Server state over time (all replicas)";
    state.x = {"time (s)", false, std::nullopt, std::nullopt};
    state.y = {"sequences, or % of KV capacity", false, 0.0, std::nullopt};
    Series waiting = line_series("waiting", {}, {}, "#d62728");
    Series running = line_series("running", {}, {}, "#2ca02c");
    Series kv = line_series("KV cache use (%)", {}, {}, "#9467bd");
    for (const auto& sample : r.timeline) {
        waiting.x.push_back(sample.time_s);
        waiting.y.push_back(static_cast<double>(sample.waiting));
        running.x.push_back(sample.time_s);
        running.y.push_back(static_cast<double>(sample.running));
        kv.x.push_back(sample.time_s);
        kv.y.push_back(100.0 * sample.kv_fraction);
    }
    state.series = {waiting, running, kv};
    const RenderedChart top = render_chart_sized(latency);
    const RenderedChart bottom = render_chart_sized(state);
    // Stack the two charts in one SVG document, each at the height it was drawn at (legend included).
    return fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{:.0f}\">\n<g>{}</g>\n<g transform=\"translate(0,{:.0f})\">{}</g>\n</svg>\n",
        latency.width, top.height + bottom.height, top.svg, top.height, bottom.svg);
}

}  // namespace decodesim::report
