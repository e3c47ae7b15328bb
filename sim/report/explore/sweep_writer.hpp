#pragma once
// Streams sweep points as CSV rows or JSON lines. Numbers are written with nine significant
// digits by core::write_number into one buffer. The columns that are constant over a deployment
// are formatted once per deployment, and those that depend only on the point's context (or
// prompt and output) once per deployment and context, so the writer keeps up with the engine
// (docs/performance.md).

#include <array>
#include <memory>
#include <ostream>
#include <span>
#include <string_view>
#include <string>
#include <vector>

#include "explore/sweep.hpp"
#include "core/enum_names.hpp"

namespace decodesim::report {

enum class SweepFormat { csv, jsonl };
inline constexpr std::array<core::NamedValue<SweepFormat>, 2> kSweepFormatNames{{{SweepFormat::csv, "csv"}, {SweepFormat::jsonl, "jsonl"}}};

// The columns, in output order (docs/cli.md); SweepTable holds the same ones.
std::span<const std::string_view> sweep_column_names();

class SweepWriter {
public:
    SweepWriter(std::ostream& sink, SweepFormat format);
    ~SweepWriter();
    SweepWriter(const SweepWriter&) = delete;
    SweepWriter& operator=(const SweepWriter&) = delete;

    void header();
    void write(const explore::SweepPoint& point);
    void flush();

private:
    void start_deployment(const explore::SweepPoint& point);
    // The two runs of columns that depend only on the axis point, formatted on first use.
    struct AxisColumns {
        std::string workload;  // context_tokens, prompt_tokens, output_tokens
        std::string prefill;   // ttft_s, prefill.flops
    };
    const AxisColumns& axis_columns(const explore::SweepPoint& point);
    // Formats the columns [first, first + count) with `write_fields` and returns them as text.
    template <typename WriteFields>
    std::string formatted(std::size_t first, WriteFields write_fields);
    void number(double value);
    void text(std::string_view value);
    void key(std::size_t column);
    // The next column: its key (JSON lines) and its value.
    void field(std::string_view value);
    void field(double value);
    void field_optional(bool present, double value);  // empty (CSV) or null (JSON) when absent
    void append(std::string_view text);
    void append(char character) { *end_++ = character; }

    std::ostream* sink_;
    SweepFormat format_;
    // Rows are written straight into this array (a row is far shorter than the slack above the
    // flush threshold), so no append checks its capacity.
    std::unique_ptr<char[]> buffer_;
    char* end_ = nullptr;
    std::string deployment_prefix_;  // the constant columns of the current deployment, formatted
    std::size_t deployment_index_ = static_cast<std::size_t>(-1);
    std::vector<AxisColumns> axis_columns_;  // of the current deployment, by axis index
    std::size_t column_ = 0;
};

}  // namespace decodesim::report
