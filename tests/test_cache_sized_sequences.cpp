// A runtime that sizes its cap on running requests from its own KV cache (SGLang), and the cache
// of a stage whose attention runs data-parallel: each attention replica holds its own sequences in
// its own device's room, so the stage holds that many rooms' worth.

#include <doctest/doctest.h>

#include "engine/memory.hpp"
#include "serving/scheduler_limits.hpp"
#include "serving/simulation.hpp"
#include "test_support.hpp"

namespace {

using namespace decodesim;

// SGLang's rule (runtime_profiles/sglang.yaml, sequences_from_cache): a request table of
// int(tokens / context x 512) held within [2048, 4096], and never more requests than half the tokens.
engine::CacheSizedSequences sglang_rule() { return {512.0, 2048, 4096, 0.5}; }

// DeepSeek-R1 (fp8) on 8 H200s under SGLang: `attention` attention replicas of 8 / attention devices each.
engine::Evaluator deepseek_on_h200(const profiles::ModelProfile& model, const profiles::HardwareProfile& hardware,
                                   int attention) {
    engine::DeploymentChoice choice;
    choice.runtime = testing::test_runtime("sglang");
    choice.weights = core::find_named(core::weight_formats(), "fp8");
    choice.parallelism.tensor = 8 / attention;
    choice.parallelism.attention_data = attention;
    choice.parallelism.expert = attention > 1 ? 8 : 1;
    return engine::Evaluator(model, hardware, engine::resolve_deployment(hardware, model, choice));
}

}  // namespace

TEST_CASE("SGLang's cap on running requests comes from its cache, within its table's bounds") {
    const engine::CacheSizedSequences rule = sglang_rule();
    // 684,635 tokens of a 163,840-token model: int(684635 / 163840 x 512) = int(2139.48) = 2139,
    // inside [2048, 4096]; half the tokens (342,317) is no bound.
    CHECK(rule.running_cap(684635.0, 163840.0) == 2139);
    // 20,000 tokens of a 40,960-token model: int(250.0) = 250, raised to the table's 2048; half the
    // tokens is 10,000.
    CHECK(rule.running_cap(20000.0, 40960.0) == 2048);
    // 3,000 tokens: the table's 2048, but half the tokens is 1,500.
    CHECK(rule.running_cap(3000.0, 40960.0) == 1500);
    // 5,000,000 tokens of a 32,768-token model: int(78125) held at the table's 4096.
    CHECK(rule.running_cap(5.0e6, 32768.0) == 4096);
    // A cache of one token still runs one request.
    CHECK(rule.running_cap(1.0, 32768.0) == 1);
}

TEST_CASE("a deployment's limits are sized from its cache unless a flag or speculation set the cap") {
    const profiles::Catalog catalog = testing::shipped_catalog();
    const auto sglang = catalog.runtime("sglang");
    const profiles::HardwareProfile& h200 = catalog.hardware("h200-sxm");
    const profiles::ModelProfile& r1 = catalog.model("deepseek-r1");
    const serving::SchedulerLimits base = serving::resolve_scheduler({}, *sglang, h200, r1.max_position_embeddings);
    REQUIRE(base.sequences_from_cache.has_value());

    // Tensor parallel 8: the latent cache is whole on every device, one worker; its cap is the rule's
    // at the tokens the deployment holds.
    const engine::Evaluator tp8 = deepseek_on_h200(r1, h200, 1);
    const double tokens = serving::kv_capacity_tokens(tp8);
    const serving::SchedulerLimits sized = serving::limits_on_deployment(base, tp8);
    CHECK_FALSE(sized.sequences_from_cache.has_value());
    CHECK(sized.max_sequences == sglang_rule().running_cap(tokens, 163840.0));
    CHECK(sized.max_sequences > 256);

    // Eight attention replicas of one device: each sizes its own from its own room. A room of
    // fewer than four contexts' tokens (655,360) but more than 4,096 gives each the table's floor,
    // 2048, so the stage runs 8 x 2048 = 16,384.
    const engine::Evaluator dp8 = deepseek_on_h200(r1, h200, 8);
    const double worker_tokens = serving::kv_capacity_tokens(dp8) / 8.0;
    REQUIRE(worker_tokens > 4096.0);
    REQUIRE(worker_tokens < 4.0 * 163840.0);
    CHECK(serving::limits_on_deployment(base, dp8).max_sequences == 16384);

    // A cap the user sets (--max-seqs, SGLang's --max-running-requests) or speculation's 48 is the cap.
    serving::SchedulerChoice sixty_four;
    sixty_four.max_sequences = 64;
    CHECK(serving::limits_on_deployment(serving::resolve_scheduler(sixty_four, *sglang, h200, 163840), tp8).max_sequences == 64);
    CHECK(serving::limits_on_deployment(serving::resolve_scheduler({}, *sglang, h200, 163840, true), tp8).max_sequences == 48);

    // vLLM states its cap (max_num_seqs): at tensor parallel 8, one engine, its limits pass through
    // unchanged.
    const auto vllm = catalog.runtime("vllm");
    const serving::SchedulerLimits vllm_limits = serving::resolve_scheduler({}, *vllm, h200, 163840);
    CHECK_FALSE(vllm_limits.sequences_from_cache.has_value());
    CHECK(serving::limits_on_deployment(vllm_limits, tp8).max_sequences == vllm_limits.max_sequences);
    CHECK(serving::limits_on_deployment(vllm_limits, tp8).schedulers == 1);
    // Eight data-parallel ranks are eight engine cores, each with vLLM's 1024 sequences and 8192
    // tokens a pass on an H200 (docs.vllm.ai, "Data Parallel Deployment"): the stage runs 8 x 1024
    // and 8 x 8192. SGLang's dp-attention workers divide the stage's chunk budget among them, so its
    // budget stays the runtime's.
    REQUIRE(vllm_limits.max_sequences == 1024);
    REQUIRE(vllm_limits.max_batched_tokens == 8192);
    const serving::SchedulerLimits vllm_dp8 = serving::limits_on_deployment(vllm_limits, dp8);
    CHECK(vllm_dp8.max_sequences == 8 * 1024);
    CHECK(vllm_dp8.max_batched_tokens == 8 * 8192);
    CHECK(vllm_dp8.schedulers == 8);
    // Applied once: a second pass changes nothing.
    CHECK(serving::limits_on_deployment(vllm_dp8, dp8).max_sequences == 8 * 1024);
    CHECK(serving::limits_on_deployment(base, dp8).max_batched_tokens == base.max_batched_tokens);
}

TEST_CASE("with data-parallel attention a stage's cache is every attention replica's room") {
    // Each of the eight attention replicas holds its own sequences whole in its own device's room
    // (engine::memory_footprint counts max_batch the same way), so the stage holds eight rooms:
    // 8 x (usable - weights) / a token's cache, against one room at tensor parallel 8, where every
    // device holds every sequence's latent cache.
    const profiles::Catalog catalog = testing::shipped_catalog();
    const engine::Evaluator dp8 = deepseek_on_h200(catalog.model("deepseek-r1"), catalog.hardware("h200-sxm"), 8);
    const engine::MemoryFootprint one_device = dp8.memory(1.0, 1.0);
    const double per_token = dp8.kv_bytes_per_sequence(1.0).value - dp8.kv_bytes_per_sequence(0.0).value;
    const double expected = 8.0 * (one_device.usable - one_device.weights).value / per_token;
    CHECK(serving::kv_capacity_tokens(dp8) == doctest::Approx(expected).epsilon(1e-9));

    // serve holds that many: 64 clients at once with prompts of a 256th of the stage's tokens each
    // hold a quarter of it, two rooms' worth, which one room could not.
    const auto prompt = static_cast<long long>(expected / 256.0);
    const auto requests = testing::fixed_stream(1.0, prompt, 8, 64);
    serving::ServeConfig config;
    config.limits = serving::limits_on_deployment(
        serving::resolve_scheduler({}, dp8.deployment().runtime_profile(), catalog.hardware("h200-sxm"), 163840), dp8);
    config.closed_loop = serving::ClosedLoop{64, 0.0};
    const serving::ServeResult result = serving::simulate_serving(dp8, requests, config, {});
    CHECK(result.kv_capacity_tokens == doctest::Approx(expected).epsilon(1e-9));
    CHECK(result.rejected == 0);
    CHECK(result.preemptions == 0);
    CHECK(result.peak_kv_fraction * result.kv_capacity_tokens > 1.5 * expected / 8.0);
}
