#pragma once
// A model under one deployment, reduced to per-device coefficients, so that evaluating a step
// for any batch and context is a handful of multiply-adds (sweeps call it millions of times).

#include "engine/deployment.hpp"
#include "engine/operators.hpp"
#include "profiles/model_profile.hpp"

namespace decodesim::engine {

// A weight matrix group read once per forward pass.
struct WeightGroup {
    double bytes = 0.0;             // on one device, summed over layers
    double params = 0.0;            // multiply-adds per token on one device, summed over layers
    double activation_width = 0.0;  // input + output elements per token (for activation traffic)
    double layers = 0.0;            // kernel launches per step for the group (one or two per layer)
};

struct CostModel {
    WeightGroup qkv, output, mlp, router, shared_experts, lm_head;
    // Routed experts: one expert's weights, summed over MoE layers, on one device.
    WeightGroup expert;
    int moe_layers = 0;
    int routed_experts = 0;
    int experts_per_token = 0;

    double embedding_row_bytes = 0.0;   // one token's embedding row (the whole row, before vocab split)
    double embedding_table_bytes = 0.0; // the input table on one device (0 when tied to lm_head)
    double hidden_size = 0.0;
    double activation_bytes = 2.0;      // bytes per activation element
    double layers = 0.0;

    // KV cache on one device.
    double kv_bytes_per_token_per_layer = 0.0;
    int full_attention_layers = 0;
    int sliding_layers = 0;
    double window = 0.0;                // tokens; 0 when no layer slides
    double query_heads = 0.0;           // on one device
    double score_width = 0.0;           // multiply-adds per query head per cached token for Q·K
    double value_width = 0.0;           // ... for P·V
    double prefill_score_width = 0.0;   // prefill runs MLA un-absorbed: per-head widths
    double prefill_value_width = 0.0;
    double query_key_value_width = 0.0; // Q, K, V elements per token (prefill attention traffic)
    bool latent_cache = false;          // MLA: one cache read serves both score and value

    int tensor_parallel = 1;
    double norms_weight_bytes = 0.0;

    // Tokens of context a sequence of `context` tokens actually reads, summed over layers.
    double attended_tokens(double context) const;
    // KV bytes on one device for one sequence at `context`.
    double kv_bytes_per_sequence(double context) const;
    double weight_bytes() const;  // every weight on one device (all experts)
};

// Throws core::InputError when the deployment cannot split the model (heads not divisible by tp).
CostModel build_cost_model(const profiles::ModelProfile& model, const Deployment& deployment);

// One decode step: `batch` sequences, each with `context` tokens in its cache (this step's token included).
StepCosts decode_step_costs(const CostModel& cost, double batch, double context);

// Prefill of `batch` prompts of `prompt` tokens each, in one forward pass.
StepCosts prefill_costs(const CostModel& cost, double batch, double prompt);

// Expected distinct experts a layer reads when `tokens` tokens each pick k of E uniformly:
// E * (1 - (1 - k/E)^tokens).
double expected_distinct_experts(double experts, double per_token, double tokens);

}  // namespace decodesim::engine
