#include "report/sweep_writer.hpp"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <iterator>
#include <cmath>

#include "engine/roofline.hpp"

namespace decodesim::report {

namespace {

// The flattened predict fields, in output order (docs/cli.md).
constexpr std::string_view kColumns[] = {
    "hardware", "model", "weights", "kv", "tensor_parallel", "batch", "context_tokens", "prompt_tokens",
    "output_tokens", "decode.step_time_s", "decode.tokens_per_s_per_stream", "decode.tokens_per_s_total",
    "decode.bytes_per_step", "decode.flops_per_step", "decode.arithmetic_intensity_flop_per_byte", "decode.bound",
    "decode.roofline_tokens_per_s_per_stream", "decode.roofline_tokens_per_s_total", "prefill.time_s",
    "prefill.flops", "ttft_s", "request.time_per_output_token_s", "request.end_to_end_s", "memory.weights_bytes",
    "memory.kv_bytes_per_token", "memory.kv_bytes", "memory.capacity_bytes", "memory.fits", "memory.max_batch"};

constexpr std::size_t kFlushBytes = 1 << 16;

}  // namespace

SweepWriter::SweepWriter(std::ostream& sink, SweepFormat format) : sink_(&sink), format_(format) {
    buffer_.reserve(kFlushBytes * 2);
}

SweepWriter::~SweepWriter() { flush(); }

void SweepWriter::flush() {
    if (!buffer_.empty()) sink_->write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    buffer_.clear();
}

void SweepWriter::header() {
    if (format_ != SweepFormat::csv) return;
    for (std::size_t i = 0; i < std::size(kColumns); ++i) {
        if (i > 0) buffer_ += ',';
        buffer_ += kColumns[i];
    }
    buffer_ += '\n';
}

void SweepWriter::key(std::string_view name) {
    if (!first_field_) buffer_ += ',';
    first_field_ = false;
    if (format_ == SweepFormat::jsonl) {
        buffer_ += '"';
        buffer_ += name;
        buffer_ += "\":";
    }
}

void SweepWriter::number(double value) {
    if (!std::isfinite(value)) {  // never expected; JSON has no NaN, so write null
        buffer_ += format_ == SweepFormat::jsonl ? "null" : "";
        return;
    }
    // Whole numbers (bytes, counts) take the integer path; the rest get the shortest round-trip
    // digits (Dragonbox in fmt): exact, and several times faster than printf-style precision.
    if (value == std::floor(value) && std::fabs(value) < 9e15) {
        fmt::format_to(std::back_inserter(buffer_), FMT_COMPILE("{}"), static_cast<long long>(value));
    } else {
        fmt::format_to(std::back_inserter(buffer_), FMT_COMPILE("{}"), value);
    }
}

void SweepWriter::text(std::string_view value) {
    if (format_ == SweepFormat::jsonl) buffer_ += '"';
    buffer_ += value;  // ids and format names: no quotes or commas by construction
    if (format_ == SweepFormat::jsonl) buffer_ += '"';
}

void SweepWriter::write(const scenarios::SweepPoint& point) {
    const engine::Prediction& prediction = *point.prediction;
    const bool request = prediction.request.has_value();
    first_field_ = true;
    if (format_ == SweepFormat::jsonl) buffer_ += '{';
    std::size_t column = 0;
    auto field_text = [&](std::string_view value) {
        key(kColumns[column++]);
        text(value);
    };
    auto field_number = [&](double value) {
        key(kColumns[column++]);
        number(value);
    };
    auto field_optional = [&](bool present, double value) {
        key(kColumns[column++]);
        if (present) {
            number(value);
        } else if (format_ == SweepFormat::jsonl) {
            buffer_ += "null";
        }
    };
    field_text(point.hardware->id);
    field_text(point.model->id);
    field_text(point.deployment->weights->name);
    field_text(point.deployment->kv->name);
    field_number(point.deployment->tensor_parallel);
    field_number(point.batch);
    field_number(prediction.decode.context);
    field_optional(request, point.prompt);
    field_optional(request, point.output);
    field_number(prediction.decode.step_time_s);
    field_number(prediction.decode.tokens_per_s_per_stream);
    field_number(prediction.decode.tokens_per_s_total);
    field_number(prediction.decode.bytes_per_step);
    field_number(prediction.decode.flops_per_step);
    field_number(prediction.decode.arithmetic_intensity);
    field_text(engine::bound_name(prediction.decode.bound));
    field_number(prediction.decode.roofline_tokens_per_s_per_stream);
    field_number(prediction.decode.roofline_tokens_per_s_total);
    field_number(prediction.prefill.time_s);
    field_number(prediction.prefill.flops);
    field_number(prediction.ttft_s);
    field_optional(request, request ? prediction.request->time_per_output_token_s : 0.0);
    field_optional(request, request ? prediction.request->end_to_end_s : 0.0);
    field_number(prediction.memory.weights_bytes);
    field_number(prediction.memory.kv_bytes_per_token);
    field_number(prediction.memory.kv_bytes);
    field_number(prediction.memory.capacity_bytes);
    key(kColumns[column++]);
    buffer_ += prediction.memory.fits ? "true" : "false";
    field_number(static_cast<double>(prediction.memory.max_batch));
    buffer_ += format_ == SweepFormat::jsonl ? "}\n" : "\n";
    if (buffer_.size() >= kFlushBytes) flush();
}

}  // namespace decodesim::report
