#include "engine/prediction.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"
#include "engine/model_shape.hpp"
#include "engine/request.hpp"

namespace decodesim::engine {

using core::Datatype;


Deployment resolve_deployment(const profiles::HardwareProfile& hardware, const core::WeightFormat& weights,
                              const core::KvFormat* kv, int tensor_parallel, const RuntimePreset& runtime) {
    Deployment deployment;
    deployment.runtime = &runtime;
    deployment.weights = &weights;
    deployment.tensor_parallel = tensor_parallel;
    const bool has_bf16 = hardware.listed_peak(Datatype::bf16) > 0.0;
    const bool has_fp16 = hardware.listed_peak(Datatype::fp16) > 0.0;
    if (weights.native_matmul == Datatype::fp32) {
        deployment.activation = Datatype::fp32;
    } else if (weights.native_matmul == Datatype::fp16 || weights.coverage == core::FormatCoverage::gguf_mixture ||
               (!has_bf16 && has_fp16)) {
        // llama.cpp computes in fp16.
        deployment.activation = Datatype::fp16;
    } else {
        deployment.activation = Datatype::bf16;
    }
    deployment.kv = kv != nullptr ? kv : core::find_kv_format(core::datatype_name(deployment.activation));
    if (tensor_parallel > 1 && !hardware.interconnect) {
        throw core::InputError(core::unlocated(
            "tp", fmt::format("tensor parallelism {} needs an interconnect, and {} lists none (add an interconnect: "
                              "block to its profile)",
                              tensor_parallel, hardware.name)));
    }
    return deployment;
}

Evaluator::Evaluator(const profiles::ModelProfile& model, const profiles::HardwareProfile& hardware,
                     Deployment deployment, Efficiency efficiency)
    : model_(&model), hardware_(&hardware), deployment_(deployment), cost_(build_cost_model(model, deployment)) {
    const Datatype matmul = deployment.weights->native_matmul.value_or(deployment.activation);
    rates_ = device_rates(hardware, matmul, deployment.activation, deployment.tensor_parallel, efficiency,
                          deployment.weights->dequantizes);
    peak_rates_ = device_rates(hardware, matmul, deployment.activation, deployment.tensor_parallel, ideal_efficiency());
    if (rates_.matmul_ops_per_s <= 0.0 || rates_.activation_ops_per_s <= 0.0) {
        throw core::InputError(core::unlocated(
            "compute", fmt::format("{} lists no compute rate usable for {} (add fp16, bf16 or fp32 to its profile)",
                                   hardware.name, core::datatype_name(matmul))));
    }
}

Evaluator::Evaluator(const profiles::ModelProfile& model, const profiles::HardwareProfile& hardware,
                     Deployment deployment)
    : Evaluator(model, hardware, deployment, default_efficiency(hardware, *deployment.runtime)) {}

StepTime Evaluator::decode_step(double batch, double context) const {
    return time_step(decode_step_costs(cost_, batch, context), rates_);
}

StepTime Evaluator::roofline_decode_step(double batch, double context) const {
    return time_step(decode_step_costs(cost_, batch, context), peak_rates_);
}

double Evaluator::mean_decode(double batch, double first, double last, const DeviceRates& rates,
                              const std::function<double(const StepCosts&, const StepTime&)>& figure) const {
    // Breakpoints: the window, and where an operator switches between compute and memory bound
    // inside each affine piece.
    std::vector<double> breakpoints;
    std::vector<std::pair<double, double>> pieces;
    if (cost_.window > 0.0 && cost_.window >= first && cost_.window < last) {
        breakpoints.push_back(cost_.window);
        pieces = {{first, cost_.window}, {cost_.window + 1.0, last}};
    } else {
        pieces = {{first, last}};
    }
    for (const auto& [low, high] : pieces) {
        if (high <= low) continue;
        const StepTime at_low = time_step(decode_step_costs(cost_, batch, low), rates);
        const StepTime at_high = time_step(decode_step_costs(cost_, batch, high), rates);
        for (std::size_t i = 0; i < kOperatorCount; ++i) {
            const double gap_low = at_low.operators[i].compute_s - at_low.operators[i].memory_s;
            const double gap_high = at_high.operators[i].compute_s - at_high.operators[i].memory_s;
            if ((gap_low < 0.0) != (gap_high < 0.0)) {
                breakpoints.push_back(low + (high - low) * gap_low / (gap_low - gap_high));
            }
        }
    }
    return mean_over_contexts(
        [&](double context) {
            const StepCosts costs = decode_step_costs(cost_, batch, context);
            return figure(costs, time_step(costs, rates));
        },
        first, last, breakpoints);
}

PrefillResult Evaluator::prefill(double batch, double prompt) const {
    const StepCosts costs = prefill_costs(cost_, batch, prompt);
    const StepTime predicted = time_step(costs, rates_);
    PrefillResult result;
    result.prompt_tokens = prompt;
    result.time_s = predicted.time_s;
    result.flops = costs.total_flops();
    result.bytes = costs.total_bytes();
    result.bound = predicted.bound;
    result.roofline_time_s = time_step(costs, peak_rates_).time_s;
    return result;
}

Prediction Evaluator::predict(const Workload& workload, bool detailed) const {
    Prediction prediction;
    const double batch = workload.batch;
    prediction.batch = batch;
    const double peak_bandwidth = hardware_->memory_bandwidth.value;
    prediction.machine_balance = peak_rates_.matmul_ops_per_s / peak_bandwidth;

    DecodeResult& decode = prediction.decode;
    double max_context = workload.context;
    if (workload.is_request()) {
        const double prompt = *workload.prompt;
        const double output = workload.output.value_or(1.0);
        // Decode steps generate tokens 2..N; the step for token j holds P + j - 1 tokens.
        const double first = prompt + 1.0;
        const double last = prompt + std::max(1.0, output - 1.0);
        max_context = prompt + output;
        auto time_of = [](const StepCosts&, const StepTime& time) { return time.time_s; };
        decode.step_time_s = mean_decode(batch, first, last, rates_, time_of);
        decode.roofline_step_time_s = mean_decode(batch, first, last, peak_rates_, time_of);
        decode.bytes_per_step =
            mean_decode(batch, first, last, rates_, [](const StepCosts& c, const StepTime&) { return c.total_bytes(); });
        decode.flops_per_step =
            mean_decode(batch, first, last, rates_, [](const StepCosts& c, const StepTime&) { return c.total_flops(); });
        decode.context = (first + last) / 2.0;

        RequestResult request;
        request.prompt = prompt;
        request.output = output;
        prediction.prefill = prefill(batch, prompt);
        request.ttft_s = prediction.prefill.time_s;
        request.time_per_output_token_s = decode.step_time_s;
        request.decode_time_s = (output - 1.0) * decode.step_time_s;
        request.end_to_end_s = request.ttft_s + request.decode_time_s;
        request.roofline_end_to_end_s =
            prediction.prefill.roofline_time_s + (output - 1.0) * decode.roofline_step_time_s;
        prediction.request = request;
    } else {
        decode.context = workload.context;
        const StepCosts costs = decode_step_costs(cost_, batch, workload.context);
        decode.step_time_s = time_step(costs, rates_).time_s;
        decode.roofline_step_time_s = time_step(costs, peak_rates_).time_s;
        decode.bytes_per_step = costs.total_bytes();
        decode.flops_per_step = costs.total_flops();
        // The context had to be prefilled once: that is the time to first token.
        prediction.prefill = prefill(batch, workload.context);
    }
    prediction.ttft_s = prediction.prefill.time_s;

    const StepCosts detail_costs = decode_step_costs(cost_, batch, decode.context);
    const StepTime detail = time_step(detail_costs, rates_);
    for (std::size_t i = 0; i < kOperatorCount; ++i) {
        const auto kind = static_cast<OperatorKind>(i);
        if (!detailed) break;
        if (kind == OperatorKind::all_reduce && cost_.tensor_parallel == 1) continue;
        if (kind == OperatorKind::experts && cost_.moe_layers == 0) continue;
        if (kind == OperatorKind::router && cost_.moe_layers == 0) continue;
        if (kind == OperatorKind::shared_experts && cost_.shared_experts.params == 0.0) continue;
        if (kind == OperatorKind::mlp && cost_.mlp.params == 0.0) continue;
        decode.operators.push_back({kind, detail_costs.operators[i].flops, detail_costs.operators[i].bytes,
                                    detail.operators[i].time_s, detail.operators[i].bound});
    }
    decode.bound = detail.bound;
    if (detail.time_s > 0.0) {
        decode.memory_fraction = detail.memory_bound_s / detail.time_s;
        decode.compute_fraction = detail.compute_bound_s / detail.time_s;
        decode.overhead_fraction = detail.overhead_s / detail.time_s;
        decode.communication_fraction = detail.communication_s / detail.time_s;
    }
    decode.tokens_per_s_per_stream = 1.0 / decode.step_time_s;
    decode.tokens_per_s_total = batch / decode.step_time_s;
    decode.roofline_tokens_per_s_per_stream = 1.0 / decode.roofline_step_time_s;
    decode.roofline_tokens_per_s_total = batch / decode.roofline_step_time_s;
    decode.arithmetic_intensity = decode.bytes_per_step > 0.0 ? decode.flops_per_step / decode.bytes_per_step : 0.0;

    prediction.memory = memory_footprint(cost_, *hardware_, batch, max_context);
    if (!detailed) return prediction;
    if (!prediction.memory.fits) {
        prediction.warnings.push_back(
            fmt::format("the workload does not fit in memory: it needs {:.1f} GB of the {:.1f} GB usable; the figures "
                        "assume it did",
                        (prediction.memory.weights_bytes + prediction.memory.kv_bytes) / 1e9,
                        prediction.memory.usable_bytes / 1e9));
    }
    if (model_->max_position_embeddings && max_context > static_cast<double>(*model_->max_position_embeddings)) {
        prediction.warnings.push_back(fmt::format("context of {:.0f} tokens exceeds the model's max_position_embeddings of {}",
                                                  max_context, *model_->max_position_embeddings));
    }
    return prediction;
}

std::vector<std::string> model_warnings(const profiles::ModelProfile& model) {
    std::vector<std::string> warnings;
    if (model.parameters) {
        const double derived = count_parameters(model).total;
        const double gap = (derived - *model.parameters) / *model.parameters;
        if (std::fabs(gap) > 0.02) {
            warnings.push_back(fmt::format("{}: the shape implies {:.4g} parameters, {:+.1f}% away from the stated {:.4g}",
                                           model.id, derived, gap * 100.0, *model.parameters));
        }
    }
    return warnings;
}

}  // namespace decodesim::engine
