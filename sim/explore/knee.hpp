#pragma once
// Where decode stops being bandwidth-bound: the batch at which a step's arithmetic intensity
// reaches the machine balance, and the context at which the KV cache outweighs the weights.

#include <optional>

#include "engine/prediction.hpp"

namespace decodesim::explore {

// Smallest batch whose decode step at `context` does at least machine-balance FLOPs per byte
// (peak matmul FLOP/s / peak bandwidth). Empty when no batch up to 2^30 gets there (long
// contexts, where every sequence's KV reads grow with the batch).
std::optional<long long> compute_bound_batch(const engine::Evaluator& evaluator, double context);

// Smallest batch at which the weight matrix products alone (projections, MLP, experts) reach the
// machine balance: where more FLOPS start to matter, even if KV reads keep the step bandwidth-bound.
std::optional<long long> matmul_compute_bound_batch(const engine::Evaluator& evaluator);

// Smallest context at which the batch's KV-cache reads in a step exceed the weight bytes the step
// streams. Empty when sliding windows keep the cache below the weights at any context.
std::optional<double> kv_outweighs_weights_context(const engine::Evaluator& evaluator, double batch);

// The memory wall along the context: the longest context (in whole tokens, up to `last_context`) at
// which `batch` streams still fit beside the weights, by the same footprint the prediction checks.
// Empty when not even one token of context fits.
std::optional<double> longest_context_that_fits(const engine::Evaluator& evaluator, double batch, double last_context);

}  // namespace decodesim::explore
