#pragma once
// The derived figures `decodesim profiles list|show` states beside a profile's own fields: facts
// of the device or the model alone, independent of any deployment choice the user makes.

#include <string>

#include "engine/efficiency.hpp"
#include "engine/model_shape.hpp"
#include "profiles/hardware_profile.hpp"
#include "profiles/model_profile.hpp"

namespace decodesim::explore {

struct HardwareSummary {
    core::FlopRate bf16_peak;            // what a bf16 matmul runs at (fp16 or fp32 where bf16 is not listed)
    double machine_balance_bf16 = 0.0;   // FLOP/byte at datasheet rates, bf16 matmuls
    engine::Efficiency efficiency;       // the engine's defaults for the device, overrides applied
};

struct ModelSummary {
    std::string attention;                // "MHA", "MQA", "MLA", "GQA 32:8", with ", window 4096 (5:1)" when it slides
    std::string mlp;                      // "dense", or "MoE routed x per-token [+shared]"
    engine::ParameterCount parameters;    // derived from the shape
    core::Bytes kv_bytes_per_token_bf16;  // 16-bit KV on one device: what a token writes
    // What each further token keeps once the context is past every window (sliding layers and
    // compressed attention keep less than they write; recurrent states not at all).
    core::Bytes kv_growth_per_token_bf16;
    core::Bytes weights_bf16;             // every parameter at 2 bytes
};

// `runtime`: the efficiency the summary shows is this runtime's on the device's native backend.
HardwareSummary summarize_hardware(const profiles::HardwareProfile& hardware, const engine::RuntimeProfile& runtime);
ModelSummary summarize_model(const profiles::ModelProfile& model);

}  // namespace decodesim::explore
