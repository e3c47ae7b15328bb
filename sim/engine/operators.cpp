#include "engine/operators.hpp"

namespace decodesim::engine {

core::Flops StepCosts::total_flops() const {
    core::Flops flops;
    for (const auto& op : operators) flops += op.flops;
    return flops;
}

core::Bytes StepCosts::total_bytes() const {
    core::Bytes bytes;
    for (std::size_t i = 0; i < kOperatorCount; ++i) {
        if (kOperators[i].stream != StreamClass::interconnect && kOperators[i].stream != StreamClass::host) bytes += operators[i].bytes;
    }
    return bytes;
}

}  // namespace decodesim::engine
