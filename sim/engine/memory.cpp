#include "engine/memory.hpp"

#include <algorithm>
#include <cmath>

#include "engine/efficiency.hpp"

namespace decodesim::engine {

MemoryFootprint memory_footprint(const CostModel& cost, const profiles::HardwareProfile& hardware, double batch,
                                 double context) {
    MemoryFootprint memory;
    memory.weights = cost.weight_bytes();
    memory.kv_per_token = cost.kv_bytes_per_token_per_layer * cost.layers;
    const core::Bytes per_sequence = cost.kv_bytes_per_sequence(context);
    memory.kv = per_sequence * batch;
    memory.capacity = hardware.memory_capacity;
    memory.usable = memory.capacity * usable_memory_fraction(hardware);
    memory.reserve = memory.capacity - memory.usable;
    memory.fits = memory.weights + memory.kv <= memory.usable;
    const core::Bytes room = memory.usable - memory.weights;
    if (room.value > 0.0 && per_sequence.value > 0.0) {
        // Capped so that an absurdly small cache cannot overflow the integer.
        memory.max_batch = static_cast<long long>(std::min(std::floor(room / per_sequence), 1e15));
    }
    return memory;
}

}  // namespace decodesim::engine
