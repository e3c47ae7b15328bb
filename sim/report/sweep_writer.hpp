#pragma once
// Streams sweep points as CSV rows or JSON lines, formatting numbers with std::to_chars so the
// writer keeps up with the engine (docs/performance.md).

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
    void number(double value);
    void text(std::string_view value);
    void key(std::string_view name);

    std::ostream* sink_;
    SweepFormat format_;
    std::string buffer_;
    bool first_field_ = true;
};

}  // namespace decodesim::report
