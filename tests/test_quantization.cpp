// Quantization formats: block sizes from ggml-common.h and whole-model bits per weight measured
// by llama.cpp itself (tools/quantize/README.md, Llama-3.1-8B), which our per-tensor rules must
// reproduce without being fitted to them.

#include <doctest/doctest.h>

#include "core/quantization.hpp"
#include "engine/cost_model.hpp"
#include "engine/model_shape.hpp"
#include "test_support.hpp"

using namespace decodesim;

TEST_CASE("block formats carry their scales in bits per weight") {
    // Q4_0: 32 weights in 18 bytes (fp16 scale + 16 bytes of nibbles) = 4.5 bits.
    CHECK(core::find_named(core::weight_formats(), "q4_0")->bits_per_weight == doctest::Approx(4.5));
    // Q8_0: 32 weights in 34 bytes = 8.5 bits.
    CHECK(core::find_named(core::weight_formats(), "q8_0")->bits_per_weight == doctest::Approx(8.5));
    // Q6_K: 256 weights in 210 bytes = 6.5625 bits.
    CHECK(core::find_named(core::weight_formats(), "q6_k")->bits_per_weight == doctest::Approx(6.5625));
    // AWQ/GPTQ group 128: 4 bits + fp16 scale and 4-bit zero per 128 weights = 4.15625.
    CHECK(core::find_named(core::weight_formats(), "int4")->bits_per_weight == doctest::Approx(4.15625));
    // MXFP4: 32 E2M1 values + one E8M0 byte = 4.25; NVFP4: 16 values + one E4M3 byte = 4.5.
    CHECK(core::find_named(core::weight_formats(), "mxfp4")->bits_per_weight == doctest::Approx(4.25));
    CHECK(core::find_named(core::weight_formats(), "nvfp4")->bits_per_weight == doctest::Approx(4.5));
    CHECK(core::find_named(core::kv_formats(), "q8_0")->bytes_per_element == doctest::Approx(34.0 / 32.0));
    CHECK(core::find_named(core::kv_formats(), "q4_0")->bytes_per_element == doctest::Approx(18.0 / 32.0));
}

TEST_CASE("GGUF mixtures reproduce llama.cpp's measured bits per weight for Llama-3.1-8B") {
    const auto model = testing::shipped_catalog().model("llama-3.1-8b");
    const double parameters = engine::count_parameters(model).total;
    struct Row {
        const char* format;
        double measured_bpw;  // llama.cpp tools/quantize/README.md, Llama-3.1-8B table
    };
    for (const Row row : {Row{"q4_k_m", 4.8944}, Row{"q5_k_m", 5.7036}, Row{"q6_k", 6.5633}, Row{"q8_0", 8.5008},
                          Row{"q2_k", 3.1593}}) {
        CAPTURE(row.format);
        engine::Deployment deployment;
        deployment.weights = core::find_named(core::weight_formats(), row.format);
        deployment.kv = core::find_named(core::kv_formats(), "fp16");
        const double bytes = engine::build_cost_model(model, deployment).weight_bytes().value;
        // Norms are fp32 in a GGUF file and 16-bit here: a difference below 0.001 bpw.
        CHECK(bytes * 8.0 / parameters == doctest::Approx(row.measured_bpw).epsilon(0.002).scale(0.0));
    }
}

// Published GGUF files against the weight bytes their file type's rules give (issue 39). Sizes are
// the Hugging Face API's, exact, at pinned revisions (bartowski/Meta-Llama-3.1-8B-Instruct-GGUF
// @bf5b95e9, bartowski/Mistral-7B-Instruct-v0.3-GGUF @61fd4167; as listed by the generated model
// catalog of aflin/rampart-langtools, rampart-models.js). A file also holds its header and
// tokenizer (about 7.8 MB for Llama-3.1's 128k vocabulary, 0.8 MB for Mistral's), which the
// weight bytes do not count, and its norms in fp32; so the weights come out slightly below the file.
// The mistral-7b profile is v0.1 (vocabulary 32,000; v0.3 has 32,768: 6.3 M fewer embedding and
// output weights, about 0.1% of an IQ1_S file).
TEST_CASE("GGUF i-quant and K-quant files: the rules give the published file sizes") {
    const auto catalog = testing::shipped_catalog();
    struct File {
        const char* model;
        const char* format;
        double bytes;
    };
    const File files[] = {
        {"llama-3.1-8b", "iq2_m", 2948285856.0},   {"llama-3.1-8b", "iq3_xs", 3518752160.0},
        {"llama-3.1-8b", "iq3_m", 3784828320.0},   {"llama-3.1-8b", "iq4_xs", 4447667616.0},
        {"llama-3.1-8b", "iq4_nl", 4677993888.0},  {"llama-3.1-8b", "q3_k_s", 3664504224.0},
        {"llama-3.1-8b", "q3_k_m", 4018922912.0},  {"llama-3.1-8b", "q3_k_l", 4321961376.0},
        {"llama-3.1-8b", "q4_k_s", 4692673952.0},  {"llama-3.1-8b", "q5_k_s", 5599298976.0},
        {"mistral-7b", "iq1_s", 1615319264.0},     {"mistral-7b", "iq1_m", 1757663456.0},
        {"mistral-7b", "iq2_xxs", 1994903776.0},   {"mistral-7b", "iq2_xs", 2201473248.0},
        {"mistral-7b", "iq2_s", 2314457312.0},     {"mistral-7b", "iq3_xxs", 2830880992.0},
        {"mistral-7b", "iq3_s", 3186348256.0},
    };
    for (const File& file : files) {
        CAPTURE(file.model);
        CAPTURE(file.format);
        engine::Deployment deployment;
        deployment.weights = core::find_named(core::weight_formats(), file.format);
        REQUIRE(deployment.weights != nullptr);
        deployment.kv = core::find_named(core::kv_formats(), "fp16");
        const double bytes = engine::build_cost_model(catalog.model(file.model), deployment).weight_bytes().value;
        CHECK(bytes <= file.bytes);
        CHECK(bytes == doctest::Approx(file.bytes).epsilon(0.005).scale(0.0));
    }
}

// The rules themselves, by hand from llama-quant.cpp (docs/quantization.md):
TEST_CASE("GGUF rules: the 70B attn_v raise, the IQ branch and the 8-expert overrides") {
    const auto bits = [](const char* format, core::TensorRole role, core::LayerContext context) {
        return core::tensor_bits(*core::find_named(core::weight_formats(), format), role, context);
    };
    using core::TensorRole;
    // Q4_K_M attn_v at layer 11 of 80 (not use_more_bits: 11 >= 80/8 and (11 - 10) % 3 = 1) is
    // Q4_K, raised to Q5_K (176 B / 256 = 5.5 bits) on an 80-layer grouped-query model; 4.5 on 32 layers.
    CHECK(bits("q4_k_m", TensorRole::attn_v, {11, 80, 8, 0, false}) == 5.5);
    CHECK(bits("q4_k_m", TensorRole::attn_v, {11, 32, 4, 0, false}) == 4.5);
    // Q4_0 is not Q4_K: no raise (18 B / 32 = 4.5 bits).
    CHECK(bits("q4_0", TensorRole::attn_v, {11, 80, 8, 0, false}) == 4.5);
    // IQ2_XXS: attn_v Q4_K with 4+ query heads per KV head, else Q2_K (84 B / 256 = 2.625); the
    // first eighth of ffn_down Q2_K; the output matrix Q5_K; the rest IQ2_XXS (66 B / 256).
    CHECK(bits("iq2_xxs", TensorRole::attn_v, {5, 32, 4, 0, false}) == 4.5);
    CHECK(bits("iq2_xxs", TensorRole::attn_v, {5, 32, 1, 0, false}) == 2.625);
    CHECK(bits("iq2_xxs", TensorRole::mlp_down, {3, 32, 4, 0, false}) == 2.625);
    CHECK(bits("iq2_xxs", TensorRole::mlp_down, {4, 32, 4, 0, false}) == 2.0625);
    CHECK(bits("iq2_xxs", TensorRole::lm_head, {31, 32, 4, 0, false}) == 5.5);
    CHECK(bits("iq2_xxs", TensorRole::mlp_gate_up, {4, 32, 4, 0, false}) == 2.0625);
    // IQ1_S attn_output IQ2_XXS; with 8 experts Q5_K.
    CHECK(bits("iq1_s", TensorRole::attn_output, {4, 32, 4, 0, false}) == 2.0625);
    CHECK(bits("iq1_s", TensorRole::attn_output, {4, 32, 4, 8, false}) == 5.5);
    // IQ3_XS: attn_q/attn_k IQ3_XXS (98 B / 256 = 3.0625), ffn_gate/up IQ3_XXS in the middle
    // layers only, IQ3_S (110 B / 256 = 3.4375) at the ends.
    CHECK(bits("iq3_xs", TensorRole::attn_q, {0, 32, 4, 0, false}) == 3.0625);
    CHECK(bits("iq3_xs", TensorRole::mlp_gate_up, {3, 32, 4, 0, false}) == 3.4375);
    CHECK(bits("iq3_xs", TensorRole::mlp_gate_up, {4, 32, 4, 0, false}) == 3.0625);
    CHECK(bits("iq3_xs", TensorRole::mlp_gate_up, {28, 32, 4, 0, false}) == 3.4375);
    // 8 experts (Mixtral): attn_v and attn_k Q8_0 (34 B / 32 = 8.5) in the K- and IQ3/IQ4 files.
    CHECK(bits("q3_k_m", TensorRole::attn_v, {5, 32, 4, 8, false}) == 8.5);
    CHECK(bits("iq4_xs", TensorRole::attn_k, {5, 32, 4, 8, false}) == 8.5);
}

TEST_CASE("fp8 and int4 keep the embedding and lm_head in 16-bit") {
    // Llama-3.1-8B: 2 x 525,336,576 embedding/lm_head params at 2 bytes, the other
    // 6,979,588,096 (layers + final norm; norms stay 16-bit too) at 1 byte for fp8.
    const auto model = testing::shipped_catalog().model("llama-3.1-8b");
    engine::Deployment deployment;
    deployment.weights = core::find_named(core::weight_formats(), "fp8");
    deployment.kv = core::find_named(core::kv_formats(), "bf16");
    const double embeddings = 2.0 * 128256.0 * 4096.0 * 2.0;
    const double norms = (32.0 * 2.0 + 1.0) * 4096.0 * 2.0;
    const double linear = 32.0 * (2.0 * 4096.0 * 4096.0 + 2.0 * 4096.0 * 1024.0 + 3.0 * 4096.0 * 14336.0);
    CHECK(engine::build_cost_model(model, deployment).weight_bytes() ==
          doctest::Approx(embeddings + norms + linear * 1.0).epsilon(1e-9));
}

TEST_CASE("mxfp4 applies to the experts only, as GPT-OSS ships") {
    // gpt-oss-20b: published checkpoint is about 12.8 GiB (13.8 GB); most of it is MXFP4 experts.
    const auto model = testing::shipped_catalog().model("gpt-oss-20b");
    engine::Deployment deployment;
    deployment.weights = core::find_named(core::weight_formats(), "mxfp4");
    deployment.kv = core::find_named(core::kv_formats(), "bf16");
    const double bytes = engine::build_cost_model(model, deployment).weight_bytes().value;
    // Experts: 24 layers x 32 experts x 3 x 2880 x 2880 = 19.11e9 params at 4.25 bits = 10.15 GB;
    // the remaining 1.80e9 params (attention, router, embeddings) at 2 bytes = 3.61 GB.
    CHECK(bytes == doctest::Approx(10.15e9 + 3.61e9).epsilon(0.01).scale(0.0));
}

TEST_CASE("mxfp4_moe prices the GGUF file type tensor by tensor: experts MXFP4, the rest Q8_0") {
    // llama-quant.cpp (llama_tensor_get_type, LLAMA_FTYPE_MOSTLY_MXFP4_MOE): 3-D expert tensors
    // MXFP4 (17 bytes per 32 weights = 4.25 bits), every other tensor and the output matrix Q8_0
    // (34 bytes per 32 = 8.5 bits). llama-bench prints these files as "gpt-oss 20B MXFP4 MoE,
    // 11.27 GiB" and "gpt-oss 120B MXFP4 MoE, 59.02 GiB" (llama.cpp benches/dgx-spark.md, rows in
    // validation/measurements.csv).
    const auto bytes_of = [](const char* id) {
        const auto model = testing::shipped_catalog().model(id);
        engine::Deployment deployment;
        deployment.weights = core::find_named(core::weight_formats(), "mxfp4_moe");
        deployment.kv = core::find_named(core::kv_formats(), "bf16");
        return engine::build_cost_model(model, deployment).weight_bytes().value;
    };
    const double gib = 1024.0 * 1024.0 * 1024.0;
    // 20b: experts 24 x 32 x 3 x 2880 x 2880 = 19.11e9 at 4.25 bits = 10.15e9 B; the other
    // 20.91e9 - 19.11e9 = 1.80e9 parameters at 8.5 bits = 1.91e9 B; 12.06e9 B = 11.23 GiB.
    CHECK(bytes_of("gpt-oss-20b") / gib == doctest::Approx(11.27).epsilon(0.01).scale(0.0));
    // 120b: experts 36 x 128 x 3 x 2880 x 2880 = 114.65e9 at 4.25 bits = 60.90e9 B; the other
    // 116.83e9 - 114.65e9 = 2.18e9 at 8.5 bits = 2.32e9 B; 63.22e9 B = 58.88 GiB.
    CHECK(bytes_of("gpt-oss-120b") / gib == doctest::Approx(59.02).epsilon(0.01).scale(0.0));
}

TEST_CASE("MLC LLM's q4f16_1 quantizes every matrix, the embedding and lm_head too, at 4.5 bits") {
    // mlc_llm's QUANTIZATION registry: q4f16_1 is symmetric INT4 in groups of 32 with one fp16
    // scale (4 + 16/32 = 4.5 bits), quantize_embedding and quantize_final_fc true. Llama-2-7B by
    // hand: 32 layers x (4 x 4096^2 + 3 x 4096 x 11008) = 6,476,005,376 matrix weights, plus the
    // embedding and lm_head, 2 x 32000 x 4096 = 262,144,000; at 4.5 bits, 3,790,209,024 B. The
    // 65 norm vectors (266,240 weights) are under 0.01% of it either way.
    CHECK(core::find_named(core::weight_formats(), "q4f16_1")->bits_per_weight == doctest::Approx(4.5));
    CHECK(core::find_named(core::weight_formats(), "q3f16_1")->bits_per_weight == doctest::Approx(3.4));
    const auto model = testing::shipped_catalog().model("llama-2-7b");
    engine::Deployment deployment;
    deployment.weights = core::find_named(core::weight_formats(), "q4f16_1");
    deployment.kv = core::find_named(core::kv_formats(), "fp16");
    const double bytes = engine::build_cost_model(model, deployment).weight_bytes().value;
    CHECK(bytes == doctest::Approx(3790209024.0).epsilon(2e-4).scale(0.0));
    // Against int4 (AWQ group 128, 16-bit embedding and lm_head), the two 16-bit tables alone are
    // 262,144,000 x (2 - 0.5625) B = 376.8 MB more.
    deployment.weights = core::find_named(core::weight_formats(), "int4");
    CHECK(engine::build_cost_model(model, deployment).weight_bytes().value >
          bytes + 262144000.0 * (2.0 - 0.5625) - 6476005376.0 * (4.5 - 4.15625) / 8.0 - 1e6);
}
