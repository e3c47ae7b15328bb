#include "engine/memory.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "engine/efficiency.hpp"

namespace decodesim::engine {

core::Bytes usable_beside(core::Bytes pool, core::Bytes weights, double kv_free_share) {
    if (weights >= pool) return pool;
    return pool - (pool - weights) * (1.0 - kv_free_share);
}

MemoryFootprint memory_footprint(const CostModel& cost, const profiles::HardwareProfile& hardware, double batch,
                                 double context, double shared_prefix) {
    MemoryFootprint memory;
    memory.weights = cost.weight_bytes() + cost.encoder_weight_bytes;
    memory.kv_per_token = cost.kv_bytes_per_token() / static_cast<double>(cost.parallelism.pipeline);
    const core::Bytes per_sequence = cost.kv_bytes_per_sequence(context);
    memory.kv_growth_per_token = cost.kv_growth_per_token(context, 1024.0);
    memory.kv_per_sequence = per_sequence;
    // Each attention replica of a stage holds its own sequences, each whole: the busiest one's, as
    // its step runs them (engine/cost_model.cpp, busiest_replica).
    const double replicas = cost.parallelism.attention_data;
    // A shared prefix is held once per replica; each sequence adds only what follows it.
    const core::Bytes shared = cost.shared_prefix_bytes(std::min(shared_prefix, context));
    const core::Bytes own = per_sequence - shared;
    const double per_replica = on_busiest_replica(batch, replicas);
    memory.kv = per_replica > 0.0 ? shared + own * per_replica : core::Bytes();
    memory.capacity = hardware.memory_capacity;
    // Never below zero: a workspace larger than a small device's share leaves nothing, not less.
    memory.pool = core::max(core::Bytes(),
                            memory.capacity * usable_memory_fraction(hardware, cost.kv_sizing) - cost.kv_sizing.workspace);
    memory.kv_free_share = cost.kv_sizing.free_share;
    memory.usable = usable_beside(memory.pool, memory.weights, memory.kv_free_share);
    memory.reserve = memory.capacity - memory.usable;
    memory.fits = memory.weights + memory.kv <= memory.usable;
    // Offloaded KV may spill to CPU memory: only the weights must fit.
    if (cost.kv_device_room) {
        memory.spilled = core::max(core::Bytes(), memory.weights + memory.kv - memory.usable);
        memory.fits = memory.weights <= memory.usable;
    }
    const core::Bytes room = memory.usable - memory.weights - shared;
    if (room.value > 0.0 && own.value > 0.0) {
        // Capped so that an absurdly small cache cannot overflow the integer.
        memory.max_batch = static_cast<long long>(std::min(std::floor(room / own) * replicas, 1e15));
    }
    return memory;
}

MemoryFootprint with_draft(MemoryFootprint memory, const MemoryFootprint& draft, double batch) {
    memory.weights += draft.weights;
    memory.kv_per_token += draft.kv_per_token;
    memory.kv_per_sequence += draft.kv_per_sequence;
    memory.kv += draft.kv;
    memory.usable = usable_beside(memory.pool, memory.weights, memory.kv_free_share);
    memory.reserve = memory.capacity - memory.usable;
    memory.fits = memory.weights + memory.kv <= memory.usable;
    const core::Bytes room = memory.usable - memory.weights;
    memory.max_batch = 0;
    if (room.value > 0.0 && memory.kv_per_sequence.value > 0.0 && batch > 0.0) {
        memory.max_batch = static_cast<long long>(std::min(std::floor(room / (memory.kv / batch)), 1e15));
    }
    return memory;
}

std::optional<std::string> memory_problem(const MemoryFootprint& footprint, double batch) {
    if (footprint.fits) return std::nullopt;
    const double usable = footprint.usable.value / 1e9;
    const double weights = footprint.weights.value / 1e9;
    const double stream = footprint.kv_per_sequence.value / 1e9;
    if (footprint.weights > footprint.usable) {
        return fmt::format("the weights alone ({:.1f} GB per device) do not fit in the {:.1f} GB usable; the figures "
                           "assume they did",
                           weights, usable);
    }
    if (footprint.max_batch == 0) {
        return fmt::format("one stream's KV cache ({:.1f} GB) does not fit beside the weights: {:.1f} + {:.1f} GB against "
                           "{:.1f} GB usable; the figures assume it did",
                           stream, weights, stream, usable);
    }
    return fmt::format("{:.0f} streams do not fit in memory: they need {:.1f} GB of the {:.1f} GB usable, and at most "
                       "{} fit; the figures assume they did",
                       batch, weights + footprint.kv.value / 1e9, usable, footprint.max_batch);
}

}  // namespace decodesim::engine
