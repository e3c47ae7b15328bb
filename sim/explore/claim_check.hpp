#pragma once
// "Is this vendor number real?": a claimed tokens/s against the physical ceiling under the stated
// conditions, and the hidden conditions that would make it possible.

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "core/enum_names.hpp"
#include "engine/prediction.hpp"

namespace decodesim::explore {

enum class Verdict { impossible, needs_conditions, plausible, conservative };
inline constexpr std::array<core::NamedValue<Verdict>, 4> kVerdictNames{{{Verdict::impossible, "impossible"},
                                                                        {Verdict::needs_conditions, "needs-conditions"},
                                                                        {Verdict::plausible, "plausible"},
                                                                        {Verdict::conservative, "conservative"}}};
inline std::string verdict_name(Verdict verdict) { return std::string(core::name_of(kVerdictNames, verdict)); }

struct Claim {
    double tokens_per_s = 0.0;
    bool per_stream = true;                // false: total over all streams
    bool prefill = false;                  // a prompt-processing rate: prompt tokens over the batch's prefill time
    std::optional<double> batch;           // stated concurrency
    std::optional<double> context;         // stated context ...
    std::optional<double> prompt;          // ... or stated request
    std::optional<double> output;
    // A total over a static batch timed whole (TensorRT-LLM's gptSessionBenchmark tables, Intel's
    // Gaudi tables): batch x output over the batch's prefill and its decode steps together, not
    // the decode passes' rate. Needs a stated request (prompt and output) and a total.
    bool whole_run = false;
    bool weights_stated = false;           // whether the claim named its precision
};

struct ClaimCheck {
    Verdict verdict = Verdict::plausible;
    double batch = 1.0;                     // evaluated at
    double context = 0.0;                   // evaluated decode context
    double bound_tokens_per_s = 0.0;        // roofline, same kind (per stream or total) as the claim
    double predicted_tokens_per_s = 0.0;
    std::optional<core::Seconds> time_to_last_token;  // of a stated request (--prompt/--output), predicted
    double implied_bandwidth_utilization = 0.0;  // bytes per step x steps per second / peak bandwidth
    double speedup_needed = 0.0;            // claim / bound
    // Conditions that would bring the bound up to the claim (each alone).
    std::optional<long long> min_batch;
    std::optional<bool> min_batch_fits;
    std::optional<double> max_context;
    std::optional<std::string> precision_needed;  // the widest weight format under which it fits
    bool speculative_decoding_could_explain = false;
    // The speculation that would: the draft length needing the lowest acceptance rate with the
    // cheapest drafter (a multi-token-prediction module: one layer and the head), at the roofline.
    std::optional<int> speculation_length;
    std::optional<double> acceptance_needed;
    // Conditions needed together when none explains the claim alone ("fp8 weights", "batch >= 64").
    std::vector<std::string> combination;
    // The clock condition: what the deployment predicts at peak clocks, and whether the claim needs
    // them (it is above the prediction at the deployment's sustained clocks and within the one at
    // peak clocks).
    double predicted_at_peak_tokens_per_s = 0.0;
    bool needs_peak_clocks = false;
    // Memory: whether the evaluated workload fits on the stated deployment, and what would make a
    // workload that does not fit (the stated one, or the batch a total claim needs) fit: the
    // fewest devices (tensor parallelism, same format) and, where the claim named no precision,
    // the widest narrower weight format on the stated devices.
    bool fits = true;
    std::optional<int> devices_to_fit;
    std::optional<std::string> weights_to_fit;
    std::vector<std::string> notes;         // plain-language conditions and assumptions
};

// The most devices the memory condition proposes (tensor parallelism 2, 4, ... up to this).
inline constexpr int kMaxClaimDevices = 64;

// The highest per-token acceptance rate published for a drafter: DeepSeek-V3's multi-token
// prediction accepts its second token 85% to 90% of the time (arXiv 2412.19437, section 5.4.3). A
// per-stream claim that speculation explains only above this rate is not explained by it.
inline constexpr double kMaxPublishedAcceptance = 0.90;
// Draft lengths searched (vLLM and SGLang deployments use 1 to 8).
inline constexpr int kMaxSearchedDraftLength = 8;

// Fraction of the prediction below which a claim is conservative.
inline constexpr double kConservativeFraction = 0.8;

// Evaluates `claim` for a model on a device. Unstated conditions are searched: the smallest batch
// (total claims), the largest context (or prompt, for prefill claims), the widest weight format
// (when the claim named none) and speculative decoding (per-stream claims), each alone and, when
// none explains it alone, each with a narrower format; and the clock condition: a claim within
// the physical bound but above the prediction at sustained clocks may need peak clocks.
// Default context (or prompt) when none is stated: 1024 tokens.
// The workload a claim states, with the defaults for what it leaves out (batch 1, 1024 tokens).
// What the claimed figure counts, after "tokens/s": "per stream", "in total", "in total over the
// whole run" or "of prefill"; the one wording of the notes and the report.
const char* claim_kind(const Claim& claim);
engine::Workload stated_workload(const Claim& claim);

// The point's workload is ignored: the claim states its own conditions.
ClaimCheck check_claim(const engine::OperatingPoint& point, const Claim& claim);

}  // namespace decodesim::explore
