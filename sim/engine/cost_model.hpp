#pragma once
// A model under one deployment, reduced to per-device coefficients, so that evaluating a step
// for any batch and context is a handful of multiply-adds (sweeps call it millions of times).

#include "engine/deployment.hpp"
#include "engine/operators.hpp"
#include "profiles/model_profile.hpp"

namespace decodesim::engine {

// A weight matrix group read once per forward pass.
struct WeightGroup {
    core::Bytes bytes;              // on one device, summed over layers
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

    core::Bytes embedding_row_bytes;    // one token's embedding row (the whole row, before vocab split)
    core::Bytes embedding_table_bytes;  // the input table on one device (0 when tied to lm_head)
    double hidden_size = 0.0;
    core::Bytes activation_bytes{2.0};  // per activation element
    double layers = 0.0;

    // KV cache on one device.
    core::Bytes kv_bytes_per_token_per_layer;
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
    core::Bytes norms_weight_bytes;

    // Tokens of context a sequence of `context` tokens actually reads, summed over layers.
    double attended_tokens(double context) const;
    // KV bytes on one device for one sequence at `context`.
    core::Bytes kv_bytes_per_sequence(double context) const;
    core::Bytes weight_bytes() const;  // every weight on one device (all experts)
};

// Expects a deployment that validate_deployment (prediction.hpp) accepted.
CostModel build_cost_model(const profiles::ModelProfile& model, const Deployment& deployment);

// Operators whose cost is structurally zero for this model and deployment (no MoE, no dense MLP,
// no tensor parallelism) are left out of per-operator reports.
bool operator_shown(const OperatorInfo& info, const CostModel& cost);

// What one forward pass processes, summed over its sequences, so that any mix of decode tokens
// and prefill chunks (continuous batching with chunked prefill) costs one call. Token counts
// marked "layer-tokens" are summed over layers (attended_tokens applies the sliding windows).
struct StepShape {
    double tokens = 0.0;             // new tokens through the weights: one per decode sequence, a chunk per prefill
    double logits = 0.0;             // positions that need logits: each decode sequence, each prompt that completes
    double decode_attended = 0.0;    // layer-tokens of cache the decode sequences read: sum of attended_tokens(context)
    double prefill_tokens = 0.0;     // prompt tokens in prefill chunks
    double prefill_pairs = 0.0;      // layer-summed (query, key) pairs of the chunks' causal attention
    double prefill_cached = 0.0;     // layer-tokens of earlier cache the chunks read: sum of attended_tokens(start)

    StepShape& operator+=(const StepShape& other);
};

// The shape of `batch` decode sequences at `context` tokens each (this step's token included).
StepShape decode_shape(const CostModel& cost, double batch, double context);
// The shape of a prefill chunk of `tokens` prompt tokens after `start` tokens already in the
// cache, for `sequences` sequences; `completes`: the chunk ends the prompt, so it needs logits.
StepShape prefill_shape(const CostModel& cost, double sequences, double start, double tokens, bool completes = true);

// The cost of one forward pass of any shape: the engine's one cost function.
StepCosts step_costs(const CostModel& cost, const StepShape& shape);

// One decode step: `batch` sequences, each with `context` tokens in its cache (this step's token included).
StepCosts decode_step_costs(const CostModel& cost, double batch, double context);

// Prefill of `batch` prompts of `prompt` tokens each, in one forward pass (attention is causal).
StepCosts prefill_costs(const CostModel& cost, double batch, double prompt);

// (query, key) pairs of causal attention for prompt tokens start+1 .. start+tokens, at one layer
// with a sliding `window` (0: none).
double causal_pairs(double start, double tokens, double window);

// Expected distinct experts a layer reads when `tokens` tokens each pick k of E uniformly:
// E * (1 - (1 - k/E)^tokens).
double expected_distinct_experts(double experts, double per_token, double tokens);

}  // namespace decodesim::engine
