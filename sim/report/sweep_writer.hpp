#pragma once
// Streams sweep points as CSV rows or JSON lines. Numbers are written with nine significant
// digits by core::write_number into one buffer, and the columns that are constant over a
// deployment are formatted once per deployment, so the writer keeps up with the engine
// (docs/performance.md).

#include <memory>
#include <ostream>
#include <string>

#include "scenarios/sweep.hpp"

namespace decodesim::report {

enum class SweepFormat { csv, jsonl };

class SweepWriter {
public:
    SweepWriter(std::ostream& sink, SweepFormat format);
    ~SweepWriter();
    SweepWriter(const SweepWriter&) = delete;
    SweepWriter& operator=(const SweepWriter&) = delete;

    void header();
    void write(const scenarios::SweepPoint& point);
    void flush();

private:
    void start_deployment(const scenarios::SweepPoint& point);
    void number(double value);
    void text(std::string_view value);
    void key(std::size_t column);
    // The next column: its key (JSON lines) and its value.
    void field(std::string_view value);
    void field(double value);
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
    std::size_t column_ = 0;
};

}  // namespace decodesim::report
