#pragma once
// How a model is deployed: storage formats, the activation datatype, and tensor parallelism.

#include "core/datatype.hpp"
#include "core/quantization.hpp"

namespace decodesim::engine {

struct Deployment {
    const core::WeightFormat* weights = nullptr;  // never null once resolved
    const core::KvFormat* kv = nullptr;           // never null once resolved
    core::Datatype activation = core::Datatype::bf16;
    int tensor_parallel = 1;                      // devices one model instance spans
};

}  // namespace decodesim::engine
