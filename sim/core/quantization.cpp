#include "core/quantization.hpp"

namespace decodesim::core {
namespace {

// GGML block sizes, from ggml-common.h: bytes per block * 8 / weights per block.
constexpr double kQ8_0 = 34.0 * 8 / 32;    // 8.5
constexpr double kQ6_K = 210.0 * 8 / 256;  // 6.5625
constexpr double kQ5_K = 176.0 * 8 / 256;  // 5.5
constexpr double kQ4_K = 144.0 * 8 / 256;  // 4.5
constexpr double kQ4_0 = 18.0 * 8 / 32;    // 4.5
constexpr double kQ3_K = 110.0 * 8 / 256;  // 3.4375
constexpr double kQ2_K = 84.0 * 8 / 256;   // 2.625
constexpr double kMxfp4 = 17.0 * 8 / 32;   // 4.25: E2M1 + one E8M0 scale per 32
constexpr double kHalf = 16.0;

// llama-quant's use_more_bits: the first and last eighth of the layers and every third between.
bool use_more_bits(int layer, int num_layers) {
    return layer < num_layers / 8 || layer >= 7 * num_layers / 8 || (layer - num_layers / 8) % 3 == 2;
}

double gguf_tensor_bits(std::string_view name, TensorRole role, const LayerContext& context) {
    const bool eight_experts = context.num_experts == 8;
    // MXFP4_MOE (llama-quant.cpp, llama_tensor_get_type): the 3-D expert tensors in MXFP4, every
    // other tensor, the output matrix included, in Q8_0.
    if (name == "mxfp4_moe") {
        const bool expert_matrix = role == TensorRole::mlp_gate_up || role == TensorRole::mlp_down;
        return context.routed_expert && expert_matrix ? kMxfp4 : kQ8_0;
    }
    // The output matrix gets Q6_K in every K-quant and in Q4_0; Q8_0 keeps it in Q8_0.
    if (role == TensorRole::lm_head) return name == "q8_0" ? kQ8_0 : kQ6_K;
    if (name == "q8_0") return kQ8_0;
    if (name == "q6_k") return kQ6_K;
    if (name == "q4_0") return kQ4_0;
    if (name == "q4_k_m" || name == "q5_k_m") {
        const double base = name == "q4_k_m" ? kQ4_K : kQ5_K;
        if (role == TensorRole::attn_v && eight_experts) return kQ8_0;
        if (role == TensorRole::attn_k && eight_experts) return kQ8_0;
        if (role == TensorRole::attn_output && eight_experts && name == "q4_k_m") return kQ5_K;
        if ((role == TensorRole::attn_v || role == TensorRole::mlp_down) &&
            use_more_bits(context.layer, context.num_layers)) {
            return kQ6_K;
        }
        return base;
    }
    if (name == "q2_k") {
        if (role == TensorRole::attn_v) return eight_experts ? kQ8_0 : (context.gqa_ratio >= 4 ? kQ4_K : kQ3_K);
        if (role == TensorRole::attn_k && eight_experts) return kQ8_0;
        if (role == TensorRole::attn_output) return eight_experts ? kQ5_K : kQ3_K;
        if (role == TensorRole::mlp_down) return kQ3_K;
        return kQ2_K;
    }
    return kHalf;
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

double tensor_bits(const WeightFormat& format, TensorRole role, const LayerContext& context) {
    if (role == TensorRole::router) return kHalf;
    switch (format.coverage) {
        case FormatCoverage::everything: return format.bits_per_weight;
        case FormatCoverage::linear_layers:
            return role == TensorRole::embedding || role == TensorRole::lm_head ? kHalf : format.bits_per_weight;
        case FormatCoverage::mlp_only:
            return role == TensorRole::mlp_gate_up || role == TensorRole::mlp_down ? format.bits_per_weight : kHalf;
        case FormatCoverage::gguf_mixture: return gguf_tensor_bits(format.name, role, context);
    }
    return format.bits_per_weight;
}

}  // namespace decodesim::core
