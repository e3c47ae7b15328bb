#pragma once
// "What should we buy?": several devices side by side for one workload.

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "engine/prediction.hpp"
#include "core/enum_names.hpp"

namespace decodesim::explore {

struct Candidate {
    profiles::HardwareProfile hardware;
    std::optional<int> devices;             // tensor-parallel degree; unset: the choice's
    std::shared_ptr<const engine::RuntimeProfile> runtime;  // set: overrides the choice's (the device's default)
};

struct CompareOptions {
    engine::Workload workload;              // batch = the concurrency per-stream speed is quoted at
    std::optional<double> target_tokens_per_s_per_stream;  // serve the most streams at this speed
};

struct CompareRow {
    std::string hardware;
    int devices = 1;
    std::optional<engine::Deployment> deployment;  // as resolved for this device; unset when it cannot run
    bool fits = false;                      // at the requested concurrency
    double tokens_per_s_per_stream = 0.0;   // at the requested concurrency
    core::Seconds ttft;                     // one request at an idle server
    std::optional<core::Seconds> time_to_last_token;  // of a request workload, at the requested concurrency
    core::Bytes headroom;                   // usable memory left at the requested concurrency (negative: short)
    long long max_batch = 0;
    long long throughput_batch = 0;         // batch the total is quoted at
    double tokens_per_s_total = 0.0;        // at throughput_batch
    std::optional<double> tokens_per_joule;
    std::optional<double> usd_per_million_tokens;
    profiles::PriceBasis price_basis = profiles::PriceBasis::unstated;  // of the price behind it
    std::string error;                      // why the device cannot run it at all, when it cannot
};

enum class CompareOrder { total, stream, ttft, cost };
inline constexpr std::array<core::NamedValue<CompareOrder>, 4> kCompareOrderNames{
    {{CompareOrder::total, "total"}, {CompareOrder::stream, "stream"}, {CompareOrder::ttft, "ttft"}, {CompareOrder::cost, "cost"}}};

// Each candidate is resolved with `choice` (its device count replacing the tensor parallelism),
// by the same resolver as every other command.
std::vector<CompareRow> compare(const profiles::ModelProfile& model, const engine::DeploymentChoice& choice,
                                const std::vector<Candidate>& candidates, const CompareOptions& options,
                                CompareOrder order);

}  // namespace decodesim::explore
