#include "report/explore/sweep_writer.hpp"

#include "core/text_escape.hpp"

#include <cmath>
#include <cstring>
#include <iterator>

#include "core/fast_number.hpp"
#include "engine/roofline.hpp"

namespace decodesim::report {

namespace {

// The columns, in output order (docs/cli.md): first those constant over a deployment, then the
// operating point, then its figures.
constexpr std::string_view kColumns[] = {
    "hardware", "model", "weights", "kv", "activation", "runtime", "tensor_parallel", "clocks", "memory.weights_bytes",
    "memory.kv_bytes_per_token", "memory.capacity_bytes", "batch", "context_tokens", "prompt_tokens", "output_tokens",
    "decode.step_time_s", "decode.tokens_per_s_per_stream", "decode.tokens_per_s_total", "decode.bytes_per_step",
    "decode.flops_per_step", "decode.arithmetic_intensity_flop_per_byte", "decode.bound",
    "decode.roofline_tokens_per_s_per_stream", "decode.roofline_tokens_per_s_total", "ttft_s", "prefill.flops",
    "batch_prefill.time_s", "request.time_per_output_token_s", "request.end_to_end_s", "memory.kv_bytes",
    "memory.fits", "memory.max_batch"};
constexpr std::size_t kDeploymentColumns = 11;
constexpr std::size_t kContextColumn = 12;
constexpr std::size_t kTtftColumn = 24;
static_assert(kColumns[kDeploymentColumns] == "batch" && kColumns[kContextColumn] == "context_tokens" &&
              kColumns[kContextColumn + 3] == "decode.step_time_s" && kColumns[kTtftColumn] == "ttft_s" &&
              kColumns[kTtftColumn + 2] == "batch_prefill.time_s");

constexpr std::size_t kFlushBytes = 1 << 16;
// The longest row: 32 columns of at most 24 characters, their keys and quotes, and the ids.
constexpr std::size_t kRowSlack = 1 << 14;

}  // namespace

std::span<const std::string_view> sweep_column_names() { return kColumns; }

SweepWriter::SweepWriter(std::ostream& sink, SweepFormat format)
    : sink_(&sink), format_(format), buffer_(new char[kFlushBytes + kRowSlack]), end_(buffer_.get()) {}

SweepWriter::~SweepWriter() { flush(); }

void SweepWriter::flush() {
    if (end_ != buffer_.get()) sink_->write(buffer_.get(), end_ - buffer_.get());
    end_ = buffer_.get();
}

void SweepWriter::append(std::string_view text) {
    std::memcpy(end_, text.data(), text.size());
    end_ += text.size();
}

void SweepWriter::header() {
    if (format_ != SweepFormat::csv) return;
    for (std::size_t i = 0; i < std::size(kColumns); ++i) {
        if (i > 0) append(',');
        append(kColumns[i]);
    }
    append('\n');
}

void SweepWriter::key(std::size_t column) {
    if (column > 0) append(',');
    if (format_ == SweepFormat::jsonl) {
        append('"');
        append(kColumns[column]);
        append("\":");
    }
}

void SweepWriter::number(double value) {
    if (!std::isfinite(value)) {  // never expected; JSON has no NaN, so write null
        if (format_ == SweepFormat::jsonl) append("null");
        return;
    }
    // Nine significant digits (whole numbers exactly): see core/fast_number.hpp.
    end_ = core::write_number(end_, value);
}

void SweepWriter::text(std::string_view value) {
    // Ids come from file names and may hold anything; format names are plain. Escaped per format
    // (formatted once per deployment, so the cost is off the per-point path).
    append(format_ == SweepFormat::jsonl ? core::json_string(value) : core::csv_field(value));
}

void SweepWriter::field(std::string_view value) {
    key(column_++);
    text(value);
}

void SweepWriter::field(double value) {
    key(column_++);
    number(value);
}

template <typename WriteFields>
std::string SweepWriter::formatted(std::size_t first, WriteFields write_fields) {
    // Formatted at the buffer's end, then moved aside.
    char* const start = end_;
    column_ = first;
    write_fields();
    std::string text(start, end_);
    end_ = start;
    return text;
}

void SweepWriter::start_deployment(const explore::SweepPoint& point) {
    const engine::Deployment& deployment = *point.deployment;
    const engine::MemoryFootprint& memory = point.prediction->memory;
    deployment_prefix_ = formatted(0, [&] {
        field(point.hardware->id);
        field(point.model->id);
        field(deployment.weights->name);
        field(deployment.kv->name);
        field(core::datatype_name(deployment.activation));
        field(engine::runtime_label(deployment));
        field(deployment.parallelism.tensor);
        field(engine::clock_label(deployment.clocks));
        field(memory.weights.value);
        field(memory.kv_per_token.value);
        field(memory.capacity.value);
    });
    deployment_index_ = point.deployment_index;
    axis_columns_.clear();
}

const SweepWriter::AxisColumns& SweepWriter::axis_columns(const explore::SweepPoint& point) {
    if (point.axis_index >= axis_columns_.size()) axis_columns_.resize(point.axis_index + 1);
    AxisColumns& columns = axis_columns_[point.axis_index];
    if (!columns.workload.empty()) return columns;
    // The same for every batch: the context (a request's mean context in request mode), and one
    // request's prefill (engine::Prediction::ttft does not depend on the batch).
    const engine::Prediction& prediction = *point.prediction;
    const bool request = prediction.request.has_value();
    columns.workload = formatted(kContextColumn, [&] {
        field(prediction.decode.context);
        field_optional(request, point.prompt);
        field_optional(request, point.output);
    });
    columns.prefill = formatted(kTtftColumn, [&] {
        field(prediction.ttft.value);
        field(prediction.prefill.flops.value);
    });
    return columns;
}

void SweepWriter::field_optional(bool present, double value) {
    key(column_++);
    if (present) {
        number(value);
    } else if (format_ == SweepFormat::jsonl) {
        append("null");
    }
}

void SweepWriter::write(const explore::SweepPoint& point) {
    if (point.deployment_index != deployment_index_) start_deployment(point);
    const AxisColumns& axis = axis_columns(point);
    const engine::Prediction& prediction = *point.prediction;
    const bool request = prediction.request.has_value();
    if (format_ == SweepFormat::jsonl) append('{');
    append(deployment_prefix_);
    column_ = kDeploymentColumns;
    field(point.batch);
    append(axis.workload);
    column_ = kContextColumn + 3;
    field(prediction.decode.step_time.value);
    field(prediction.decode.tokens_per_s_per_stream);
    field(prediction.decode.tokens_per_s_total);
    field(prediction.decode.bytes_per_step.value);
    field(prediction.decode.flops_per_step.value);
    field(prediction.decode.arithmetic_intensity);
    field(engine::bound_name(prediction.decode.bound));
    field(prediction.decode.roofline_tokens_per_s_per_stream);
    field(prediction.decode.roofline_tokens_per_s_total);
    append(axis.prefill);
    column_ = kTtftColumn + 2;
    field(prediction.batch_prefill.time.value);
    field_optional(request, request ? prediction.request->time_per_output_token.value : 0.0);
    field_optional(request, request ? prediction.request->end_to_end.value : 0.0);
    field(prediction.memory.kv.value);
    key(column_++);
    append(prediction.memory.fits ? "true" : "false");
    field(static_cast<double>(prediction.memory.max_batch));
    append(format_ == SweepFormat::jsonl ? "}\n" : "\n");
    if (static_cast<std::size_t>(end_ - buffer_.get()) >= kFlushBytes) flush();
}

}  // namespace decodesim::report
