#pragma once
// The engine's front door: a model on a device under a deployment, evaluated at a workload.
// Every figure comes twice: the roofline bound (datasheet peaks, no overheads: what physics
// allows) and the prediction (the efficiency model applied: what a user will measure).

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/cost_model.hpp"
#include "engine/efficiency.hpp"
#include "engine/memory.hpp"
#include "engine/operating_point.hpp"
#include "engine/roofline.hpp"
#include "engine/speculative.hpp"

namespace decodesim::engine {

struct OperatorReport {
    OperatorKind kind;
    core::Flops flops;
    core::Bytes bytes;
    core::Seconds time;
    Bound bound = Bound::memory;
};

struct DecodeResult {
    double context = 0.0;                  // tokens per sequence (a request: the mean over its decode steps)
    core::Seconds step_time;
    double tokens_per_s_per_stream = 0.0;
    double tokens_per_s_total = 0.0;
    core::Bytes bytes_per_step;
    core::Flops flops_per_step;
    double arithmetic_intensity = 0.0;     // FLOP per byte of device memory traffic
    Bound bound = Bound::memory;
    // Share of predicted step time by limiter; they add to 1.
    double memory_fraction = 0.0, compute_fraction = 0.0, overhead_fraction = 0.0, communication_fraction = 0.0;
    core::Seconds roofline_step_time;
    double roofline_tokens_per_s_per_stream = 0.0;
    double roofline_tokens_per_s_total = 0.0;
    std::vector<OperatorReport> operators;  // predicted, at `context` (a request: its mean context)
};

struct PrefillResult {
    double sequences = 1.0;      // prompts processed together in one forward pass
    double prompt_tokens = 0.0;  // per sequence
    double cached_tokens = 0.0;  // of them found in the prefix cache, not computed
    core::Seconds time;
    core::Flops flops;
    core::Bytes bytes;
    Bound bound = Bound::compute;
    core::Seconds roofline_time;
};

struct RequestResult {
    double prompt = 0.0;
    double output = 0.0;
    core::Seconds ttft;
    core::Seconds time_per_output_token;   // mean decode step over the request
    core::Seconds decode_time;             // output - 1 decode steps after the first token
    core::Seconds end_to_end;
    core::Seconds roofline_end_to_end;
};

struct Prediction {
    double batch = 1.0;
    DecodeResult decode;
    // Time to first token of one request arriving at an idle server: its own prefill. A serving
    // system admits requests as they come (docs/model.md, "Time to first token").
    PrefillResult prefill;
    core::Seconds ttft;
    // The whole batch's prompts prefilled in one pass, as when `batch` requests arrive at once.
    PrefillResult batch_prefill;
    // The vision encoder's pass over one request's images (Workload::images), part of `ttft`.
    core::Seconds vision_encoder;
    std::optional<RequestResult> request;
    MemoryFootprint memory;  // a draft model's weights and cache included
    // With speculative decoding: the decode figures above stay those of plain decoding, and this
    // says what speculation makes of them at the same batch and context.
    std::optional<SpeculativeResult> speculative;
    double machine_balance = 0.0;  // peak matmul FLOP/s per peak byte/s
    std::vector<std::string> warnings;
};

// A static batch run whole: the batch's prompts prefilled in one pass, then `steps` decode steps
// at the prediction's mean step. Offline runs and static-batch benchmarks (TensorRT-LLM's
// gptSessionBenchmark, lmdeploy's profile_generation, optimum-habana's run_generation) time this;
// `roofline`: at the peak-spec bound.
core::Seconds whole_run_time(const Prediction& prediction, double steps, bool roofline = false);

enum class Detail {
    figures,  // the numbers only (sweeps, searches)
    full,     // plus the per-operator report and the warnings
};

// Precomputes everything that does not depend on batch and context, so each evaluation is cheap.
// Holds pointers: the profiles it is given must outlive the evaluator.
class Evaluator {
public:
    // Throws core::InputError when the deployment cannot run on this device (validate_deployment).
    Evaluator(const profiles::ModelProfile& model, const profiles::HardwareProfile& hardware, Deployment deployment,
              const Efficiency& efficiency);
    // With the efficiency of the deployment's runtime on this hardware.
    Evaluator(const profiles::ModelProfile& model, const profiles::HardwareProfile& hardware, Deployment deployment);
    explicit Evaluator(const OperatingPoint& point);
    // With `cost`, the cost model text_cost_model gives for this model, device and deployment:
    // a fit evaluates one deployment under hundreds of efficiencies and builds it once.
    Evaluator(const profiles::ModelProfile& model, const profiles::HardwareProfile& hardware, Deployment deployment,
              const Efficiency& efficiency, CostModel cost);
    // The cost model of a text-only pass, and the KV room an offloading deployment leaves on the
    // device; throws as the constructors do when the deployment cannot run there.
    static CostModel text_cost_model(const profiles::ModelProfile& model, const profiles::HardwareProfile& hardware,
                                     const Deployment& deployment);

    // One decode step: every operator's time, predicted and at the roofline.
    StepTime decode_step(double batch, double context) const;
    StepTime roofline_decode_step(double batch, double context) const;
    // The predicted step time alone: the fast path for loops over many points.
    core::Seconds decode_step_time(double batch, double context) const;

    // Prefill of `sequences` prompts of `prompt` tokens each in one forward pass.
    // `cached`: leading tokens of each prompt already in the cache (a prefix-cache hit), which
    // the pass reads but does not compute.
    PrefillResult prefill(double sequences, double prompt, double cached = 0.0) const;

    // The vision encoder over `images` images of `image_size` pixels a side, in the activation
    // datatype at the runtime's matrix rate, its weights read once; 0 without a vision encoder.
    core::Seconds vision_encoder_time(double images, double image_size) const;

    // The predicted time of one forward pass of any shape (a serving step mixing decode tokens
    // and prefill chunks).
    core::Seconds step_time(const StepShape& shape) const;

    // `own_prefill`, when given, is this evaluator's prefill(1, prompt) for the workload's prompt,
    // computed earlier: sweeps reuse it across batches instead of recomputing it.
    Prediction predict(const Workload& workload, Detail detail = Detail::full,
                       const PrefillResult* own_prefill = nullptr) const;

    const CostModel& cost_model() const { return cost_; }
    const DeviceRates& rates() const { return rates_; }
    const DeviceRates& roofline_rates() const { return peak_rates_; }
    const Deployment& deployment() const { return deployment_; }
    const profiles::HardwareProfile& hardware() const { return *hardware_; }
    const profiles::ModelProfile& model() const { return *model_; }
    // The draft model's evaluator when the deployment speculates with one; null otherwise (no
    // speculation, or multi-token-prediction heads).
    const Evaluator* draft() const { return draft_.get(); }

    // What `batch` sequences of `context` tokens (the first `cached` of them a shared prefix held
    // once) hold in memory with this deployment, a draft model's weights and cache included: the
    // one place every command, the serving simulation and the steady state take the KV room from.
    MemoryFootprint memory(double batch, double context, double cached = 0.0) const;
    // The KV bytes of one sequence of `tokens` tokens, the draft model's cache included.
    core::Bytes kv_bytes_per_sequence(double tokens) const;

private:
    // Builds cost_ for this deployment with `cross_states` image states a sequence (0: text only).
    void build_costs(double cross_states);
    template <typename Figure>
    double mean_decode(double batch, double first, double last, const DeviceRates& rates, Figure figure) const;

    const profiles::ModelProfile* model_;
    const profiles::HardwareProfile* hardware_;
    std::shared_ptr<const Evaluator> draft_;  // the draft model of speculative decoding, when one is named
    Deployment deployment_;
    CostModel cost_;
    DeviceRates rates_;
    DeviceRates peak_rates_;
};

// Throws core::InputError when `deployment` cannot run `model` on `hardware`: tensor parallelism
// without an interconnect or that does not divide the heads, or no compute rate for its datatypes.
void validate_deployment(const profiles::HardwareProfile& hardware, const profiles::ModelProfile& model,
                         const Deployment& deployment);

// Problems worth a warning in a model profile (stated parameter count off by more than 2%).
std::vector<std::string> model_warnings(const profiles::ModelProfile& model);

// The one rule for a context beyond what the model was trained for: a message when
// `context_tokens` exceeds max_position_embeddings, nothing otherwise. Every command warns with it.
std::optional<std::string> context_warning(const profiles::ModelProfile& model, double context_tokens);

// What every output using `runtime` says when the build has no measurements of its own (its
// figures carried over from its fit group); nothing for a measured build or the ideal bound.
std::optional<std::string> runtime_warning(const RuntimeProfile& runtime);

}  // namespace decodesim::engine
