// `decodesim plan`: how many of which device serve a workload within its latency targets, at
// what cost.

#include <fmt/format.h>

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cli/usage_checks.hpp"
#include "cli/command.hpp"
#include "profiles/load_curve_reader.hpp"
#include "cli/price_option.hpp"
#include "cli/progress_bar.hpp"
#include "cli/flag_use.hpp"
#include "report/text_wrap.hpp"
#include "report/json_units.hpp"
#include "cli/point_options.hpp"
#include "cli/runtime_option.hpp"
#include "cli/serving/stream_options.hpp"
#include "core/error.hpp"
#include "core/text_escape.hpp"
#include "core/value_range.hpp"
#include "report/serving/launch_command.hpp"
#include "report/serving/plan_output.hpp"
#include "serving/daily_scaling.hpp"
#include "serving/ownership_cost.hpp"
#include "serving/plan.hpp"
#include "serving/served_stream.hpp"
#include "core/registry.hpp"

namespace decodesim::cli {

namespace {

// The segments plan considers without --hardware: datacenter parts (and user profiles that state
// none), which can be bought or rented as servers.
constexpr const char* kDefaultSegments = "datacenter";
// A new replica's start before it serves: the image pulled, weights loaded, graphs captured. An
// assumption (docs/serving.md, "A day's load"), not a measurement; --scale-up-lag sets it.
constexpr double kDefaultScaleUpLagMinutes = 10.0;

// "datacenter,workstation" or "all" as segments; a user's profile without one (`unstated`) goes with
// the datacenter parts.
std::set<profiles::DeviceSegment> plan_segments(const std::string& text) {
    std::set<profiles::DeviceSegment> segments;
    if (text == "all") {
        for (const auto& row : profiles::kDeviceSegmentNames) segments.insert(row.value);
        return segments;
    }
    for (const auto& name : core::parse_name_list(text, "--segments")) {
        const auto stated = profiles::stated_segment(name);
        if (!stated) {
            throw core::UsageError(fmt::format("--segments: unknown segment '{}'; expected all or a list of {}", name,
                                               profiles::kStatedSegments));
        }
        segments.insert(*stated);
    }
    if (segments.contains(profiles::DeviceSegment::datacenter)) segments.insert(profiles::DeviceSegment::unstated);
    return segments;
}

struct PlanOptions {
    std::string model;
    std::string hardware;  // empty: every shipped device
    std::string segments = kDefaultSegments;  // without --hardware: the device segments to consider
    std::string formats = "bf16";
    std::string prices;  // --price: "id=usd,..."
    std::string price_file;  // --prices FILE
    std::string basis = "any";  // --basis: the prices ranked (cloud, purchase or any)
    // --basis purchase: the cost of ownership's assumptions (serving/ownership_cost.hpp).
    std::optional<double> years;
    std::optional<double> usd_per_kwh;
    std::optional<double> pue;
    std::string kv;
    std::optional<std::string> runtime;  // unset: each device's default
    bool in_process = false;
    std::optional<int> api_servers;
    std::string cuda_graphs = "on";  // --cuda-graphs on|off
    std::string tensor_parallel = "1,2,4,8";
    std::string pipeline_parallel = "1,2";
    std::string clocks = "sustained";
    std::optional<double> rate;
    std::optional<long long> users;
    std::optional<double> think_time;  // unset: the scenario's, else 0
    // Unset: the --scenario's, else 1000 and 200.
    std::optional<std::string> prompt;
    std::optional<std::string> output;
    std::optional<std::string> scenario;
    std::optional<long long> max_output;
    std::optional<double> ttft_p99;
    std::optional<double> tpot_p99;
    std::optional<double> e2e_p99;
    std::optional<double> min_tokens_per_s_per_user;
    SchedulerOptions scheduler;
    std::string by = "cost";
    std::string disaggregation = "auto";
    std::optional<std::string> turns;      // conversations: turns each (a length distribution)
    std::optional<std::string> follow_up;  // and the tokens each later turn adds
    std::optional<std::string> prefill_hardware;  // every option's prefill pool on one of these devices
    std::optional<std::string> emit;              // vllm|sglang|trtllm|llama.cpp: the best option's launch script
    long long verify_requests = 2000;  // 0: the steady state alone decides
    std::optional<long long> seed;  // unset: 1
    std::string load_curve;         // --load-curve FILE: a day's load; the plan is for its peak
    std::string trace;              // --trace FILE: a recorded load, its rate and lengths planned for and replayed
    double scale_up_lag_minutes = kDefaultScaleUpLagMinutes;
    bool json = false;
};

int run_plan(const PlanOptions& options, const profiles::Catalog& catalog, Io io) {
    // A day's load curve: the plan is made for its peak, then scaled over the day.
    std::optional<std::vector<profiles::LoadStep>> curve;
    std::optional<double> rate = options.rate;
    if (!options.load_curve.empty()) {
        curve = profiles::load_load_curve(options.load_curve);
        rate = std::max_element(curve->begin(), curve->end(), [](const auto& a, const auto& b) {
                   return a.rate_per_s < b.rate_per_s;
               })->rate_per_s;
    }
    // A recorded trace: its mean rate, mean lengths and burstiness are the load, and each option's
    // verification replays it as recorded.
    std::optional<serving::ServedStream> traced;
    if (options.turns && options.max_output) {
        throw core::UsageError("--turns plans conversations; it cannot be combined with --max-output");
    }
    if (!options.trace.empty() && (options.prompt || options.output || options.scenario || options.max_output)) {
        throw core::UsageError("--trace plans for its own lengths; it cannot be combined with --prompt, --output, "
                               "--scenario or --max-output");
    }
    if (!options.trace.empty()) {
        traced = traced_stream(options.trace, io);
        const auto& requests = traced->requests;
        const double span = requests.empty() ? 0.0 : requests.back().arrival_s;
        // A burst (arrivals within serving::kBurstSpan_s, moved to 0 by replayed_stream) has no rate to plan for.
        if (requests.size() < 2 || !(span > 0.0)) {
            throw core::InputError(
                core::Diagnostic{{options.trace, 0, 0},
                                 "",
                                 "a trace to plan for needs two requests or more arriving over time "
                                 "(over a microsecond or more: closer arrivals are one burst, with no rate)"});
        }
        rate = traced->load.rate_per_s;
    }
    if (!rate && !options.users) throw core::UsageError("plan: give the load as --rate, --users, --load-curve or --trace");
    refuse_flags_without_effect({
        {"--segments", options.segments != kDefaultSegments, options.hardware.empty(),
         "without --hardware (every device --hardware names is considered)"},
        {"--think-time", options.think_time.has_value(), options.users.has_value() || options.turns.has_value(),
         "with --users (a closed loop) or --turns (between a conversation's turns); --rate's arrivals do not wait on "
         "responses"},
        {"--follow-up", options.follow_up.has_value(), options.turns.has_value(), "with --turns"},
        {"--seed", options.seed.has_value(), options.verify_requests > 0,
         "with --verify-requests above 0 (the verifying simulation's draws)"},
    });
    // --emit NAME plans with that runtime's current build, unless --runtime names one of its builds.
    std::optional<std::string> runtime = options.runtime;
    if (options.emit && options.json) throw core::UsageError("--emit prints a shell script; it cannot be combined with --json");
    // --emit dynamo runs the engine --runtime names (vllm unless it says sglang) under Dynamo's front
    // end; --emit llm-d writes llm-d's Helm values around vLLM (the profile's launch.orchestrators).
    const bool orchestrated = options.emit && (*options.emit == "dynamo" || *options.emit == "llm-d");
    if (options.emit && !orchestrated) {
        const std::string wanted = *options.emit == "trtllm" ? "tensorrt-llm" : *options.emit;
        if (!runtime) {
            runtime = wanted;
        } else if (runtime->substr(0, runtime->find('@')) != wanted) {
            throw core::UsageError(fmt::format("--emit {} writes {}'s launch command; --runtime {} is another runtime",
                                               *options.emit, wanted, *runtime));
        }
    }
    if (orchestrated && !runtime) runtime = "vllm";
    if (options.prefill_hardware && (options.users || options.disaggregation == "off")) {
        throw core::UsageError("--prefill-hardware plans disaggregated pools, for --rate (not --users) and without "
                               "--disaggregation off");
    }
    if (options.disaggregation == "only" && options.users) {
        throw core::UsageError("--disaggregation only: disaggregated pools are planned for --rate, not for a closed loop of --users");
    }
    const workload::WorkloadScenario* scenario =
        options.scenario ? &workload::workload_scenario_named(*options.scenario) : nullptr;
    workload::WorkloadChoice choice;
    choice.scenario = scenario;
    if (options.prompt) choice.prompt = parse_length(*options.prompt, "--prompt");
    if (options.output) choice.output = parse_length(*options.output, "--output");
    choice.max_output = options.max_output;
    choice.think_time_s = options.think_time;
    serving::ServiceTargets targets = serving::service_targets(scenario, options.ttft_p99, options.tpot_p99, options.e2e_p99);
    // No queue without bound: without a TTFT or end-to-end target, plan holds TTFT to a default limit.
    const bool default_ttft = !targets.ttft_s && !targets.e2e_s;
    targets = serving::bounded_targets(targets);
    if (options.min_tokens_per_s_per_user) {
        // A stream at N tokens/s needs each output token within 1/N s.
        const double tpot = 1.0 / *options.min_tokens_per_s_per_user;
        targets.tpot_s = targets.tpot_s ? std::min(*targets.tpot_s, tpot) : tpot;
    }
    serving::PlanSpace space;
    for (const auto& name : core::parse_name_list(options.formats, "--formats")) space.weights.push_back(&weight_format_named(name));
    if (options.kv.empty()) {
        space.kv = {nullptr};
    } else {
        for (const auto& name : core::parse_name_list(options.kv, "--kv")) space.kv.push_back(&kv_format_named(name));
    }
    space.tensor_parallel.clear();
    for (long long tp : core::parse_integer_list(options.tensor_parallel, "--tp", 1, kMaxTensorParallel, kMaxTensorParallel)) {
        space.tensor_parallel.push_back(static_cast<int>(tp));
    }
    space.pipeline_parallel.clear();
    for (long long pp : core::parse_integer_list(options.pipeline_parallel, "--pp", 1, kMaxTensorParallel, kMaxTensorParallel)) {
        space.pipeline_parallel.push_back(static_cast<int>(pp));
    }
    space.runtime = runtime_chooser(catalog, runtime);
    space.clocks = clock_choice(options.clocks, std::nullopt);
    space.in_process = options.in_process;
    space.api_servers = options.api_servers;
    space.cuda_graphs_off = options.cuda_graphs == "off";
    space.scheduler = options.scheduler.resolved();
    if (options.verify_requests > 0) {
        space.verify = serving::VerifySettings{options.verify_requests, static_cast<unsigned long long>(options.seed.value_or(1))};
    }
    space.disaggregation =
        core::named_or_throw(serving::kPlanDisaggregationNames, options.disaggregation, "--disaggregation", "choice").value;
    const auto order = core::named_or_throw(serving::kPlanOrderNames, options.by, "--by", "order").value;

    const profiles::ModelProfile model = catalog.model(options.model);
    const workload::ResolvedWorkload resolved = workload::resolve_workload(choice, model.max_position_embeddings);
    warn_beyond_context(io, model, resolved.asked_context_mean);
    serving::PlanWorkload workload;
    workload.rate_per_s = rate;
    if (options.users) workload.users = static_cast<double>(*options.users);
    workload.think_time_s = resolved.think_time_s;
    workload.prompt_tokens = resolved.prompt.mean();
    workload.output_tokens = resolved.output.mean();
    workload.arrival_cv2 = resolved.arrival_cv2();
    workload.lengths = resolved;
    // The stream the verification sends (its count and seed): the lengths' spread and, for
    // conversations, the mean prompt as sent and its cached part.
    workload::StreamSpec spec;
    spec.arrivals.rate_per_s = rate.value_or(1.0);
    spec.requests = options.verify_requests > 0 ? options.verify_requests : 2000;
    spec.seed = static_cast<unsigned long long>(options.seed.value_or(1));
    spec.conversations = parse_conversations(options.turns, options.follow_up, resolved.think_time_s);
    const serving::ServedStream sent = serving::generated_stream(resolved, spec, std::nullopt);
    workload.output_cv2 = sent.load.output_cv2;
    workload.prompt_cv2 = sent.load.prompt_cv2;
    const serving::ServedStream* conversations = spec.conversations ? &sent : nullptr;
    if (conversations) {
        workload.prompt_tokens = sent.load.prompt_tokens;
        workload.cached_prompt_tokens = sent.load.cached_prompt_tokens;
        workload.conversations = spec.conversations;
    }
    if (traced) {
        workload.prompt_tokens = traced->load.prompt_tokens;
        workload.output_tokens = traced->load.output_tokens;
        workload.arrival_cv2 = traced->load.arrival_cv2;
        workload.output_cv2 = traced->load.output_cv2;
        workload.prompt_cv2 = traced->load.prompt_cv2;
        workload.trace = std::make_shared<const std::vector<workload::Request>>(traced->requests);
    }
    std::vector<profiles::HardwareProfile> candidates;
    const auto ids = options.hardware.empty() ? catalog.hardware_ids() : core::parse_name_list(options.hardware, "--hardware");
    if (ids.empty()) {
        throw core::NothingComputed(fmt::format("no candidate devices: the folder {}/hardware_profiles holds no profiles "
                                                "(is --profiles-dir right?)", catalog.root()));
    }
    // Devices named with --hardware are all considered; otherwise the segments asked for
    // (datacenter parts by default: docs/decisions.md, "Which devices plan considers").
    const std::set<profiles::DeviceSegment> segments = plan_segments(options.segments);
    for (const auto& id : ids) {
        profiles::HardwareProfile hardware = catalog.hardware(id);
        if (options.hardware.empty() && !segments.contains(hardware.segment)) continue;
        candidates.push_back(std::move(hardware));
    }
    if (candidates.empty()) {
        throw core::NothingComputed(fmt::format("no shipped device is in the segments '{}'", options.segments));
    }
    // The prefill pool's device takes the same prices and basis as the candidates: it rides at the
    // end of the list through them, then leaves it.
    const std::vector<std::string> prefill_ids =
        options.prefill_hardware ? core::parse_name_list(*options.prefill_hardware, "--prefill-hardware")
                                 : std::vector<std::string>{};
    for (const std::string& id : prefill_ids) candidates.push_back(catalog.hardware(id));
    const std::map<std::string, double> prices =
        apply_given_prices(options.prices, options.price_file, catalog, candidates);
    // --basis: only prices of that basis are costed, so a purchase price is never ranked against a
    // rental; another device's price (a proxy) is of neither. A price the user gave counts as both.
    // Bought devices are costed whole: the device, its host and network, and the energy at the wall,
    // over the years they are used, in place of the profile's amortized board price.
    std::map<std::string, serving::OwnershipCost> ownership;
    serving::OwnershipAssumptions assumptions;
    if ((options.years || options.usd_per_kwh || options.pue) && options.basis != "purchase") {
        throw core::UsageError("--years, --usd-per-kwh and --pue set the cost of owning bought devices: they need --basis purchase");
    }
    if (options.basis == "purchase") {
        assumptions.years = options.years.value_or(assumptions.years);
        assumptions.usd_per_kwh = options.usd_per_kwh.value_or(assumptions.usd_per_kwh);
        assumptions.pue = options.pue;
        for (profiles::HardwareProfile& device : candidates) {
            if (device.price_basis != profiles::PriceBasis::purchase || prices.contains(device.id)) continue;
            if (const auto cost = serving::ownership_cost(device, assumptions)) {
                device.price_per_hour = cost->total();
                ownership.emplace(device.id, *cost);
            }
        }
    }
    if (options.basis != "any") {
        const profiles::PriceBasis wanted =
            options.basis == "cloud" ? profiles::PriceBasis::cloud : profiles::PriceBasis::purchase;
        for (profiles::HardwareProfile& device : candidates) {
            if (device.price_basis != wanted && device.price_basis != profiles::PriceBasis::unstated) {
                device.price_per_hour.reset();
            }
        }
    }
    // The prefill devices leave the end of the list for the plan's space.
    space.prefill_hardware.assign(std::make_move_iterator(candidates.end() - static_cast<std::ptrdiff_t>(prefill_ids.size())),
                                  std::make_move_iterator(candidates.end()));
    candidates.resize(candidates.size() - prefill_ids.size());
    // On a terminal, a bar for each stage once it has run a second (cli/progress_bar.hpp).
    std::optional<ProgressBar> search_bar, verify_bar;
    space.progress = [&](serving::PlanStage stage, std::size_t done, std::size_t total) {
        std::optional<ProgressBar>& bar = stage == serving::PlanStage::search ? search_bar : verify_bar;
        if (stage == serving::PlanStage::verify && search_bar) {
            search_bar->finish();
            search_bar.reset();
        }
        if (!bar) {
            bar.emplace(io, static_cast<double>(total),
                        stage == serving::PlanStage::search ? "devices searched" : "options verified",
                        stderr_is_terminal());
        }
        bar->advance(static_cast<double>(done));
    };
    const serving::Plan plan = serving::plan_deployments(model, candidates, workload, targets, space, order);
    if (search_bar) search_bar->finish();
    if (verify_bar) verify_bar->finish();
    space.progress = nullptr;
    std::optional<serving::PlanOption> best_uncapped;
    if (options.max_output) {
        serving::PlanWorkload uncapped = workload;
        uncapped.output_tokens = resolved.uncapped_output_mean;
        const serving::Plan without = serving::plan_deployments(model, candidates, uncapped, targets, space, order);
        if (!without.options.empty()) best_uncapped = without.options.front();
    }

    report::PlanConditions conditions;
    conditions.model = model.id;
    conditions.model_repo = report::hugging_face_repo(model.source).value_or(model.id);
    conditions.rate_per_s = rate;
    conditions.users = workload.users;
    conditions.think_time_s = workload.think_time_s;
    conditions.prompt_tokens = workload.prompt_tokens;
    conditions.conversations = workload.conversations;
    conditions.cached_prompt_tokens = workload.cached_prompt_tokens;
    conditions.output_tokens = workload.output_tokens;
    conditions.lengths = workload.lengths;
    conditions.trace = traced.has_value();
    conditions.targets = targets;
    conditions.default_ttft = default_ttft;
    // One runtime's id, or each device's default where the candidates differ in it.
    std::set<std::string> runtimes;
    for (const auto& candidate : candidates) runtimes.insert(space.runtime(candidate)->id);
    conditions.runtime = runtimes.size() == 1 ? *runtimes.begin()
                                              : fmt::format("{} ({} on Metal devices)", catalog.runtime(kDefaultRuntime)->id,
                                                            catalog.runtime(kDefaultMetalRuntime)->id);
    conditions.in_process = space.in_process;
    conditions.cuda_graphs_off = space.cuda_graphs_off;
    conditions.clocks = options.clocks;
    conditions.scenario = scenario;
    if (options.max_output) {
        conditions.max_output_tokens = static_cast<double>(*options.max_output);
        conditions.uncapped_output_tokens = resolved.uncapped_output_mean;
        conditions.best_uncapped = best_uncapped;
    }
    conditions.order = options.by;
    conditions.disaggregation =
        options.prefill_hardware ? fmt::format("prefill on {}", fmt::join(prefill_ids, " or ")) : options.disaggregation;
    conditions.given_prices = prices;
    conditions.ownership = ownership;
    conditions.ownership_assumptions = assumptions;
    if (curve && !plan.options.empty()) {
        const serving::PlanOption& best = plan.options.front();
        serving::DailyScaling scaling;
        scaling.peak_rate_per_s = *rate;
        scaling.peak_replicas = best.replicas;
        scaling.devices_per_replica = best.devices / std::max(1, best.replicas);
        if (best.cost_per_hour) scaling.price_per_device_hour = *best.cost_per_hour / best.devices;
        scaling.scale_up_lag_hours = options.scale_up_lag_minutes / 60.0;
        conditions.day = serving::scale_over_day(*curve, scaling);
        conditions.load_curve = options.load_curve;
        conditions.scale_up_lag_minutes = options.scale_up_lag_minutes;
    }
    if (options.hardware.empty()) {
        conditions.candidates = fmt::format("{} of the {} shipped devices, segments {}", candidates.size(), ids.size(),
                                            options.segments);
    }
    conditions.workload = traced ? fmt::format("trace {} ({} requests, {:.4g} requests/s)", core::printable(options.trace),
                                               traced->requests.size(), *rate)
                          : rate ? fmt::format("{:g} requests/s{}", *rate, curve ? " at the load curve's peak" : "")
                                       : fmt::format("{} users thinking {:g} s between requests", *options.users,
                                                     workload.think_time_s);
    if (workload.conversations) conditions.workload += ", " + serving::describe_conversations(*workload.conversations);
    conditions.workload += traced ? fmt::format(", prompt {:.0f} and output {:.0f} tokens on average", workload.prompt_tokens,
                                                workload.output_tokens)
                           : conversations ? fmt::format(", prompt {}, output {} tokens", conversations->prompt,
                                                         workload::describe(resolved.output))
                                  : fmt::format(", prompt {}, output {} tokens", workload::describe(resolved.prompt),
                                                workload::describe(resolved.output));
    if (options.emit && !plan.options.empty()) {
        const std::string script = report::launch_script(conditions, plan, orchestrated ? *options.emit : std::string());
        if (script.empty()) {
            const std::string& id = plan.options.front().deployment.runtime_profile().id;
            throw core::NothingComputed(
                orchestrated ? fmt::format("runtime {} states no {} launch (launch.orchestrators in its profile); "
                                           "the vllm profile states dynamo and llm-d, the sglang profile dynamo",
                                           id, *options.emit)
                             : fmt::format("runtime {} states no launch command (launch: in its profile)", id));
        }
        io.out << script;
    } else if (options.json) {
        io.out << report::json_text(report::plan_to_json(conditions, plan));
    } else {
        io.out << report::wrap_text(report::plan_to_text(conditions, plan));
    }
    // The answer "none can" is printed above with each candidate's reason; the exit code says it too.
    if (plan.options.empty()) {
        std::string reasons;
        for (std::size_t i = 0; i < plan.rejected.size() && i < 3; ++i) {
            reasons += fmt::format("; {}: {}", plan.rejected[i].hardware, plan.rejected[i].reason);
        }
        if (plan.rejected.size() > 3) reasons += fmt::format("; and {} more", plan.rejected.size() - 3);
        throw core::NothingComputed("no candidate device can serve this workload" + reasons);
    }
    return 0;
}

}  // namespace

void add_plan_command(CLI::App& app, CommandRun& run) {
    auto options = std::make_shared<PlanOptions>();
    CLI::App* command =
        app.add_subcommand("plan", "What to buy: the cheapest deployment on each device that meets latency targets");
    command->add_option("--model", options->model, help::kModel)->required();
    command->add_option("--hardware", options->hardware, "Candidate hardware ids, comma-separated (default: every shipped device)");
    command->add_option("--formats", options->formats, "Weight formats to consider, comma-separated")->capture_default_str();
    command->add_option("--segments", options->segments,
                        "Without --hardware, the device segments to consider: datacenter, workstation, consumer, edge "
                        "(comma-separated) or all")
        ->capture_default_str();
    command->add_option("--price", options->prices,
                        "USD per device-hour, e.g. h100-sxm=2.49,mi300x=2.10 (in place of the profiles' prices)");
    command->add_option("--basis", options->basis,
                        "Which prices to rank by: cloud (rental rates), purchase (amortized purchase prices) or any "
                        "(default; a purchase price is then marked p in the table)")
        ->check(CLI::IsMember({"cloud", "purchase", "any"}))
        ->capture_default_str();
    command->add_option("--prices", options->price_file,
                        "A price list CSV, hardware,usd_per_hour[,basis][,date][,source]; --price wins over its rows");
    command->add_option("--years", options->years,
                        "With --basis purchase: years a bought device is used, its price spread over them (default 3)")
        ->check(number_in(0.1, 50.0));
    command->add_option("--usd-per-kwh", options->usd_per_kwh,
                        "With --basis purchase: electricity price at the meter (default 0.15)")
        ->check(number_in(0.0, 10.0));
    command->add_option("--pue", options->pue,
                        "With --basis purchase: power usage effectiveness (default 1.58 in a datacenter, Uptime "
                        "Institute 2023; 1 at a desk)")
        ->check(number_in(1.0, 5.0));
    command->add_option("--kv", options->kv, "KV-cache formats to consider (default: the activation datatype)");
    command->add_option("--runtime", options->runtime, help::kRuntime);
    command->add_option("--tp", options->tensor_parallel, "Tensor-parallel degrees to consider")->capture_default_str();
    command->add_option("--pp", options->pipeline_parallel,
                        "Pipeline stage counts to consider (MoE models also try --ep equal to each tp)")
        ->capture_default_str();
    command->add_option("--clocks", options->clocks, help::kClocks)->capture_default_str();
    command->add_flag("--in-process", options->in_process, help::kInProcess);
    command->add_option("--api-servers", options->api_servers,
                        "The front end's processes every instance runs (vLLM's --api-server-count), 1 to 64; default: "
                        "plan gives each the fewest that keep the front end from capping its engine (docs/serving.md)")
        ->check(CLI::Range(1, 64));
    command->add_option("--cuda-graphs", options->cuda_graphs, help::kCudaGraphs)
        ->capture_default_str()
        ->check(CLI::IsMember({"on", "off"}));
    auto* rate = command->add_option("--rate", options->rate, "Requests per second")->check(number_in(1e-6, 1e9));
    auto* curve = command->add_option("--load-curve", options->load_curve,
                                      "A day's load, a CSV of hour,rate_per_s: the plan is for its peak, then scaled "
                                      "hour by hour, with the cost of the day against the peak's (docs/serving.md)");
    command->add_option("--scale-up-lag", options->scale_up_lag_minutes,
                        "With --load-curve: minutes a new replica takes to start, paid before it serves")
        ->capture_default_str()
        ->check(number_in(0.0, 1440.0))
        ->needs(curve);
    auto* users = command->add_option("--users", options->users, "Concurrent users (closed loop; a whole number)")
                      ->check(CLI::Range(1LL, 1'000'000'000LL));
    command->add_option("--think-time", options->think_time,
                        "Seconds each user waits between a response and the next request (default 0, or the scenario's)")
        ->check(number_in(0.0, 1e6));
    rate->excludes(users);
    curve->excludes(rate)->excludes(users);
    auto* turns = command->add_option("--turns", options->turns,
                                      "Plan for multi-turn conversations of this many turns (N or a distribution): each "
                                      "later turn's prompt is the conversation so far and --follow-up tokens, read from "
                                      "the prefix cache up to them (docs/serving.md, 'Conversations')");
    command->add_option("--follow-up", options->follow_up, "With --turns: tokens the user adds at each later turn");
    auto* trace = command->add_option("--trace", options->trace,
                                      "Plan for a recorded load (decodesim's CSV, an Azure LLM inference trace, BurstGPT "
                                      "CSV or Mooncake JSONL): its rate, lengths and burstiness; each option's check "
                                      "replays it as recorded");
    trace->excludes(rate)->excludes(users)->excludes(curve)->excludes(turns);
    command->add_option("--scenario", options->scenario,
                        "A named workload (chat, code, summarize, agent, batch; docs/scenarios.md): its lengths, "
                        "burstiness and targets; explicit flags override");
    command->add_option("--prompt", options->prompt,
                        "Prompt tokens: N or a distribution (its mean is planned for; default 1000)");
    command->add_option("--output", options->output, "Output tokens: N or a distribution (default 200)");
    command->add_option("--max-output", options->max_output, "Cap every output at this many tokens; shows what it saves")
        ->check(CLI::Range(1LL, 1'000'000'000LL));
    command->add_option("--ttft-p99", options->ttft_p99, "Target 99th-percentile time to first token (s)")
        ->check(number_in(1e-9, 1e9));
    command->add_option("--tpot-p99", options->tpot_p99, "Target 99th-percentile time per output token (s)")
        ->check(number_in(1e-9, 1e9));
    command->add_option("--e2e-p99", options->e2e_p99, "Target 99th-percentile time to the last token (s)")
        ->check(number_in(1e-9, 1e9));
    command->add_option("--min-tokens-per-s-per-user", options->min_tokens_per_s_per_user,
                        "Each stream at least this fast (a TPOT target of its inverse)")
        ->check(number_in(1e-6, 1e9));
    add_scheduler_options(*command, options->scheduler);
    command->add_option("--by", options->by, "Rank by")->capture_default_str()->check(CLI::IsMember(core::names_of(serving::kPlanOrderNames)));
    command->add_option("--disaggregation", options->disaggregation,
                        "Disaggregated prefill and decode pools: auto (considered beside colocated replicas, kept "
                        "when cheaper; open loop only), off, or only")
        ->capture_default_str()
        ->check(CLI::IsMember(core::names_of(serving::kPlanDisaggregationNames)));
    command->add_option("--emit", options->emit,
                        "Print the best option as a shell script instead of the table: its launch command for this "
                        "runtime (vllm, sglang, trtllm, llama.cpp; planned with that runtime) or the engine of "
                        "--runtime (vllm or sglang) under NVIDIA Dynamo's front end (dynamo), or llm-d's Helm "
                        "values for vLLM (llm-d), the router of disaggregated pools, the benchmark command that "
                        "checks it, and the figures it should reproduce (docs/serving.md)")
        ->check(CLI::IsMember({"vllm", "sglang", "trtllm", "llama.cpp", "dynamo", "llm-d"}));
    command->add_option("--prefill-hardware", options->prefill_hardware,
                        "Plan disaggregated pools whose prefill instances run on this device, or on the best of "
                        "a comma-separated list (ids or profiles), and whose decode instances run on each "
                        "candidate; the KV cache crosses both sides' scale-out networks (docs/serving.md)");
    command->add_option("--verify-requests", options->verify_requests,
                        "Requests the request-level simulation runs to verify every option at its planned load "
                        "(plan = serve); 0 leaves the answer to the steady state alone")
        ->capture_default_str()
        ->check(CLI::Range(0LL, 1'000'000LL));
    add_seed_option(*command, options->seed, "Random seed of the verifying simulation (default 1)");
    command->add_flag("--json", options->json, "Print one JSON object");
    run_when_parsed(command, run, options, &run_plan);
}

}  // namespace decodesim::cli
