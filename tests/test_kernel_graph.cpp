// Kernel graphs (engine/kernel_graph.hpp): the launches a runtime makes per layer, read from its
// source. Checked against a hand count of llama.cpp's graph for a dense and a MoE model, against
// the structural count a fused engine keeps, and against the traffic the extra kernels carry.

#include <doctest/doctest.h>

#include "engine/cost_model.hpp"
#include "engine/kernel_graph.hpp"
#include "engine/operating_point.hpp"
#include "test_support.hpp"

using namespace decodesim;

namespace {

engine::CostModel cost_on_rtx_4090(const std::string& model, engine::Runtime runtime, const std::string& weights) {
    const auto s = testing::setup_on("rtx-4090", model, weights, runtime);
    return engine::build_cost_model(s.model, s.deployment);
}

double decode_kernels(const std::string& model, engine::Runtime runtime, const std::string& weights) {
    double kernels = 0.0;
    for (const auto& op : engine::decode_step_costs(cost_on_rtx_4090(model, runtime, weights), 1.0, 512.0).operators) {
        kernels += op.kernels;
    }
    return kernels;
}

}  // namespace

TEST_CASE("llama.cpp launches 18 kernels a dense layer and 22 a MoE layer: its graph, counted by hand") {
    // llama.cpp after the CUDA fusions (src/models/llama.cpp, openai-moe.cpp; ggml-cuda.cu):
    // attention block 9 launches (norm+mul, q, rope q, v, k, rope k + cache write, v cache write,
    // flash attention, output + residual) + 4 input conversions (q, k, v, output) = 13;
    // dense MLP 3 (norm+mul, gate+up+activation, down + residual) + 2 conversions = 5;
    // MoE MLP 7 (norm+mul, router, top-k, gate/up+activation, down, weighted sum, residual)
    // + 2 conversions = 9. Each step adds the embedding, the final norm and the lm_head: 3.
    //   Llama-2-7B, 32 dense layers:   32 x (13 + 5) + 3 = 579
    //   gpt-oss-20b, 24 MoE layers:    24 x (13 + 9) + 3 = 531
    CHECK(decode_kernels("llama-2-7b", engine::Runtime::llama_cpp, "q4_0") == doctest::Approx(579.0));
    CHECK(decode_kernels("gpt-oss-20b", engine::Runtime::llama_cpp, "mxfp4_moe") == doctest::Approx(531.0));
    // A fused engine keeps the structural kernels: attention 5, dense MLP 3, MoE 4.
    //   Llama-2-7B: 32 x (5 + 3) + 3 = 259;   gpt-oss-20b: 24 x (5 + 4) + 3 = 219
    CHECK(decode_kernels("llama-2-7b", engine::Runtime::tensorrt_llm, "fp8") == doctest::Approx(259.0));
    CHECK(decode_kernels("gpt-oss-20b", engine::Runtime::vllm, "mxfp4") == doctest::Approx(219.0));
    CHECK(decode_kernels("llama-2-7b", engine::Runtime::ideal, "q4_0") == doctest::Approx(259.0));
}

TEST_CASE("the graph's extra kernels each read and write the hidden state once") {
    // Llama-2-7B under llama.cpp: 10 kernels a layer beyond the structural 8 (13 - 5 and 5 - 3),
    // 320 in all. A decode step of one token moves 2 x 4,096 x 2 B = 16,384 B per kernel:
    // 5,242,880 B; a 512-token prompt 512 times that.
    const auto cost = cost_on_rtx_4090("llama-2-7b", engine::Runtime::llama_cpp, "q4_0");
    CHECK(cost.elementwise_kernels == 320.0);
    using engine::OperatorKind;
    CHECK(engine::decode_step_costs(cost, 1.0, 512.0)[OperatorKind::elementwise].bytes.value ==
          doctest::Approx(5242880.0).epsilon(1e-12));
    CHECK(engine::prefill_costs(cost, 1.0, 512.0)[OperatorKind::elementwise].bytes.value ==
          doctest::Approx(512.0 * 5242880.0).epsilon(1e-12));
    CHECK(engine::extra_kernels(0.0, engine::kStructuralAttentionKernels) == 0.0);
    CHECK(engine::extra_kernels(3.0, engine::kStructuralAttentionKernels) == 0.0);
}
