#include "report/explore/sweep_table.hpp"

#include <limits>

#include "engine/clocks.hpp"
#include "engine/roofline.hpp"
#include "report/explore/sweep_writer.hpp"
#include "core/registry.hpp"

namespace decodesim::report {

namespace {

// The numeric columns, in output order; text columns (ids, formats, bound, fits) are held apart.
enum Column : std::size_t {
    kTensorParallel, kWeightsBytes, kKvBytesPerToken, kCapacityBytes, kBatch, kContext, kPrompt, kOutput,
    kStepTime, kTokensPerStream, kTokensTotal, kBytesPerStep, kFlopsPerStep, kIntensity, kRooflinePerStream,
    kRooflineTotal, kTtft, kPrefillFlops, kBatchPrefillTime, kTimePerOutputToken, kEndToEnd, kKvBytes, kMaxBatch,
    kColumnCount
};

constexpr std::string_view kNames[kColumnCount] = {
    "tensor_parallel", "memory.weights_bytes", "memory.kv_bytes_per_token", "memory.capacity_bytes", "batch",
    "context_tokens", "prompt_tokens", "output_tokens", "decode.step_time_s", "decode.tokens_per_s_per_stream",
    "decode.tokens_per_s_total", "decode.bytes_per_step", "decode.flops_per_step",
    "decode.arithmetic_intensity_flop_per_byte", "decode.roofline_tokens_per_s_per_stream",
    "decode.roofline_tokens_per_s_total", "ttft_s", "prefill.flops", "batch_prefill.time_s",
    "request.time_per_output_token_s", "request.end_to_end_s", "memory.kv_bytes", "memory.max_batch"};

std::uint8_t bound_index(engine::Bound bound) {
    for (std::size_t i = 0; i < engine::kBoundNames.size(); ++i) {
        if (engine::kBoundNames[i].value == bound) return static_cast<std::uint8_t>(i);
    }
    return 0;  // unreachable: kBoundNames lists every Bound
}

}  // namespace

SweepTable::SweepTable() {
    numbers_.reserve(kColumnCount);
    for (std::string_view name : kNames) numbers_.emplace_back(name, std::vector<double>{});
}

std::vector<std::string> SweepTable::bound_names() {
    return core::names_of(engine::kBoundNames);
}

void SweepTable::add(const explore::SweepPoint& point) {
    const engine::Deployment& deployment = *point.deployment;
    const engine::Prediction& prediction = *point.prediction;
    if (point.deployment_index != deployment_index_) {
        deployments_.push_back({point.hardware->id, point.model->id, std::string(deployment.weights->name),
                                std::string(deployment.kv->name), std::string(core::datatype_name(deployment.activation)),
                                std::string(engine::runtime_label(deployment)),
                                std::string(engine::clock_label(deployment.clocks)), 0});
        deployment_index_ = point.deployment_index;
    }
    ++deployments_.back().rows;
    constexpr double absent = std::numeric_limits<double>::quiet_NaN();
    const bool request = prediction.request.has_value();
    column(kTensorParallel).push_back(deployment.parallelism.tensor);
    column(kWeightsBytes).push_back(prediction.memory.weights.value);
    column(kKvBytesPerToken).push_back(prediction.memory.kv_per_token.value);
    column(kCapacityBytes).push_back(prediction.memory.capacity.value);
    column(kBatch).push_back(point.batch);
    column(kContext).push_back(prediction.decode.context);
    column(kPrompt).push_back(request ? point.prompt : absent);
    column(kOutput).push_back(request ? point.output : absent);
    column(kStepTime).push_back(prediction.decode.step_time.value);
    column(kTokensPerStream).push_back(prediction.decode.tokens_per_s_per_stream);
    column(kTokensTotal).push_back(prediction.decode.tokens_per_s_total);
    column(kBytesPerStep).push_back(prediction.decode.bytes_per_step.value);
    column(kFlopsPerStep).push_back(prediction.decode.flops_per_step.value);
    column(kIntensity).push_back(prediction.decode.arithmetic_intensity);
    column(kRooflinePerStream).push_back(prediction.decode.roofline_tokens_per_s_per_stream);
    column(kRooflineTotal).push_back(prediction.decode.roofline_tokens_per_s_total);
    column(kTtft).push_back(prediction.ttft.value);
    column(kPrefillFlops).push_back(prediction.prefill.flops.value);
    column(kBatchPrefillTime).push_back(prediction.batch_prefill.time.value);
    column(kTimePerOutputToken).push_back(request ? prediction.request->time_per_output_token.value : absent);
    column(kEndToEnd).push_back(request ? prediction.request->end_to_end.value : absent);
    column(kKvBytes).push_back(prediction.memory.kv.value);
    column(kMaxBatch).push_back(static_cast<double>(prediction.memory.max_batch));
    bound_.push_back(bound_index(prediction.decode.bound));
    fits_.push_back(prediction.memory.fits ? 1 : 0);
}

}  // namespace decodesim::report
