#pragma once
// "The vendor's number against mine": from the conditions a vendor measured under (a narrow
// format, one stream, a short prompt, a cool device at peak clocks) to the user's, changing one
// condition at a time, so that each step's share of the gap has a name.

#include <string>
#include <vector>

#include "engine/prediction.hpp"

namespace decodesim::explore {

// The conditions the ladder moves between.
struct LadderConditions {
    const core::WeightFormat* weights = nullptr;  // null: bf16
    double batch = 1.0;
    double context = 1024.0;  // prompt tokens before decoding (the decode step's context)
    engine::ClockChoice clocks;
};

struct LadderStep {
    std::string change;            // "vendor's conditions", "weights fp8 -> bf16", ...
    LadderConditions conditions;
    engine::Deployment deployment;
    double tokens_per_s_per_stream = 0.0;
    // The same at both ends of the efficiency band (engine::efficiency_band), as predict --band.
    double tokens_per_s_per_stream_low = 0.0;
    double tokens_per_s_per_stream_high = 0.0;
    double tokens_per_s_total = 0.0;
    core::Seconds ttft;            // one request's prefill of `context` tokens
    engine::Bound bound = engine::Bound::memory;
    bool fits = true;
};

// The vendor's conditions, then weights, context, concurrency and clocks changed to the user's in
// that order (the order a buyer usually meets them), each step keeping the ones before. Steps
// whose condition is the same on both sides are left out. Throws core::InputError when a
// deployment cannot run on the device.
std::vector<LadderStep> condition_ladder(const profiles::HardwareProfile& hardware, const profiles::ModelProfile& model,
                                         const engine::DeploymentChoice& base, const LadderConditions& vendor,
                                         const LadderConditions& mine);

}  // namespace decodesim::explore
