#include "explore/profile_summary.hpp"

#include <fmt/format.h>

#include "core/registry.hpp"
#include "engine/cost_model.hpp"
#include "engine/roofline.hpp"

namespace decodesim::explore {

namespace {

std::string attention_kind(const profiles::ModelProfile& model) {
    std::string kind;
    if (model.mla) {
        kind = "MLA";
    } else if (model.num_key_value_heads == model.num_attention_heads) {
        kind = "MHA";
    } else if (model.num_key_value_heads == 1) {
        kind = "MQA";
    } else {
        kind = fmt::format("GQA {}:{}", model.num_attention_heads, model.num_key_value_heads);
    }
    if (model.sliding_window) {
        // pattern p: one global layer in every p, so p - 1 sliding layers per global one.
        kind += fmt::format(", window {}{}", model.sliding_window->window,
                            model.sliding_window->pattern > 0 ? fmt::format(" ({}:1)", model.sliding_window->pattern - 1)
                                                              : std::string(" (all)"));
    }
    return kind;
}

std::string moe_summary(const profiles::ModelProfile& model) {
    if (!model.moe) return "dense";
    return fmt::format("MoE {}x{}{}", model.moe->n_routed_experts, model.moe->num_experts_per_tok,
                       model.moe->n_shared_experts > 0 ? fmt::format("+{}", model.moe->n_shared_experts) : "");
}

// The model's cache at 16-bit on one device: a shape fact independent of any hardware.
engine::CostModel bf16_cost_model(const profiles::ModelProfile& model) {
    engine::Deployment deployment;
    deployment.weights = core::find_named(core::weight_formats(), "bf16");
    deployment.kv = core::find_named(core::kv_formats(), "bf16");
    return engine::build_cost_model(model, deployment);
}

}  // namespace

HardwareSummary summarize_hardware(const profiles::HardwareProfile& hardware, const engine::RuntimeProfile& runtime) {
    HardwareSummary summary;
    summary.bf16_peak = engine::effective_peak(hardware, core::Datatype::bf16);
    summary.machine_balance_bf16 = engine::machine_balance(
        engine::device_rates(hardware, core::Datatype::bf16, core::Datatype::bf16, engine::Parallelism{}, engine::ideal_efficiency()));
    summary.efficiency = engine::runtime_efficiency(hardware, runtime);
    return summary;
}

ModelSummary summarize_model(const profiles::ModelProfile& model) {
    ModelSummary summary;
    summary.attention = attention_kind(model);
    summary.mlp = moe_summary(model);
    summary.parameters = engine::count_parameters(model);
    const engine::CostModel cost = bf16_cost_model(model);
    summary.kv_bytes_per_token_bf16 = cost.kv_bytes_per_token();
    // Far past any window or top-k.
    summary.kv_growth_per_token_bf16 = cost.kv_growth_per_token(1 << 20, 1 << 20);
    summary.weights_bf16 = core::Bytes(summary.parameters.total * 2.0);
    return summary;
}

}  // namespace decodesim::explore
