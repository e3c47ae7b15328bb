#include "engine/memory.hpp"

#include <cmath>

#include "engine/efficiency.hpp"

namespace decodesim::engine {

MemoryFootprint memory_footprint(const CostModel& cost, const profiles::HardwareProfile& hardware, double batch,
                                 double context) {
    MemoryFootprint memory;
    memory.weights_bytes = cost.weight_bytes();
    memory.kv_bytes_per_token = cost.layers * cost.kv_bytes_per_token_per_layer;
    const double per_sequence = cost.kv_bytes_per_sequence(context);
    memory.kv_bytes = batch * per_sequence;
    memory.capacity_bytes = hardware.memory_capacity.value;
    memory.usable_bytes = memory.capacity_bytes * usable_memory_fraction(hardware);
    memory.reserve_bytes = memory.capacity_bytes - memory.usable_bytes;
    memory.fits = memory.weights_bytes + memory.kv_bytes <= memory.usable_bytes;
    const double room = memory.usable_bytes - memory.weights_bytes;
    if (room > 0.0 && per_sequence > 0.0) {
        // Capped so that an absurdly small cache cannot overflow the integer.
        memory.max_batch = static_cast<long long>(std::min(std::floor(room / per_sequence), 1e15));
    }
    return memory;
}

}  // namespace decodesim::engine
