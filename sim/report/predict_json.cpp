#include "report/predict_json.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

#include "core/text_escape.hpp"
#include "workload/workload_choice.hpp"

namespace decodesim::report {

using nlohmann::json;

Conditions conditions_of(const std::string& hardware_id, const std::string& model_id,
                         const engine::Deployment& deployment, std::optional<engine::Workload> workload) {
    // Ids come from file names: made printable here, once, for every output that names them.
    Conditions conditions;
    conditions.hardware = core::printable(hardware_id);
    conditions.model = core::printable(model_id);
    conditions.weights = std::string(deployment.weights->name);
    conditions.kv = std::string(deployment.kv->name);
    conditions.activation = std::string(core::datatype_name(deployment.activation));
    conditions.tensor_parallel = deployment.parallelism.tensor;
    conditions.runtime = std::string(engine::runtime_label(deployment));
    conditions.backend = std::string(core::backend_name(deployment.backend));
    conditions.clocks = engine::clock_label(deployment.clocks);
    conditions.compute_share = deployment.clocks.compute_share;
    conditions.memory_share = deployment.clocks.memory_share;
    conditions.workload = workload;
    conditions.parallelism = deployment.parallelism;
    conditions.kv_offload = deployment.kv_offload;
    conditions.in_process = deployment.in_process;
    conditions.api_servers = deployment.api_servers;
    conditions.attention = deployment.attention == engine::AttentionKernels::unfused ? "unfused" : "fused";
    const engine::RuntimeProfile& runtime = deployment.runtime_profile();
    conditions.runtime_measured = runtime.measured || runtime.ideal;
    conditions.runtime_source = runtime.source;
    if (deployment.eager.any() && !runtime.ideal) {
        conditions.eager_op_time_s = runtime.eager.op_time.value;
        conditions.every_pass_eager = deployment.eager.decode;
    }
    conditions.speculation = deployment.speculation;
    if (deployment.speculation.enabled() && deployment.speculation.multi_token_heads) conditions.draft = "mtp";
    return conditions;
}

Conditions conditions_of(const engine::OperatingPoint& point) {
    Conditions conditions = conditions_of(point.hardware.id, point.model.id, point.deployment, point.workload);
    if (point.draft && point.deployment.speculation.enabled()) conditions.draft = core::printable(point.draft->id);
    return conditions;
}

std::string parallelism_text(const engine::Parallelism& parallelism) {
    std::vector<std::string> parts;
    if (parallelism.tensor > 1) parts.push_back(fmt::format("tensor parallel {}", parallelism.tensor));
    if (parallelism.attention_data > 1) parts.push_back(fmt::format("attention data parallel {}", parallelism.attention_data));
    if (parallelism.expert > 1) parts.push_back(fmt::format("expert parallel {}", parallelism.expert));
    if (parallelism.pipeline > 1) parts.push_back(fmt::format("{} pipeline stages", parallelism.pipeline));
    if (parts.empty()) return {};
    std::string text = fmt::format("{}", fmt::join(parts, ", "));
    if (parts.size() > 1 || parallelism.pipeline > 1) text += fmt::format(" ({} devices)", parallelism.devices());
    return text;
}

nlohmann::json conditions_to_json(const Conditions& conditions) {
    json block = {{"weights", conditions.weights},
                  {"kv", conditions.kv},
                  {"activation", conditions.activation},
                  {"tensor_parallel", conditions.tensor_parallel},
                  {"pipeline_parallel", conditions.parallelism.pipeline},
                  {"expert_parallel", conditions.parallelism.expert},
                  {"attention_data_parallel", conditions.parallelism.attention_data},
                  {"devices", conditions.parallelism.devices()},
                  {"kv_offload", conditions.kv_offload},
                  {"attention", conditions.attention},
                  {"runtime", conditions.runtime},
                  {"runtime_measured", conditions.runtime_measured},
                  {"backend", conditions.backend},
                  {"clocks", conditions.clocks},
                  {"compute_clock_share", conditions.compute_share},
                  {"memory_clock_share", conditions.memory_share}};
    if (conditions.workload) {
        const engine::Workload& workload = *conditions.workload;
        block["batch"] = workload.batch;
        if (workload.is_request()) {
            block["prompt_tokens"] = *workload.prompt;
            block["output_tokens"] = workload.output.value_or(1.0);
        } else {
            block["context_tokens"] = workload.context;
        }
        block["shared_prefix_tokens"] = workload.shared_prefix;
        // Images whose tokens the prompt above counts (--images).
        if (workload.images > 0.0) block["images"] = {{"count", workload.images}, {"size_px", workload.image_size}};
    }
    if (conditions.in_process) block["client"] = "in_process";  // serve --in-process: no request path
    if (conditions.api_servers > 1) block["api_servers"] = conditions.api_servers;
    if (conditions.eager_op_time_s > 0.0) {
        block[conditions.every_pass_eager ? "eager_passes" : "eager_prompt_passes"] = {{"op_time_s", conditions.eager_op_time_s}};
    }
    if (conditions.scenario) block["scenario"] = scenario_to_json(*conditions.scenario);
    if (conditions.speculation.enabled()) {
        block["speculation"] = {{"draft", conditions.draft},
                                {"length", conditions.speculation.length},
                                {"acceptance", conditions.speculation.acceptance}};
    }
    return block;
}

nlohmann::json scenario_to_json(const workload::WorkloadScenario& scenario) {
    auto optional = [](const std::optional<double>& value) { return value ? json(*value) : json(nullptr); };
    return json{{"name", scenario.name},
                {"purpose", scenario.purpose},
                {"prompt_tokens", workload::describe(scenario.prompt)},
                {"prompt_tokens_mean", scenario.prompt.mean()},
                {"output_tokens", workload::describe(scenario.output)},
                {"output_tokens_mean", scenario.output.mean()},
                {"arrivals", workload::describe_arrivals(scenario.arrivals, scenario.burstiness)},
                {"ttft_p99_s", optional(scenario.ttft_p99_s)},
                {"tpot_p99_s", optional(scenario.tpot_p99_s)},
                {"e2e_p99_s", optional(scenario.e2e_p99_s)},
                {"think_time_s", optional(scenario.think_time_s)},
                {"source", scenario.source}};
}

nlohmann::json schema_document() { return json{{"schema_version", kSchemaVersion}}; }

nlohmann::json document_for(const Conditions& conditions) {
    json document = schema_document();
    document["hardware"] = conditions.hardware;
    document["model"] = conditions.model;
    document["conditions"] = conditions_to_json(conditions);
    return document;
}

nlohmann::json prediction_to_json(const Conditions& conditions, const engine::Prediction& prediction,
                                  bool include_operators) {
    const auto& decode = prediction.decode;
    const auto& prefill = prediction.prefill;
    const auto& memory = prediction.memory;
    json document = document_for(conditions);

    document["decode"] = {
        {"context_tokens", decode.context},
        {"step_time_s", decode.step_time},
        {"tokens_per_s_per_stream", decode.tokens_per_s_per_stream},
        {"tokens_per_s_total", decode.tokens_per_s_total},
        {"bytes_per_step", decode.bytes_per_step},
        {"flops_per_step", decode.flops_per_step},
        {"arithmetic_intensity_flop_per_byte", decode.arithmetic_intensity},
        {"bound", engine::bound_name(decode.bound)},
        {"time_fraction",
         {{"memory", decode.memory_fraction},
          {"compute", decode.compute_fraction},
          {"overhead", decode.overhead_fraction},
          {"communication", decode.communication_fraction}}},
        {"roofline_step_time_s", decode.roofline_step_time},
        {"roofline_tokens_per_s_per_stream", decode.roofline_tokens_per_s_per_stream},
        {"roofline_tokens_per_s_total", decode.roofline_tokens_per_s_total},
    };
    auto prefill_json = [](const engine::PrefillResult& pass) {
        return json{
            {"sequences", pass.sequences},
            {"prompt_tokens", pass.prompt_tokens},
            {"cached_tokens", pass.cached_tokens},
            {"time_s", pass.time},
            {"flops", pass.flops},
            {"bytes", pass.bytes},
            {"bound", engine::bound_name(pass.bound)},
            {"roofline_time_s", pass.roofline_time},
        };
    };
    // One request's own prefill (the TTFT at an idle server), and the whole batch's at once.
    document["prefill"] = prefill_json(prefill);
    document["ttft_s"] = prediction.ttft;
    document["vision_encoder_s"] = prediction.vision_encoder;  // part of ttft_s; 0 without images
    document["batch_prefill"] = prefill_json(prediction.batch_prefill);
    if (prediction.request) {
        const auto& request = *prediction.request;
        document["request"] = {
            {"ttft_s", request.ttft},
            {"time_per_output_token_s", request.time_per_output_token},
            {"decode_time_s", request.decode_time},
            {"end_to_end_s", request.end_to_end},
            {"roofline_end_to_end_s", request.roofline_end_to_end},
        };
    }
    document["memory"] = {
        {"weights_bytes", memory.weights}, {"kv_bytes_per_token", memory.kv_per_token},
        {"kv_growth_bytes_per_token", memory.kv_growth_per_token},
        {"kv_bytes", memory.kv},           {"capacity_bytes", memory.capacity},
        {"reserve_bytes", memory.reserve}, {"usable_bytes", memory.usable},
        {"fits", memory.fits},                   {"max_batch", memory.max_batch},
        {"kv_spilled_to_host_bytes", memory.spilled},
    };
    if (prediction.speculative) {
        const auto& spec = *prediction.speculative;
        document["speculative"] = {
            {"length", spec.length},
            {"acceptance", spec.acceptance},
            {"tokens_per_verification", spec.tokens_per_step},
            {"draft_time_s", spec.draft_time},
            {"verify_time_s", spec.verify_time},
            {"host_time_s", spec.host_time},
            {"step_time_s", spec.step_time},
            {"verify_bound", engine::bound_name(spec.verify_bound)},
            {"verify_arithmetic_intensity_flop_per_byte", spec.verify_arithmetic_intensity},
            {"tokens_per_s_per_stream", spec.tokens_per_s_per_stream},
            {"tokens_per_s_total", spec.tokens_per_s_total},
            {"speedup", spec.speedup},
            {"roofline_tokens_per_s_per_stream", spec.roofline_tokens_per_s_per_stream},
        };
    }
    document["machine_balance_flop_per_byte"] = prediction.machine_balance;
    if (include_operators) {
        json operators = json::array();
        for (const auto& op : decode.operators) {
            operators.push_back({{"name", std::string(engine::operator_name(op.kind))},
                                 {"flops", op.flops},
                                 {"bytes", op.bytes},
                                 {"time_s", op.time},
                                 {"bound", engine::bound_name(op.bound)}});
        }
        document["operators"] = std::move(operators);
    }
    document["warnings"] = prediction.warnings;
    return document;
}

nlohmann::json band_to_json(const engine::Prediction& low, const engine::Prediction& high) {
    auto side = [](const engine::Prediction& p) {
        json figures = {{"step_time_s", p.decode.step_time},
                        {"tokens_per_s_per_stream", p.decode.tokens_per_s_per_stream},
                        {"tokens_per_s_total", p.decode.tokens_per_s_total},
                        {"ttft_s", p.ttft}};
        if (p.request) figures["end_to_end_s"] = p.request->end_to_end;
        return figures;
    };
    return {{"low", side(low)}, {"high", side(high)}};
}

}  // namespace decodesim::report
