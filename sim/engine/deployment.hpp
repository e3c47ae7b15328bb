#pragma once
// How a model is deployed: storage formats, the activation datatype, the software stack and the
// parallelism. Resolved once (operating_point.hpp); the engine never sees a name.

#include "core/datatype.hpp"
#include "core/quantization.hpp"
#include "engine/clocks.hpp"
#include "engine/runtime.hpp"

namespace decodesim::engine {

struct Parallelism {
    int tensor = 1;  // devices one model instance spans, splitting every layer
};

struct Deployment {
    const core::WeightFormat* weights = nullptr;  // never null once resolved
    const core::KvFormat* kv = nullptr;           // never null once resolved
    core::Datatype activation = core::Datatype::bf16;
    Runtime runtime = kDefaultRuntime;
    Parallelism parallelism;
    ClockState clocks;  // the shares of the listed peaks it runs at
};

// What a user chose; unset members take the documented defaults when resolved.
struct DeploymentChoice {
    const core::WeightFormat* weights = nullptr;  // null: bf16
    const core::KvFormat* kv = nullptr;           // null: the activation datatype
    std::optional<core::Datatype> activation;     // unset: bf16, or fp16 where the device or the weights need it
    Runtime runtime = kDefaultRuntime;
    Parallelism parallelism;
    ClockChoice clocks;  // default: sustained clocks at the default board power
};

}  // namespace decodesim::engine
