#pragma once
// A sweep held in memory as columns, for callers that want numbers rather than text (the Python
// module hands them to NumPy without formatting a digit). The columns and their values are
// SweepWriter's: a test compares the two on the same sweep.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "explore/sweep.hpp"

namespace decodesim::report {

class SweepTable {
public:
    // The text columns, constant over a deployment: stored once per deployment with its row count,
    // since a sweep of a million points has a handful of deployments.
    struct Deployment {
        std::string hardware;
        std::string model;
        std::string weights;
        std::string kv;
        std::string activation;
        std::string runtime;
        std::string clocks;
        std::size_t rows = 0;
    };

    SweepTable();
    void add(const explore::SweepPoint& point);

    std::size_t rows() const { return bound_.size(); }
    const std::vector<Deployment>& deployments() const { return deployments_; }
    // Every numeric column, by its sweep name, in output order; an absent value (prompt_tokens in
    // step mode, the request columns) is NaN.
    std::vector<std::pair<std::string_view, std::vector<double>>>& numbers() { return numbers_; }
    // decode.bound as an index into bound_names(), and memory.fits.
    std::vector<std::uint8_t>& bound() { return bound_; }
    std::vector<std::uint8_t>& fits() { return fits_; }
    static std::vector<std::string> bound_names();

private:
    std::vector<double>& column(std::size_t index) { return numbers_[index].second; }

    std::vector<Deployment> deployments_;
    std::size_t deployment_index_ = static_cast<std::size_t>(-1);
    std::vector<std::pair<std::string_view, std::vector<double>>> numbers_;
    std::vector<std::uint8_t> bound_;
    std::vector<std::uint8_t> fits_;
};

}  // namespace decodesim::report
