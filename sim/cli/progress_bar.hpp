#pragma once
// Progress on stderr for a command a person may wait on: "[=====>     ]  45% 4500/10000 points,
// 1.2 k points/s, 4 s left", drawn only after the work has run for a second and only where stderr
// is a terminal (never into a redirected log), at most five times a second. Where the caller
// gave Io::progress (the browser explorer), each whole percent goes there instead.

#include <chrono>
#include <cstdint>
#include <string>

#include "cli/io.hpp"

namespace decodesim::cli {

// Whether stderr is a terminal a person watches.
bool stderr_is_terminal();

class ProgressBar {
public:
    // `unit`: what is counted ("points", "requests"); empty: a share of the work, shown as a
    // percentage alone. The clock is read once every
    // `calls_per_look` calls to advance (a sweep calls it millions of times a second).
    ProgressBar(Io io, double total, std::string unit, bool enabled, std::uint64_t calls_per_look = 1);
    // `done` of the total are finished; cheap enough to call for every item.
    void advance(double done);
    // Ends the line, where one was drawn.
    void finish();

private:
    Io io_;
    double total_;
    std::string unit_;
    bool enabled_;
    bool drawn_ = false;
    std::uint64_t calls_per_look_;
    std::uint64_t calls_ = 0;
    int last_percent_ = -1;
    std::chrono::steady_clock::time_point start_;
    std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace decodesim::cli
