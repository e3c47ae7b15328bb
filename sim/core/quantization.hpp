#pragma once
// Weight and KV-cache storage formats: their true bits per element (scales included), which
// tensors a real checkpoint stores in them, and the datatype their matrix products run in.
// The table and its sources are in docs/quantization.md.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/datatype.hpp"

namespace decodesim::core {

// The tensors of a transformer whose storage precision can differ within one checkpoint.
enum class TensorRole {
    embedding,       // token embedding table
    lm_head,         // output projection to the vocabulary
    attn_q,          // query projection (MLA: both q LoRA matrices)
    attn_k,          // key projection (MLA: the kv down-projection)
    attn_v,          // value projection (MLA: the kv up-projection)
    attn_output,     // attention output projection
    mlp_gate_up,     // gate and up projections of a dense MLP or an expert
    mlp_down,        // down projection of a dense MLP or an expert
    router,          // MoE gate (kept in activation precision by every format here)
};

// How a format spreads over the tensors of a checkpoint.
enum class FormatCoverage {
    everything,      // every tensor in the format (bf16, fp16, fp32)
    linear_layers,   // attention and MLP matrices; embedding and lm_head stay 16-bit (fp8, int8, AWQ/GPTQ, nvfp4)
    mlp_only,        // MLP/expert matrices only; attention, embedding, lm_head stay 16-bit (GPT-OSS mxfp4)
    fp4_experts,     // routed experts MXFP4, the other matrices in the format; embedding, lm_head 16-bit (DeepSeek-V4)
    gguf_mixture,    // llama.cpp file types: per-tensor rules of llama-quant (see docs/quantization.md)
};

struct WeightFormat {
    std::string_view name;
    std::string_view description;
    double bits_per_weight;           // the base type, scales and zero points included
    FormatCoverage coverage;
    // Datatype of the matrix products. Empty: they run in the activation type.
    std::optional<Datatype> native_matmul;
    // The kernels unpack the stored blocks on the fly (weight-only and block formats), which a
    // runtime may pay for in bandwidth and compute (engine/runtime.hpp).
    bool dequantizes = false;

    // A llama.cpp GGUF file type, whose matrices are stored in blocks (q4_0, q4_k_m, ...).
    bool is_block_format() const { return coverage == FormatCoverage::gguf_mixture; }
};

struct KvFormat {
    std::string_view name;
    std::string_view description;
    double bytes_per_element;         // scales included
};

const std::vector<WeightFormat>& weight_formats();
const std::vector<KvFormat>& kv_formats();

// Look a format up by name with core/registry.hpp (find_named, named_or_throw).

// Bits per weight of each tensor role as a checkpoint stores them, read from its tensor list
// (a GGUF file's types, tensor by tensor): what a mixed file such as unsloth's dynamic quants
// holds, whatever its file type says. A role a layer does not list is unknown (0), and the
// format's rules answer for it.
struct StoredTensorBits {
    static constexpr int kRoles = 9;  // TensorRole's count
    struct Layer {
        double bits[kRoles] = {};          // weight-averaged over the role's tensors (attn_q_a and attn_q_b)
        double routed_bits[kRoles] = {};   // the routed experts' 3-D tensors (ffn_*_exps)
    };
    std::vector<Layer> layers;
    double embedding = 0;
    double lm_head = 0;

    // 0 when the checkpoint does not list the role at that layer.
    double bits(TensorRole role, int layer, bool routed) const;
};

// The shape facts that llama.cpp's mixture rules look at.
struct LayerContext {
    int layer = 0;                    // 0-based layer index
    int num_layers = 1;
    int gqa_ratio = 1;                // attention heads per KV head
    int num_experts = 0;              // routed experts per layer (0 for dense models)
    bool routed_expert = false;       // the tensor is a routed expert's (a 3-D expert tensor in GGUF)
    // The checkpoint's own tensor types, when the deployment runs the checkpoint as stored; they
    // take precedence over the format's rules for every role they list.
    const StoredTensorBits* stored = nullptr;
};

// Bits per weight of one tensor role at one layer, for a format: the stored checkpoint's where the
// context carries one that lists the role, else the format's rules. 16 for tensors the format
// leaves in activation precision.
double tensor_bits(const WeightFormat& format, TensorRole role, const LayerContext& context);

}  // namespace decodesim::core
