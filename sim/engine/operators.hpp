#pragma once
// The operators of one forward pass, and what each costs in FLOPs and bytes on one device.

#include <array>
#include <cstddef>
#include <string_view>

namespace decodesim::engine {

enum class OperatorKind {
    embedding,        // token-embedding row lookup
    qkv_projection,   // Q, K, V projections (MLA: q and kv LoRA matrices)
    attention_score,  // Q·K over the KV cache (MLA: over the latent cache)
    attention_value,  // softmax(QK)·V over the KV cache
    kv_write,         // appending this step's keys and values to the cache
    output_projection,
    mlp,              // dense MLP layers
    router,           // MoE gate
    experts,          // routed experts the batch's tokens use
    shared_experts,   // experts every token uses
    norms,
    lm_head,
    all_reduce,       // tensor-parallel reductions over the interconnect
};

inline constexpr std::size_t kOperatorCount = 13;

std::string_view operator_name(OperatorKind kind);

// Which peak an operator's arithmetic runs at.
enum class ArithmeticClass { matmul, activation };

struct OperatorCost {
    double flops = 0.0;
    double bytes = 0.0;         // device-memory traffic (for all_reduce: bytes each device sends)
    double kernels = 0.0;       // kernel launches, for the fixed per-kernel overhead
    double messages = 0.0;      // for all_reduce: reductions in the step
};

// Costs of one forward pass, indexed by OperatorKind.
struct StepCosts {
    std::array<OperatorCost, kOperatorCount> operators{};

    OperatorCost& operator[](OperatorKind kind) { return operators[static_cast<std::size_t>(kind)]; }
    const OperatorCost& operator[](OperatorKind kind) const { return operators[static_cast<std::size_t>(kind)]; }
    double total_flops() const;
    double total_bytes() const;  // device memory only (all_reduce excluded)
};

constexpr ArithmeticClass arithmetic_class(OperatorKind kind) {
    switch (kind) {
        case OperatorKind::qkv_projection:
        case OperatorKind::output_projection:
        case OperatorKind::mlp:
        case OperatorKind::experts:
        case OperatorKind::shared_experts: return ArithmeticClass::matmul;
        // lm_head stays in 16-bit in every non-GGUF format, so it runs at the activation rate.
        default: return ArithmeticClass::activation;
    }
}

}  // namespace decodesim::engine
