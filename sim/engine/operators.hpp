#pragma once
// The operators of one forward pass: one row each in kOperators, from which every per-operator
// loop takes its count, its names and how each operator is timed. Adding an operator means a
// row here, an enumerator in OperatorKind, and its cost in cost_model.cpp; nothing else.

#include <array>
#include <cstddef>
#include <string_view>

#include "core/units.hpp"

namespace decodesim::engine {

enum class OperatorKind {
    embedding,
    qkv_projection,
    attention_score,
    attention_value,
    attention_softmax,
    kv_write,
    output_projection,
    mlp,
    router,
    experts,
    shared_experts,
    norms,
    elementwise,
    lm_head,
    all_reduce,
    all_to_all,
    pipeline_send,
    kv_offload,
    weight_dequantize,
};

// Which peak an operator's arithmetic runs at.
enum class ArithmeticClass {
    matmul,      // weight matrix products, in the weights' matmul datatype
    activation,  // element-wise work and 16-bit products, in the activation datatype
    attention,   // Q.K and softmax.V over the cache: the activation datatype's rate, run by the
                 // runtime's attention kernels (flash attention), whose quality differs by backend
};

// Which bandwidth an operator's bytes move at.
enum class StreamClass {
    device,        // device memory at the achievable bandwidth
    weights,       // weight matrices: a runtime that dequantizes in its kernels may stream them slower
    kv_cache,      // KV-cache reads and writes, at the runtime's attention bandwidth
    interconnect,  // collectives between devices: timed by engine/collectives.hpp on the group's links
    host,          // device to CPU memory over the host link (offloaded KV cache)
};

// When the per-operator report lists an operator (it is always costed; absent ones cost zero).
enum class ShownWhen { always, dense_mlp, moe, shared_experts, tensor_parallel, expert_parallel, pipeline_parallel,
                       kv_offload, unfused_attention, elementwise_kernels, dequantized_block_matmul };

struct OperatorInfo {
    OperatorKind kind;
    std::string_view name;
    ArithmeticClass arithmetic;
    StreamClass stream;
    ShownWhen shown;
    std::string_view description;
};

inline constexpr std::array kOperators{
    OperatorInfo{OperatorKind::embedding, "embedding", ArithmeticClass::activation, StreamClass::device,
                 ShownWhen::always, "token-embedding row lookup"},
    OperatorInfo{OperatorKind::qkv_projection, "qkv_projection", ArithmeticClass::matmul, StreamClass::weights,
                 ShownWhen::always, "Q, K, V projections (MLA: the q and kv LoRA matrices)"},
    OperatorInfo{OperatorKind::attention_score, "attention_score", ArithmeticClass::attention, StreamClass::kv_cache,
                 ShownWhen::always, "Q.K over the KV cache (MLA: over the latent cache)"},
    OperatorInfo{OperatorKind::attention_value, "attention_value", ArithmeticClass::attention, StreamClass::kv_cache,
                 ShownWhen::always, "softmax(QK).V over the KV cache"},
    OperatorInfo{OperatorKind::attention_softmax, "attention_softmax", ArithmeticClass::activation, StreamClass::device,
                 ShownWhen::unfused_attention, "score matrix written, softmaxed and read back (attention without a fused kernel)"},
    OperatorInfo{OperatorKind::kv_write, "kv_write", ArithmeticClass::activation, StreamClass::kv_cache,
                 ShownWhen::always, "appending this step's keys and values to the cache"},
    OperatorInfo{OperatorKind::output_projection, "output_projection", ArithmeticClass::matmul, StreamClass::weights,
                 ShownWhen::always, "attention output projection"},
    OperatorInfo{OperatorKind::mlp, "mlp", ArithmeticClass::matmul, StreamClass::weights, ShownWhen::dense_mlp,
                 "dense MLP layers"},
    OperatorInfo{OperatorKind::router, "router", ArithmeticClass::activation, StreamClass::device, ShownWhen::moe,
                 "MoE gate (kept in 16-bit)"},
    OperatorInfo{OperatorKind::experts, "experts", ArithmeticClass::matmul, StreamClass::weights, ShownWhen::moe,
                 "routed experts the batch's tokens use"},
    OperatorInfo{OperatorKind::shared_experts, "shared_experts", ArithmeticClass::matmul, StreamClass::weights,
                 ShownWhen::shared_experts, "experts every token uses"},
    OperatorInfo{OperatorKind::norms, "norms", ArithmeticClass::activation, StreamClass::device, ShownWhen::always,
                 "RMS/layer norms"},
    OperatorInfo{OperatorKind::elementwise, "elementwise", ArithmeticClass::activation, StreamClass::device,
                 ShownWhen::elementwise_kernels,
                 "the runtime's other kernels: rotary, residual adds, activations, biases, expert selection, input quantization"},
    // lm_head stays in 16-bit in every non-GGUF format, so it runs at the activation rate.
    OperatorInfo{OperatorKind::lm_head, "lm_head", ArithmeticClass::activation, StreamClass::device,
                 ShownWhen::always, "projection to the vocabulary, for the newest position of each sequence"},
    OperatorInfo{OperatorKind::all_reduce, "all_reduce", ArithmeticClass::activation, StreamClass::interconnect,
                 ShownWhen::tensor_parallel, "tensor-parallel reductions over the interconnect"},
    OperatorInfo{OperatorKind::all_to_all, "all_to_all", ArithmeticClass::activation, StreamClass::interconnect,
                 ShownWhen::expert_parallel, "expert-parallel dispatch and combine of routed tokens"},
    OperatorInfo{OperatorKind::pipeline_send, "pipeline_send", ArithmeticClass::activation, StreamClass::interconnect,
                 ShownWhen::pipeline_parallel, "hidden states passed from one pipeline stage to the next"},
    OperatorInfo{OperatorKind::kv_offload, "kv_offload", ArithmeticClass::activation, StreamClass::host,
                 ShownWhen::kv_offload, "KV cache read back from CPU memory over the host link"},
    OperatorInfo{OperatorKind::weight_dequantize, "weight_dequantize", ArithmeticClass::activation, StreamClass::device,
                 ShownWhen::dequantized_block_matmul,
                 "block-format weights dequantized into 16-bit copies for cuBLAS (llama.cpp CUDA builds before June 2024)"},
};

inline constexpr std::size_t kOperatorCount = kOperators.size();

constexpr std::size_t index_of(OperatorKind kind) { return static_cast<std::size_t>(kind); }
constexpr const OperatorInfo& operator_info(OperatorKind kind) { return kOperators[index_of(kind)]; }
constexpr std::string_view operator_name(OperatorKind kind) { return operator_info(kind).name; }
constexpr ArithmeticClass arithmetic_class(OperatorKind kind) { return operator_info(kind).arithmetic; }

// Row i describes OperatorKind i: the enum and the table cannot drift apart.
consteval bool rows_in_enum_order() {
    for (std::size_t i = 0; i < kOperators.size(); ++i) {
        if (index_of(kOperators[i].kind) != i) return false;
    }
    return true;
}
static_assert(rows_in_enum_order(), "kOperators must list OperatorKind in declaration order");

struct OperatorCost {
    core::Flops flops;
    core::Bytes bytes;     // device-memory traffic (interconnect operators: the collectives' buffers, summed;
                           // host operators: bytes over the host link)
    double kernels = 0.0;  // kernel launches, for the fixed per-kernel overhead
    double messages = 0.0; // interconnect operators: collective operations in the step (each bytes / messages)
    double sequences = 0.0; // sequences the runtime schedules and samples in the step, for its per-sequence host cost
    // Rows each weight matrix is applied to, where a tiled kernel's staging of the weights weighs
    // in (the routed experts: a few tokens each); 0 where it does not (DeviceRates::tile_setup_rows).
    double rows_per_weight = 0.0;
    // The product ran on a 16-bit copy of block-format weights (BlockFormatMatmul::dequantized_above_tokens): its
    // FLOPs at the 16-bit matrix rate, its bytes read from device memory like any plain tensor.
    bool on_16bit_copy = false;
};

// Costs of one forward pass, one entry per row of kOperators.
struct StepCosts {
    std::array<OperatorCost, kOperatorCount> operators;
    // Ops the host dispatches one by one in this pass: 0 when it replays a captured graph
    // (CostModel::eager_prefill_ops). The pass lasts at least their dispatch.
    double eager_ops = 0.0;

    OperatorCost& operator[](OperatorKind kind) { return operators[index_of(kind)]; }
    const OperatorCost& operator[](OperatorKind kind) const { return operators[index_of(kind)]; }
    core::Flops total_flops() const;
    core::Bytes total_bytes() const;  // device memory only (interconnect and host-link traffic excluded)
};

}  // namespace decodesim::engine
