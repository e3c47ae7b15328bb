#include "fit/accuracy.hpp"

#include "profiles/runtime_fields.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>

#include "core/statistics.hpp"
#include "core/error.hpp"
#include "core/quantization.hpp"
#include "core/registry.hpp"
#include "profiles/runtime_fields.hpp"
#include "workload/request_stream.hpp"
#include "serving/simulation.hpp"

namespace decodesim::fit {

namespace {

using profiles::Metric;


// Requests replayed for a request-rate row whose notes give no count, and the most tokens
// (prompt and output, over all requests) one replay may simulate.
constexpr long long kReplayedRequests = 1000;
constexpr double kReplayTokenBudget = 5e7;

// A length as a replayed row states it: the range it was drawn from uniformly, a dataset's spread
// about its mean, or fixed at it.
workload::LengthDistribution replayed_length(double mean, const std::optional<std::pair<double, double>>& range,
                                             bool dataset) {
    if (range) {
        workload::LengthDistribution uniform;
        uniform.kind = workload::LengthDistribution::Kind::uniform;
        uniform.first = std::max(1.0, range->first);
        uniform.second = std::max(uniform.first, range->second);
        return uniform;
    }
    if (dataset) return workload::dataset_lengths(mean);
    workload::LengthDistribution fixed;
    fixed.first = mean;
    return fixed;
}

// A replayed row: its benchmark run through the serving simulation, requests arriving Poisson at the
// stated rate (seed 1), or sent by `batch` clients in a closed loop (each its next request when its
// last one finished, as `vllm bench serve --max-concurrency` and SGLang's bench_serving send them),
// on one replica with the row's runtime's scheduler defaults on its device (docs/serving.md,
// "Scheduler"); the figure is the run's mean or median, as the row states. The requests carry the
// lengths the run listed, in its order, else lengths drawn as the row says (replayed_length).
double served_figure(const profiles::Measurement& m, const engine::Evaluator& evaluator, double prompt, double output) {
    workload::StreamSpec spec;
    spec.arrivals.rate_per_s = m.request_rate.value_or(1.0);  // a closed loop sets its own arrivals
    spec.prompt = replayed_length(prompt, m.prompt_range, m.dataset_lengths);
    spec.output = replayed_length(output, m.output_range, m.dataset_lengths);
    spec.requests = m.request_lengths.empty() ? m.requests.value_or(kReplayedRequests)
                                              : static_cast<long long>(m.request_lengths.size());
    // A drawn prompt in a distribution's tail is cut to leave its output room in the model's
    // context, as a benchmark's dataset sampler drops what the server would refuse; stated lengths
    // are not cut: one that does not fit is refused below.
    const long long context = evaluator.model().max_position_embeddings.value_or(0);
    if (m.drawn_lengths() && context > 0) {
        if (prompt + output > static_cast<double>(context)) {
            throw core::InputError(core::unlocated(
                "prompt", fmt::format("requests of {:.0f} + {:.0f} tokens on average do not fit the model's context of {}",
                                      prompt, output, context)));
        }
        spec.max_context = context;
    }
    std::vector<workload::Request> requests = workload::generate_requests(spec);
    for (std::size_t i = 0; i < m.request_lengths.size() && i < requests.size(); ++i) {
        requests[i].prompt_tokens = std::max(1LL, m.request_lengths[i].first);
        requests[i].output_tokens = std::max(1LL, m.request_lengths[i].second);
    }
    serving::ServeConfig config;
    // The runtime's own limits on this deployment, as `serve` takes them (a speculating one's cap
    // included).
    config.limits = serving::limits_for({}, evaluator);
    if (m.closed_loop) config.closed_loop = serving::ClosedLoop{static_cast<long long>(std::llround(*m.batch)), 0.0};
    const serving::ServeResult run = serving::simulate_serving(evaluator, requests, config, serving::ServiceTargets{});
    if (run.rejected > 0) {
        // The figures would be over the requests that fit; the row measured them all.
        throw core::InputError(core::unlocated(
            "prompt", fmt::format("a request of {:.0f} + {:.0f} tokens does not fit one replica's KV cache or context",
                                  prompt, output)));
    }
    const auto statistic = [&](const serving::Percentiles& p) { return m.median_latency ? p.p50 : p.mean; };
    double figure = 0.0;
    switch (m.metric) {
        case Metric::ttft_s: figure = statistic(run.ttft_s); break;
        case Metric::tpot_s: figure = statistic(run.tpot_s); break;
        case Metric::e2e_latency_s: figure = statistic(run.e2e_s); break;
        case Metric::decode_tokens_per_s_total: figure = run.output_tokens_per_s; break;
        case Metric::decode_tokens_per_s_per_stream: figure = 1.0 / statistic(run.tpot_s); break;
        case Metric::prefill_tokens_per_s: break;  // unsupported_reason refuses prefill in a serving run
    }
    if (!(figure > 0.0) || !std::isfinite(figure)) {
        throw core::InputError(core::unlocated(
            "output", "the serving run gives no figure for this metric (one-token outputs have no time per output token)"));
    }
    return figure;
}

// The figure of one evaluator for a supported row, in the row's metric.
double figure_of(const profiles::Measurement& m, const engine::Evaluator& evaluator) {
    const double prompt = std::max(1.0, m.prompt.value_or(1.0));
    const double output = m.output.value_or(1.0);
    if (m.replayed()) return served_figure(m, evaluator, prompt, output);
    if (m.metric == Metric::prefill_tokens_per_s) {
        const double batch = m.batch.value_or(1.0);
        // A prompt processed after `context` tokens already in the cache (llama-bench -d): one pass
        // of the prompt's tokens that reads the earlier tokens' keys and values.
        const double cached = m.context.value_or(0.0);
        const double time = evaluator.prefill(batch, cached + prompt, cached).time.value;
        return batch * prompt / time;
    }
    if (m.context) {  // one decode step at a stated context
        const double batch = m.batch.value_or(1.0);
        const auto prediction = evaluator.predict(engine::Workload::step(batch, *m.context), engine::Detail::figures);
        return m.metric == Metric::decode_tokens_per_s_total ? prediction.decode.tokens_per_s_total
                                                             : prediction.decode.tokens_per_s_per_stream;
    }
    // A run of `output` decode steps after the prompt (llama-bench tg, batched-bench, serving).
    double batch = m.batch.value_or(0.0);
    if (batch <= 0.0) {
        // Offline throughput with every request queued: the batch memory allows.
        const auto probe =
            evaluator.predict(engine::Workload::request(1.0, prompt, output + 1.0), engine::Detail::figures);
        batch = static_cast<double>(std::max<long long>(1, probe.memory.max_batch));
    }
    const auto prediction =
        evaluator.predict(engine::Workload::request(batch, prompt, output + 1.0), engine::Detail::figures);
    double step = prediction.request->time_per_output_token.value;
    // A closed loop that keeps `batch` requests going ("arrivals=staggered"): a request arrives as
    // another finishes, so besides its decode tokens each pass prefills the prompts of the
    // requests that replace the finished ones, batch / output of them a pass (chunked prefill).
    // What they add is priced at the mean context, as the difference of the two passes.
    if (m.staggered_arrivals && m.batch && output > 1.0) {
        const engine::CostModel& cost = evaluator.cost_model();
        const engine::StepShape decode = engine::decode_shape(cost, batch, prediction.decode.context);
        engine::StepShape replenished = decode;
        replenished += engine::prefill_shape(cost, batch / output, 0.0, prompt);
        step += (evaluator.step_time(replenished) - evaluator.step_time(decode)).value;
    }
    if (m.metric == Metric::decode_tokens_per_s_per_stream) return 1.0 / step;
    if (m.metric == Metric::tpot_s) return step;
    // A measured latency at a stated concurrency: every request of the batch arrived together
    // (the benchmark clients these rows come from start them at once), so the first token waits
    // for the whole batch's prefill; in a closed loop whose requests arrive as others finish
    // ("arrivals=staggered"), a first token waits for its own prefill.
    const double batch_prefill = prediction.batch_prefill.time.value;
    const double first_token = m.staggered_arrivals ? evaluator.prefill(1.0, prompt).time.value : batch_prefill;
    if (m.metric == Metric::ttft_s) return first_token;
    if (m.metric == Metric::e2e_latency_s) return first_token + output * step;
    // A stated concurrency: the generation rate over the batch, unless the row timed the whole run.
    if (m.batch && !m.whole_run_throughput) return batch / step;
    // Offline, or a static batch timed whole: output tokens over the time to prefill and decode it.
    return batch * output / engine::whole_run_time(prediction, output).value;
}

}  // namespace

Split split_of(const std::string& hardware_id) {
    std::uint32_t hash = 2166136261u;
    for (unsigned char c : hardware_id) {
        hash ^= c;
        hash *= 16777619u;
    }
    return hash % 2 == 1 ? Split::test : Split::train;
}

const char* split_name(Split split) { return split == Split::test ? "test" : "train"; }

std::string source_key(std::string_view source) {
    const std::size_t end = std::min(source.find(" ("), source.find(';'));
    std::string_view key = source.substr(0, end);
    while (!key.empty() && (key.back() == ' ' || key.back() == ',')) key.remove_suffix(1);
    return std::string(key);
}

engine::DeploymentChoice stated_deployment(const profiles::Measurement& m,
                                           std::shared_ptr<const engine::RuntimeProfile> runtime) {
    engine::DeploymentChoice choice;
    // The same names, and messages, as the --weights and --kv flags.
    choice.weights = &core::named_or_throw(core::weight_formats(), m.weights, "--weights", "format");
    if (!m.kv.empty()) choice.kv = &core::named_or_throw(core::kv_formats(), m.kv, "--kv", "format");
    choice.runtime = std::move(runtime);
    // The stated split: pipeline stages, or attention replicas (each over devices / replicas),
    // with the routed experts over `ep` of the devices (engine::Parallelism).
    if (m.layer_split) {
        choice.parallelism.pipeline = m.devices;
    } else {
        choice.parallelism.attention_data = m.attention_data_parallel;
        choice.parallelism.tensor = m.devices / m.attention_data_parallel;
    }
    choice.parallelism.expert = m.expert_parallel;
    choice.backend = m.backend;
    // Flash attention as the run stated it; unstated: the runtime build's default.
    if (m.flash_attention) {
        choice.attention = *m.flash_attention ? engine::AttentionKernels::fused : engine::AttentionKernels::unfused;
    }
    choice.in_process = m.in_process;
    choice.cuda_graphs_off = m.eager_launch;
    // Each row at the clocks its benchmark ran at (profiles/measurement.hpp).
    choice.clocks.condition = m.sustained_clocks ? engine::ClockCondition::sustained : engine::ClockCondition::peak;
    return choice;
}

std::string unsupported_reason(const profiles::Measurement& m) {
    if (m.weights.empty()) return "weight precision not stated";
    if (m.replayed()) {
        if (!m.prompt || !m.output) return "a serving run without fixed prompt and output lengths";
        if (m.metric == Metric::prefill_tokens_per_s) return "prefill in a serving run";
        if (m.closed_loop && (!m.batch || *m.batch < 1.0 || *m.batch > static_cast<double>(profiles::kMaxReplayedClients))) {
            return "a closed loop without 1 to 100,000 clients";
        }
        // Every token is simulated, in every fit fold that predicts the row: the published serving
        // runs hold 0.3 to 4 million tokens; this bound keeps a hostile row to seconds.
        const double tokens = static_cast<double>(m.requests.value_or(kReplayedRequests)) * (*m.prompt + *m.output);
        if (tokens > kReplayTokenBudget) {
            return fmt::format("a request-rate replay of {:.3g} tokens, over the {:.0e}-token bound", tokens, kReplayTokenBudget);
        }
        return {};
    }
    if (profiles::metric_info(m.metric).lower_is_better && !m.batch) {
        return "latency without a stated concurrency";
    }
    if (m.metric == Metric::prefill_tokens_per_s && !m.prompt) return "prefill without a prompt length";
    if (!m.output && !m.context && m.metric != Metric::prefill_tokens_per_s) return "no output length or context stated";
    return {};
}

PhysicalBound physical_bound(const profiles::Measurement& m, const profiles::ModelProfile& model,
                             const profiles::HardwareProfile& hardware, const engine::Deployment& deployment) {
    PhysicalBound bound;
    bound.figure = figure_of(m, engine::Evaluator(model, hardware, deployment, engine::ideal_efficiency()));
    // A replayed serving run is one draw of random arrivals, as the measured run was another: N
    // Poisson arrivals fix the offered load only to within 1/sqrt(N) of the window, so a row
    // beats the ideal replay only by more than three of those.
    const double slack = m.replayed() ? 3.0 / std::sqrt(static_cast<double>(m.requests.value_or(kReplayedRequests))) : 1e-9;
    // In a closed loop the ideal replay bounds throughput and TPOT, not TTFT: its faster passes
    // return the clients' responses sooner and together, so their next prompts queue behind each
    // other more, not less. No closed-loop TTFT is said to beat it.
    const bool bounded = !(m.closed_loop && m.metric == profiles::Metric::ttft_s);
    bound.beaten = bounded && (profiles::metric_info(m.metric).lower_is_better ? m.value < bound.figure * (1.0 - slack)
                                                                               : m.value > bound.figure * (1.0 + slack));
    return bound;
}

double predict_measurement(const profiles::Measurement& m, const profiles::ModelProfile& model,
                           const profiles::HardwareProfile& hardware, const engine::Deployment& deployment,
                           const engine::RuntimeProfile& preset, const engine::CostModel* cost) {
    const auto evaluate = [&](const engine::RuntimeProfile& factors) {
        const engine::Efficiency efficiency = engine::runtime_efficiency(hardware, factors, deployment.backend);
        return cost ? figure_of(m, engine::Evaluator(model, hardware, deployment, efficiency, *cost))
                    : figure_of(m, engine::Evaluator(model, hardware, deployment, efficiency));
    };
    // A row's build that states factors of its own keeps them under another build's preset (its
    // group's, as a fit searches it); under its own (a refit of that build, as calibrate runs it)
    // the preset's factors are the ones being tried.
    const engine::RuntimeProfile& own = deployment.runtime_profile();
    const auto family = static_cast<std::size_t>(hardware.memory_family);
    if (own.own_factors[family] == 0 || own.id == preset.id) return evaluate(preset);
    engine::RuntimeProfile merged = preset;
    merged.by_family[family] = profiles::with_own_factors(own, hardware.memory_family, preset.by_family[family]);
    return evaluate(merged);
}

std::vector<SubsetSummary> summarize(const std::vector<AccuracyRow>& rows,
                                     const std::function<std::string(const AccuracyRow&)>& key) {
    std::map<std::string, std::vector<const AccuracyRow*>> groups;
    for (const auto& row : rows) {
        if (row.skipped.empty()) groups[key(row)].push_back(&row);
    }
    std::vector<SubsetSummary> summaries;
    for (const auto& [name, members] : groups) {
        SubsetSummary summary;
        summary.name = name;
        summary.rows = static_cast<int>(members.size());
        std::vector<double> absolute, signed_errors;
        double sum = 0.0;
        for (const AccuracyRow* row : members) {
            absolute.push_back(std::fabs(row->error));
            signed_errors.push_back(row->error);
            sum += std::fabs(row->error);
            summary.beats_bound += row->beats_bound ? 1 : 0;
        }
        summary.median_absolute_error = core::median(absolute);
        summary.mean_absolute_error = sum / static_cast<double>(members.size());
        summary.median_signed_error = core::median(signed_errors);
        summaries.push_back(summary);
    }
    return summaries;
}

double median_absolute_error(const std::vector<AccuracyRow>& rows, const std::function<bool(const AccuracyRow&)>& filter) {
    std::vector<double> values;
    for (const auto& row : rows) {
        if (row.skipped.empty() && filter(row)) values.push_back(std::fabs(row.error));
    }
    return core::median(values);
}

}  // namespace decodesim::fit
