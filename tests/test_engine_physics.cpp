// Hand-computed physics: every expected number is derived in the comments from the model's
// config.json and the datasheet, not read back from the program.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "engine/cost_model.hpp"
#include "engine/model_shape.hpp"
#include "engine/roofline.hpp"
#include "cli_runner.hpp"
#include "test_support.hpp"

using namespace decodesim;
using engine::OperatorKind;

namespace {
// Llama-3.1-8B, from its config.json: L=32, H=4096, I=14336, 32 heads, 8 KV heads, head_dim 128, V=128256.
constexpr double kLlama8bEmbedding = 128256.0 * 4096.0;                                  // 525,336,576
constexpr double kLlama8bLayer = 4096.0 * 4096.0 * 2 + 2 * 4096.0 * 1024.0 + 3 * 4096.0 * 14336.0 + 2 * 4096.0;
constexpr double kLlama8bParameters = 32 * kLlama8bLayer + 2 * kLlama8bEmbedding + 4096.0;  // 8,030,261,248
}  // namespace

TEST_CASE("Llama-3.1-8B: parameters, bf16 weights and KV bytes per token") {
    const auto s = testing::setup("h100-sxm", "llama-3.1-8b");
    CHECK(engine::count_parameters(s.model).total == doctest::Approx(kLlama8bParameters).epsilon(1e-12));
    CHECK(kLlama8bParameters == doctest::Approx(8.03e9).epsilon(0.001).scale(0.0));  // the model card's 8.03B
    const auto prediction = s.ideal().predict(engine::Workload::step(1.0, 1.0));
    // bf16: 2 bytes per parameter = 16.06 GB.
    CHECK(prediction.memory.weights == doctest::Approx(2 * kLlama8bParameters).epsilon(1e-9));
    // KV: 2 (K and V) x 32 layers x 8 heads x 128 dims x 2 bytes = 131,072.
    CHECK(prediction.memory.kv_per_token == 131072.0);
}

TEST_CASE("H100 SXM bound for Llama-3.1-8B at batch 1 is the weight stream over 3.35 TB/s") {
    const auto s = testing::setup("h100-sxm", "llama-3.1-8b");
    const auto prediction = s.ideal().predict(engine::Workload::step(1.0, 1.0));
    // A decode step streams every weight except the input embedding table, of which it reads one
    // row: (8,030,261,248 - 525,336,576) x 2 B = 15.01 GB. Activations and the one-token KV cache
    // add well under 0.1%. 3.35e12 / 15.01e9 = 223 tokens/s. (Counting the embedding table too,
    // as rough estimates do, gives 3.35e12 / 16.06e9 = 209.)
    const double streamed = (kLlama8bParameters - kLlama8bEmbedding) * 2.0;
    CHECK(prediction.decode.roofline_tokens_per_s_per_stream == doctest::Approx(3.35e12 / streamed).epsilon(0.002).scale(0.0));
    CHECK(prediction.decode.roofline_tokens_per_s_per_stream > 209.0);
    CHECK(prediction.decode.bound == engine::Bound::memory);
    // Decode FLOPs: 2 per weight per token (the embedding lookup does none) plus attention.
    CHECK(prediction.decode.flops_per_step == doctest::Approx(2.0 * (kLlama8bParameters - kLlama8bEmbedding)).epsilon(0.002).scale(0.0));
}

TEST_CASE("the prediction never exceeds the roofline bound") {
    const auto s = testing::setup("h100-sxm", "llama-3.1-8b");
    for (double batch : {1.0, 8.0, 64.0, 512.0}) {
        const auto prediction = s.realistic().predict(engine::Workload::step(batch, 4096.0));
        CHECK(prediction.decode.tokens_per_s_total <= prediction.decode.roofline_tokens_per_s_total);
        CHECK(prediction.prefill.time >= prediction.prefill.roofline_time);
        CHECK(prediction.batch_prefill.time >= prediction.batch_prefill.roofline_time);
    }
}

TEST_CASE("KV cache grows with context and is read once per sequence") {
    const auto s = testing::setup("h100-sxm", "llama-3.1-8b");
    const auto short_context = engine::decode_step_costs(s.ideal().cost_model(), 4.0, 1000.0);
    const auto long_context = engine::decode_step_costs(s.ideal().cost_model(), 4.0, 9000.0);
    // 8,000 more tokens x 4 sequences x 131,072 B = 4.194 GB more KV traffic.
    const core::Bytes extra = long_context[OperatorKind::attention_score].bytes + long_context[OperatorKind::attention_value].bytes -
                         short_context[OperatorKind::attention_score].bytes - short_context[OperatorKind::attention_value].bytes;
    CHECK(extra == doctest::Approx(8000.0 * 4 * 131072.0));
    // Attention FLOPs: 2 (QK) + 2 (PV) multiply-adds x 32 heads x 128 dims x 32 layers per token per sequence.
    const core::Flops extra_flops = long_context[OperatorKind::attention_score].flops + long_context[OperatorKind::attention_value].flops -
                               short_context[OperatorKind::attention_score].flops - short_context[OperatorKind::attention_value].flops;
    CHECK(extra_flops == doctest::Approx(8000.0 * 4 * 4.0 * 32 * 128 * 32));
}

TEST_CASE("GQA shares KV heads: Llama-2-70B caches 8x less per token than an MHA model of its width") {
    const auto gqa = testing::setup("h100-sxm", "llama-2-70b").ideal().predict(engine::Workload::step(1.0, 1.0));
    // 2 x 80 layers x 8 KV heads x 128 x 2 B = 327,680 B; with 64 KV heads it would be 2,621,440.
    CHECK(gqa.memory.kv_per_token == 327680.0);
    const auto mha = testing::setup("h100-sxm", "llama-2-13b").ideal().predict(engine::Workload::step(1.0, 1.0));
    // Llama-2-13B is MHA: 2 x 40 x 40 x 128 x 2 = 819,200 B.
    CHECK(mha.memory.kv_per_token == 819200.0);
}

TEST_CASE("DeepSeek-V3 MLA caches the latent: 61 x 576 x 2 = 70,272 bytes per token") {
    const auto s = testing::setup("h200-sxm", "deepseek-v3", "fp8");
    const auto prediction = s.ideal().predict(engine::Workload::step(1.0, 1.0));
    CHECK(prediction.memory.kv_per_token == 70272.0);
    // In fp8 the cache halves: 35,136.
    const auto fp8 = testing::setup("h200-sxm", "deepseek-v3", "fp8", "fp8").ideal().predict(engine::Workload::step(1.0, 1.0));
    CHECK(fp8.memory.kv_per_token == 35136.0);
    // Decode reads the latent once per step: at 10,000 tokens, 10,000 x 70,272 B per sequence.
    const auto costs = engine::decode_step_costs(s.ideal().cost_model(), 1.0, 10000.0);
    CHECK(costs[OperatorKind::attention_score].bytes + costs[OperatorKind::attention_value].bytes ==
          doctest::Approx(10000.0 * 70272.0));
}

TEST_CASE("sliding windows cap what a layer reads") {
    // Mistral-7B-v0.1 slides on every layer with a 4096 window: at 32k context a sequence holds
    // 4096 tokens x 131,072 B = 536.9 MB, the same as at exactly 4096.
    const auto mistral = testing::setup("h100-sxm", "mistral-7b").ideal();
    CHECK(mistral.cost_model().kv_bytes_per_sequence(32768.0) == doctest::Approx(4096.0 * 131072.0));
    CHECK(mistral.cost_model().kv_bytes_per_sequence(32768.0) == mistral.cost_model().kv_bytes_per_sequence(4096.0));
    // Gemma-2-9B alternates: 21 sliding (window 4096) and 21 global layers, 2 x 8 x 256 x 2 = 8,192 B
    // per token per layer. At 8192 tokens: (21 x 8192 + 21 x 4096) x 8192 B.
    const auto gemma = testing::setup("h100-sxm", "gemma-2-9b").ideal();
    CHECK(gemma.cost_model().kv_bytes_per_sequence(8192.0) == doctest::Approx((21.0 * 8192 + 21.0 * 4096) * 8192.0));
    // Gemma-3-27B: layer i global iff (i + 1) % 6 == 0, so 10 of 62 are global and 52 slide (window 1024).
    const auto gemma3 = testing::setup("h100-sxm", "gemma-3-27b").ideal();
    CHECK(gemma3.cost_model().full_attention_layers == 10);
    CHECK(gemma3.cost_model().sliding_layers == 52);
    // GPT-OSS-120B alternates: 18 and 18, window 128.
    const auto oss = testing::setup("h100-sxm", "gpt-oss-120b", "mxfp4").ideal();
    CHECK(oss.cost_model().sliding_layers == 18);
    CHECK(oss.cost_model().window == 128.0);
}

TEST_CASE("a routed expert's few rows pay for staging its weight tiles, matrix-vector products do not") {
    // gpt-oss-120b: 128 routed experts, top-4. A 512-token prompt routes 2,048 slots to
    // 128 (1 - (124/128)^512) = 128 - 1e-5 experts: 16.0 rows each. With a tile's staging worth 80
    // rows of multiply-adds, the experts' arithmetic takes (16 + 80) / 16 = 6 times as long.
    const auto s = testing::setup("strix-halo", "gpt-oss-120b", "mxfp4");
    engine::Efficiency staged = engine::ideal_efficiency();
    staged.tile_setup_rows = 80.0;
    const auto plain = s.ideal();
    const auto tiled = s.evaluator(staged);
    const auto experts = engine::index_of(OperatorKind::experts);
    const auto ratio = [&](const engine::StepCosts& costs, std::size_t index) {
        return engine::time_step(costs, tiled.rates()).operators[index].compute.value /
               engine::time_step(costs, plain.rates()).operators[index].compute.value;
    };
    const auto prompt = engine::prefill_costs(plain.cost_model(), 1.0, 512.0);
    CHECK(ratio(prompt, experts) == doctest::Approx(6.0).epsilon(1e-6));
    // The dense projections give each weight all 512 rows: the factor is not applied to them.
    CHECK(ratio(prompt, engine::index_of(OperatorKind::qkv_projection)) == 1.0);
    // One decode token sends 4 slots to 4 experts, 1 row each; at batch 64, 256 slots reach
    // 128 (1 - (124/128)^64) = 111.2 experts, 2.3 rows each: matrix-vector products (at most 8
    // rows), which stream the weights with no tile to stage. Unchanged.
    CHECK(ratio(engine::decode_step_costs(plain.cost_model(), 1.0, 1024.0), experts) == 1.0);
    CHECK(ratio(engine::decode_step_costs(plain.cost_model(), 64.0, 1024.0), experts) == 1.0);
    // At batch 1024: 4,096 slots over 128 (1 - (124/128)^1024) = 128 experts, 32 rows each:
    // (32 + 80) / 32 = 3.5.
    CHECK(ratio(engine::decode_step_costs(plain.cost_model(), 1024.0, 1024.0), experts) == doctest::Approx(3.5).epsilon(1e-6));
}

TEST_CASE("MoE reads only the experts the batch routes to") {
    // Mixtral-8x7B: 8 experts, top-2, expert = 3 x 4096 x 14336 = 176,160,768 params, 32 layers.
    const auto s = testing::setup("h100-sxm", "mixtral-8x7b", "bf16", "", 1);
    const auto evaluator = s.ideal();
    const auto& cost = evaluator.cost_model();
    const double expert_bytes_all_layers = 32 * 176160768.0 * 2.0;
    // Each routed token also reads and writes its activations: (2H + 3I) x 32 layers x 2 B.
    const double activations_per_routed_token = (2.0 * 4096 + 3.0 * 14336) * 32 * 2.0;
    // Batch 1: exactly 2 distinct experts per layer: 8 x (1 - (6/8)^1) = 2.
    const auto one = engine::decode_step_costs(cost, 1.0, 1.0);
    CHECK(one[OperatorKind::experts].bytes ==
          doctest::Approx(2.0 * expert_bytes_all_layers + 2.0 * activations_per_routed_token).epsilon(1e-9));
    // Batch 64: 8 x (1 - 0.75^64) = 7.99999 experts, i.e. all of them.
    const auto many = engine::decode_step_costs(cost, 64.0, 1.0);
    CHECK(many[OperatorKind::experts].bytes ==
          doctest::Approx(8.0 * (1.0 - std::pow(0.75, 64)) * expert_bytes_all_layers +
                          128.0 * activations_per_routed_token)
              .epsilon(1e-9));
    // FLOPs scale with tokens x top-k regardless of which experts: 2 x 64 x 2 x params x layers.
    CHECK(many[OperatorKind::experts].flops == doctest::Approx(2.0 * 64 * 2 * 176160768.0 * 32));
    // DeepSeek-V3 at batch 1: 8 of 256 routed + 1 shared expert per MoE layer (58 layers).
    CHECK(engine::expected_distinct_experts(256, 8, 1) == doctest::Approx(8.0));
    CHECK(engine::expected_distinct_experts(256, 8, 64) == doctest::Approx(256.0 * (1.0 - std::pow(248.0 / 256.0, 64))));
}

TEST_CASE("tensor parallelism splits weights and KV heads, replicates KV heads beyond their count, and adds all-reduces") {
    const auto single = testing::setup("h100-sxm", "llama-3.1-70b").ideal().predict(engine::Workload::step(1.0, 1.0));
    const auto split = testing::setup("h100-sxm", "llama-3.1-70b", "bf16", "", 8).ideal().predict(engine::Workload::step(1.0, 1.0));
    // Everything but the norms (2 x 80 + 1 vectors of 8192, replicated) divides by 8.
    const double norms = (2.0 * 80 + 1) * 8192 * 2.0;
    CHECK(split.memory.weights == doctest::Approx((single.memory.weights.value - norms) / 8.0 + norms).epsilon(1e-9));
    // 8 KV heads over 8 devices: one each, 2 x 80 x 1 x 128 x 2 = 40,960 B per token per device.
    CHECK(split.memory.kv_per_token == 40960.0);
    // 16 devices cannot split 8 KV heads further: each still holds one (replicated).
    const auto wide = testing::setup("h100-sxm", "llama-3.1-70b", "bf16", "", 16).ideal().predict(engine::Workload::step(1.0, 1.0));
    CHECK(wide.memory.kv_per_token == 40960.0);
    // Two all-reduces of 8192 x 2 B per layer. A ring would pay 2(T-1) = 14 hops of 2 us and move
    // 2(T-1)/T = 1.75 of the buffer per link; a tree pays 2 log2(8) = 6 hops and moves it twice:
    // 6 x 2e-6 + 2 x 16384 / 450e9 = 12.07 us against 28.06 us, so the tree is taken:
    // 160 x 12.07 us = 1.931 ms at the bound.
    const auto& all_reduce = *std::find_if(split.decode.operators.begin(), split.decode.operators.end(),
                                           [](const auto& op) { return op.kind == engine::OperatorKind::all_reduce; });
    CHECK(all_reduce.time == doctest::Approx(160.0 * (6.0 * 2e-6 + 2.0 * 16384.0 / 450e9)).epsilon(1e-6));
    CHECK_THROWS_WITH(testing::setup("h100-sxm", "llama-3.1-70b", "bf16", "", 3).ideal(),
                      "error: tp: tensor parallelism 3 does not divide the 64 attention heads of Llama-3.1-70B");
}

TEST_CASE("prefill FLOPs include the causal attention term") {
    const auto s = testing::setup("h100-sxm", "llama-3.1-8b");
    const double prompt = 2048.0;
    const auto costs = engine::prefill_costs(s.ideal().cost_model(), 1.0, prompt);
    // Linear layers: 2 x P x 32 layers x (layer params - norms); lm_head only for the last token.
    const double linear = 2.0 * prompt * 32 * (kLlama8bLayer - 2 * 4096.0) + 2.0 * kLlama8bEmbedding;
    // Attention: position i attends to i tokens; sum = P(P+1)/2 per layer, 4 FLOPs x 32 heads x 128 each.
    const double attention = 4.0 * 32 * 128 * 32 * prompt * (prompt + 1) / 2.0;
    // Norms add 4 FLOPs per element: 65 norms x 4096 x P.
    const double norms = 4.0 * prompt * 4096 * 65;
    CHECK(costs.total_flops() == doctest::Approx(linear + attention + norms).epsilon(1e-9));
    // On H100 (989.4 TFLOPS bf16) a 2048-token prefill is compute-bound: about 29.7 TFLOP / 989.4e12 =
    // 30 ms. Each operator takes the larger of its arithmetic and its traffic, so the memory-bound
    // ones (norms, cache writes, embedding) add their bytes at 3.35 TB/s: the roofline lies between
    // the arithmetic alone and the arithmetic plus every byte.
    const auto prediction = s.ideal().predict(engine::Workload::step(1.0, 2048.0));
    CHECK(prediction.prefill.bound == engine::Bound::compute);
    const double arithmetic = (linear + attention + norms) / 989.4e12;
    CHECK(prediction.prefill.roofline_time.value >= arithmetic * (1.0 - 1e-9));
    CHECK(prediction.prefill.roofline_time.value <= arithmetic + costs.total_bytes().value / 3.35e12);
}

TEST_CASE("a shared prefix in the prefix cache skips its prefill and is held once") {
    const auto s = testing::setup("h100-sxm", "llama-3.1-8b");
    engine::Workload workload = engine::Workload::request(32.0, 8192.0, 256.0);
    workload.shared_prefix = 6000.0;
    const auto prediction = s.ideal().predict(workload);
    // Prefill computes tokens 6001..8192 (2,192 of them). Attention: token q attends to q keys,
    // sum over q = 6001..8192 = (8192 x 8193 - 6000 x 6001) / 2 = 15,555,528 pairs per layer, 4
    // FLOPs x 32 heads x 128 each, over 32 layers; the linear layers see 2,192 tokens; lm_head one.
    const double tokens = 2192.0;
    const double pairs = (8192.0 * 8193.0 - 6000.0 * 6001.0) / 2.0;
    const double linear = 2.0 * tokens * 32 * (kLlama8bLayer - 2 * 4096.0) + 2.0 * kLlama8bEmbedding;
    const double attention = 4.0 * 32 * 128 * 32 * pairs;
    const double norms = 4.0 * tokens * 4096 * 65;
    CHECK(prediction.prefill.flops.value == doctest::Approx(linear + attention + norms).epsilon(1e-9));
    // The cache: the 6,000 shared tokens once, and each stream's own 8,448 - 6,000 = 2,448, at
    // 131,072 B per token: 131,072 x (6,000 + 32 x 2,448) = 11,054,088,192 B.
    CHECK(prediction.memory.kv.value == doctest::Approx(131072.0 * (6000.0 + 32 * 2448.0)).epsilon(1e-12));
    // Streams that fit: (0.9 x 80 GiB - 16.06 GB of weights - the shared 786 MB) / (2,448 x 131,072 B)
    // = (77,309,411,328 - 16,060,522,496 - 786,432,000) / 320,864,256 = 188.4: 188.
    const double room = 0.9 * 80.0 * 1073741824.0 - 2 * kLlama8bParameters - 6000.0 * 131072.0;
    CHECK(prediction.memory.max_batch == static_cast<long long>(std::floor(room / (2448.0 * 131072.0))));
    // The command line refuses a prefix as long as the prompt.
    const auto refused = testing::run({"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--context", "100",
                                       "--prefix-tokens", "100"});
    CHECK(refused.exit_code == 2);
    CHECK(refused.err.find("--prefix-tokens 100 must be shorter than the prompt (100 tokens)") != std::string::npos);
}

TEST_CASE("memory: the largest batch fills what the reserve leaves") {
    const auto s = testing::setup("h100-sxm", "llama-3.1-8b");
    const auto prediction = s.ideal().predict(engine::Workload::step(1.0, 8192.0));
    // Usable: 90% of 80 GiB (85,899,345,920 B) = 77,309,411,328 B; minus 16,060,522,496 B of weights
    // leaves 61,248,888,832 B; a sequence at 8192 tokens holds 8192 x 131,072 B = 1,073,741,824 B,
    // so 61,248,888,832 / 1,073,741,824 = 57.04: 57 sequences fit.
    const double room = 0.9 * 80.0 * 1073741824.0 - 2 * kLlama8bParameters;
    CHECK(prediction.memory.max_batch == static_cast<long long>(std::floor(room / (8192.0 * 131072.0))));
    CHECK(prediction.memory.max_batch == 57);
    CHECK(s.ideal().predict(engine::Workload::step(57.0, 8192.0)).memory.fits);
    CHECK_FALSE(s.ideal().predict(engine::Workload::step(58.0, 8192.0)).memory.fits);
}

TEST_CASE("a datatype the device lacks runs at the best wider rate it lists") {
    const auto catalog = testing::shipped_catalog();
    // A100 has no fp8: fp8 matrix products run at its bf16 rate, 312 TFLOPS dense.
    CHECK(engine::effective_peak(catalog.hardware("a100-sxm-80gb"), core::Datatype::fp8) == doctest::Approx(312e12));
    // P40 lists no 16-bit tensor rate: bf16 work runs at its fp32 rate (12 TFLOPS, datasheet).
    CHECK(engine::effective_peak(catalog.hardware("p40"), core::Datatype::bf16) ==
          doctest::Approx(catalog.hardware("p40").listed_peak(core::Datatype::fp32).value));
    // A listed rate is used as is, even when a wider type is faster: H100 fp8 = 1978.9 TFLOPS.
    CHECK(engine::effective_peak(catalog.hardware("h100-sxm"), core::Datatype::fp8) == doctest::Approx(1978.9e12));
}

TEST_CASE("llama.cpp's quantized matmuls on CUDA run at SMs x 2048 x clock, not at a larger tensor core's int8 peak") {
    const auto catalog = testing::shipped_catalog();
    // The issue bound is a fact of the runtime's kernels on a backend: llama.cpp's profile states it for CUDA.
    const auto llama_cpp = testing::test_runtime("llama.cpp");
    const auto peak = [&](const std::string& device, core::Backend backend, const std::string& weights = "q4_0") {
        const auto& format = core::named_or_throw(core::weight_formats(), weights, "--weights", "format");
        return engine::kernel_matmul_peak(catalog.hardware(device), format, core::Datatype::int8,
                                          llama_cpp->block_matmul_on(backend))
            .value;
    };
    // RTX 4090: 128 SMs x 2048 x 2.52 GHz = 660.6e12, its listed int8 peak: a consumer SM's rate.
    CHECK(peak("rtx-4090", core::Backend::cuda) == doctest::Approx(660.6e12).epsilon(0.001).scale(0.0));
    // A100: 108 x 2048 x 1.41 GHz = 311.9e12, half its listed 624 TOPS.
    CHECK(peak("a100-sxm-80gb", core::Backend::cuda) == doctest::Approx(311.9e12).epsilon(0.001).scale(0.0));
    // H100 SXM: 132 x 2048 x 1.83 GHz = 494.7e12, a quarter of its listed 1978.9 TOPS.
    CHECK(peak("h100-sxm", core::Backend::cuda) == doctest::Approx(494.7e12).epsilon(0.001).scale(0.0));
    // Another backend's kernels, or a format that is not a llama.cpp block format, keep the listed peak.
    CHECK(peak("h100-sxm", core::Backend::vulkan) == doctest::Approx(1978.9e12).epsilon(0.001).scale(0.0));
    CHECK(peak("h100-sxm", core::Backend::cuda, "int8") == doctest::Approx(1978.9e12).epsilon(0.001).scale(0.0));

    // Measured (llama.cpp discussion #15013, Llama-2-7B q4_0, pp512, -fa 0): RTX 4090 11,992.7
    // tok/s, A100 SXM 80GB 4,849.5 (0.40 of it), H100 SXM 9,918.3 (0.83 of it), though their listed
    // int8 peaks are 0.94x and 3.0x the 4090's. The listed peaks would put the H100 ahead.
    const auto prompt_rate = [](const std::string& device) {
        const auto result = testing::run({"predict", "--hardware", device, "--model", "llama-2-7b", "--weights", "q4_0",
                                          "--kv", "fp16", "--runtime", "llama.cpp", "--prompt", "512", "--output", "1",
                                          "--json"});
        REQUIRE(result.exit_code == 0);
        return 512.0 / nlohmann::json::parse(result.out)["prefill"]["time_s"].get<double>();
    };
    const double rtx4090 = prompt_rate("rtx-4090");
    CHECK(prompt_rate("a100-sxm-80gb") < 0.6 * rtx4090);
    CHECK(prompt_rate("h100-sxm") < rtx4090);
}
