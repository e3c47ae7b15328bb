#include "engine/prediction.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"
#include "engine/model_shape.hpp"
#include "engine/request.hpp"
#include "engine/roofline.hpp"
#include "engine/topology.hpp"

namespace decodesim::engine {

using core::Datatype;

core::Seconds whole_run_time(const Prediction& prediction, double steps, bool roofline) {
    const core::Seconds prefill = roofline ? prediction.batch_prefill.roofline_time : prediction.batch_prefill.time;
    const core::Seconds step = roofline ? prediction.decode.roofline_step_time : prediction.decode.step_time;
    return prefill + step * steps;
}

void validate_deployment(const profiles::HardwareProfile& hardware, const profiles::ModelProfile& model,
                         const Deployment& deployment) {
    auto refuse = [](const char* key, const std::string& message) {
        throw core::InputError(core::unlocated(key, message));
    };
    const Parallelism& parallel = deployment.parallelism;
    const int tp = parallel.tensor;
    if (tp < 1) refuse("tp", "tensor parallelism must be at least 1");
    if (parallel.pipeline < 1) refuse("pp", "pipeline parallelism must be at least 1");
    if (parallel.expert < 1) refuse("ep", "expert parallelism must be at least 1");
    if (parallel.attention_data < 1) refuse("dp-attention", "attention data parallelism must be at least 1");
    // Counted wide, so that no product of the degrees can overflow: far beyond any cluster built.
    constexpr long long kMaxDevices = 1LL << 20;
    const long long devices = static_cast<long long>(tp) * parallel.attention_data * parallel.pipeline;
    if (devices > kMaxDevices) {
        refuse("tp", fmt::format("tp {} x dp-attention {} x pp {} = {} devices, beyond the {} a deployment may span", tp,
                                 parallel.attention_data, parallel.pipeline, devices, kMaxDevices));
    }
    if (!core::runs_on(deployment.backend, hardware.vendor, hardware.native_backend)) {
        const bool vulkan = core::runs_on(core::Backend::vulkan, hardware.vendor, hardware.native_backend);
        refuse("backend", fmt::format("{} kernels do not run on {}, a device of {}: it runs {}{}",
                                      core::backend_name(deployment.backend), hardware.id, hardware.vendor,
                                      core::backend_name(hardware.native_backend), vulkan ? " or vulkan" : ""));
    }
    if (deployment.speculation.enabled() && deployment.speculation.multi_token_heads && model.mtp_layers == 0) {
        refuse("draft", fmt::format("{} has no multi-token-prediction layers to draft with (its profile's mtp_layers is 0; "
                                    "DeepSeek-V3 and R1, GLM-4.5 and Qwen3-Next ship one): name a draft model instead",
                                    model.name));
    }
    // A pass dispatched op by op needs the runtime's host time an op and the ops of every kind of
    // block the model has: a count of 0 would make the host free.
    const RuntimeProfile& runtime = deployment.runtime_profile();
    const EagerPasses& ops = runtime.eager;
    if (deployment.eager.any() && !runtime.ideal) {
        const char* missing = ops.op_time.value <= 0.0                               ? "a host time an op"
                              : (model.mla ? ops.latent_attention_block : ops.attention_block) <= 0.0
                                  ? (model.mla ? "the ops of an MLA block" : "the ops of an attention block")
                              : model.moe && ops.moe_mlp_block <= 0.0               ? "the ops of a routed MoE block"
                              : ops.dense_mlp_block <= 0.0                          ? "the ops of a dense MLP block"
                                  : nullptr;
        if (missing != nullptr) {
            refuse("cuda-graphs", fmt::format("runtime {} does not state {} for passes run without graphs (eager_passes in "
                                              "its profile), so {} cannot run on it with graphs off",
                                              runtime.id, missing, model.name));
        }
    }
    if (parallel.pipeline > model.num_hidden_layers) {
        refuse("pp", fmt::format("pipeline parallelism {} exceeds the {} layers of {}", parallel.pipeline,
                                 model.num_hidden_layers, model.name));
    }
    if (parallel.expert > 1 || parallel.attention_data > 1) {
        if (!model.moe) {
            refuse(parallel.expert > 1 ? "ep" : "dp-attention",
                   fmt::format("{} has no routed experts: expert parallelism and data-parallel attention apply to MoE "
                               "models",
                               model.name));
        }
        if (parallel.stage_devices() % parallel.expert != 0) {
            refuse("ep", fmt::format("expert parallelism {} must divide the {} devices of a stage (tp {} x dp-attention {})",
                                     parallel.expert, parallel.stage_devices(), tp, parallel.attention_data));
        }
        if (model.moe->n_routed_experts % parallel.expert != 0) {
            refuse("ep", fmt::format("expert parallelism {} does not divide the {} routed experts of {}", parallel.expert,
                                     model.moe->n_routed_experts, model.name));
        }
        if (parallel.attention_data > 1 && parallel.expert != parallel.stage_devices()) {
            refuse("ep", fmt::format("data-parallel attention spreads the experts over every device of the stage: set "
                                     "--ep {} (tp {} x dp-attention {})",
                                     parallel.stage_devices(), tp, parallel.attention_data));
        }
    }
    if (model.num_attention_heads % tp != 0) {
        refuse("tp", fmt::format("tensor parallelism {} does not divide the {} attention heads of {}", tp,
                                 model.num_attention_heads, model.name));
    }
    const int kv_heads = model.num_key_value_heads;
    if (!model.mla && kv_heads % tp != 0 && tp % kv_heads != 0) {
        refuse("tp", fmt::format("tensor parallelism {} can neither split nor replicate the {} KV heads of {}", tp,
                                 kv_heads, model.name));
    }
    if (tp > 1 && !hardware.interconnect) {
        refuse("tp", fmt::format("tensor parallelism {} needs an interconnect, and {} lists none (add an "
                                 "interconnect: block to its profile)",
                                 tp, hardware.name));
    }
    validate_topology(hardware, parallel);
    if (deployment.kv_offload && !hardware.host_link) {
        refuse("kv-offload", fmt::format("KV offload reads the cache back over the host link, and {} lists none (add a "
                                         "host_link: block to its profile)",
                                         hardware.name));
    }
    const Datatype matmul = deployment.weights->native_matmul.value_or(deployment.activation);
    for (Datatype datatype : {matmul, deployment.activation}) {
        if (effective_peak(hardware, datatype).value <= 0.0) {
            refuse("compute", fmt::format("{} lists no compute rate usable for {} (add fp16, bf16 or fp32 to its profile)",
                                          hardware.name, core::datatype_name(datatype)));
        }
    }
}

std::optional<std::string> runtime_warning(const RuntimeProfile& runtime) {
    if (runtime.measured || runtime.ideal) return std::nullopt;
    return fmt::format("runtime {} has no measurements of its own: {}", runtime.id, runtime.measured_note);
}

namespace {

// The cost model with `cross_states` image states a sequence, and the KV room an offloading
// deployment leaves on the device.
CostModel costs_on(const profiles::ModelProfile& model, const profiles::HardwareProfile& hardware,
                   const Deployment& deployment, double cross_states) {
    CostModel cost = build_cost_model(model, deployment, cross_states);
    if (deployment.kv_offload) {
        const MemoryFootprint empty = memory_footprint(cost, hardware, 0.0, 1.0);
        cost.kv_device_room = core::max(core::Bytes(), empty.usable - empty.weights);
    }
    return cost;
}

}  // namespace

CostModel Evaluator::text_cost_model(const profiles::ModelProfile& model, const profiles::HardwareProfile& hardware,
                                     const Deployment& deployment) {
    validate_deployment(hardware, model, deployment);
    return costs_on(model, hardware, deployment, 0.0);
}

Evaluator::Evaluator(const profiles::ModelProfile& model, const profiles::HardwareProfile& hardware,
                     Deployment deployment, const Efficiency& efficiency)
    : Evaluator(model, hardware, deployment, efficiency, text_cost_model(model, hardware, deployment)) {}

Evaluator::Evaluator(const profiles::ModelProfile& model, const profiles::HardwareProfile& hardware,
                     Deployment deployment, const Efficiency& efficiency, CostModel cost)
    : model_(&model), hardware_(&hardware), deployment_(deployment), cost_(std::move(cost)) {
    const Datatype matmul = deployment.weights->native_matmul.value_or(deployment.activation);
    const Parallelism& parallel = deployment.parallelism;
    rates_ = device_rates(hardware, matmul, deployment.activation, parallel, efficiency,
                          deployment.weights->dequantizes, &deployment.clocks,
                          kernel_matmul_peak(hardware, *deployment.weights, matmul,
                                             deployment.runtime_profile().block_matmul_on(deployment.backend)));
    // The roofline bound: datasheet peaks at the peak clock, whatever the clock condition.
    peak_rates_ = device_rates(hardware, matmul, deployment.activation, parallel, ideal_efficiency());
}

Evaluator::Evaluator(const profiles::ModelProfile& model, const profiles::HardwareProfile& hardware,
                     Deployment deployment)
    : Evaluator(model, hardware, deployment, deployment_efficiency(hardware, deployment)) {}

Evaluator::Evaluator(const OperatingPoint& point) : Evaluator(point.model, point.hardware, point.deployment) {
    if (point.deployment.speculation.enabled() && !point.deployment.speculation.multi_token_heads && point.draft) {
        draft_ = std::make_shared<const Evaluator>(*point.draft, point.hardware,
                                                   draft_deployment(point.deployment, *point.draft));
    }
}

void Evaluator::build_costs(double cross_states) { cost_ = costs_on(*model_, *hardware_, deployment_, cross_states); }

StepTime Evaluator::decode_step(double batch, double context) const {
    return time_step(decode_step_costs(cost_, batch, context), rates_);
}

StepTime Evaluator::roofline_decode_step(double batch, double context) const {
    return time_step(decode_step_costs(cost_, batch, context), peak_rates_);
}

core::Seconds Evaluator::decode_step_time(double batch, double context) const {
    return step_totals(decode_step_costs(cost_, batch, context), rates_).time;
}

core::Seconds Evaluator::step_time(const StepShape& shape) const {
    return step_totals(step_costs(cost_, shape), rates_).time;
}

template <typename Figure>
double Evaluator::mean_decode(double batch, double first, double last, const DeviceRates& rates,
                              Figure figure) const {
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
            const double gap_low = (at_low.operators[i].compute - at_low.operators[i].memory).value;
            const double gap_high = (at_high.operators[i].compute - at_high.operators[i].memory).value;
            if ((gap_low < 0.0) != (gap_high < 0.0)) {
                breakpoints.push_back(low + (high - low) * gap_low / (gap_low - gap_high));
            }
        }
    }
    return mean_over_contexts(
        [&](double context) {
            const StepCosts costs = decode_step_costs(cost_, batch, context);
            return figure(costs, step_totals(costs, rates));
        },
        first, last, breakpoints);
}

PrefillResult Evaluator::prefill(double sequences, double prompt, double cached) const {
    const StepCosts costs = step_costs(cost_, prefill_shape(cost_, sequences, cached, prompt - cached));
    const auto [predicted, roofline] = step_totals(costs, rates_, peak_rates_);
    PrefillResult result;
    result.sequences = sequences;
    result.prompt_tokens = prompt;
    result.cached_tokens = cached;
    result.time = predicted.time;
    result.flops = costs.total_flops();
    result.bytes = costs.total_bytes();
    result.bound = predicted.bound;
    result.roofline_time = roofline.time;
    return result;
}

core::Seconds Evaluator::vision_encoder_time(double images, double image_size) const {
    if (!model_->vision || images <= 0.0) return core::Seconds(0.0);
    const profiles::VisionEncoder& vision = *model_->vision;
    // Split over the tensor group with the language model (vLLM shards the vision tower likewise).
    const double tp = deployment_.parallelism.tensor;
    const core::Flops flops(images * vision_encoder_flops(vision, image_size) / tp);
    const core::Bytes weights(vision.parameters * cost_.activation_bytes.value / tp);
    const core::Seconds compute = flops * rates_.copy_seconds_per_flop;
    const core::Seconds memory = weights * rates_.copy_seconds_per_byte;
    // About ten kernels a layer (norms, qkv, attention, output, MLP), each with the runtime's launch cost.
    const core::Seconds launches = rates_.kernel_overhead * (10.0 * vision.layers);
    return std::max(compute, memory) + launches;
}

MemoryFootprint Evaluator::memory(double batch, double context, double cached) const {
    const MemoryFootprint own = memory_footprint(cost_, *hardware_, batch, context, cached);
    if (!draft_) return own;
    return with_draft(own, memory_footprint(draft_->cost_, *hardware_, batch, context), batch);
}

core::Bytes Evaluator::kv_bytes_per_sequence(double tokens) const {
    const core::Bytes own = cost_.kv_bytes_per_sequence(tokens);
    return draft_ ? own + draft_->cost_.kv_bytes_per_sequence(tokens) : own;
}

Prediction Evaluator::predict(const Workload& workload, Detail detail, const PrefillResult* own_prefill) const {
    // Images read by cross-attention layers (Llama 3.2 Vision) wake those layers, which a text-only
    // evaluator skips: the request is evaluated with its images' states in every layer's reach.
    if (!model_->cross_attention_layers.empty() && model_->vision && workload.images > 0.0 && cost_.cross_states <= 0.0) {
        Evaluator with_images = *this;
        const double size = workload.image_size > 0.0 ? workload.image_size : static_cast<double>(model_->vision->image_size);
        with_images.build_costs(workload.images * image_states(*model_->vision, size));
        return with_images.predict(workload, detail);
    }
    Prediction prediction;
    const double batch = workload.batch;
    prediction.batch = batch;
    prediction.machine_balance = machine_balance(peak_rates_);

    DecodeResult& decode = prediction.decode;
    const double max_context = workload.max_context();
    // The prompt a request (or, for one step, the context) needed prefilled before decoding.
    double prompt = workload.context;
    if (workload.is_request()) {
        prompt = *workload.prompt;
        const double output = workload.output.value_or(1.0);
        const DecodeRange range = decode_range(prompt, output);
        const double first = range.first;
        const double last = range.last;
        auto time_of = [](const StepCosts&, const StepTotals& time) { return time.time.value; };
        decode.step_time = core::Seconds(mean_decode(batch, first, last, rates_, time_of));
        decode.roofline_step_time = core::Seconds(mean_decode(batch, first, last, peak_rates_, time_of));
        decode.bytes_per_step = core::Bytes(mean_decode(
            batch, first, last, rates_, [](const StepCosts& c, const StepTotals&) { return c.total_bytes().value; }));
        decode.flops_per_step = core::Flops(mean_decode(
            batch, first, last, rates_, [](const StepCosts& c, const StepTotals&) { return c.total_flops().value; }));
        decode.context = range.mean();
    } else {
        decode.context = workload.context;
    }
    const StepCosts detail_costs = decode_step_costs(cost_, batch, decode.context);
    const auto [at_context, roofline_at_context] = step_totals(detail_costs, rates_, peak_rates_);
    if (!workload.is_request()) {
        decode.step_time = at_context.time;
        decode.roofline_step_time = roofline_at_context.time;
        decode.bytes_per_step = detail_costs.total_bytes();
        decode.flops_per_step = detail_costs.total_flops();
    }

    const double cached = workload.shared_prefix;
    const bool reusable = own_prefill != nullptr && own_prefill->sequences == 1.0 &&
                          own_prefill->prompt_tokens == prompt && own_prefill->cached_tokens == cached;
    prediction.prefill = reusable ? *own_prefill : this->prefill(1.0, prompt, cached);
    prediction.ttft = prediction.prefill.time;
    prediction.batch_prefill = batch == 1.0 ? prediction.prefill : this->prefill(batch, prompt, cached);
    if (workload.images > 0.0) {
        // The images are encoded before the prompt that holds their tokens is prefilled.
        prediction.vision_encoder = vision_encoder_time(workload.images, workload.image_size);
        prediction.ttft = prediction.ttft + prediction.vision_encoder;
        prediction.batch_prefill.time = prediction.batch_prefill.time + vision_encoder_time(workload.images * batch, workload.image_size);
    }
    if (workload.is_request()) {
        RequestResult request;
        request.prompt = prompt;
        request.output = workload.output.value_or(1.0);
        request.ttft = prediction.ttft;
        request.time_per_output_token = decode.step_time;
        request.decode_time = decode.step_time * (request.output - 1.0);
        request.end_to_end = request.ttft + request.decode_time;
        request.roofline_end_to_end =
            prediction.prefill.roofline_time + decode.roofline_step_time * (request.output - 1.0);
        prediction.request = request;
    }

    decode.bound = at_context.bound;
    if (at_context.time.value > 0.0) {
        decode.memory_fraction = at_context.memory_bound / at_context.time;
        decode.compute_fraction = at_context.compute_bound / at_context.time;
        decode.overhead_fraction = at_context.overhead / at_context.time;
        decode.communication_fraction = at_context.communication / at_context.time;
    }
    decode.tokens_per_s_per_stream = 1.0 / decode.step_time.value;
    decode.tokens_per_s_total = batch / decode.step_time.value;
    decode.roofline_tokens_per_s_per_stream = 1.0 / decode.roofline_step_time.value;
    decode.roofline_tokens_per_s_total = batch / decode.roofline_step_time.value;
    decode.arithmetic_intensity =
        decode.bytes_per_step.value > 0.0 ? decode.flops_per_step / decode.bytes_per_step : 0.0;

    prediction.memory = memory(batch, max_context, cached);
    // A draft model's evaluator exists only when built from an operating point that names it.
    if (deployment_.speculation.enabled() && (deployment_.speculation.multi_token_heads || draft_)) {
        prediction.speculative = speculative_decode(*this, draft_.get(), deployment_.speculation, batch, decode.context);
    }
    if (detail == Detail::figures) return prediction;

    const StepTime per_operator = time_step(detail_costs, rates_);
    for (std::size_t i = 0; i < kOperatorCount; ++i) {
        if (!operator_shown(kOperators[i], cost_)) continue;
        decode.operators.push_back({kOperators[i].kind, detail_costs.operators[i].flops, detail_costs.operators[i].bytes,
                                    per_operator.operators[i].time, per_operator.operators[i].bound});
    }
    if (auto problem = memory_problem(prediction.memory, batch)) prediction.warnings.push_back(std::move(*problem));
    for (std::string& note : topology_notes(*hardware_, deployment_.parallelism)) prediction.warnings.push_back(std::move(note));
    if (auto warning = context_warning(*model_, max_context)) prediction.warnings.push_back(std::move(*warning));
    if (auto warning = runtime_warning(deployment_.runtime_profile())) prediction.warnings.push_back(std::move(*warning));
    return prediction;
}

std::optional<std::string> context_warning(const profiles::ModelProfile& model, double context_tokens) {
    if (!model.max_position_embeddings || context_tokens <= static_cast<double>(*model.max_position_embeddings)) {
        return std::nullopt;
    }
    return fmt::format("context of {:.0f} tokens exceeds the model's max_position_embeddings of {}", context_tokens,
                       *model.max_position_embeddings);
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
    if (!model.checkpoint_quantization.empty() && model.checkpoint_weights == nullptr) {
        warnings.push_back(fmt::format("{}: config.json's quantization_config ({}) is not a format decodesim reads; the "
                                       "weights are taken as bf16 unless --weights says otherwise",
                                       model.id, model.checkpoint_quantization));
    }
    return warnings;
}

}  // namespace decodesim::engine
