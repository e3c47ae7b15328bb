#include "cli/progress_bar.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>

#include "core/units.hpp"

namespace decodesim::cli {

bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

ProgressBar::ProgressBar(Io io, double total, std::string unit, bool enabled, std::uint64_t calls_per_look)
    : io_(io), total_(total), unit_(std::move(unit)), enabled_(enabled && total > 0.0),
      calls_per_look_(std::max<std::uint64_t>(1, calls_per_look)), start_(std::chrono::steady_clock::now()) {}

void ProgressBar::advance(double done) {
    if (io_.progress != nullptr && total_ > 0.0) {
        // Whole percents only: a page need not redraw for every request of a million.
        const int percent = static_cast<int>(std::min(1.0, done / total_) * 100.0);
        if (percent != last_percent_) {
            last_percent_ = percent;
            (*io_.progress)(unit_, done, total_);
        }
        return;
    }
    if (!enabled_ || ++calls_ % calls_per_look_ != 0) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - start_ < std::chrono::seconds(1) || now - last_draw_ < std::chrono::milliseconds(200)) return;
    last_draw_ = now;
    drawn_ = true;
    const double fraction = std::min(1.0, done / total_);
    const int filled = static_cast<int>(fraction * 40.0);
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const double rate = done / elapsed;
    const double left = rate > 0.0 ? (total_ - done) / rate : 0.0;
    const std::string bar = std::string(filled, '=') + std::string(40 - filled, ' ');
    // A count where the work is counted in items; a share alone where it is not (unit empty).
    const std::string counted = unit_.empty() ? "" : fmt::format(" {:.0f}/{:.0f} {}, {} {}/s,", done, total_, unit_,
                                                                  core::format_significant(rate, 3), unit_);
    io_.err << fmt::format("\r[{}] {:3.0f}%{} {:.0f} s left ", bar, fraction * 100.0, counted, left)
            << std::flush;
}

void ProgressBar::finish() {
    if (drawn_) {
        io_.err << fmt::format("\r[{}] 100%{}\n", std::string(40, '='),
                               unit_.empty() ? "" : fmt::format(" {:.0f}/{:.0f} {}", total_, total_, unit_));
    }
    drawn_ = false;
}

}  // namespace decodesim::cli
