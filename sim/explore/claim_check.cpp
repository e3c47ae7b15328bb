#include "explore/claim_check.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>

#include "core/quantization.hpp"
#include "core/registry.hpp"
#include "core/search.hpp"

namespace decodesim::explore {

namespace {

constexpr double kDefaultContext = 1024.0;

// Weight formats from widest to narrowest, for "the claim needs at most N bits".
constexpr std::array kPrecisionLadder{"bf16", "fp8", "q6_k", "q5_k_m", "q4_k_m", "int4", "q4_0", "q2_k"};

engine::Workload workload_of(const Claim& claim, double batch, std::optional<double> context_override) {
    if (claim.prompt && !context_override) return engine::Workload::request(batch, *claim.prompt, claim.output.value_or(1.0));
    return engine::Workload::step(batch, context_override.value_or(claim.context.value_or(kDefaultContext)));
}

// The claim's kind of figure at a batch and (optionally) a context or prompt: the roofline bound
// or the prediction.
enum class Figure { bound, predicted };

double figure_of(const engine::Evaluator& evaluator, const Claim& claim, double batch,
                 std::optional<double> context_override, Figure figure) {
    if (claim.prefill) {
        const double prompt = context_override.value_or(claim.prompt.value_or(claim.context.value_or(kDefaultContext)));
        const engine::PrefillResult prefill = evaluator.prefill(batch, prompt);
        const core::Seconds time = figure == Figure::bound ? prefill.roofline_time : prefill.time;
        return batch * prompt / time.value;
    }
    const engine::Prediction prediction = evaluator.predict(workload_of(claim, batch, context_override));
    const engine::DecodeResult& decode = prediction.decode;
    if (claim.whole_run && prediction.request) {
        const double output = prediction.request->output;
        return batch * output / engine::whole_run_time(prediction, output, figure == Figure::bound).value;
    }
    if (figure == Figure::bound) {
        return claim.per_stream ? decode.roofline_tokens_per_s_per_stream : decode.roofline_tokens_per_s_total;
    }
    return claim.per_stream ? decode.tokens_per_s_per_stream : decode.tokens_per_s_total;
}

// The conditions that, alone, bring the bound under `evaluator` up to the claim; the notes say
// which, prefixed by `with` when this evaluator already carries a condition (a narrower format).
struct SpeculationNeed {
    int length = 0;
    double acceptance = 0.0;
};

struct Found {
    std::optional<long long> min_batch;
    std::optional<bool> min_batch_fits;
    std::optional<double> max_context;
    std::optional<SpeculationNeed> speculative;
    bool any() const { return min_batch.has_value() || max_context.has_value() || speculative.has_value(); }
};

// The draft length whose roofline reaches a per-stream claim with the lowest acceptance rate, with
// the cheapest drafter (the model's own multi-token-prediction module), at the claim's workload.
std::optional<SpeculationNeed> speculation_needed(const engine::Evaluator& evaluator, const Claim& claim, double batch) {
    const engine::Workload workload = workload_of(claim, batch, std::nullopt);
    const double context = workload.is_request() ? *workload.prompt + workload.output.value_or(1.0) / 2.0 : workload.context;
    std::optional<SpeculationNeed> best;
    for (int length = 1; length <= kMaxSearchedDraftLength; ++length) {
        // At acceptance 1 every step yields length + 1 tokens, which gives the step's roofline time.
        const engine::SpeculativeResult sure =
            engine::speculative_decode(evaluator, nullptr, engine::Speculation{length, 1.0, true}, batch, context);
        const core::Seconds step((length + 1.0) / sure.roofline_tokens_per_s_per_stream);
        const std::optional<double> needed = engine::acceptance_needed(length, step, claim.tokens_per_s);
        if (needed && (!best || *needed < best->acceptance)) best = SpeculationNeed{length, *needed};
    }
    if (!best || best->acceptance > kMaxPublishedAcceptance) return std::nullopt;
    return best;
}

Found search_workload(const engine::Evaluator& evaluator, const Claim& claim, double batch) {
    Found found;
    auto reaches = [&](double at_batch, std::optional<double> context) {
        return figure_of(evaluator, claim, at_batch, context, Figure::bound) >= claim.tokens_per_s;
    };
    if (!claim.per_stream && !claim.batch) {
        found.min_batch = core::first_true(1, 1LL << 24, [&](long long b) { return reaches(static_cast<double>(b), std::nullopt); });
        if (found.min_batch) {
            const double at = static_cast<double>(*found.min_batch);
            found.min_batch_fits =
                evaluator.predict(claim.prefill ? engine::Workload::step(at, claim.prompt.value_or(claim.context.value_or(kDefaultContext)))
                                                : workload_of(claim, at, std::nullopt))
                    .memory.fits;
        }
    }
    if (!claim.context && !claim.prompt) {
        if (const auto longest = core::last_true(1, static_cast<long long>(kDefaultContext),
                                           [&](long long context) { return reaches(batch, static_cast<double>(context)); })) {
            found.max_context = static_cast<double>(*longest);
        }
    }
    if (claim.per_stream && !claim.prefill) found.speculative = speculation_needed(evaluator, claim, batch);
    return found;
}

// The point's deployment with another weight format and clocks, and (set) another tensor-parallel
// degree.
engine::Evaluator evaluator_with(const engine::OperatingPoint& point, const core::WeightFormat* weights,
                                 engine::ClockChoice clocks, std::optional<int> tensor_parallel = std::nullopt) {
    const engine::Deployment& deployment = point.deployment;
    engine::Parallelism parallelism = deployment.parallelism;
    if (tensor_parallel) parallelism.tensor = *tensor_parallel;
    // Resolved afresh: a narrower format may change the activation datatype (GGUF runs in fp16).
    const engine::DeploymentChoice choice{weights, deployment.kv, std::nullopt, deployment.runtime, deployment.backend,
                                          parallelism, clocks, deployment.kv_offload, {},
                                          deployment.attention};
    return engine::Evaluator(point.model, point.hardware, engine::resolve_deployment(point.hardware, point.model, choice));
}

// What makes `batch` streams of the claim's workload fit when they do not on the point's own
// deployment: the fewest devices (tensor parallelism, powers of two) with the same format, and the
// widest narrower format on the stated devices (only where the claim named no precision).
struct MemoryFix {
    std::optional<int> devices;
    const core::WeightFormat* weights = nullptr;
};

bool fits_with(const engine::OperatingPoint& point, const core::WeightFormat* weights, int tensor_parallel,
               const engine::Workload& workload) {
    try {
        return evaluator_with(point, weights, point.deployment.clocks.choice, tensor_parallel)
            .predict(workload, engine::Detail::figures)
            .memory.fits;
    } catch (const core::InputError&) {
        return false;  // a degree the model's heads or the device's links do not allow
    }
}

MemoryFix memory_fix(const engine::OperatingPoint& point, const Claim& claim, const engine::Workload& workload) {
    MemoryFix fix;
    const engine::Deployment& deployment = point.deployment;
    for (int tp = deployment.parallelism.tensor * 2; tp <= kMaxClaimDevices; tp *= 2) {
        if (fits_with(point, deployment.weights, tp, workload)) {
            fix.devices = tp;
            break;
        }
    }
    for (const char* name : kPrecisionLadder) {
        if (claim.weights_stated) break;
        const core::WeightFormat* format = core::find_named(core::weight_formats(), name);
        if (format->bits_per_weight >= deployment.weights->bits_per_weight) continue;
        if (fits_with(point, format, deployment.parallelism.tensor, workload)) {
            fix.weights = format;
            break;
        }
    }
    return fix;
}

// "tensor parallelism 2 (2 devices) or fp8 weights", or "" when neither helps.
std::string describe_fix(const MemoryFix& fix) {
    std::vector<std::string> ways;
    if (fix.devices) ways.push_back(fmt::format("tensor parallelism {} ({} devices)", *fix.devices, *fix.devices));
    if (fix.weights) ways.push_back(fmt::format("{} weights", fix.weights->name));
    return fmt::format("{}", fmt::join(ways, " or "));
}

}  // namespace

const char* claim_kind(const Claim& claim) {
    if (claim.whole_run) return "in total over the whole run";
    return claim.prefill ? "of prefill" : claim.per_stream ? "per stream" : "in total";
}

engine::Workload stated_workload(const Claim& claim) { return workload_of(claim, claim.batch.value_or(1.0), std::nullopt); }

ClaimCheck check_claim(const engine::OperatingPoint& point, const Claim& claim) {
    const profiles::HardwareProfile& hardware = point.hardware;
    const engine::Deployment& deployment = point.deployment;
    const engine::Evaluator evaluator(point);
    ClaimCheck check;
    check.batch = claim.batch.value_or(1.0);
    const engine::Prediction stated = evaluator.predict(workload_of(claim, check.batch, std::nullopt));
    check.context = stated.decode.context;
    if (stated.request) {
        // A static batch timed whole ends when the batch's last token does: its prompts prefilled
        // together, then its steps; otherwise one request's own prefill and steps.
        check.time_to_last_token =
            claim.whole_run ? engine::whole_run_time(stated, stated.request->output) : stated.request->end_to_end;
    }
    check.bound_tokens_per_s = figure_of(evaluator, claim, check.batch, std::nullopt, Figure::bound);
    check.predicted_tokens_per_s = figure_of(evaluator, claim, check.batch, std::nullopt, Figure::predicted);
    if (!claim.prefill) {
        const double steps_per_s = claim.per_stream ? claim.tokens_per_s : claim.tokens_per_s / check.batch;
        check.implied_bandwidth_utilization =
            (stated.decode.bytes_per_step.value * steps_per_s) / hardware.memory_bandwidth.value;
    }
    check.speedup_needed = claim.tokens_per_s / check.bound_tokens_per_s;
    const bool at_peak_already = deployment.clocks.choice.condition == engine::ClockCondition::peak;
    check.predicted_at_peak_tokens_per_s =
        at_peak_already ? check.predicted_tokens_per_s
                        : figure_of(evaluator_with(point, deployment.weights, {engine::ClockCondition::peak, std::nullopt}),
                                    claim, check.batch, std::nullopt, Figure::predicted);

    if (!claim.batch) check.notes.push_back(fmt::format("no concurrency stated: evaluated at batch {:.0f}", check.batch));
    if (!claim.context && !claim.prompt) {
        check.notes.push_back(fmt::format("no {} stated: evaluated at {:.0f} tokens", claim.prefill ? "prompt" : "context",
                                          kDefaultContext));
    }

    // Memory first: a figure for a workload that does not fit is no figure of this deployment.
    check.fits = stated.memory.fits;
    if (!check.fits) {
        const MemoryFix fix = memory_fix(point, claim, workload_of(claim, check.batch, std::nullopt));
        check.devices_to_fit = fix.devices;
        if (fix.weights) check.weights_to_fit = std::string(fix.weights->name);
        const std::string ways = describe_fix(fix);
        check.notes.push_back(fmt::format("memory: the workload as stated does not fit ({}); {}",
                                          engine::memory_problem(stated.memory, check.batch).value_or("see the warning"),
                                          ways.empty() ? fmt::format("nothing up to {} devices or a narrower format makes it fit",
                                                                     kMaxClaimDevices)
                                                       : "it fits with " + ways));
    }

    if (claim.tokens_per_s <= check.bound_tokens_per_s) {
        check.verdict = claim.tokens_per_s < kConservativeFraction * check.predicted_tokens_per_s ? Verdict::conservative
                                                                                                 : Verdict::plausible;
        if (claim.tokens_per_s > check.predicted_tokens_per_s && claim.tokens_per_s <= check.predicted_at_peak_tokens_per_s) {
            check.needs_peak_clocks = true;
            check.notes.push_back(fmt::format(
                "peak clocks: at the sustained clock ({:.0f}% of the peak on {}) decodesim predicts {:.4g} tokens/s {}, at peak "
                "clocks {:.4g}; the claim needs a short run on a cool device, not hours of load at the default power",
                deployment.clocks.compute_share * 100.0, hardware.name, check.predicted_tokens_per_s, claim_kind(claim),
                check.predicted_at_peak_tokens_per_s));
        } else if (claim.tokens_per_s > check.predicted_at_peak_tokens_per_s) {
            check.notes.push_back(fmt::format(
                "above what decodesim predicts even at peak clocks ({:.4g} tokens/s {}): it needs a software stack faster than "
                "the {} preset",
                check.predicted_at_peak_tokens_per_s, claim_kind(claim), engine::runtime_label(deployment)));
        }
        const double achievable = engine::deployment_efficiency(hardware, deployment).memory_bandwidth;
        if (!claim.prefill && check.implied_bandwidth_utilization > achievable) {
            check.notes.push_back(fmt::format(
                "it implies {:.0f}% of peak memory bandwidth, above the {:.0f}% that copy benchmarks reach on this "
                "memory: possible only with an exceptional software stack",
                100.0 * check.implied_bandwidth_utilization,
                100.0 * achievable));
        }
        // Within physics only on a deployment that holds it: more devices or a narrower format
        // are conditions the claim did not state, and with neither it cannot run at all.
        if (!check.fits) {
            check.verdict = check.devices_to_fit || check.weights_to_fit ? Verdict::needs_conditions : Verdict::impossible;
        }
        return check;
    }

    // Above the bound under the stated conditions: look for the hidden ones, each alone first.
    const Found alone = search_workload(evaluator, claim, check.batch);
    check.min_batch = alone.min_batch;
    check.min_batch_fits = alone.min_batch_fits;
    check.max_context = alone.max_context;
    check.speculative_decoding_could_explain = alone.speculative.has_value();
    if (alone.speculative) {
        check.speculation_length = alone.speculative->length;
        check.acceptance_needed = alone.speculative->acceptance;
    }
    // A batch that does not fit explains the claim only on a deployment that holds it.
    bool batch_explains = alone.min_batch.has_value();
    if (alone.min_batch) {
        std::string where = ", which fit in memory";
        if (!alone.min_batch_fits.value_or(false)) {
            const MemoryFix fix = memory_fix(point, claim, workload_of(claim, static_cast<double>(*alone.min_batch), std::nullopt));
            const std::string ways = describe_fix(fix);
            batch_explains = !ways.empty();
            where = ways.empty() ? fmt::format(", which do not fit in memory even on {} devices", kMaxClaimDevices)
                                 : ", which do not fit in memory as stated; they fit with " + ways;
            if (!check.devices_to_fit) check.devices_to_fit = fix.devices;
            if (!check.weights_to_fit && fix.weights) check.weights_to_fit = std::string(fix.weights->name);
        }
        check.notes.push_back(fmt::format("batching: needs at least {} concurrent streams{}", *alone.min_batch, where));
    }
    if (alone.max_context) {
        check.notes.push_back(fmt::format("short {}: possible only up to {:.0f} tokens", claim.prefill ? "prompt" : "context",
                                          *alone.max_context));
    }
    std::vector<const core::WeightFormat*> narrower;
    for (const char* name : kPrecisionLadder) {
        if (claim.weights_stated) break;  // a claim that names its precision cannot hide a lower one
        const core::WeightFormat* format = core::find_named(core::weight_formats(), name);
        if (format->bits_per_weight < deployment.weights->bits_per_weight) narrower.push_back(format);
    }
    for (const core::WeightFormat* format : narrower) {
        const engine::Evaluator with_format = evaluator_with(point, format, deployment.clocks.choice);
        if (figure_of(with_format, claim, check.batch, std::nullopt, Figure::bound) >= claim.tokens_per_s) {
            check.precision_needed = std::string(format->name);
            check.notes.push_back(fmt::format("lower precision: possible with {} weights", format->name));
            break;
        }
    }
    if (alone.speculative) {
        check.notes.push_back(fmt::format(
            "speculative decoding: {} draft tokens per step from a one-layer drafter (multi-token prediction) would "
            "explain it if each is accepted at least {:.0f}% of the time (published: up to 90%)",
            alone.speculative->length, alone.speculative->acceptance * 100.0));
    }
    bool explained = batch_explains || alone.max_context.has_value() || alone.speculative.has_value() ||
                     check.precision_needed.has_value();
    // None alone: a narrower format together with a workload condition, the widest format first.
    for (std::size_t i = 0; !explained && i < narrower.size(); ++i) {
        const engine::Evaluator with_format = evaluator_with(point, narrower[i], deployment.clocks.choice);
        const Found together = search_workload(with_format, claim, check.batch);
        if (!together.any()) continue;
        explained = true;
        check.combination.push_back(fmt::format("{} weights", narrower[i]->name));
        if (together.min_batch) {
            check.combination.push_back(fmt::format("at least {} concurrent streams{}", *together.min_batch,
                                                    together.min_batch_fits.value_or(false) ? "" : " (which do NOT fit in memory)"));
        } else if (together.max_context) {
            check.combination.push_back(fmt::format("at most {:.0f} tokens of {}", *together.max_context,
                                                    claim.prefill ? "prompt" : "context"));
        } else {
            check.combination.push_back(fmt::format("speculative decoding of {} draft tokens accepted at least {:.0f}% "
                                                    "of the time",
                                                    together.speculative->length, together.speculative->acceptance * 100.0));
        }
        check.notes.push_back(fmt::format("together: {}", fmt::join(check.combination, " and ")));
    }
    check.verdict = explained ? Verdict::needs_conditions : Verdict::impossible;
    return check;
}

}  // namespace decodesim::explore
