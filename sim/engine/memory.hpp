#pragma once
// What a deployment holds in device memory, and how many sequences fit beside the weights.

#include <optional>
#include <string>

#include "engine/cost_model.hpp"
#include "profiles/hardware_profile.hpp"

namespace decodesim::engine {

struct MemoryFootprint {
    core::Bytes weights;             // on one device
    core::Bytes kv_per_token;        // one token of one sequence, all layers, one device (no window cap)
    // What one more token adds to a sequence at this context: less than kv_per_token once sliding
    // windows are full, and for compressed attention's rows (one a ratio of tokens).
    core::Bytes kv_growth_per_token;
    core::Bytes kv_per_sequence;     // one sequence at its context, windows applied
    core::Bytes kv;                  // the batch at its context, windows applied
    core::Bytes capacity;
    core::Bytes reserve;             // capacity - usable: workspace, the runtime's reserve, OS (docs/model.md)
    core::Bytes usable;              // what weights and KV cache may fill under the runtime's sizing
    // The runtime's sizing (engine::KvCacheSizing): what weights and cache may fill before its
    // share of the free memory is taken, and that share; usable = pool - (1 - share) x (pool - weights).
    core::Bytes pool;
    double kv_free_share = 1.0;
    bool fits = false;
    long long max_batch = 0;         // sequences of this context that fit; 0 when the weights alone do not
    core::Bytes spilled;             // KV held in CPU memory (--kv-offload); 0 otherwise

    core::Bytes headroom() const { return usable - weights - kv; }  // negative: short by that much
};

// What weights and cache may fill of a pool: all of it when the weights do not fit in it (so that
// the message names the pool), else the weights and the runtime's share of what they leave free.
core::Bytes usable_beside(core::Bytes pool, core::Bytes weights, double kv_free_share);

// What does not fit, naming the actual cause, or nothing when the batch fits: the weights alone,
// one stream's KV cache beside them, or the batch (with the most streams that fit). `batch` is the
// footprint's batch. The one wording of memory warnings, for every command.
std::optional<std::string> memory_problem(const MemoryFootprint& footprint, double batch);

// The footprint of a model and its speculative-decoding draft on the same devices, `batch`
// sequences of each.
MemoryFootprint with_draft(MemoryFootprint target, const MemoryFootprint& draft, double batch);

// `context` is the most tokens a sequence holds during the workload.
// `shared_prefix`: leading tokens every sequence shares, held once (a prefix cache).
MemoryFootprint memory_footprint(const CostModel& cost, const profiles::HardwareProfile& hardware, double batch,
                                 double context, double shared_prefix = 0.0);

}  // namespace decodesim::engine
