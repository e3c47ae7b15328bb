#include "report/serving/plan_output.hpp"
#include "report/serving/scheduler_json.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <vector>

#include "core/units.hpp"
#include "report/predict_json.hpp"
#include "report/price_basis.hpp"
#include "report/serving/launch_command.hpp"
#include "core/text_escape.hpp"
#include "report/text_table.hpp"

namespace decodesim::report {

namespace {

// An option's latency at its planned load, from the steady state; "-" (JSON null) where the steady
// state found no fixed point there, rather than the zeros an unsolved state holds.
std::string steady_latency(const serving::PlanOption& option, double seconds) {
    return option.per_replica.stable ? core::format_seconds(seconds) : std::string("-");
}
nlohmann::json steady_value(const serving::PlanOption& option, double seconds) {
    return option.per_replica.stable ? nlohmann::json(seconds) : nlohmann::json(nullptr);
}

// The latency the table shows: the request-level simulation's where it verified the option (the
// figures that decided it, and the ones a benchmark of the deployment should reproduce), else the
// steady state's.
std::string decided_latency(const serving::PlanOption& option, double steady_s,
                            double serving::PlanVerification::*verified_s) {
    return option.verification ? core::format_seconds((*option.verification).*verified_s) : steady_latency(option, steady_s);
}

// A month as cloud bills count it: 730 hours.
constexpr double kHoursPerMonth = 730.0;

// "cost of ownership a month, 56 devices (bought, 3 years, 0.15 USD/kWh, PUE 1.58): ..."
std::string ownership_text(const serving::OwnershipCost& cost, const serving::OwnershipAssumptions& assumptions,
                           int devices) {
    const double month = kHoursPerMonth * devices;
    return fmt::format("cost of ownership a month, {} device{} bought and used {:g} years: devices {:.0f} USD, hosts {:.0f}, "
                       "network {:.0f}, energy {:.0f} ({:.0f} kWh at {:g} USD/kWh, PUE {:g}); total {:.0f} USD "
                       "(docs/serving.md, \"Total cost of ownership\")\n",
                       devices, devices == 1 ? "" : "s", assumptions.years, cost.device * month, cost.host * month,
                       cost.network * month, cost.energy * month, cost.wall_power_w * cost.pue / 1000.0 * month,
                       assumptions.usd_per_kwh, cost.pue, cost.total() * month);
}

// The best option over the day: a row a step of the curve, then the day against the peak all day.
std::string day_text(const serving::ScaledDay& day, const std::string& path, double lag_minutes) {
    std::string text = fmt::format("\nover the day ({}; a replica takes {:g} min to start, paid before it serves):\n",
                                   core::printable(path), lag_minutes);
    TextTable table({"hours", "requests/s", "replicas", "devices", "device-hours", "USD"});
    for (const auto& step : day.steps) {
        table.add_row({fmt::format("{:g}-{:g}", step.start_hour, step.end_hour), core::format_significant(step.rate_per_s),
                       fmt::format("{}", step.replicas), fmt::format("{}", step.devices),
                       core::format_significant(step.device_hours),
                       step.cost_usd ? fmt::format("{:.2f}", *step.cost_usd) : std::string("-")});
    }
    text += table.render();
    text += fmt::format("a day: {} device-hours{}; the peak's {} replica{} all day: {} device-hours{}\n",
                        core::format_significant(day.device_hours),
                        day.cost_usd ? fmt::format(", {:.2f} USD", *day.cost_usd) : std::string(), day.peak_replicas,
                        day.peak_replicas == 1 ? "" : "s", core::format_significant(day.peak_device_hours),
                        day.peak_cost_usd ? fmt::format(", {:.2f} USD", *day.peak_cost_usd) : std::string());
    return text;
}

nlohmann::json day_json(const serving::ScaledDay& day, const std::string& path, double lag_minutes) {
    auto optional = [](const std::optional<double>& value) { return value ? nlohmann::json(*value) : nlohmann::json(nullptr); };
    nlohmann::json steps = nlohmann::json::array();
    for (const auto& step : day.steps) {
        steps.push_back({{"start_hour", step.start_hour},
                         {"end_hour", step.end_hour},
                         {"rate_per_s", step.rate_per_s},
                         {"replicas", step.replicas},
                         {"devices", step.devices},
                         {"device_hours", step.device_hours},
                         {"cost_usd", optional(step.cost_usd)}});
    }
    return {{"file", core::printable(path)},
            {"scale_up_lag_minutes", lag_minutes},
            {"steps", steps},
            {"device_hours", day.device_hours},
            {"cost_usd", optional(day.cost_usd)},
            {"peak_replicas", day.peak_replicas},
            {"peak_device_hours", day.peak_device_hours},
            {"peak_cost_usd", optional(day.peak_cost_usd)}};
}

nlohmann::json ownership_json(const serving::OwnershipCost& cost, const serving::OwnershipAssumptions& assumptions,
                              int devices) {
    const double month = kHoursPerMonth * devices;
    return {{"years", assumptions.years},
            {"usd_per_kwh", assumptions.usd_per_kwh},
            {"pue", cost.pue},
            {"wall_power_w_per_device", cost.wall_power_w},
            {"per_month_usd",
             {{"devices", cost.device * month},
              {"hosts", cost.host * month},
              {"network", cost.network * month},
              {"energy", cost.energy * month},
              {"total", cost.total() * month}}},
            {"energy_kwh_per_month", cost.wall_power_w * cost.pue / 1000.0 * month}};
}


// A shell command on lines a terminal keeps whole: broken before a flag ("--...") wherever the
// line would pass 90 columns, each break a backslash continuation, so it pastes as it reads.
std::string shell_lines(const std::string& command) {
    constexpr std::size_t kWidth = 90;
    std::string text, line;
    std::size_t start = 0;
    while (start < command.size()) {
        // The next flag and its value: up to the space before the following "--".
        std::size_t next = command.find(" --", start + 1);
        if (next == std::string::npos) next = command.size();
        const std::string piece = command.substr(start, next - start);
        if (!line.empty() && line.size() + piece.size() > kWidth) {
            text += line + " \\\n";
            line = "    " + piece.substr(piece.find_first_not_of(' '));
        } else {
            line += piece;
        }
        start = next;
    }
    return text + line;
}

// What the check's load generator, random prompts of the mean lengths sent Poisson or all at once
// with no client thinking, leaves out of the plan's load. Its closed loop of fixed lengths keeps
// the clients in step, which varying lengths do not (docs/serving.md, "Closed loop").
std::vector<std::string> unreplayed_load(const PlanConditions& c) {
    std::vector<std::string> left_out;
    if (c.trace) {
        left_out.push_back("a recorded trace, sent at its mean rate and lengths");
        return left_out;
    }
    if (c.lengths) {
        const workload::ResolvedWorkload& drawn = *c.lengths;
        if (drawn.prompt.kind != workload::LengthDistribution::Kind::fixed ||
            drawn.output.kind != workload::LengthDistribution::Kind::fixed) {
            left_out.push_back(fmt::format("lengths drawn as prompt {}, output {}, sent at their means",
                                           workload::describe(drawn.prompt), workload::describe(drawn.output)));
        }
    }
    if (c.conversations) {
        left_out.push_back("conversations whose turns find the turn before in the prefix cache, sent as unrelated prompts");
    } else if (c.users && c.think_time_s > 0.0) {
        left_out.push_back(fmt::format("users thinking {} between requests, sent without: more requests in flight",
                                       core::format_seconds(c.think_time_s)));
    }
    return left_out;
}

PlannedLoad planned_load(const PlanConditions& c) {
    PlannedLoad load{c.prompt_tokens, c.output_tokens, c.rate_per_s, c.users, unreplayed_load(c), std::nullopt};
    if (c.rate_per_s && !c.trace && c.lengths && c.lengths->arrivals == workload::Arrivals::Kind::gamma) {
        load.burstiness = c.lengths->burstiness;
    }
    return load;
}

// One format per column: four significant digits, or "-" where the profile names no price or power.
std::string figure(const std::optional<double>& value) {
    return value ? core::format_significant(*value) : std::string("-");
}

std::string device_range(const serving::PlanOption& option) {
    const int low = option.devices_low, high = option.devices_high;
    if (low == option.devices && high == option.devices) return std::to_string(option.devices);
    return fmt::format("{} ({}-{})", option.devices, low > 0 ? std::to_string(low) : "?",
                       high > 0 ? std::to_string(high) : "none");
}

// How one instance is spread and how many there are: "tp4 pp2 x 7" (tensor parallel 4, two
// pipeline stages, seven replicas), "tp8 ep8 x 1", "tp1 x 3", or "tp4 x (1P+2D)" for disaggregated
// prefill and decode pools.
std::string layout(const serving::PlanOption& option) {
    const engine::Parallelism& p = option.deployment.parallelism;
    std::string spread = fmt::format("tp{}", p.tensor);
    if (p.attention_data > 1) spread += fmt::format(" dp{}", p.attention_data);
    if (p.expert > 1) spread += fmt::format(" ep{}", p.expert);
    if (p.pipeline > 1) spread += fmt::format(" pp{}", p.pipeline);
    if (!option.disaggregated) return fmt::format("{} x {}", spread, option.replicas);
    const serving::DisaggregatedPlan& pools = *option.disaggregated;
    // Prefill on another device: "tp2 x (2P h200-sxm+3D)".
    return fmt::format("{} x ({}P{}+{}D)", spread, pools.pools.prefill_instances,
                       pools.prefill_hardware.empty() ? "" : " " + pools.prefill_hardware, pools.pools.decode_instances);
}

// What a buyer should know about the rows that are not datacenter parts, one line a segment.
std::string segment_caveats(const serving::Plan& plan) {
    using profiles::DeviceSegment;
    struct Caveat {
        DeviceSegment segment;
        const char* label;
        const char* text;
    };
    const std::array<Caveat, 3> caveats{{
        {DeviceSegment::consumer, "consumer boards",
         "most lack ECC memory; NVIDIA's GeForce driver licence excludes datacenter deployment; a host holds few of "
         "them"},
        {DeviceSegment::workstation, "workstation parts",
         "sold for desks, not as rack servers by most clouds; the boards a host holds and their cooling vary by model"},
        {DeviceSegment::edge, "edge modules", "one module a host, no scale-up link"},
    }};
    std::string text;
    for (const Caveat& caveat : caveats) {
        std::vector<std::string> ids;
        for (const auto& option : plan.options) {
            if (option.segment == caveat.segment) ids.push_back(option.hardware);
        }
        if (!ids.empty()) text += fmt::format("{} ({}): {}\n", caveat.label, fmt::join(ids, ", "), caveat.text);
    }
    return text;
}

}  // namespace

std::string plan_to_text(const PlanConditions& c, const serving::Plan& plan) {
    std::string text = fmt::format("{}: {}\n", c.model, c.workload);
    std::string targets;
    if (c.targets.ttft_s) {
        targets += fmt::format("TTFT p99 <= {}{}", core::format_seconds(*c.targets.ttft_s),
                               c.default_ttft ? " (the default bound on queues: no TTFT or end-to-end target was given)" : "");
    }
    if (c.targets.tpot_s) {
        targets += fmt::format("{}TPOT p99 <= {}", targets.empty() ? "" : ", ", core::format_seconds(*c.targets.tpot_s));
    }
    if (c.targets.e2e_s) {
        targets += fmt::format("{}last token p99 <= {}", targets.empty() ? "" : ", ", core::format_seconds(*c.targets.e2e_s));
    }
    if (c.scenario) text += fmt::format("  scenario  {}: {}\n", c.scenario->name, c.scenario->purpose);
    text += fmt::format("  targets   {}; runtime {}{}{}; clocks {}; ranked by {}; disaggregation {}\n",
                        targets.empty() ? "none" : targets, c.runtime, c.in_process ? " (client in process)" : "",
                        c.cuda_graphs_off ? " (CUDA graphs off)" : "", c.clocks, c.order, c.disaggregation);
    if (!c.candidates.empty()) {
        text += fmt::format("  devices   {} (--segments all adds workstation, consumer and edge boards; --hardware "
                            "names any)\n", c.candidates);
    }
    if (!c.given_prices.empty()) {
        std::vector<std::string> given;
        for (const auto& [id, price] : c.given_prices) given.push_back(fmt::format("{} {:g}", id, price));
        text += fmt::format("  prices    USD per device-hour given (--price, --prices), in place of the profiles': {}\n",
                            fmt::join(given, ", "));
    }
    text += "\n";
    TextTable table({"hardware", "devices (band)", "layout x replicas", "weights/kv", "$/hour", "$/M out", "J/out token",
                     "binding", "max rate", "TTFT p99", "TPOT p99", "last token p99", "serve on target"});
    for (const auto& option : plan.options) {
        const auto& d = option.deployment;
        table.add_row({option.hardware, device_range(option),
                       layout(option),
                       fmt::format("{}/{}", d.weights->name, d.kv->name),
                       option.cost_per_hour ? figure(option.cost_per_hour) + price_mark(option.price_basis) : figure(option.cost_per_hour),
                       figure(option.cost_per_million_output_tokens), figure(option.joules_per_output_token),
                       option.binding, core::format_significant(option.max_rate_at_targets_per_s) + "/s",
                       decided_latency(option, option.per_replica.ttft_s.p99, &serving::PlanVerification::ttft_p99_s),
                       decided_latency(option, option.per_replica.tpot_s.p99, &serving::PlanVerification::tpot_p99_s),
                       decided_latency(option, option.per_replica.e2e_s.p99, &serving::PlanVerification::e2e_p99_s),
                       option.verification ? core::format_percent(option.verification->met_share) : std::string("-")});
    }
    text += table.render();
    const std::string note = price_marks_note("$/hour", plan.options, [](const serving::PlanOption& option) {
        return option.cost_per_hour ? std::optional(option.price_basis) : std::nullopt;
    });
    if (!note.empty()) {
        text += note.substr(0, note.size() - 1) + " (--basis cloud or purchase prices one basis only)\n";
    }
    if (!plan.options.empty() && plan.options.front().verification) {
        const serving::PlanVerification& v = *plan.options.front().verification;
        text += fmt::format("serve on target: the share of {} requests (seed {}) within the targets when the request-level "
                            "simulation runs each option at its planned load\n",
                            v.requests, v.seed);
    }
    text += segment_caveats(plan);
    if (!plan.options.empty()) {
        const auto& best = plan.options.front();
        // Pools on two kinds of device: each device's count.
        const std::string devices =
            best.disaggregated && !best.disaggregated->prefill_hardware.empty()
                ? fmt::format("{} x {} decoding and {} x {} prefilling",
                              best.disaggregated->pools.decode_instances * best.deployment.parallelism.devices(),
                              best.hardware,
                              best.disaggregated->pools.prefill_instances * best.deployment.parallelism.devices(),
                              best.disaggregated->prefill_hardware)
                : fmt::format("{} x {}", best.devices, best.hardware);
        text += fmt::format("\nbest: {} ({} {}{}, {} each, {} weights{}){}\n", devices,
                            best.replicas, best.disaggregated ? "instance" : "replica", best.replicas == 1 ? "" : "s",
                            best.deployment.parallelism.any() ? report::parallelism_text(best.deployment.parallelism)
                                                              : std::string("one device"),
                            best.deployment.weights->name,
                            best.deployment.api_servers > 1
                                ? fmt::format(", {} API server processes each", best.deployment.api_servers)
                                : std::string(),
                            best.cost_per_hour ? fmt::format(", {:.2f} USD/hour", *best.cost_per_hour) : "");
        if (const auto owned = c.ownership.find(best.hardware); owned != c.ownership.end()) {
            text += ownership_text(owned->second, c.ownership_assumptions, best.devices);
        }
        text += fmt::format("scheduler per replica: {}\n", serving::describe_scheduler(best.limits));
        if (const auto launch = launch_command(best, c.model_repo, planned_load(c))) {
            if (launch->serve_decode) {
                text += fmt::format("launch, prefill instances:\n  {}\nlaunch, decode instances:\n  {}\n",
                                    shell_lines(launch->serve), shell_lines(*launch->serve_decode));
                if (launch->router) text += fmt::format("route:\n  {}\n", shell_lines(*launch->router));
            } else {
                text += fmt::format("launch:\n  {}\n", shell_lines(launch->serve));
            }
            text += fmt::format("check it:\n  {}\n", shell_lines(launch->verify));
            for (const auto& note : launch->notes) text += fmt::format("  ({})\n", note);
        }
        if (best.verification) {
            const serving::PlanVerification& v = *best.verification;
            text += fmt::format("verified by serve: {:.1f}% of {} requests on target (TTFT p99 {}, TPOT p99 {}, last token "
                                "p99 {}){}\n",
                                v.met_share * 100.0, v.requests, core::format_seconds(v.ttft_p99_s),
                                core::format_seconds(v.tpot_p99_s), core::format_seconds(v.e2e_p99_s),
                                v.replicas > v.steady_state_replicas
                                    ? fmt::format("; the steady state alone asked for {} replica{}", v.steady_state_replicas,
                                                  v.steady_state_replicas == 1 ? "" : "s")
                                    : std::string());
        }
        if (best.disaggregated) {
            const auto& pools = *best.disaggregated;
            text.pop_back();
            text += fmt::format(" - disaggregated: {} prefill{} and {} decode instance{}, the KV cache of a prompt sent in {} "
                                "over {}\n",
                                pools.pools.prefill_instances,
                                pools.prefill_hardware.empty() ? "" : " instances on " + pools.prefill_hardware,
                                pools.pools.decode_instances,
                                pools.pools.decode_instances == 1 ? "" : "s", core::format_seconds(pools.kv_transfer_s),
                                pools.link);
        }
    }
    if (c.day) text += day_text(*c.day, c.load_curve, c.scale_up_lag_minutes);
    if (c.max_output_tokens) {
        text += fmt::format("output cap: {:.0f} tokens brings the mean output from {:.0f} to {:.0f} tokens", *c.max_output_tokens,
                            c.uncapped_output_tokens, c.output_tokens);
        if (c.best_uncapped && !plan.options.empty()) {
            const auto& best = plan.options.front();
            const auto& without = *c.best_uncapped;
            text += fmt::format("; without it the best plan is {} x {}{}", without.devices, without.hardware,
                                without.cost_per_hour ? fmt::format(" at {:.2f} USD/hour", *without.cost_per_hour) : "");
            if (best.cost_per_hour && without.cost_per_hour && *without.cost_per_hour > 0.0) {
                text += fmt::format(" (the cap saves {:.0f}% of the cost", 100.0 * (1.0 - *best.cost_per_hour / *without.cost_per_hour));
                if (best.hardware == without.hardware && best.devices == without.devices) {
                    text += fmt::format("; the same devices sustain {:.3g}/s instead of {:.3g}/s within the targets",
                                        best.max_rate_at_targets_per_s, without.max_rate_at_targets_per_s);
                }
                text += ")";
            }
        }
        text += "\n";
    }
    text += "(devices: at the nominal efficiency, in brackets at the fast and slow ends of the efficiency band measured "
            "for the device's class and runtime (docs/model.md, \"Uncertainty band\"); 'none': at the slow end no replica "
            "count meets the targets ('?': at the fast end); layout: tp tensor-parallel, ep expert-parallel, pp pipeline stages, dp attention "
            "data-parallel, per instance, x replicas, or x (xP+yD): x prefill and y decode instances, disaggregated; max "
            "rate: the rate the devices sustain within the targets, by the steady-state model; latency: the p99s at the "
            "requested rate in the request-level simulation that verified the option (by the steady-state model where "
            "none ran, --verify-requests 0); last token: TTFT plus the decode steps of the request's output)\n";
    if (!plan.rejected.empty()) {
        text += "\ncannot serve it:\n";
        for (const auto& rejection : plan.rejected) text += fmt::format("  {}: {}\n", rejection.hardware, rejection.reason);
    }
    return text;
}

std::string launch_script(const PlanConditions& c, const serving::Plan& plan, const std::string& orchestrator) {
    if (plan.options.empty()) return {};
    const serving::PlanOption& best = plan.options.front();
    const auto launch = launch_command(best, c.model_repo, planned_load(c), orchestrator);
    if (!launch) return {};
    std::string script = "#!/bin/sh\n";
    script += fmt::format("# decodesim plan: {}, {}\n", core::printable(c.model), c.workload);
    script += fmt::format("# the deployment: {} on {}, {}; runtime {}\n", layout(best), best.hardware,
                          best.deployment.weights->name, c.runtime);
    if (best.verification) {
        const serving::PlanVerification& v = *best.verification;
        script += fmt::format("# what the check should reproduce (serve, {} requests, seed {}): TTFT p99 {}, TPOT p99 {}, "
                              "last token p99 {}, {:.1f}% of requests on target\n",
                              v.requests, v.seed, core::format_seconds(v.ttft_p99_s), core::format_seconds(v.tpot_p99_s),
                              core::format_seconds(v.e2e_p99_s), v.met_share * 100.0);
    }
    for (const auto& note : launch->notes) script += fmt::format("# {}\n", note);
    // A framework deployed from a file: the file, then what deploys it.
    if (launch->manifest) {
        script += fmt::format("\n# the deployment, as {}\ncat > {} <<'EOF'\n{}", launch->manifest_file,
                              launch->manifest_file, *launch->manifest);
        if (!launch->manifest->ends_with('\n')) script += '\n';
        script += fmt::format("EOF\n\n# deploy it\n{}\n", launch->install);
        if (launch->router) script += fmt::format("\n# route\n# {}\n", *launch->router);
        script += fmt::format("\n# check it, from a client, once the server is up\n{}\n", shell_lines(launch->verify));
        return script;
    }
    // An orchestrator's front end is a command of its own, started once before the workers.
    if (!orchestrator.empty() && launch->router) {
        script += fmt::format("\n# the front end, once\n{}\n", shell_lines(*launch->router));
    }
    if (launch->serve_decode) {
        script += fmt::format("\n# each prefill instance\n{}\n", shell_lines(launch->serve));
        script += fmt::format("\n# each decode instance\n{}\n", shell_lines(*launch->serve_decode));
        if (launch->router && orchestrator.empty()) script += fmt::format("\n# route\n# {}\n", *launch->router);
    } else {
        script += fmt::format("\n# each instance\n{}\n", shell_lines(launch->serve));
    }
    script += fmt::format("\n# check it, from a client, once the server is up\n{}\n", shell_lines(launch->verify));
    return script;
}

nlohmann::json plan_to_json(const PlanConditions& c, const serving::Plan& plan) {
    nlohmann::json document;
    document["schema_version"] = kSchemaVersion;
    document["model"] = c.model;
    nlohmann::json conditions = {{"prompt_tokens", c.prompt_tokens}, {"output_tokens", c.output_tokens},
                                 {"runtime", c.runtime}, {"clocks", c.clocks}, {"order", c.order},
                                 {"disaggregation", c.disaggregation}};
    if (c.in_process) conditions["client"] = "in_process";  // --in-process: no request path
    if (c.cuda_graphs_off) conditions["cuda_graphs"] = "off";
    if (!c.given_prices.empty()) conditions["given_prices_usd_per_device_hour"] = c.given_prices;
    if (!c.candidates.empty()) conditions["candidates"] = c.candidates;
    if (c.scenario) conditions["scenario"] = scenario_to_json(*c.scenario);
    if (c.targets.e2e_s) conditions["e2e_p99_s"] = *c.targets.e2e_s;
    if (c.max_output_tokens) {
        conditions["max_output_tokens"] = *c.max_output_tokens;
        conditions["uncapped_output_tokens"] = c.uncapped_output_tokens;
    }
    if (c.rate_per_s) conditions["rate_per_s"] = *c.rate_per_s;
    if (c.conversations) {
        conditions["conversations"] = {{"turns", workload::describe(c.conversations->turns)},
                                       {"follow_up_tokens", workload::describe(c.conversations->follow_up)},
                                       {"think_time_s", c.conversations->think_time_s},
                                       {"cached_prompt_tokens", c.cached_prompt_tokens}};
    }
    if (c.users) {
        conditions["users"] = *c.users;
        conditions["think_time_s"] = c.think_time_s;
    }
    if (c.targets.ttft_s) conditions["ttft_p99_s"] = *c.targets.ttft_s;
    conditions["ttft_p99_is_default"] = c.default_ttft;
    if (c.targets.tpot_s) conditions["tpot_p99_s"] = *c.targets.tpot_s;
    document["conditions"] = conditions;
    if (c.day) document["load_curve"] = day_json(*c.day, c.load_curve, c.scale_up_lag_minutes);
    auto optional = [](const std::optional<double>& value) { return value ? nlohmann::json(*value) : nlohmann::json(nullptr); };
    nlohmann::json options = nlohmann::json::array();
    for (std::size_t i = 0; i < plan.options.size(); ++i) {
        const auto& option = plan.options[i];
        const auto& d = option.deployment;
        options.push_back({{"hardware", option.hardware},
                           {"segment", core::name_of(profiles::kDeviceSegmentNames, option.segment)},
                           {"devices", option.devices},
                           {"devices_band", {{"low", option.devices_low}, {"high", option.devices_high}}},
                           {"tp", d.parallelism.tensor},
                           {"pp", d.parallelism.pipeline},
                           {"ep", d.parallelism.expert},
                           {"dp_attention", d.parallelism.attention_data},
                           {"devices_per_instance", d.parallelism.devices()},
                           {"replicas", option.replicas},
                           {"api_servers", d.api_servers},
                           {"weights", std::string(d.weights->name)},
                           {"kv", std::string(d.kv->name)},
                           {"activation", std::string(core::datatype_name(d.activation))},
                           {"runtime", std::string(engine::runtime_label(d))},
                           {"clocks", engine::clock_label(d.clocks)},
                           {"scheduler", scheduler_json(option.limits)},
                           {"cost_per_hour", optional(option.cost_per_hour)},
                           {"price_basis", option.cost_per_hour ? nlohmann::json(core::name_of(profiles::kPriceBasisNames,
                                                                                                option.price_basis))
                                                                : nlohmann::json(nullptr)},
                           {"cost_per_million_output_tokens", optional(option.cost_per_million_output_tokens)},
                           {"joules_per_output_token", optional(option.joules_per_output_token)},
                           {"binding", option.binding},
                           {"rate_per_s", option.rate_per_s},
                           {"max_rate_at_targets", option.max_rate_at_targets_per_s},
                           {"ttft_p99_s", steady_value(option, option.per_replica.ttft_s.p99)},
                           {"tpot_p99_s", steady_value(option, option.per_replica.tpot_s.p99)},
                           {"e2e_p99_s", steady_value(option, option.per_replica.e2e_s.p99)},
                           {"batch_per_replica", option.per_replica.batch},
                           {"disaggregated", option.disaggregated.has_value()},
                           {"best", i == 0}});
        if (const auto owned = c.ownership.find(option.hardware); owned != c.ownership.end()) {
            options.back()["ownership"] = ownership_json(owned->second, c.ownership_assumptions, option.devices);
        }
        if (option.verification) {
            const serving::PlanVerification& v = *option.verification;
            options.back()["verified_by_serve"] = {{"requests", v.requests},
                                                   {"seed", v.seed},
                                                   {"replicas", v.replicas},
                                                   {"steady_state_replicas", v.steady_state_replicas},
                                                   {"share_on_target", v.met_share},
                                                   {"ttft_p99_s", v.ttft_p99_s},
                                                   {"tpot_p99_s", v.tpot_p99_s},
                                                   {"e2e_p99_s", v.e2e_p99_s}};
        } else {
            options.back()["verified_by_serve"] = nullptr;
        }
        // The commands that run this option and replay its load (null for a runtime without one).
        if (const auto launch = launch_command(option, c.model_repo, planned_load(c))) {
            options.back()["launch"] = {{"serve", launch->serve}, {"verify", launch->verify}, {"notes", launch->notes}};
            options.back()["launch"]["serve_decode"] =
                launch->serve_decode ? nlohmann::json(*launch->serve_decode) : nlohmann::json(nullptr);
            options.back()["launch"]["router"] = launch->router ? nlohmann::json(*launch->router) : nlohmann::json(nullptr);
        } else {
            options.back()["launch"] = nullptr;
        }
        if (option.disaggregated) {
            const auto& pools = *option.disaggregated;
            options.back()["prefill_instances"] = pools.pools.prefill_instances;
            options.back()["decode_instances"] = pools.pools.decode_instances;
            options.back()["kv_transfer_s"] = pools.kv_transfer_s;
            options.back()["prefill_utilization"] = pools.prefill_utilization;
            options.back()["decode_utilization"] = pools.decode_utilization;
            options.back()["kv_link"] = pools.link;
            if (!pools.prefill_hardware.empty()) options.back()["prefill_hardware"] = pools.prefill_hardware;
        }
    }
    document["options"] = std::move(options);
    if (c.best_uncapped) {
        document["best_without_output_cap"] = {{"hardware", c.best_uncapped->hardware},
                                               {"devices", c.best_uncapped->devices},
                                               {"cost_per_hour", optional(c.best_uncapped->cost_per_hour)}};
    }
    nlohmann::json rejected = nlohmann::json::array();
    for (const auto& rejection : plan.rejected) rejected.push_back({{"hardware", rejection.hardware}, {"reason", rejection.reason}});
    document["rejected"] = std::move(rejected);
    return document;
}

}  // namespace decodesim::report
