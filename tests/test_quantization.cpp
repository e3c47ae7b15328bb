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
