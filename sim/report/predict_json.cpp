#include "report/predict_json.hpp"

namespace decodesim::report {

using nlohmann::json;

nlohmann::json document_for(const Conditions& conditions) {
    json document;
    document["schema_version"] = kSchemaVersion;
    document["hardware"] = conditions.hardware;
    document["model"] = conditions.model;
    document["conditions"] = {{"weights", conditions.weights},
                              {"kv", conditions.kv},
                              {"activation", conditions.activation},
                              {"tensor_parallel", conditions.tensor_parallel},
                              {"runtime", conditions.runtime}};
    return document;
}

nlohmann::json prediction_to_json(const Conditions& conditions, const engine::Prediction& prediction,
                                  bool include_operators) {
    const auto& decode = prediction.decode;
    const auto& prefill = prediction.prefill;
    const auto& memory = prediction.memory;
    json document = document_for(conditions);
    json& given = document["conditions"];
    given["batch"] = prediction.batch;
    if (prediction.request) {
        given["prompt_tokens"] = prediction.request->prompt;
        given["output_tokens"] = prediction.request->output;
    } else {
        given["context_tokens"] = decode.context;
    }

    document["decode"] = {
        {"context_tokens", decode.context},
        {"step_time_s", decode.step_time_s},
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
        {"roofline_step_time_s", decode.roofline_step_time_s},
        {"roofline_tokens_per_s_per_stream", decode.roofline_tokens_per_s_per_stream},
        {"roofline_tokens_per_s_total", decode.roofline_tokens_per_s_total},
    };
    document["prefill"] = {
        {"prompt_tokens", prefill.prompt_tokens}, {"time_s", prefill.time_s},
        {"flops", prefill.flops},                 {"bytes", prefill.bytes},
        {"bound", engine::bound_name(prefill.bound)}, {"roofline_time_s", prefill.roofline_time_s},
    };
    document["ttft_s"] = prediction.ttft_s;
    if (prediction.request) {
        const auto& request = *prediction.request;
        document["request"] = {
            {"ttft_s", request.ttft_s},
            {"time_per_output_token_s", request.time_per_output_token_s},
            {"decode_time_s", request.decode_time_s},
            {"end_to_end_s", request.end_to_end_s},
            {"roofline_end_to_end_s", request.roofline_end_to_end_s},
        };
    }
    document["memory"] = {
        {"weights_bytes", memory.weights_bytes}, {"kv_bytes_per_token", memory.kv_bytes_per_token},
        {"kv_bytes", memory.kv_bytes},           {"capacity_bytes", memory.capacity_bytes},
        {"reserve_bytes", memory.reserve_bytes}, {"usable_bytes", memory.usable_bytes},
        {"fits", memory.fits},                   {"max_batch", memory.max_batch},
    };
    document["machine_balance_flop_per_byte"] = prediction.machine_balance;
    if (include_operators) {
        json operators = json::array();
        for (const auto& op : decode.operators) {
            operators.push_back({{"name", std::string(engine::operator_name(op.kind))},
                                 {"flops", op.flops},
                                 {"bytes", op.bytes},
                                 {"time_s", op.time_s},
                                 {"bound", engine::bound_name(op.bound)}});
        }
        document["operators"] = std::move(operators);
    }
    document["warnings"] = prediction.warnings;
    return document;
}

nlohmann::json band_to_json(const engine::Prediction& low, const engine::Prediction& high) {
    auto side = [](const engine::Prediction& p) {
        json figures = {{"step_time_s", p.decode.step_time_s},
                        {"tokens_per_s_per_stream", p.decode.tokens_per_s_per_stream},
                        {"tokens_per_s_total", p.decode.tokens_per_s_total},
                        {"ttft_s", p.ttft_s}};
        if (p.request) figures["end_to_end_s"] = p.request->end_to_end_s;
        return figures;
    };
    return {{"low", side(low)}, {"high", side(high)}};
}

}  // namespace decodesim::report
