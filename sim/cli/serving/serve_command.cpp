// `decodesim serve`: a request-level simulation of replicas under a request stream.

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <memory>
#include <optional>
#include <string>

#include "cli/usage_checks.hpp"
#include "cli/command.hpp"
#include "cli/price_option.hpp"
#include "cli/flag_use.hpp"
#include "cli/progress_bar.hpp"
#include "report/text_wrap.hpp"
#include "report/json_units.hpp"
#include "cli/output_file.hpp"
#include "cli/point_options.hpp"
#include "cli/serving/stream_options.hpp"
#include "core/error.hpp"
#include "core/units.hpp"
#include "core/text_escape.hpp"
#include "profiles/trace.hpp"
#include "report/serving/serve_output.hpp"
#include "serving/served_stream.hpp"
#include "serving/simulation.hpp"
#include "serving/steady_state.hpp"
#include "core/registry.hpp"

namespace decodesim::cli {

namespace {

struct ServeOptions {
    DeploymentOptions deployment;
    std::string prices;  // --price: "id=usd"
    std::string price_file;  // --prices FILE
    int replicas = 1;
    std::optional<std::string> add_replicas;  // a mixed fleet: "ID:N[:TP],..." beside the --replicas
    std::optional<std::string> disaggregate;  // "2P3D": prefill and decode pools instead of replicas
    std::optional<std::string> prefill_hardware;  // the prefill pool's device, with --disaggregate
    std::optional<int> prefill_tp;                // and its tensor parallelism (unset: --tp)
    double rate = 1.0;
    std::optional<long long> concurrency;  // a closed loop of this many clients instead of --rate
    std::optional<double> think_time;      // closed loop: unset, the scenario's, else 0
    // Unset: the --scenario's, else poisson, 1, 1000 and 200 (explicit flags override a scenario).
    std::optional<std::string> arrivals;
    std::optional<double> burstiness;
    std::optional<std::string> prompt;
    std::optional<std::string> output;
    std::optional<std::string> scenario;
    std::optional<long long> max_output;
    // Unset: 1000, 1, no shared prefix, one group (unset so that flags beside a trace are seen).
    std::optional<long long> requests;
    std::optional<long long> seed;
    std::string trace;
    std::optional<double> prefix_fraction;
    std::optional<long long> prefix_tokens;
    std::optional<long long> prefix_groups;
    std::optional<std::string> turns;      // conversations: turns each (a length distribution)
    std::optional<std::string> follow_up;  // and the tokens each later turn adds
    long long warm_prefix = 0;             // every prompt's first this many tokens cached at the start
    long long warm_up = 0;                 // the first this many prompts cached whole (a client's warm-up)
    SchedulerOptions scheduler;
    std::optional<double> ttft_slo;
    std::optional<double> tpot_slo;
    std::optional<double> e2e_slo;
    bool json = false;
    std::string requests_csv;
    std::string svg_path;
};

// Flags that would change nothing on this command line (cli/flag_use.hpp).
void refuse_serve_flags_without_effect(const ServeOptions& options, const workload::WorkloadScenario* scenario) {
    const bool replay = !options.trace.empty();
    constexpr std::string_view kGenerated = "on a generated stream; --trace gives its own lengths, arrivals and prefixes";
    const bool gamma = options.arrivals ? *options.arrivals == "gamma"
                                        : scenario != nullptr && scenario->arrivals == workload::Arrivals::Kind::gamma;
    const bool prefix = options.prefix_fraction.value_or(0.0) > 0.0 && options.prefix_tokens.value_or(0) > 0;
    refuse_flags_without_effect({
        {"--prompt", options.prompt.has_value(), !replay, kGenerated},
        {"--output", options.output.has_value(), !replay, kGenerated},
        {"--requests", options.requests.has_value(), !replay, "on a generated stream; a trace's requests are its rows"},
        {"--price", !options.prices.empty(), options.max_output.has_value(),
         "with --max-output (serve prices only what the cap saves)"},
        {"--prices", !options.price_file.empty(), options.max_output.has_value(),
         "with --max-output (serve prices only what the cap saves)"},
        {"--arrivals", options.arrivals.has_value(), !replay, kGenerated},
        {"--burstiness", options.burstiness.has_value(), !replay && gamma,
         "with gamma arrivals (--arrivals gamma, or a scenario whose arrivals are gamma) on a generated stream"},
        {"--prefix-fraction", options.prefix_fraction.has_value(), !replay && options.prefix_tokens.value_or(0) > 0,
         "with --prefix-tokens above 0 on a generated stream (a trace names its prefixes in its rows)"},
        {"--prefix-tokens", options.prefix_tokens.has_value(), !replay && options.prefix_fraction.value_or(0.0) > 0.0,
         "with --prefix-fraction above 0 on a generated stream (a trace names its prefixes in its rows)"},
        {"--prefix-groups", options.prefix_groups.has_value(), !replay && prefix,
         "with --prefix-fraction and --prefix-tokens above 0 on a generated stream"},
        {"--think-time", options.think_time.has_value(), options.concurrency.has_value() || (!replay && options.turns),
         "with --concurrency (between a client's requests) or --turns (between a conversation's turns)"},
        {"--follow-up", options.follow_up.has_value(), !replay && options.turns.has_value(),
         "with --turns on a generated stream"},
        {"--seed", options.seed.has_value(), !replay || options.deployment.draft.has_value(),
         "on a generated stream, or with --draft (a trace's draws are its rows; speculation draws its accepted tokens)"},
    });
}

int run_serve(const ServeOptions& options, const profiles::Catalog& catalog, Io io) {
    // Flags first (cheap), then the profiles.
    const std::optional<serving::PoolShape> pools =
        options.disaggregate ? std::optional(parse_pool_shape(*options.disaggregate, "--disaggregate")) : std::nullopt;
    const workload::WorkloadScenario* scenario =
        options.scenario ? &workload::workload_scenario_named(*options.scenario) : nullptr;
    if (pools && options.max_output) {
        throw core::UsageError("--max-output reports its saving for colocated replicas; it cannot be combined with --disaggregate");
    }
    const std::vector<AddedReplicas> added =
        options.add_replicas ? parse_added_replicas(*options.add_replicas, "--add-replicas") : std::vector<AddedReplicas>{};
    if (!added.empty() && (options.max_output || options.deployment.draft)) {
        throw core::UsageError("--add-replicas simulates a mixed fleet of colocated replicas; it cannot be combined with "
                               "--max-output or --draft");
    }
    if ((options.warm_prefix > 0 || options.warm_up > 0) &&
        (pools || options.replicas > 1 || !added.empty() || options.turns || options.prefix_fraction.value_or(0.0) > 0.0)) {
        throw core::UsageError("--warm-prefix and --warm-up put a stream's own prompts in one colocated replica's cache; "
                               "they cannot be combined with --replicas above 1, --add-replicas, --disaggregate, --turns "
                               "or --prefix-fraction");
    }
    if (options.concurrency && (pools || options.max_output)) {
        throw core::UsageError("--concurrency runs a closed loop of colocated replicas; it cannot be combined with "
                               "--disaggregate or --max-output");
    }
    if (options.turns && (pools || options.max_output)) {
        throw core::UsageError("--turns runs conversations on colocated replicas; it cannot be combined with --disaggregate "
                               "or --max-output");
    }
    if (!options.trace.empty() && (scenario || options.max_output)) {
        throw core::UsageError("--trace replays its own lengths and arrivals; it cannot be combined with --scenario or --max-output");
    }
    refuse_serve_flags_without_effect(options, scenario);
    const unsigned long long seed = static_cast<unsigned long long>(options.seed.value_or(1));
    serving::ServedStream stream;
    std::optional<serving::ClosedLoop> closed_loop;
    if (!options.trace.empty()) {
        stream = traced_stream(options.trace, io);
        if (options.concurrency) {
            // The trace's lengths, in its order, sent by the clients as they free up.
            closed_loop = serving::ClosedLoop{*options.concurrency, options.think_time.value_or(0.0)};
            stream.arrivals = serving::describe_closed_loop(*closed_loop) + fmt::format(" (trace {} lengths)", options.trace);
        }
    } else {
        workload::WorkloadChoice choice;
        choice.scenario = scenario;
        if (options.prompt) choice.prompt = parse_length(*options.prompt, "--prompt");
        if (options.output) choice.output = parse_length(*options.output, "--output");
        choice.max_output = options.max_output;
        if (options.arrivals) {
            choice.arrivals =
                core::named_or_throw(workload::Arrivals::kKindNames, *options.arrivals, "--arrivals", "arrival process").value;
        }
        choice.burstiness = options.burstiness;
        choice.think_time_s = options.think_time;
        const profiles::ModelProfile model = catalog.model(options.deployment.model);
        const workload::ResolvedWorkload resolved = workload::resolve_workload(choice, model.max_position_embeddings);
        warn_beyond_context(io, model, resolved.asked_context_mean);
        workload::StreamSpec spec;
        spec.arrivals.rate_per_s = options.rate;
        spec.requests = options.requests.value_or(1000);
        spec.seed = seed;
        spec.prefix_fraction = options.prefix_fraction.value_or(0.0);
        spec.prefix_tokens = options.prefix_tokens.value_or(0);
        spec.prefix_groups = options.prefix_groups.value_or(1);
        spec.conversations = parse_conversations(options.turns, options.follow_up, resolved.think_time_s);
        refuse_prefix_beyond_prompt(spec.prefix_tokens, spec.prefix_fraction, resolved.prompt);
        stream = serving::generated_stream(resolved, spec, options.max_output);
        warn_prefix_beyond_prompt(io, spec.prefix_tokens, stream.requests);
        if (options.concurrency) {
            closed_loop = serving::ClosedLoop{*options.concurrency, resolved.think_time_s};
            stream.arrivals = serving::describe_closed_loop(*closed_loop);
        }
    }
    const std::vector<workload::Request>& requests = stream.requests;
    const serving::LoadShape& load = stream.load;
    const engine::OperatingPoint point =
        resolve_point(catalog, options.deployment, engine::Workload::request(1.0, load.prompt_tokens, load.output_tokens), io);
    const engine::Evaluator evaluator(point);
    // The prefill pool on another device: the same deployment there, at its own tensor parallelism.
    std::optional<engine::OperatingPoint> prefill_point;
    std::optional<engine::Evaluator> prefill_evaluator;
    if (options.prefill_hardware) {
        DeploymentOptions prefill_options = options.deployment;
        prefill_options.hardware = *options.prefill_hardware;
        prefill_options.tensor_parallel = options.prefill_tp.value_or(options.deployment.tensor_parallel);
        prefill_point = resolve_point(catalog, prefill_options,
                                      engine::Workload::request(1.0, load.prompt_tokens, load.output_tokens), io);
        prefill_evaluator.emplace(*prefill_point);
    }

    // A mixed fleet: each group's deployment on its own device, resolved as the first is.
    std::deque<engine::OperatingPoint> added_points;
    std::deque<engine::Evaluator> added_evaluators;
    std::vector<report::FleetGroup> fleet;
    if (!added.empty()) fleet.push_back({point.hardware.id, point.deployment.parallelism, options.replicas});
    for (const AddedReplicas& group : added) {
        DeploymentOptions group_options = options.deployment;
        group_options.hardware = group.hardware;
        group_options.tensor_parallel = group.tensor_parallel.value_or(options.deployment.tensor_parallel);
        added_points.push_back(resolve_point(catalog, group_options,
                                             engine::Workload::request(1.0, load.prompt_tokens, load.output_tokens), io));
        added_evaluators.emplace_back(added_points.back());
        fleet.push_back({added_points.back().hardware.id, added_points.back().deployment.parallelism, group.replicas});
    }

    serving::ServeConfig config;
    config.replicas = options.replicas;
    for (std::size_t g = 0; g < added.size(); ++g) {
        for (int r = 0; r < added[g].replicas; ++r) config.added_replicas.push_back(&added_evaluators[g]);
    }
    ProgressBar progress(io, static_cast<double>(requests.size()), "requests", stderr_is_terminal());
    config.progress = [&progress, total = static_cast<double>(requests.size())](double share) {
        progress.advance(share * total);
    };
    config.limits = serving::limits_for(options.scheduler.resolved(), evaluator);
    config.disaggregation = pools;
    config.prefill_pool = prefill_evaluator ? &*prefill_evaluator : nullptr;
    config.seed = seed;  // the draws of accepted draft tokens
    config.closed_loop = closed_loop;
    config.warm = {options.warm_prefix, options.warm_up};
    // Targets: the flags, else the scenario's p99 targets applied to each request.
    const serving::ServiceTargets targets =
        serving::service_targets(scenario, options.ttft_slo, options.tpot_slo, options.e2e_slo);
    const serving::ServeResult result = serving::simulate_serving(evaluator, requests, config, targets);
    progress.finish();
    // The analytic steady state at the same load per replica, for comparison.
    // A mixed fleet's steady state is the first device's at an even share of the load.
    const int all_replicas = options.replicas + static_cast<int>(config.added_replicas.size());
    serving::LoadShape per_replica = load;
    per_replica.rate_per_s = load.rate_per_s / all_replicas;
    std::optional<serving::DisaggregatedState> pools_analytic;
    if (pools) pools_analytic = serving::disaggregated_state(evaluator, load, config.limits, *pools, config.prefill_pool);
    // A closed loop's clients spread over the replicas as the router spreads their requests.
    const serving::SteadyState analytic =
        pools_analytic ? pools_analytic->overall
        : closed_loop  ? serving::closed_loop_state(evaluator, per_replica, config.limits,
                                                    static_cast<double>(closed_loop->clients) / all_replicas,
                                                    closed_loop->think_time_s)
                       : serving::steady_state(evaluator, per_replica, config.limits);

    report::ServeConditions conditions;
    conditions.arrivals = stream.arrivals;
    conditions.prompt = stream.prompt;
    conditions.output = stream.output;
    conditions.point = report::conditions_of(point.hardware.id, point.model.id, point.deployment);
    conditions.point.scenario = scenario;
    if (point.draft && point.deployment.speculation.enabled()) conditions.point.draft = core::printable(point.draft->id);
    std::vector<profiles::HardwareProfile> priced{point.hardware};  // --price in place of the profile's
    apply_given_prices(options.prices, options.price_file, catalog, priced);
    if (stream.uncapped_load) {
        serving::LoadShape capped_per_replica = per_replica;
        serving::LoadShape uncapped_per_replica = *stream.uncapped_load;
        uncapped_per_replica.rate_per_s = per_replica.rate_per_s;
        conditions.output_cap = serving::output_cap_effect(evaluator, capped_per_replica, uncapped_per_replica,
                                                             static_cast<double>(*options.max_output), config.limits,
                                                             point.deployment.parallelism.tensor,
                                                             priced.front().price_per_hour);
    }
    conditions.replicas = pools ? pools->instances() : all_replicas;
    conditions.fleet = fleet;
    conditions.disaggregation = pools_analytic;
    if (prefill_point) {
        conditions.prefill_hardware = prefill_point->hardware.id;
        conditions.prefill_parallelism = prefill_point->deployment.parallelism;
    }
    conditions.requests = static_cast<long long>(requests.size());
    // A trace has no seed of its own; speculation still draws its accepted tokens from --seed.
    conditions.seed = options.trace.empty() || point.deployment.speculation.enabled() ? seed : 0;
    conditions.limits = config.limits;
    conditions.warm = config.warm;
    conditions.targets = targets;
    const bool none_served = result.rejected > 0 && result.rejected == static_cast<long long>(requests.size());
    if (result.saturated && !none_served) {
        warn(io, fmt::format("saturated: {} requests were queued at the last arrival", result.waiting_at_last_arrival));
    }
    // Some refused: the latency and throughput figures are the served requests' alone, not the stream's.
    if (result.rejected > 0 && !none_served) {
        warn(io, fmt::format("{} of the {} requests were rejected ({} longer than a pass without chunked prefill): "
                             "the figures describe the {} served",
                             result.rejected, requests.size(), result.rejected_longer_than_pass,
                             static_cast<long long>(requests.size()) - result.rejected));
    }
    if (!options.requests_csv.empty()) write_file_atomically(options.requests_csv, report::requests_to_csv(result));
    if (!options.svg_path.empty()) write_file_atomically(options.svg_path, report::serve_chart(conditions, result));
    if (options.json) {
        io.out << report::json_text(report::serve_to_json(conditions, result, analytic));
    } else {
        io.out << report::wrap_text(report::serve_to_text(conditions, result, analytic));
    }
    if (none_served) {
        throw core::NothingComputed(fmt::format(
            "all {} requests were rejected: each is longer than one replica can ever hold (its KV cache does not fit "
            "beside the weights, or it exceeds the scheduler's token budget)",
            result.rejected));
    }
    return 0;
}

}  // namespace

void add_serve_command(CLI::App& app, CommandRun& run) {
    auto options = std::make_shared<ServeOptions>();
    CLI::App* command = app.add_subcommand("serve", "Simulate serving a request stream: latency percentiles, throughput, saturation");
    add_deployment_options(*command, options->deployment);
    command->add_flag("--in-process", options->deployment.in_process, help::kInProcess);
    command->add_option("--api-servers", options->deployment.api_servers, help::kApiServers)
        ->capture_default_str()
        ->check(CLI::Range(1, 64));
    auto* replicas = command->add_option("--replicas", options->replicas, "Model instances, each on --tp devices")
                         ->capture_default_str()
                         ->check(CLI::Range(1, 4096));
    auto* disaggregate =
        command->add_option("--disaggregate", options->disaggregate,
                            "Disaggregated prefill and decode: xPyD, as 2P3D for 2 prefill and 3 decode instances, each "
                            "on --tp devices, the KV cache sent between them (docs/serving.md)")
            ->excludes(replicas);
    auto* prefill_hardware =
        command->add_option("--prefill-hardware", options->prefill_hardware,
                            "With --disaggregate: the prefill pool on this device (id or profile), the decode pool on "
                            "--hardware; the KV cache crosses both sides' scale-out networks (docs/serving.md)")
            ->needs(disaggregate);
    command->add_option("--prefill-tp", options->prefill_tp,
                        "With --prefill-hardware: the prefill instances' tensor parallelism (default: --tp)")
        ->check(CLI::Range(1, kMaxTensorParallel))
        ->needs(prefill_hardware);
    command->add_option("--add-replicas", options->add_replicas,
                        "A mixed fleet: more replicas on other devices beside the --replicas on --hardware, as "
                        "ID:REPLICAS[:TP],... (a100-sxm-80gb:3), the same model and flags, behind one least-loaded "
                        "router (docs/serving.md)")
        ->excludes(disaggregate);
    auto* rate = command->add_option("--rate", options->rate, "Arrivals per second (all replicas)")
                     ->capture_default_str()
                     ->check(number_in(1e-6, 1e7));
    command->add_option("--scenario", options->scenario,
                        "A named workload (chat, code, summarize, agent, batch; docs/scenarios.md): its lengths, "
                        "arrivals and targets; explicit flags override");
    auto* arrivals = command->add_option("--arrivals", options->arrivals, "poisson (default), or gamma (bursty: see --burstiness)")
        ->check(CLI::IsMember(core::names_of(workload::Arrivals::kKindNames)));
    auto* burstiness = command->add_option("--burstiness", options->burstiness,
                        "Gamma shape k (default 1): the gaps' coefficient of variation is 1/sqrt(k); below 1 is burstier than Poisson")
        ->check(number_in(1e-3, 1e3));
    command->add_option("--prompt", options->prompt,
                        "Prompt tokens: N, uniform:LOW:HIGH, normal:MEAN:SD, lognormal:MEAN:SD or dataset:MEAN (a chat dataset's spread, as ShareGPT's; default 1000)");
    command->add_option("--output", options->output, "Output tokens, as for --prompt (default 200)");
    command->add_option("--price", options->prices,
                        "USD per device-hour, e.g. h100-sxm=2.49 (in place of the profile's; prices --max-output's saving)");
    command->add_option("--prices", options->price_file,
                        "A price list CSV, hardware,usd_per_hour[,basis][,date][,source]; --price wins over its rows");
    command->add_option("--max-output", options->max_output,
                        "Cap every output at this many tokens, and report what the cap saves")
        ->check(CLI::Range(1LL, 1'000'000'000LL));
    command->add_option("--requests", options->requests,
                        "Requests to simulate (default 1000; at most 10 million: each keeps a record of about 200 bytes)")
        ->check(CLI::Range(std::int64_t{1}, core::kMaxRequests));
    add_seed_option(*command, options->seed, "Random seed (the same seed gives the same run; default 1)");
    auto* trace = command->add_option("--trace", options->trace,
                                      "Replay a trace: decodesim's CSV (arrival_s,prompt_tokens,output_tokens[,prefix_id[,prefix_tokens]]), "
                                      "an Azure LLM inference trace, a BurstGPT CSV or Mooncake JSONL (docs/serving.md)");
    trace->excludes(rate);
    auto* concurrency = command->add_option("--concurrency", options->concurrency,
                                            "A closed loop of this many clients instead of --rate: each sends its next "
                                            "request when its last one finished (vllm bench serve --max-concurrency); "
                                            "with --trace, the trace's lengths in its order")
                            ->check(CLI::Range(1LL, 1'000'000LL));
    concurrency->excludes(rate)->excludes(arrivals)->excludes(burstiness);
    command->add_option("--think-time", options->think_time,
                        "Seconds a client waits between a response and its next request (--concurrency) or its "
                        "conversation's next turn (--turns); default 0, or the scenario's")
        ->check(number_in(0.0, 1e6));
    auto* turns = command->add_option("--turns", options->turns,
                                      "Multi-turn conversations of this many turns (N, uniform:LOW:HIGH, ...): each later "
                                      "turn's prompt is the conversation so far and --follow-up tokens, and starts with "
                                      "its cache (docs/serving.md)");
    turns->excludes(trace);
    command->add_option("--follow-up", options->follow_up,
                        "With --turns: tokens the user adds at each later turn, as for --prompt");
    command->add_option("--prefix-fraction", options->prefix_fraction,
                        "Share of requests that start with a shared prefix (with --prefix-tokens)")
        ->check(number_in(0.0, 1.0));
    command->add_option("--prefix-tokens", options->prefix_tokens,
                        "Length of each shared prefix (with --prefix-fraction; at most the shortest prompt)")
        ->check(CLI::Range(0LL, 1'000'000'000LL));
    command->add_option("--warm-prefix", options->warm_prefix,
                        "Tokens of every prompt in the prefix cache at the start: a sweep's previous run sent "
                        "prompts that begin the same (docs/serving.md, \"A warm cache\")")
        ->check(CLI::Range(0LL, 1000000000LL));
    command->add_option("--warm-up", options->warm_up,
                        "Prompts sent whole before the run, untimed, so cached at the start (vllm bench serve and "
                        "SGLang bench_serving send their first request once)")
        ->check(CLI::Range(0LL, 1000000000LL));
    command->add_option("--prefix-groups", options->prefix_groups, "Distinct shared prefixes (default 1)")
        ->check(CLI::Range(1LL, 1'000'000LL));
    add_scheduler_options(*command, options->scheduler);
    command->add_option("--ttft-slo", options->ttft_slo, "Time-to-first-token target for goodput (s)")->check(number_in(1e-9, 1e9));
    command->add_option("--tpot-slo", options->tpot_slo, "Time-per-output-token target for goodput (s)")->check(number_in(1e-9, 1e9));
    command->add_option("--e2e-slo", options->e2e_slo, "Time-to-last-token target for goodput (s)")->check(number_in(1e-9, 1e9));
    command->add_flag("--json", options->json, "Print one JSON object");
    command->add_option("--requests-csv", options->requests_csv, "Also write one CSV row per request here");
    command->add_option("--svg", options->svg_path, "Also draw latency and server state over time into this SVG file");
    run_when_parsed(command, run, options, &run_serve);
}

}  // namespace decodesim::cli
