#pragma once
// How a model is deployed: storage formats, the activation datatype, and tensor parallelism.

#include "core/datatype.hpp"
#include "core/quantization.hpp"
#include "engine/runtime.hpp"

namespace decodesim::engine {

struct Deployment {
    const core::WeightFormat* weights = nullptr;  // never null once resolved
    const core::KvFormat* kv = nullptr;           // never null once resolved
    core::Datatype activation = core::Datatype::bf16;
    int tensor_parallel = 1;                      // devices one model instance spans
    const RuntimePreset* runtime = &default_runtime();  // the software stack (never null)
};

}  // namespace decodesim::engine
