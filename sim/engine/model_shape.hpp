#pragma once
// Facts derived from a model's shape: which layers slide or route to experts, and how many
// parameters the shape implies (to check a profile's stated count).

#include "profiles/model_profile.hpp"

namespace decodesim::engine {

using profiles::ModelProfile;

// HF DeepSeek rule: layer i is MoE when i >= first_k_dense_replace and i % moe_layer_freq == 0.
bool is_moe_layer(const ModelProfile& model, int layer);
// Layer i is global when (i + 1) % pattern == 0; every other layer slides (all, when pattern is 0).
bool is_sliding_layer(const ModelProfile& model, int layer);

int moe_layer_count(const ModelProfile& model);
int sliding_layer_count(const ModelProfile& model);

struct ParameterCount {
    double total = 0;   // every weight, embeddings included
    // Weights one token's forward pass uses (top-k experts), embedding table included, as Mistral,
    // Qwen and DeepSeek count it (OpenAI's GPT-OSS figures exclude it).
    double active = 0;
};

ParameterCount count_parameters(const ModelProfile& model);

// Parameters of one layer's attention block (projections only).
double attention_parameters(const ModelProfile& model);
// Parameters of one routed expert (or one dense MLP when intermediate is the dense size).
double mlp_parameters(const ModelProfile& model, double intermediate_size);

}  // namespace decodesim::engine
