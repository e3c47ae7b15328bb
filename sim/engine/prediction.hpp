#pragma once
// The engine's front door: a model on a device under a deployment, evaluated at a workload.
// Every figure comes twice: the roofline bound (datasheet peaks, no overheads: what physics
// allows) and the prediction (the efficiency model applied: what a user will measure).

#include <array>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/cost_model.hpp"
#include "engine/deployment.hpp"
#include "engine/efficiency.hpp"
#include "engine/memory.hpp"
#include "engine/roofline.hpp"
#include "engine/workload.hpp"
#include "profiles/hardware_profile.hpp"
#include "profiles/model_profile.hpp"

namespace decodesim::engine {

struct OperatorReport {
    OperatorKind kind;
    double flops = 0.0;
    double bytes = 0.0;
    double time_s = 0.0;
    Bound bound = Bound::memory;
};

struct DecodeResult {
    double context = 0.0;                  // tokens per sequence (a request: the mean over its decode steps)
    double step_time_s = 0.0;
    double tokens_per_s_per_stream = 0.0;
    double tokens_per_s_total = 0.0;
    double bytes_per_step = 0.0;
    double flops_per_step = 0.0;
    double arithmetic_intensity = 0.0;     // FLOP per byte of device memory traffic
    Bound bound = Bound::memory;
    // Share of predicted step time by limiter; they add to 1.
    double memory_fraction = 0.0, compute_fraction = 0.0, overhead_fraction = 0.0, communication_fraction = 0.0;
    double roofline_step_time_s = 0.0;
    double roofline_tokens_per_s_per_stream = 0.0;
    double roofline_tokens_per_s_total = 0.0;
    std::vector<OperatorReport> operators;  // predicted, at `context` (a request: its mean context)
};

struct PrefillResult {
    double prompt_tokens = 0.0;  // per sequence
    double time_s = 0.0;
    double flops = 0.0;
    double bytes = 0.0;
    Bound bound = Bound::compute;
    double roofline_time_s = 0.0;
};

struct RequestResult {
    double prompt = 0.0;
    double output = 0.0;
    double ttft_s = 0.0;
    double time_per_output_token_s = 0.0;  // mean decode step over the request
    double decode_time_s = 0.0;            // output - 1 decode steps after the first token
    double end_to_end_s = 0.0;
    double roofline_end_to_end_s = 0.0;
};

struct Prediction {
    double batch = 1.0;
    DecodeResult decode;
    PrefillResult prefill;
    double ttft_s = 0.0;
    std::optional<RequestResult> request;
    MemoryFootprint memory;
    double machine_balance = 0.0;  // peak matmul FLOP/s per peak byte/s
    std::vector<std::string> warnings;
};

// Picks the activation datatype (bf16, or fp16 on devices without bf16 or for fp16 weights) and
// the KV format (the activation type when `kv` is null). Throws InputError when tp > 1 needs an
// interconnect the device lacks.
Deployment resolve_deployment(const profiles::HardwareProfile& hardware, const core::WeightFormat& weights,
                              const core::KvFormat* kv, int tensor_parallel,
                              const RuntimePreset& runtime = default_runtime());

// Precomputes everything that does not depend on batch and context, so each evaluation is cheap.
// Holds references: `model` and `hardware` must outlive the evaluator.
class Evaluator {
public:
    Evaluator(const profiles::ModelProfile& model, const profiles::HardwareProfile& hardware, Deployment deployment,
              Efficiency efficiency);
    // With the efficiency of the deployment's runtime preset on this hardware.
    Evaluator(const profiles::ModelProfile& model, const profiles::HardwareProfile& hardware, Deployment deployment);

    // One decode step: predicted and roofline times.
    StepTime decode_step(double batch, double context) const;
    StepTime roofline_decode_step(double batch, double context) const;

    // `detailed` false skips the per-operator report and the warnings (sweeps).
    Prediction predict(const Workload& workload, bool detailed = true) const;

    const CostModel& cost_model() const { return cost_; }
    const DeviceRates& rates() const { return rates_; }
    const DeviceRates& roofline_rates() const { return peak_rates_; }
    const Deployment& deployment() const { return deployment_; }

private:
    double mean_decode(double batch, double first, double last, const DeviceRates& rates,
                       const std::function<double(const StepCosts&, const StepTime&)>& figure) const;
    PrefillResult prefill(double batch, double prompt) const;

    const profiles::ModelProfile* model_;
    const profiles::HardwareProfile* hardware_;
    Deployment deployment_;
    CostModel cost_;
    DeviceRates rates_;
    DeviceRates peak_rates_;
};

// Problems worth a warning in a model profile (stated parameter count off by more than 2%).
std::vector<std::string> model_warnings(const profiles::ModelProfile& model);

}  // namespace decodesim::engine
