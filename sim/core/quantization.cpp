#include "core/quantization.hpp"

namespace decodesim::core {
namespace {

// GGML block sizes, from ggml-common.h: bytes per block * 8 / weights per block.
constexpr double kQ8_0 = 34.0 * 8 / 32;      // 8.5
constexpr double kQ6_K = 210.0 * 8 / 256;    // 6.5625
constexpr double kQ5_K = 176.0 * 8 / 256;    // 5.5
constexpr double kQ4_K = 144.0 * 8 / 256;    // 4.5
constexpr double kQ4_0 = 18.0 * 8 / 32;      // 4.5
constexpr double kQ3_K = 110.0 * 8 / 256;    // 3.4375
constexpr double kQ2_K = 84.0 * 8 / 256;     // 2.625
constexpr double kIQ4_XS = 136.0 * 8 / 256;  // 4.25
constexpr double kIQ4_NL = 18.0 * 8 / 32;    // 4.5
constexpr double kIQ3_S = 110.0 * 8 / 256;   // 3.4375
constexpr double kIQ3_XXS = 98.0 * 8 / 256;  // 3.0625
constexpr double kIQ2_S = 82.0 * 8 / 256;    // 2.5625
constexpr double kIQ2_XS = 74.0 * 8 / 256;   // 2.3125
constexpr double kIQ2_XXS = 66.0 * 8 / 256;  // 2.0625
constexpr double kIQ1_M = 56.0 * 8 / 256;    // 1.75
constexpr double kIQ1_S = 50.0 * 8 / 256;    // 1.5625
constexpr double kMxfp4 = 17.0 * 8 / 32;     // 4.25: E2M1 + one E8M0 scale per 32
constexpr double kHalf = 16.0;

// llama-quant's use_more_bits: the first and last eighth of the layers and every third between.
bool use_more_bits(int layer, int num_layers) {
    return layer < num_layers / 8 || layer >= 7 * num_layers / 8 || (layer - num_layers / 8) % 3 == 2;
}

// llama.cpp file types and their per-tensor rules (src/llama-quant.cpp, llama_tensor_get_type;
// docs/quantization.md has the table). Each file type has a default ggml type; the rules raise or
// lower attn_v, attn_k, attn_q, attn_output, ffn_down and ffn_gate/up from it by layer, by the
// ratio of query to KV heads, and for models of exactly 8 experts. The i-quant rules are those of
// a file made with an importance matrix, as the published i-quants are (llama-quantize requires one
// below 3 bits); the legacy and K-quant rules are those without, as llama-bench's files are.
enum class GgufFileType {
    q8_0, q6_k, q5_k_m, q5_k_s, q4_k_m, q4_k_s, q4_0, q3_k_l, q3_k_m, q3_k_s, q2_k, mxfp4_moe,
    iq4_xs, iq4_nl, iq3_m, iq3_s, iq3_xs, iq3_xxs, iq2_m, iq2_s, iq2_xs, iq2_xxs, iq1_m, iq1_s,
};

struct GgufFileTypeName {
    std::string_view name;
    GgufFileType type;
    double default_bits;  // llama_ftype_get_default_type
};
constexpr GgufFileTypeName kGgufFileTypes[] = {
    {"q8_0", GgufFileType::q8_0, kQ8_0},          {"q6_k", GgufFileType::q6_k, kQ6_K},
    {"q5_k_m", GgufFileType::q5_k_m, kQ5_K},      {"q5_k_s", GgufFileType::q5_k_s, kQ5_K},
    {"q4_k_m", GgufFileType::q4_k_m, kQ4_K},      {"q4_k_s", GgufFileType::q4_k_s, kQ4_K},
    {"q4_0", GgufFileType::q4_0, kQ4_0},          {"q3_k_l", GgufFileType::q3_k_l, kQ3_K},
    {"q3_k_m", GgufFileType::q3_k_m, kQ3_K},      {"q3_k_s", GgufFileType::q3_k_s, kQ3_K},
    {"q2_k", GgufFileType::q2_k, kQ2_K},          {"mxfp4_moe", GgufFileType::mxfp4_moe, kMxfp4},
    {"iq4_xs", GgufFileType::iq4_xs, kIQ4_XS},    {"iq4_nl", GgufFileType::iq4_nl, kIQ4_NL},
    {"iq3_m", GgufFileType::iq3_m, kIQ3_S},       {"iq3_s", GgufFileType::iq3_s, kIQ3_S},
    {"iq3_xs", GgufFileType::iq3_xs, kIQ3_S},     {"iq3_xxs", GgufFileType::iq3_xxs, kIQ3_XXS},
    {"iq2_m", GgufFileType::iq2_m, kIQ2_S},       {"iq2_s", GgufFileType::iq2_s, kIQ2_XS},
    {"iq2_xs", GgufFileType::iq2_xs, kIQ2_XS},    {"iq2_xxs", GgufFileType::iq2_xxs, kIQ2_XXS},
    {"iq1_m", GgufFileType::iq1_m, kIQ1_M},       {"iq1_s", GgufFileType::iq1_s, kIQ1_S},
};

const GgufFileTypeName* gguf_file_type(std::string_view name) {
    for (const auto& entry : kGgufFileTypes) {
        if (entry.name == name) return &entry;
    }
    return nullptr;
}

// The IQ1 and IQ2 files take their own branch of the rules, before the per-tensor ones.
bool below_three_bits(GgufFileType type) {
    using enum GgufFileType;
    return type == iq1_s || type == iq1_m || type == iq2_xxs || type == iq2_xs || type == iq2_s || type == iq2_m;
}

double output_bits(GgufFileType type) {
    using enum GgufFileType;
    if (type == q8_0 || type == mxfp4_moe) return kQ8_0;
    if (below_three_bits(type) || type == iq3_xxs) return kQ5_K;
    return kQ6_K;
}

double embedding_bits(GgufFileType type, double base) {
    using enum GgufFileType;
    if (type == mxfp4_moe) return kQ8_0;
    if (type == iq1_s || type == iq1_m || type == iq2_xxs || type == iq2_xs) return kQ2_K;
    if (type == iq2_s || type == iq2_m || type == iq3_xxs) return kIQ3_S;
    return base;
}

double below_three_bits_tensor(GgufFileType type, double base, TensorRole role, const LayerContext& context) {
    using enum GgufFileType;
    const bool wider_iq2 = type == iq2_s || type == iq2_m;
    switch (role) {
        case TensorRole::attn_v:
            if (context.gqa_ratio >= 4 || context.num_experts >= 4) return kQ4_K;
            return wider_iq2 ? kIQ3_S : kQ2_K;
        case TensorRole::attn_k: return context.num_experts == 8 ? kQ4_K : base;
        case TensorRole::attn_output:
            if (context.num_experts == 8) return kQ5_K;
            if (type == iq1_s || type == iq1_m) return kIQ2_XXS;
            return wider_iq2 ? kIQ3_S : base;
        case TensorRole::mlp_down:
            if (context.layer < context.num_layers / 8) return wider_iq2 ? kIQ3_S : kQ2_K;
            return base;
        default: return base;
    }
}

// attn_v before the 70B and 8-expert adjustments, and whether the type chosen is Q3_K or Q4_K
// (which the 70B rule raises; Q4_0 and IQ4_NL have Q4_K's 4.5 bits but are not raised).
struct ValueType {
    double bits;
    bool raised_on_70b = false;
};

ValueType value_type(GgufFileType type, double base, const LayerContext& context) {
    using enum GgufFileType;
    const bool grouped = context.gqa_ratio >= 4;
    const ValueType to_q3_k{kQ3_K, true}, to_q4_k{kQ4_K, true}, to_q5_k{kQ5_K}, to_q6_k{kQ6_K}, same{base};
    switch (type) {
        case q2_k: return grouped ? to_q4_k : to_q3_k;
        case q3_k_s: return to_q3_k;
        case q3_k_m: return context.layer < 2 ? to_q5_k : to_q4_k;
        case q3_k_l: return to_q5_k;
        case q4_k_s: return context.layer < 4 ? to_q5_k : to_q4_k;
        case q4_k_m: return use_more_bits(context.layer, context.num_layers) ? to_q6_k : to_q4_k;
        case q5_k_m: return use_more_bits(context.layer, context.num_layers) ? to_q6_k : same;
        case iq3_xxs:
        case iq3_xs:
        case iq3_s: return grouped ? to_q4_k : same;
        case iq3_m: return to_q4_k;
        case iq4_nl:
        case iq4_xs: return grouped ? to_q5_k : same;
        default: return same;
    }
}

double down_bits(GgufFileType type, double base, const LayerContext& context) {
    using enum GgufFileType;
    const int layer = context.layer, layers = context.num_layers;
    switch (type) {
        case q2_k: return kQ3_K;
        case q3_k_m: return layer < layers / 16 ? kQ5_K : kQ4_K;
        case q3_k_l: return kQ5_K;
        case q4_k_s: return layer < layers / 8 ? kQ5_K : base;
        case q4_k_m:
        case q5_k_m: return use_more_bits(layer, layers) ? kQ6_K : base;
        case iq3_m:
            return layer < layers / 8 || (context.num_experts == 8 && use_more_bits(layer, layers)) ? kQ4_K : base;
        default: return base;
    }
}

double attention_output_bits(GgufFileType type, double base, const LayerContext& context) {
    using enum GgufFileType;
    const bool eight_experts = context.num_experts == 8;
    switch (type) {
        case q2_k: return eight_experts ? kQ5_K : kQ3_K;
        case q3_k_m:
        case iq3_m: return eight_experts ? kQ5_K : kQ4_K;
        case q3_k_l: return eight_experts ? base : kQ5_K;  // Q3_K_L is missing from llama-quant's 8-expert list
        case iq3_xxs: return eight_experts ? kQ5_K : kIQ3_S;
        case q3_k_s:
        case q4_k_s:
        case q4_k_m:
        case iq3_xs:
        case iq3_s:
        case iq4_nl:
        case iq4_xs: return eight_experts ? kQ5_K : base;
        default: return base;
    }
}

double gguf_tensor_bits(std::string_view name, TensorRole role, const LayerContext& context) {
    const GgufFileTypeName* file = gguf_file_type(name);
    if (file == nullptr) return kHalf;
    using enum GgufFileType;
    const GgufFileType type = file->type;
    const double base = file->default_bits;
    // The output matrix, and the embedding of a model that ties it (the caller asks for lm_head).
    if (role == TensorRole::lm_head) return output_bits(type);
    // MXFP4_MOE: the 3-D expert tensors in MXFP4, every other tensor in Q8_0.
    if (type == mxfp4_moe) {
        const bool expert_matrix = role == TensorRole::mlp_gate_up || role == TensorRole::mlp_down;
        return context.routed_expert && expert_matrix ? kMxfp4 : kQ8_0;
    }
    if (role == TensorRole::embedding) return embedding_bits(type, base);
    if (below_three_bits(type)) return below_three_bits_tensor(type, base, role, context);
    const bool eight_experts = context.num_experts == 8;
    switch (role) {
        case TensorRole::attn_v: {
            if (eight_experts) return kQ8_0;
            const ValueType chosen = value_type(type, base, context);
            // llama.cpp's LLM_TYPE_70B (the 80-layer grouped-query Llama and Qwen2 models).
            const bool seventy_b = context.num_layers == 80 && context.num_experts == 0 && context.gqa_ratio > 1;
            return seventy_b && chosen.raised_on_70b ? kQ5_K : chosen.bits;
        }
        case TensorRole::attn_k:
            if (eight_experts) return kQ8_0;
            if (type == iq3_xs) return kIQ3_XXS;
            return type == iq3_xxs ? kIQ2_S : base;
        case TensorRole::attn_q:
            if (type == iq3_xs) return kIQ3_XXS;
            return type == iq3_xxs ? kIQ2_S : base;
        case TensorRole::mlp_down: return down_bits(type, base, context);
        case TensorRole::attn_output: return attention_output_bits(type, base, context);
        case TensorRole::mlp_gate_up: {
            const int layer = context.layer, layers = context.num_layers;
            if (type == iq3_xs && layer >= layers / 8 && layer < 7 * layers / 8) return kIQ3_XXS;
            return base;
        }
        default: return base;
    }
}

}  // namespace

const std::vector<WeightFormat>& weight_formats() {
    // llama.cpp's quantized matmuls (MMQ) quantize activations to 8 bits and run on int8 tensor
    // cores where the device has them; elsewhere the int8 rate falls back to fp16 (docs/model.md).
    static const std::vector<WeightFormat> formats{
        {"bf16", "bfloat16, every tensor", 16.0, FormatCoverage::everything, Datatype::bf16},
        {"fp16", "float16, every tensor", 16.0, FormatCoverage::everything, Datatype::fp16},
        {"fp32", "float32, every tensor", 32.0, FormatCoverage::everything, Datatype::fp32},
        {"fp8", "FP8 E4M3 W8A8, per-tensor scales; embedding and lm_head bf16", 8.0,
         FormatCoverage::linear_layers, Datatype::fp8},
        // DeepSeek-V3's checkpoints (config.json weight_block_size [128, 128]): one fp32 scale per
        // 128 x 128 block of weights, 32 bits over 16,384 weights.
        {"fp8_block", "FP8 E4M3 W8A8, one fp32 scale per 128x128 block (DeepSeek-style); embedding and lm_head bf16",
         8.0 + 32.0 / (128 * 128), FormatCoverage::linear_layers, Datatype::fp8},
        // DeepSeek-V4's checkpoints (quantization_config fp8 with block [128, 128] and scale_fmt
        // ue8m0, expert_dtype fp4): one 8-bit E8M0 scale per 128 x 128 block, and the routed
        // experts in MXFP4 (E2M1 with an E8M0 scale per 32).
        {"fp8_mxfp4_moe", "FP8 E4M3, one E8M0 scale per 128x128 block, routed experts MXFP4 (DeepSeek-V4); embedding "
                          "and lm_head bf16",
         8.0 + 8.0 / (128 * 128), FormatCoverage::fp4_experts, Datatype::fp8},
        {"int8", "INT8 weight-only, per-channel fp16 scales; dequantized to bf16", 8.0,
         FormatCoverage::linear_layers, std::nullopt, true},
        {"int4", "INT4 weight-only AWQ/GPTQ, group 128 (fp16 scale + 4-bit zero per group)", 4.0 + 16.0 / 128 + 4.0 / 128,
         FormatCoverage::linear_layers, std::nullopt, true},
        // MLC LLM's group quantization (its QUANTIZATION registry, mlc_llm/quantization): symmetric
        // int-N in groups with one scale each, the embedding and the final projection quantized
        // too (quantize_embedding, quantize_final_fc), dequantized inside TVM's compiled kernels.
        {"q4f16_1", "MLC LLM q4f16_1: INT4 in groups of 32, one fp16 scale each, embedding and lm_head too", 4.0 + 16.0 / 32,
         FormatCoverage::everything, std::nullopt, true},
        {"q4f32_1", "MLC LLM q4f32_1: INT4 in groups of 32, one fp32 scale each, embedding and lm_head too", 4.0 + 32.0 / 32,
         FormatCoverage::everything, std::nullopt, true},
        {"q3f16_1", "MLC LLM q3f16_1: INT3 in groups of 40, one fp16 scale each, embedding and lm_head too", 3.0 + 16.0 / 40,
         FormatCoverage::everything, std::nullopt, true},
        {"mxfp4", "OCP MXFP4 (E2M1 + E8M0 scale per 32) on MLP/expert weights only, as GPT-OSS ships", kMxfp4,
         FormatCoverage::mlp_only, std::nullopt, true},
        {"nvfp4", "NVFP4 (E2M1 + E4M3 scale per 16) W4A4 on FP4 tensor cores; embedding and lm_head bf16", 4.5,
         FormatCoverage::linear_layers, Datatype::fp4},
        {"q8_0", "llama.cpp Q8_0 (block 32, fp16 scale)", kQ8_0, FormatCoverage::gguf_mixture, Datatype::int8, true},
        {"q6_k", "llama.cpp Q6_K (super-block 256)", kQ6_K, FormatCoverage::gguf_mixture, Datatype::int8, true},
        {"q5_k_m", "llama.cpp Q5_K_M mixture (Q5_K, Q6_K on half of attn_v/ffn_down)", kQ5_K,
         FormatCoverage::gguf_mixture, Datatype::int8, true},
        {"q4_k_m", "llama.cpp Q4_K_M mixture (Q4_K, Q6_K on half of attn_v/ffn_down)", kQ4_K,
         FormatCoverage::gguf_mixture, Datatype::int8, true},
        {"q4_0", "llama.cpp Q4_0 (block 32, fp16 scale)", kQ4_0, FormatCoverage::gguf_mixture, Datatype::int8, true},
        {"mxfp4_moe", "llama.cpp MXFP4_MOE file (the ggml-org gpt-oss GGUFs): routed experts MXFP4, every other tensor Q8_0",
         kMxfp4, FormatCoverage::gguf_mixture, Datatype::int8, true},
        {"q2_k", "llama.cpp Q2_K mixture (Q2_K, Q3_K/Q4_K on attn_v, attn_output, ffn_down)", kQ2_K,
         FormatCoverage::gguf_mixture, Datatype::int8, true},
        {"q5_k_s", "llama.cpp Q5_K_S (Q5_K; Q8_0 attn_k with 8 experts)", kQ5_K, FormatCoverage::gguf_mixture,
         Datatype::int8, true},
        {"q4_k_s", "llama.cpp Q4_K_S mixture (Q4_K, Q5_K on the first attn_v and eighth of ffn_down)", kQ4_K,
         FormatCoverage::gguf_mixture, Datatype::int8, true},
        {"q3_k_l", "llama.cpp Q3_K_L mixture (Q3_K, Q5_K attn_v, attn_output and ffn_down)", kQ3_K,
         FormatCoverage::gguf_mixture, Datatype::int8, true},
        {"q3_k_m", "llama.cpp Q3_K_M mixture (Q3_K, Q4_K/Q5_K attn_v, attn_output and ffn_down)", kQ3_K,
         FormatCoverage::gguf_mixture, Datatype::int8, true},
        {"q3_k_s", "llama.cpp Q3_K_S (Q3_K)", kQ3_K, FormatCoverage::gguf_mixture, Datatype::int8, true},
        // The i-quants (importance-matrix files): their blocks index codebooks of 256 to 2,048
        // entries (ggml-common.h iq*_grid) instead of holding scaled integers.
        {"iq4_xs", "llama.cpp IQ4_XS (4.25 bits: non-linear 4-bit levels, 6-bit scales per 32)", kIQ4_XS,
         FormatCoverage::gguf_mixture, Datatype::int8, true},
        {"iq4_nl", "llama.cpp IQ4_NL (4.5 bits: non-linear 4-bit levels, block 32)", kIQ4_NL,
         FormatCoverage::gguf_mixture, Datatype::int8, true},
        {"iq3_m", "llama.cpp IQ3_M mixture (IQ3_S, Q4_K attn_v and attn_output)", kIQ3_S, FormatCoverage::gguf_mixture,
         Datatype::int8, true},
        {"iq3_s", "llama.cpp IQ3_S (3.4375 bits, 512-entry grid)", kIQ3_S, FormatCoverage::gguf_mixture, Datatype::int8,
         true},
        {"iq3_xs", "llama.cpp IQ3_XS mixture (IQ3_S, IQ3_XXS on attn_q/attn_k and the middle ffn_gate/up)", kIQ3_S,
         FormatCoverage::gguf_mixture, Datatype::int8, true},
        {"iq3_xxs", "llama.cpp IQ3_XXS mixture (3.0625 bits, 256-entry grid; IQ2_S attn_q/attn_k)", kIQ3_XXS,
         FormatCoverage::gguf_mixture, Datatype::int8, true},
        {"iq2_m", "llama.cpp IQ2_M mixture (IQ2_S, IQ3_S attn_v/attn_output and the first eighth of ffn_down)", kIQ2_S,
         FormatCoverage::gguf_mixture, Datatype::int8, true},
        {"iq2_s", "llama.cpp IQ2_S mixture (IQ2_XS, IQ3_S attn_v/attn_output and the first eighth of ffn_down)",
         kIQ2_XS, FormatCoverage::gguf_mixture, Datatype::int8, true},
        {"iq2_xs", "llama.cpp IQ2_XS mixture (2.3125 bits, 512-entry grid; Q2_K/Q4_K attn_v, first ffn_down)",
         kIQ2_XS, FormatCoverage::gguf_mixture, Datatype::int8, true},
        {"iq2_xxs", "llama.cpp IQ2_XXS mixture (2.0625 bits, 256-entry grid; Q2_K/Q4_K attn_v, first ffn_down)",
         kIQ2_XXS, FormatCoverage::gguf_mixture, Datatype::int8, true},
        {"iq1_m", "llama.cpp IQ1_M mixture (1.75 bits, 2048-entry grid; IQ2_XXS attn_output)", kIQ1_M,
         FormatCoverage::gguf_mixture, Datatype::int8, true},
        {"iq1_s", "llama.cpp IQ1_S mixture (1.5625 bits, 2048-entry grid; IQ2_XXS attn_output)", kIQ1_S,
         FormatCoverage::gguf_mixture, Datatype::int8, true},
    };
    return formats;
}

const std::vector<KvFormat>& kv_formats() {
    static const std::vector<KvFormat> formats{
        {"bf16", "bfloat16", 2.0},
        {"fp16", "float16", 2.0},
        {"fp32", "float32", 4.0},
        {"fp8", "FP8 E4M3/E5M2, per-tensor scale", 1.0},
        {"int8", "INT8, per-tensor scale", 1.0},
        {"q8_0", "llama.cpp Q8_0 (block 32, fp16 scale)", kQ8_0 / 8},
        {"q4_0", "llama.cpp Q4_0 (block 32, fp16 scale)", kQ4_0 / 8},
    };
    return formats;
}

double StoredTensorBits::bits(TensorRole role, int layer, bool routed) const {
    if (role == TensorRole::embedding) return embedding;
    if (role == TensorRole::lm_head) return lm_head;
    if (layer < 0 || layer >= static_cast<int>(layers.size())) return 0.0;
    const auto index = static_cast<std::size_t>(role);
    return routed ? layers[static_cast<std::size_t>(layer)].routed_bits[index]
                  : layers[static_cast<std::size_t>(layer)].bits[index];
}

double tensor_bits(const WeightFormat& format, TensorRole role, const LayerContext& context) {
    if (context.stored != nullptr) {
        if (const double stored = context.stored->bits(role, context.layer, context.routed_expert); stored > 0.0) {
            return stored;
        }
    }
    if (role == TensorRole::router) return kHalf;
    switch (format.coverage) {
        case FormatCoverage::everything: return format.bits_per_weight;
        case FormatCoverage::linear_layers:
            return role == TensorRole::embedding || role == TensorRole::lm_head ? kHalf : format.bits_per_weight;
        case FormatCoverage::mlp_only:
            return role == TensorRole::mlp_gate_up || role == TensorRole::mlp_down ? format.bits_per_weight : kHalf;
        case FormatCoverage::fp4_experts: {
            if (role == TensorRole::embedding || role == TensorRole::lm_head) return kHalf;
            const bool expert_matrix = role == TensorRole::mlp_gate_up || role == TensorRole::mlp_down;
            return context.routed_expert && expert_matrix ? kMxfp4 : format.bits_per_weight;
        }
        case FormatCoverage::gguf_mixture: return gguf_tensor_bits(format.name, role, context);
    }
    return format.bits_per_weight;
}

}  // namespace decodesim::core
