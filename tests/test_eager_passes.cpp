// Eager passes (profiles::EagerPasses, docs/model.md "Eager passes"): a runtime that runs its
// prompt passes op by op from the host, with no captured graph, cannot finish such a pass before
// the host has dispatched its last op. Checked against the dispatch time counted by hand from a
// profile's per-block ops, against the same deployment without eager passes where the device is
// the slower side, and against the loader's rules.

#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "engine/cost_model.hpp"
#include "engine/prediction.hpp"
#include "engine/speculative.hpp"
#include "test_support.hpp"

using namespace decodesim;

namespace {

// A build of vLLM's kernels whose prompt passes run eagerly: 10 us an op; a grouped-query
// attention block dispatches 30 ops, an MLA block 50, a dense MLP 10 and a routed MoE block 40.
std::string eager_profile(const std::string& eager_lines) {
    return testing::runtime_with_section("eager-passes.yaml", "eager_passes", eager_lines);
}

const std::string kEagerLines =
    "  passes: prefill\n  op_time: 10 us\n  attention_block: 30\n  latent_attention_block: 50\n"
    "  dense_mlp_block: 10\n  moe_mlp_block: 40\n";

}  // namespace

TEST_CASE("an eager prompt pass lasts at least its dispatch, and decode steps replay their graphs") {
    const auto eager = testing::setup("h100-sxm", "llama-3.1-8b", "bf16", "", 1, eager_profile(kEagerLines));
    const auto graphed = testing::setup("h100-sxm", "llama-3.1-8b", "bf16", "", 1, "vllm@0.8");
    const auto with_eager = eager.realistic();
    const auto without = graphed.realistic();
    // Llama-3.1-8B: 32 layers, each a grouped-query attention block and a dense MLP:
    // 32 x (30 + 10) = 1,280 ops x 10 us = 12.8 ms of dispatch.
    CHECK(with_eager.cost_model().eager_prefill_ops == doctest::Approx(1280.0));
    // A one-token prompt: the device needs one read of the 16 GB of weights (about 6 ms on an
    // H100), less than the dispatch; the pass takes the dispatch, and the host bounds it.
    REQUIRE(without.prefill(1.0, 1.0).time.value < 0.0128);
    const auto short_prompt = with_eager.prefill(1.0, 1.0);
    CHECK(short_prompt.time.value == doctest::Approx(0.0128).epsilon(1e-9));
    CHECK(short_prompt.bound == engine::Bound::overhead);
    // An 8,192-token prompt: 2 x 8e9 x 8,192 = 131 TFLOP, over 100 ms on the device, which
    // hides the dispatch: the same time as without eager passes.
    REQUIRE(without.prefill(1.0, 8192.0).time.value > 0.0128);
    CHECK(with_eager.prefill(1.0, 8192.0).time.value == doctest::Approx(without.prefill(1.0, 8192.0).time.value));
    // Decode steps replay captured graphs: no dispatch floor, whatever the batch.
    for (const double batch : {1.0, 8.0, 256.0}) {
        CHECK(with_eager.decode_step_time(batch, 1024.0).value == doctest::Approx(without.decode_step_time(batch, 1024.0).value));
    }
    // The roofline takes no dispatch: it is the device alone.
    CHECK(eager.ideal().prefill(1.0, 1.0).time.value == doctest::Approx(graphed.ideal().prefill(1.0, 1.0).time.value));
}

TEST_CASE("an MLA model's prompt pass dispatches its latent-attention and MoE blocks") {
    // DeepSeek-V3: 61 layers of multi-head latent attention, the first 3 with a dense MLP and the
    // other 58 with routed experts: 61 x 50 + 3 x 10 + 58 x 40 = 5,400 ops x 10 us = 54 ms. On
    // eight H200s a one-token pass reads about 37 B active parameters, 4.6 GB a device, under
    // 2 ms: the dispatch sets it.
    const auto eager = testing::setup("h200-sxm", "deepseek-v3", "fp8", "", 8, eager_profile(kEagerLines));
    const auto evaluator = eager.realistic();
    CHECK(evaluator.cost_model().eager_prefill_ops == doctest::Approx(5400.0));
    CHECK(evaluator.prefill(1.0, 1.0).time.value == doctest::Approx(0.054).epsilon(1e-9));
    // A serving pass mixing decodes with a prompt chunk is a prompt pass: it is held as long.
    const engine::CostModel& cost = evaluator.cost_model();
    engine::StepShape mixed = engine::prefill_shape(cost, 1.0, 0.0, 4.0);
    const engine::StepShape decodes = engine::decode_shape(cost, 16.0, 1024.0);
    mixed.tokens += decodes.tokens;
    mixed.logits += decodes.logits;
    mixed.sequences += decodes.sequences;
    mixed.decode_attended += decodes.decode_attended;
    CHECK(evaluator.step_time(mixed).value >= 0.054 * (1.0 - 1e-9));
    CHECK(evaluator.step_time(decodes).value < 0.054);
}

TEST_CASE("passes: none leaves every pass to the device, and a profile's eager section replaces its base's") {
    const auto none = testing::setup("h100-sxm", "llama-3.1-8b", "bf16", "", 1,
                                     eager_profile("  passes: none\n  op_time: 10 us\n  attention_block: 30\n"
                                                   "  latent_attention_block: 50\n  dense_mlp_block: 10\n  moe_mlp_block: 40\n"));
    const auto graphed = testing::setup("h100-sxm", "llama-3.1-8b", "bf16", "", 1, "vllm@0.8");
    CHECK(none.realistic().cost_model().eager_prefill_ops == 0.0);
    CHECK(none.realistic().prefill(1.0, 1.0).time.value == doctest::Approx(graphed.realistic().prefill(1.0, 1.0).time.value));
}

TEST_CASE("a runtime's eager passes are read strictly: each bad value names the file, line and key") {
    const profiles::Catalog catalog = testing::shipped_catalog();
    const auto messages = [&](const std::string& lines) {
        return testing::error_messages([&] { catalog.runtime(eager_profile(lines)); });
    };
    const auto unknown = messages("  passes: sometimes\n  op_time: 10 us\n  attention_block: 30\n  latent_attention_block: 50\n"
                                  "  dense_mlp_block: 10\n  moe_mlp_block: 40\n");
    REQUIRE(unknown.size() == 1);
    CHECK(unknown[0].find("eager-passes.yaml:9:") != std::string::npos);
    CHECK(unknown[0].find("passes") != std::string::npos);
    CHECK(unknown[0].find("none, prefill or all") != std::string::npos);

    const auto unitless = messages("  passes: prefill\n  op_time: 10\n  attention_block: 30\n  latent_attention_block: 50\n"
                                   "  dense_mlp_block: 10\n  moe_mlp_block: 40\n");
    REQUIRE(unitless.size() == 1);
    CHECK(unitless[0].find(":10:") != std::string::npos);
    CHECK(unitless[0].find("op_time") != std::string::npos);

    const auto negative = messages("  passes: prefill\n  op_time: 10 us\n  attention_block: -3\n  latent_attention_block: 50\n"
                                   "  dense_mlp_block: 10\n  moe_mlp_block: 40\n");
    REQUIRE(negative.size() == 1);
    CHECK(negative[0].find(":11:") != std::string::npos);
    CHECK(negative[0].find("attention_block") != std::string::npos);

    const auto missing = messages("  passes: prefill\n  op_time: 10 us\n  attention_block: 30\n  dense_mlp_block: 10\n"
                                  "  moe_mlp_block: 40\n");
    REQUIRE(missing.size() == 1);
    CHECK(missing[0].find("latent_attention_block") != std::string::npos);

    const auto too_slow = messages("  passes: prefill\n  op_time: 2 ms\n  attention_block: 30\n  latent_attention_block: 50\n"
                                   "  dense_mlp_block: 10\n  moe_mlp_block: 40\n");
    REQUIRE(too_slow.size() == 1);
    CHECK(too_slow[0].find("op_time") != std::string::npos);
}

TEST_CASE("serve states a runtime's eager prompt passes among its conditions") {
    // sglang's profile: 45 us an op (82.6 ms over a 61-layer DeepSeek-V3 extend of about 30
    // launches a layer, sglang PR #12160); vLLM V1 compiles its prompt passes: none.
    const auto serve = [](const std::string& runtime, bool json) {
        std::vector<std::string> args{"serve",    "--hardware", "h100-sxm", "--model",         "llama-3.1-8b",
                                      "--runtime", runtime,     "--prompt", "128",             "--output",
                                      "16",        "--concurrency", "2",    "--requests",      "4"};
        if (json) args.emplace_back("--json");
        const auto result = testing::run(args);
        REQUIRE(result.exit_code == 0);
        return result.out;
    };
    const auto with = nlohmann::json::parse(serve("sglang", true));
    CHECK(std::fabs(with["conditions"]["eager_prompt_passes"]["op_time_s"].get<double>() - 45e-6) <= 1e-12);
    CHECK_FALSE(nlohmann::json::parse(serve("vllm", true))["conditions"].contains("eager_prompt_passes"));
    CHECK(serve("sglang", false).find("prompt passes eager") != std::string::npos);
}

TEST_CASE("passes: all holds decode steps to their dispatch too") {
    // The same 10 us an op, every pass eager. Llama-3.1-8B: 32 x (30 + 10) = 1,280 ops, 12.8 ms of
    // dispatch a step. At batch 1 the device reads the 16 GB of weights once, about 6 ms on an H100
    // (3.35 TB/s): the host sets the step, which the graphed build finishes sooner.
    const std::string all = "  passes: all\n  op_time: 10 us\n  attention_block: 30\n  latent_attention_block: 50\n"
                            "  dense_mlp_block: 10\n  moe_mlp_block: 40\n";
    const auto eager = testing::setup("h100-sxm", "llama-3.1-8b", "bf16", "", 1, eager_profile(all));
    const auto graphed = testing::setup("h100-sxm", "llama-3.1-8b", "bf16", "", 1, "vllm@0.8");
    const auto with_eager = eager.realistic();
    CHECK(with_eager.cost_model().eager_decode_ops == doctest::Approx(1280.0));
    REQUIRE(graphed.realistic().decode_step_time(1.0, 1024.0).value < 0.0128);
    CHECK(with_eager.decode_step_time(1.0, 1024.0).value == doctest::Approx(0.0128).epsilon(1e-9));
    // At 512 streams of 8,192 tokens the cache alone is 512 x 8,192 x 128 kB = 550 GB a step,
    // far over 12.8 ms at any bandwidth: the device hides the dispatch.
    REQUIRE(graphed.realistic().decode_step_time(512.0, 8192.0).value > 0.0128);
    CHECK(with_eager.decode_step_time(512.0, 8192.0).value ==
          doctest::Approx(graphed.realistic().decode_step_time(512.0, 8192.0).value));
}

TEST_CASE("--cuda-graphs off dispatches every pass with the runtime's ops, or is refused where it states none") {
    // sglang's profile: 45 us an op; a grouped-query attention block 10 ops and a dense MLP 4
    // (counted in sglang's source). Llama-3.1-8B: 32 x (10 + 4) = 448 ops x 45 us = 20.16 ms a
    // decode step, over the ~6 ms the H100 needs at batch 1: 1 / 20.16 ms = 49.60 tokens/s.
    const auto predict = [](const std::string& runtime, const std::string& model, const std::string& graphs) {
        return testing::run({"predict", "--hardware", "h100-sxm", "--model", model, "--runtime", runtime, "--batch", "1",
                             "--context", "1024", "--cuda-graphs", graphs, "--json"});
    };
    const auto off = predict("sglang", "llama-3.1-8b", "off");
    REQUIRE(off.exit_code == 0);
    const auto json = nlohmann::json::parse(off.out);
    CHECK(json["decode"]["tokens_per_s_per_stream"].get<double>() == doctest::Approx(1.0 / (448 * 45e-6)).epsilon(1e-9));
    CHECK(std::fabs(json["conditions"]["eager_passes"]["op_time_s"].get<double>() - 45e-6) <= 1e-12);
    // On (the default) is the runtime's own: decode replays its graphs, faster than the dispatch.
    const auto on = nlohmann::json::parse(predict("sglang", "llama-3.1-8b", "on").out);
    CHECK(on["decode"]["tokens_per_s_per_stream"].get<double>() > 1.0 / (448 * 45e-6));
    CHECK(on["conditions"].contains("eager_prompt_passes"));

    // vLLM V1's profile counts no ops (it compiles every pass): refused, naming the flag.
    const auto v1 = predict("vllm@0.8", "llama-3.1-8b", "off");
    CHECK(v1.exit_code != 0);
    CHECK(v1.err.find("cuda-graphs") != std::string::npos);
    CHECK(v1.err.find("vllm@0.8") != std::string::npos);
    // vllm@0.6 counts a grouped-query model's blocks, not MLA's: DeepSeek is refused.
    const auto mla = predict("vllm@0.6", "deepseek-v3", "off");
    CHECK(mla.exit_code != 0);
    CHECK(mla.err.find("MLA block") != std::string::npos);
    // A value other than on or off is a usage error.
    CHECK(predict("sglang", "llama-3.1-8b", "maybe").exit_code != 0);
}

TEST_CASE("a speculative verification is a decode pass: it replays a graph where prompt passes run eagerly") {
    // SGLang captures TARGET_VERIFY batches in CUDA graphs (ForwardMode.is_cuda_graph) and runs
    // extend batches eagerly. Its profile: 45 us an op; Llama-3.1-8B's 32 layers of a 10-op
    // attention block and a 4-op MLP are 448 ops, 20.16 ms of dispatch. Verifying 4 drafts for one
    // sequence reads the 16 GB of weights once, about 6 ms on an H100: well under the dispatch.
    const auto sglang = testing::setup("h100-sxm", "llama-3.1-8b", "bf16", "", 1, "sglang");
    const auto evaluator = sglang.realistic();
    REQUIRE(evaluator.cost_model().eager_prefill_ops == doctest::Approx(448.0));
    const engine::CostModel& cost = evaluator.cost_model();
    const engine::StepShape verify = engine::verification_shape(cost, 4, 1.0, 1000.0);
    CHECK(verify.prompt_tokens() == 0.0);
    CHECK(engine::step_costs(cost, verify).eager_ops == 0.0);
    CHECK(evaluator.step_time(verify).value < 0.5 * 448 * 45e-6);
    // With a prompt chunk in the same pass it is a prompt pass again, dispatched op by op.
    engine::StepShape mixed = verify;
    mixed += engine::prefill_shape(cost, 1.0, 0.0, 16.0);
    CHECK(mixed.prompt_tokens() == doctest::Approx(16.0));
    CHECK(engine::step_costs(cost, mixed).eager_ops == doctest::Approx(448.0));
    CHECK(evaluator.step_time(mixed).value >= 448 * 45e-6 * (1.0 - 1e-9));
}

TEST_CASE("a Gated DeltaNet layer's mixer dispatches the ops the runtime states for it") {
    // Qwen3-Next-80B-A3B: 48 layers, every 4th full attention (12) and the other 36 Gated DeltaNet,
    // each followed by a routed MoE block. SGLang's extend pass, counted in its v0.5.6 source:
    // attention 10, DeltaNet 32, MoE 12: 12 x 10 + 36 x 32 + 48 x 12 = 120 + 1,152 + 576 = 1,848 ops.
    const auto sglang = testing::setup("h200-sxm", "qwen3-next-80b-a3b", "bf16", "", 2, "sglang");
    CHECK(sglang.realistic().cost_model().eager_prefill_ops == doctest::Approx(1848.0));
    // A runtime that states no DeltaNet count leaves those mixers out: 120 + 576 ops with the same
    // attention and MoE counts.
    const auto uncounted = testing::setup("h200-sxm", "qwen3-next-80b-a3b", "bf16", "", 2,
                                          eager_profile("  passes: prefill\n  op_time: 10 us\n  attention_block: 10\n"
                                                        "  latent_attention_block: 50\n  dense_mlp_block: 4\n  moe_mlp_block: 12\n"));
    CHECK(uncounted.realistic().cost_model().eager_prefill_ops == doctest::Approx(696.0));
    // A negative count names its key.
    const auto negative = testing::error_messages([&] {
        testing::shipped_catalog().runtime(
            eager_profile("  passes: prefill\n  op_time: 10 us\n  attention_block: 10\n  latent_attention_block: 50\n"
                          "  dense_mlp_block: 4\n  moe_mlp_block: 12\n  delta_net_block: -1\n"));
    });
    REQUIRE(negative.size() == 1);
    CHECK(negative[0].find("delta_net_block") != std::string::npos);
}
