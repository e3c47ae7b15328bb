#pragma once
// Speculative decoding on the engine's step model. A drafter proposes k tokens; the model checks
// them in one forward pass over k + 1 positions per sequence (a prefill chunk of k + 1 tokens after
// the context, priced by the one cost function), and keeps the accepted prefix plus one token of
// its own. With each draft token accepted with probability a given its predecessors, the expected
// tokens per verification step are (1 - a^(k+1)) / (1 - a) (Leviathan, Kalman and Matias 2023,
// eq. 1; Chen et al. 2023). The drafter is a draft model on the same devices, or the model's own
// multi-token-prediction module (DeepSeek-V3 section 2.2: one transformer block sharing the
// embedding and output head). Equations: docs/model.md, "Speculative decoding".

#include "engine/cost_model.hpp"
#include "engine/operating_point.hpp"
#include "engine/roofline.hpp"

namespace decodesim::engine {

class Evaluator;

// Expected tokens each verification step yields: (1 - a^(k+1)) / (1 - a), k + 1 when a = 1.
double expected_tokens_per_verification(int length, double acceptance);

// Its inverse: the acceptance a at which speculation of `length` yields `tokens` a verification
// step, the mean a serving log prints (SGLang's "Accept length", vLLM's "Mean acceptance
// length": accepted drafts plus the step's own token). nullopt outside 1 to length + 1, the
// yields of a = 0 and a = 1.
std::optional<double> acceptance_for_tokens_per_verification(int length, double tokens);

// The verification pass of `length` draft tokens: k + 1 new positions per sequence after
// `context` cached tokens, each needing logits. Added to other shapes, it is priced with them.
StepShape verification_shape(const CostModel& cost, int length, double batch, double context);

// The drafter's share of one speculation round: `length` draft steps for `batch` sequences that
// hold `context` tokens before the round (the draft proposes token i at context + i - 1, priced at
// their mean). `draft`: the draft model's evaluator; null for multi-token-prediction heads.
core::Seconds draft_round_time(const Evaluator& target, const Evaluator* draft, int length, double batch,
                               double context);

// The runtime's host work a round adds on the critical path, outside its passes
// (RuntimeProfile::speculation; 0 where the runtime overlaps it or states none).
core::Seconds round_host_time(const Evaluator& target);

// What a round adds to its verification pass: the drafter's steps and the runtime's host work.
core::Seconds round_time_beside_verification(const Evaluator& target, const Evaluator* draft, int length, double batch,
                                             double context);

struct SpeculativeResult {
    int length = 0;
    double acceptance = 0.0;
    double tokens_per_step = 0.0;   // expected, per sequence
    core::Seconds draft_time;       // k draft steps
    core::Seconds verify_time;      // one pass of k + 1 positions per sequence
    core::Seconds host_time;        // the runtime's host work of the round, not overlapped (round_host_time)
    core::Seconds step_time;        // draft + verify + host
    Bound verify_bound = Bound::memory;
    double verify_arithmetic_intensity = 0.0;  // FLOP per byte of the verification pass
    double tokens_per_s_per_stream = 0.0;
    double tokens_per_s_total = 0.0;
    double speedup = 0.0;           // over plain decoding at the same batch and context
    double roofline_tokens_per_s_per_stream = 0.0;  // datasheet peaks, no overheads, same acceptance
};

// Speculation at `batch` sequences of `context` tokens. `draft`: the draft model's evaluator (null
// for multi-token-prediction heads, priced from the target's own layers).
SpeculativeResult speculative_decode(const Evaluator& target, const Evaluator* draft, const Speculation& speculation,
                                     double batch, double context);

// The acceptance rate at which speculation of `length` reaches `tokens_per_s_per_stream`, given
// the draft and verification times it costs; nullopt when even a = 1 cannot.
std::optional<double> acceptance_needed(int length, core::Seconds step_time, double tokens_per_s_per_stream);

// Throws core::InputError when the point's speculation cannot run (a draft with another
// vocabulary, a length without a drafter).
void validate_speculation(const OperatingPoint& point);

// The deployment a draft model runs with beside the target: the target's formats and runtime, on
// the same devices, tensor-parallel when its heads allow it.
Deployment draft_deployment(const Deployment& target, const profiles::ModelProfile& draft);

}  // namespace decodesim::engine
