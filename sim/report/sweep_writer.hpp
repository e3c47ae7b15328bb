#pragma once
// Streams sweep points as CSV rows or JSON lines. Numbers are written with std::to_chars (the
// shortest digits that round-trip) into one buffer, and the columns that are constant over a
// deployment are formatted once per deployment, so the writer keeps up with the engine
// (docs/performance.md).

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

    std::ostream* sink_;
    SweepFormat format_;
    std::string buffer_;
    std::string deployment_prefix_;  // the constant columns of the current deployment, formatted
    std::size_t deployment_index_ = static_cast<std::size_t>(-1);
    std::size_t column_ = 0;
};

}  // namespace decodesim::report
