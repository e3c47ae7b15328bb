#include "engine/speculative.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/search.hpp"
#include "core/error.hpp"
#include "engine/prediction.hpp"

namespace decodesim::engine {

double expected_tokens_per_verification(int length, double acceptance) {
    if (acceptance >= 1.0) return length + 1.0;
    return (1.0 - std::pow(acceptance, length + 1.0)) / (1.0 - acceptance);
}

std::optional<double> acceptance_for_tokens_per_verification(int length, double tokens) {
    if (length < 1 || !(tokens >= 1.0) || tokens > length + 1.0) return std::nullopt;
    // Every draft accepted: the closed form loses its last digits as a nears 1, so state the end.
    if (tokens == length + 1.0) return 1.0;
    // E(a) rises monotonically from 1 to k + 1 on [0, 1]: bisect.
    return core::bisect(0.0, 1.0, [&](double acceptance) {
        return expected_tokens_per_verification(length, acceptance) < tokens;
    }).high;
}

StepShape verification_shape(const CostModel& cost, int length, double batch, double context) {
    StepShape shape = prefill_shape(cost, batch, context, length + 1.0, true);
    shape.logits = batch * (length + 1.0);
    shape.verified_tokens = shape.prefill_tokens;
    return shape;
}

namespace {

// One draft token from the model's multi-token-prediction module: one of its layers (the mean
// layer's share of a decode step without embedding and head) plus the output head.
core::Seconds multi_token_head_time(const Evaluator& target, double batch, double context, bool roofline) {
    const StepTime step = roofline ? target.roofline_decode_step(batch, context) : target.decode_step(batch, context);
    const core::Seconds head = step.operators[index_of(OperatorKind::lm_head)].time;
    const core::Seconds embedding = step.operators[index_of(OperatorKind::embedding)].time;
    const double layers = target.cost_model().layers;
    return (step.totals.time - head - embedding) / layers + head;
}

core::Seconds draft_step(const Evaluator& target, const Evaluator* draft, double batch, double context, bool roofline) {
    if (draft == nullptr) return multi_token_head_time(target, batch, context, roofline);
    return roofline ? draft->roofline_decode_step(batch, context).totals.time : draft->decode_step_time(batch, context);
}

// The draft proposes token i at context + i - 1: the mean of the round's contexts.
double mean_draft_context(int length, double context) { return context + (length - 1.0) / 2.0; }

}  // namespace

core::Seconds draft_round_time(const Evaluator& target, const Evaluator* draft, int length, double batch,
                               double context) {
    return draft_step(target, draft, batch, mean_draft_context(length, context), false) * length;
}

core::Seconds round_host_time(const Evaluator& target) {
    return target.deployment().runtime_profile().speculation.host_time;
}

core::Seconds round_time_beside_verification(const Evaluator& target, const Evaluator* draft, int length, double batch,
                                             double context) {
    return draft_round_time(target, draft, length, batch, context) + round_host_time(target);
}

SpeculativeResult speculative_decode(const Evaluator& target, const Evaluator* draft, const Speculation& speculation,
                                     double batch, double context) {
    SpeculativeResult result;
    result.length = speculation.length;
    result.acceptance = speculation.acceptance;
    result.tokens_per_step = expected_tokens_per_verification(speculation.length, speculation.acceptance);

    const StepShape shape = verification_shape(target.cost_model(), speculation.length, batch, context);
    const StepCosts costs = step_costs(target.cost_model(), shape);
    const auto [verify, roofline_verify] = step_totals(costs, target.rates(), target.roofline_rates());
    result.verify_time = verify.time;
    result.verify_bound = verify.bound;
    const double bytes = costs.total_bytes().value;
    result.verify_arithmetic_intensity = bytes > 0.0 ? costs.total_flops().value / bytes : 0.0;
    result.draft_time = draft_round_time(target, draft, speculation.length, batch, context);
    result.host_time = round_host_time(target);
    result.step_time = result.draft_time + result.verify_time + result.host_time;
    result.tokens_per_s_per_stream = result.tokens_per_step / result.step_time.value;
    result.tokens_per_s_total = result.tokens_per_s_per_stream * batch;
    result.speedup = result.tokens_per_s_per_stream * target.decode_step_time(batch, context).value;
    const core::Seconds roofline_step =
        draft_step(target, draft, batch, mean_draft_context(speculation.length, context), true) * speculation.length +
        roofline_verify.time;
    result.roofline_tokens_per_s_per_stream = result.tokens_per_step / roofline_step.value;
    return result;
}

std::optional<double> acceptance_needed(int length, core::Seconds step_time, double tokens_per_s_per_stream) {
    const double needed = tokens_per_s_per_stream * step_time.value;  // tokens per verification step
    if (needed <= 1.0) return 0.0;
    return acceptance_for_tokens_per_verification(length, needed);
}

Deployment draft_deployment(const Deployment& target, const profiles::ModelProfile& draft) {
    Deployment deployment = target;
    deployment.speculation = {};
    deployment.kv_offload = false;
    deployment.parallelism = {};
    const int tp = target.parallelism.tensor;
    const bool splits = draft.num_attention_heads % tp == 0 &&
                        (draft.mla || draft.num_key_value_heads % tp == 0 || tp % draft.num_key_value_heads == 0);
    if (splits) deployment.parallelism.tensor = tp;
    return deployment;
}

void validate_speculation(const OperatingPoint& point) {
    const Speculation& speculation = point.deployment.speculation;
    if (!speculation.enabled()) return;
    auto refuse = [](const char* key, const std::string& message) {
        throw core::InputError(core::unlocated(key, message));
    };
    if (!(speculation.acceptance >= 0.0 && speculation.acceptance <= 1.0)) {
        refuse("acceptance", fmt::format("expected a probability from 0 to 1, found {}", speculation.acceptance));
    }
    if (speculation.multi_token_heads) return;
    if (!point.draft) refuse("draft", "speculative decoding needs a draft model or --draft mtp");
    if (point.draft->vocab_size != point.model.vocab_size) {
        refuse("draft", fmt::format("the draft {} has a vocabulary of {} tokens and {} one of {}: a draft must share the "
                                    "model's tokenizer",
                                    point.draft->name, point.draft->vocab_size, point.model.name, point.model.vocab_size));
    }
}

}  // namespace decodesim::engine
