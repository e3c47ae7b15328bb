#pragma once
// What a deployment holds in device memory, and how many sequences fit beside the weights.

#include "engine/cost_model.hpp"
#include "profiles/hardware_profile.hpp"

namespace decodesim::engine {

struct MemoryFootprint {
    double weights_bytes = 0.0;           // on one device
    double kv_bytes_per_token = 0.0;      // one token of one sequence, all layers, one device (no window cap)
    double kv_bytes = 0.0;                // the batch at its context, windows applied
    double capacity_bytes = 0.0;
    double reserve_bytes = 0.0;           // activations, runtime, OS (docs/model.md)
    double usable_bytes = 0.0;            // capacity - reserve
    bool fits = false;
    long long max_batch = 0;              // sequences of this context that fit; 0 when the weights alone do not
};

// `context` is the most tokens a sequence holds during the workload.
MemoryFootprint memory_footprint(const CostModel& cost, const profiles::HardwareProfile& hardware, double batch,
                                 double context);

}  // namespace decodesim::engine
