#include "scenarios/claim_check.hpp"

#include <fmt/format.h>

#include <array>

#include "core/quantization.hpp"
#include "core/registry.hpp"
#include "scenarios/search.hpp"

namespace decodesim::scenarios {

namespace {

constexpr double kDefaultContext = 1024.0;

// Weight formats from widest to narrowest, for "the claim needs at most N bits".
constexpr std::array kPrecisionLadder{"bf16", "fp8", "q6_k", "q5_k_m", "q4_k_m", "int4", "q4_0", "q2_k"};

engine::Workload workload_of(const Claim& claim, double batch, std::optional<double> context_override) {
    if (claim.prompt && !context_override) return engine::Workload::request(batch, *claim.prompt, claim.output.value_or(1.0));
    return engine::Workload::step(batch, context_override.value_or(claim.context.value_or(kDefaultContext)));
}

double bound_of(const engine::Prediction& prediction, bool per_stream) {
    return per_stream ? prediction.decode.roofline_tokens_per_s_per_stream : prediction.decode.roofline_tokens_per_s_total;
}

}  // namespace

engine::Workload stated_workload(const Claim& claim) { return workload_of(claim, claim.batch.value_or(1.0), std::nullopt); }

const char* verdict_name(Verdict verdict) {
    switch (verdict) {
        case Verdict::impossible: return "impossible";
        case Verdict::needs_conditions: return "needs-conditions";
        case Verdict::plausible: return "plausible";
        case Verdict::conservative: return "conservative";
    }
    return "?";
}

ClaimCheck check_claim(const engine::OperatingPoint& point, const Claim& claim) {
    const profiles::ModelProfile& model = point.model;
    const profiles::HardwareProfile& hardware = point.hardware;
    const engine::Deployment& deployment = point.deployment;
    const engine::Evaluator evaluator(point);
    ClaimCheck check;
    check.batch = claim.batch.value_or(1.0);
    const engine::Prediction stated = evaluator.predict(workload_of(claim, check.batch, std::nullopt));
    check.context = stated.decode.context;
    check.bound_tokens_per_s = bound_of(stated, claim.per_stream);
    check.predicted_tokens_per_s =
        claim.per_stream ? stated.decode.tokens_per_s_per_stream : stated.decode.tokens_per_s_total;
    const double steps_per_s = claim.per_stream ? claim.tokens_per_s : claim.tokens_per_s / check.batch;
    check.implied_bandwidth_utilization = (stated.decode.bytes_per_step.value * steps_per_s) / hardware.memory_bandwidth.value;
    check.speedup_needed = claim.tokens_per_s / check.bound_tokens_per_s;

    if (!claim.batch) check.notes.push_back(fmt::format("no concurrency stated: evaluated at batch {:.0f}", check.batch));
    if (!claim.context && !claim.prompt) {
        check.notes.push_back(fmt::format("no context stated: evaluated at {:.0f} tokens", kDefaultContext));
    }

    if (claim.tokens_per_s <= check.bound_tokens_per_s) {
        check.verdict = claim.tokens_per_s < kConservativeFraction * check.predicted_tokens_per_s ? Verdict::conservative
                                                                                                 : Verdict::plausible;
        const double achievable = engine::default_efficiency(hardware, deployment.runtime).memory_bandwidth;
        if (check.implied_bandwidth_utilization > achievable) {
            check.notes.push_back(fmt::format(
                "it implies {:.0f}% of peak memory bandwidth, above the {:.0f}% that copy benchmarks reach on this "
                "memory: possible only with an exceptional software stack",
                100.0 * check.implied_bandwidth_utilization,
                100.0 * achievable));
        }
        return check;
    }

    // Above the bound under the stated conditions: look for the hidden ones, each alone.
    if (!claim.per_stream && !claim.batch) {
        check.min_batch = first_true(1, 1LL << 24, [&](long long batch) {
            return bound_of(evaluator.predict(workload_of(claim, static_cast<double>(batch), std::nullopt)), false) >=
                   claim.tokens_per_s;
        });
        if (check.min_batch) {
            const auto at_min = evaluator.predict(workload_of(claim, static_cast<double>(*check.min_batch), std::nullopt));
            check.min_batch_fits = at_min.memory.fits;
            check.notes.push_back(fmt::format("batching: needs at least {} concurrent streams{}", *check.min_batch,
                                              at_min.memory.fits ? ", which fit in memory"
                                                                 : ", which do NOT fit in memory"));
        }
    }
    if (!claim.context && !claim.prompt) {
        const double batch = check.batch;
        auto fits_at = [&](long long context) {
            return bound_of(evaluator.predict(workload_of(claim, batch, static_cast<double>(context))), claim.per_stream) >=
                   claim.tokens_per_s;
        };
        if (const auto longest = last_true(1, static_cast<long long>(kDefaultContext), fits_at)) {
            check.max_context = static_cast<double>(*longest);
            check.notes.push_back(fmt::format("short context: possible only up to {} tokens of context", *longest));
        }
    }
    for (const char* name : kPrecisionLadder) {
        if (claim.weights_stated) break;  // a claim that names its precision cannot hide a lower one
        const core::WeightFormat* format = core::find_named(core::weight_formats(), name);
        if (format->bits_per_weight >= deployment.weights->bits_per_weight) continue;
        // Resolved afresh: a narrower format may change the activation datatype (GGUF runs in fp16).
        const engine::DeploymentChoice choice{format, deployment.kv, std::nullopt, deployment.runtime,
                                              deployment.parallelism, deployment.clocks.choice};
        const engine::Evaluator narrower(model, hardware, engine::resolve_deployment(hardware, model, choice));
        if (bound_of(narrower.predict(workload_of(claim, check.batch, std::nullopt)), claim.per_stream) >=
            claim.tokens_per_s) {
            check.precision_needed = std::string(name);
            check.notes.push_back(fmt::format("lower precision: possible with {} weights", name));
            break;
        }
    }
    if (claim.per_stream && check.speedup_needed <= kSpeculativeDecodingFactor) {
        check.speculative_decoding_could_explain = true;
        check.notes.push_back(fmt::format(
            "speculative decoding: a {:.2f}x speedup over plain decoding would explain it (EAGLE-2 reports up to 4.26x)",
            check.speedup_needed));
    }
    const bool explained = check.min_batch.has_value() || check.max_context.has_value() ||
                           check.precision_needed.has_value() || check.speculative_decoding_could_explain;
    check.verdict = explained ? Verdict::needs_conditions : Verdict::impossible;
    return check;
}

}  // namespace decodesim::scenarios
