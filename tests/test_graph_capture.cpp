// Captured batch sizes (engine/graph_capture.hpp, docs/model.md "Captured batch sizes"): a decode
// pass replays the graph captured for its batch, padded with dummy rows up to the next captured
// size, or, where no graph holds it, is dispatched op by op. Checked against lookups worked by
// hand, the sizes read from SGLang's and TensorRT-LLM's sources, the rows and ops a padded or
// uncaptured pass costs, and the loader's rules.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "engine/cost_model.hpp"
#include "engine/graph_capture.hpp"
#include "engine/point_warnings.hpp"
#include "engine/prediction.hpp"
#include "serving/simulation.hpp"
#include "test_support.hpp"

using namespace decodesim;

namespace {

// A build of vLLM's kernels with a cuda_graphs section of its own.
std::string graphs_profile(const std::string& graph_lines) {
    return testing::runtime_with_section("captured-graphs.yaml", "cuda_graphs", graph_lines);
}

// The largest decode batch the deployment captures: the last captured size.
long long largest_captured(const std::string& hardware, int tp) {
    return testing::setup(hardware, "llama-3.1-8b", "bf16", "", tp, "sglang").deployment.captured_batches.back();
}

}  // namespace

TEST_CASE("a decode batch replays its own graph, the next one padded, or none") {
    const std::vector<long long> sizes{1, 2, 4, 8, 16};
    // Padding: 3 replays the graph of 4 (one dummy row); 8 its own; 17 is above the largest.
    CHECK(engine::graph_replay(sizes, true, 3.0).replayed);
    CHECK(engine::graph_replay(sizes, true, 3.0).rows == 4.0);
    CHECK(engine::graph_replay(sizes, true, 8.0).rows == 8.0);
    CHECK_FALSE(engine::graph_replay(sizes, true, 17.0).replayed);
    CHECK(engine::graph_replay(sizes, true, 17.0).rows == 17.0);
    // Without padding a size between two has no graph; a captured one still has its own.
    CHECK_FALSE(engine::graph_replay(sizes, false, 3.0).replayed);
    CHECK(engine::graph_replay(sizes, false, 4.0).replayed);
    // A mean of 5.5 sequences falls among the batches 5 to 8, all replaying the graph of 8: their
    // padding, 3, 2, 1 and 0 rows, averages (8 - 4 - 1) / 2 = 1.5, so 7 rows.
    CHECK(engine::graph_replay(sizes, true, 5.5).rows == doctest::Approx(7.0));
    // Without padding a mean of 3.5 takes the graph of 4, which its steps of 4 replay.
    CHECK(engine::graph_replay(sizes, false, 3.5).replayed);
    CHECK(engine::graph_replay(sizes, false, 3.5).rows == 3.5);
    // A whole batch summed in floating point is still whole.
    CHECK(engine::graph_replay(sizes, true, 4.0 + 1e-12).rows == 4.0 + 1e-12);
    // Nothing stated: every batch replays a graph of its own size.
    CHECK(engine::graph_replay({}, true, 1000.0).replayed);
    CHECK(engine::graph_replay({}, true, 1000.0).rows == 1000.0);
}

TEST_CASE("SGLang captures up to a batch set by the device's memory and its tensor-parallel size") {
    // sglang v0.5.6 server_args.py, _handle_gpu_memory_settings: cuda_graph_max_bs 256 below
    // tp 4 and 512 from it on a GPU under 160 GiB (H100 80 GB, H200 141 GB), 512 from 160 GiB
    // (B200 180 GB) whatever the tp; 24 below tp 4 and 80 from it under 35 GiB (RTX 4090, 24 GB).
    CHECK(largest_captured("h100-sxm", 1) == 256);
    CHECK(largest_captured("h100-sxm", 4) == 512);
    CHECK(largest_captured("h200-sxm", 2) == 256);
    CHECK(largest_captured("b200", 1) == 512);
    CHECK(largest_captured("rtx-4090", 1) == 24);
    // Its list between 256 and 512 goes in steps of 16: 272, 288, ... 496, then 512.
    const auto sizes = testing::setup("b200", "llama-3.1-8b", "bf16", "", 1, "sglang").deployment.captured_batches;
    CHECK(std::count(sizes.begin(), sizes.end(), 264LL) == 0);
    CHECK(std::count(sizes.begin(), sizes.end(), 272LL) == 1);
    CHECK(sizes.size() == 52);
    // A runtime on vLLM's kernels does not inherit vLLM's sizes: MLX states none.
    CHECK(testing::setup("h100-sxm", "llama-3.1-8b", "bf16", "", 1, "mlx").deployment.captured_batches.empty());
}

TEST_CASE("a padded decode pass computes its dummy rows through every matrix, at a context of one token") {
    // SGLang on an H100 captures 128 and 136: a batch of 130 replays the graph of 136.
    const auto sglang = testing::setup("h100-sxm", "llama-3.1-8b", "bf16", "", 1, "sglang").realistic();
    const engine::CostModel& cost = sglang.cost_model();
    const engine::StepCosts padded = engine::decode_step_costs(cost, 130.0, 2048.0);
    const engine::StepCosts full = engine::decode_step_costs(cost, 136.0, 2048.0);
    // Llama-3.1-8B's qkv projection: 4096 x (4096 + 2 x 1024) = 25.2 M weights a layer over 32
    // layers, 2 FLOP a weight a row: 136 rows, whether 6 of them are dummies or not.
    const double qkv = 2.0 * 136.0 * 32.0 * 4096.0 * (4096.0 + 2.0 * 1024.0);
    CHECK(padded.operators[engine::index_of(engine::OperatorKind::qkv_projection)].flops.value == doctest::Approx(qkv));
    CHECK(full.operators[engine::index_of(engine::OperatorKind::qkv_projection)].flops.value == doctest::Approx(qkv));
    // The dummies read one token of cache each, the real rows 2,048: 130 x 2,048 + 6 x 1 tokens.
    const auto attention_bytes = [&](const engine::StepCosts& step) {
        return step.operators[engine::index_of(engine::OperatorKind::attention_score)].bytes.value +
               step.operators[engine::index_of(engine::OperatorKind::attention_value)].bytes.value;
    };
    const double per_token = attention_bytes(engine::decode_step_costs(cost, 1.0, 1.0));
    CHECK(attention_bytes(padded) == doctest::Approx(per_token * (130.0 * 2048.0 + 6.0)));
    // 129 to 136 sequences replay the same graph: the same rows through the matrices.
    CHECK(engine::decode_step_costs(cost, 129.0, 2048.0).operators[engine::index_of(engine::OperatorKind::mlp)].flops.value ==
          doctest::Approx(full.operators[engine::index_of(engine::OperatorKind::mlp)].flops.value));
}

TEST_CASE("the dummy rows of a padded MoE pass are routed as tokens") {
    // DeepSeek-V3 on eight H200s under SGLang: 256 routed experts, 8 a token, all on each device
    // (no expert parallelism). A batch of 9 replays the graph of 12: three dummy rows, each
    // holding a token id an earlier pass left in the graph's input buffer, so routed as tokens.
    // Distinct experts of n tokens picking 8 of 256 at random: 256 (1 - (248/256)^n); n = 12:
    // 256 x (1 - 0.68320) = 81.10 experts.
    const auto evaluator = testing::setup("h200-sxm", "deepseek-v3", "fp8", "", 8, "sglang").realistic();
    const engine::CostModel& cost = evaluator.cost_model();
    REQUIRE(engine::graph_replay(cost.captured_batches, cost.graph_padding, 9.0).rows == 12.0);
    const double distinct = 256.0 * (1.0 - std::pow(248.0 / 256.0, 12.0));
    CHECK(distinct == doctest::Approx(81.10).epsilon(1e-4).scale(0.0));
    // Their slots: 12 rows x 8 experts, each moving the expert's activation width.
    const engine::OperatorCost experts =
        engine::decode_step_costs(cost, 9.0, 1024.0).operators[engine::index_of(engine::OperatorKind::experts)];
    const double expected = cost.expert.bytes.value * distinct +
                            cost.activation_bytes.value * 12.0 * 8.0 * cost.expert.activation_width;
    CHECK(experts.bytes.value == doctest::Approx(expected));
    CHECK(experts.flops.value == doctest::Approx(2.0 * 12.0 * 8.0 * cost.expert.params));
}

TEST_CASE("TensorRT-LLM dispatches a decode batch it captured no graph for, op by op") {
    // TensorRT-LLM 1.0's default CudaGraphConfig: sizes 1 to 32, 64 and 128, no padding. Its
    // eager ops a block: attention 10, dense MLP 6; Llama-3.1-8B's 32 layers take 32 x 16 = 512
    // ops a pass, 45 us each: 23.04 ms of dispatch.
    const auto evaluator = testing::setup("h100-sxm", "llama-3.1-8b", "bf16", "", 1, "tensorrt-llm").realistic();
    const engine::CostModel& cost = evaluator.cost_model();
    CHECK(cost.eager_pass_ops == doctest::Approx(512.0));
    for (const double batch : {1.0, 31.0, 32.0, 64.0, 128.0}) {
        CAPTURE(batch);
        CHECK(engine::decode_step_costs(cost, batch, 1024.0).eager_ops == 0.0);
    }
    for (const double batch : {33.0, 40.0, 63.0, 65.0, 129.0}) {
        CAPTURE(batch);
        CHECK(engine::decode_step_costs(cost, batch, 1024.0).eager_ops == doctest::Approx(512.0));
        CHECK(evaluator.decode_step_time(batch, 1024.0).value >= 0.02304 * (1.0 - 1e-9));
    }
    // On the device alone a step of 40 reads the 16 GB of weights in about 6 ms: the dispatch
    // sets it, and a batch of 64, captured, is faster than one of 40.
    CHECK(evaluator.decode_step_time(40.0, 1024.0).value == doctest::Approx(0.02304).epsilon(1e-9));
    CHECK(evaluator.decode_step_time(64.0, 1024.0).value < evaluator.decode_step_time(40.0, 1024.0).value);
    // A pass with a prompt in it never replays a graph; what it dispatches is the prompt pass's.
    CHECK(engine::step_costs(cost, engine::prefill_shape(cost, 1.0, 0.0, 40.0)).eager_ops == doctest::Approx(512.0));
}

TEST_CASE("a runtime's captured sizes are read strictly: each bad value names the file, line and key") {
    const profiles::Catalog catalog = testing::shipped_catalog();
    const auto messages = [&](const std::string& lines) {
        return testing::error_messages([&] { catalog.runtime(graphs_profile(lines)); });
    };
    const auto decreasing = messages("  batch_sizes: [1, 4, 2]\n");
    REQUIRE(decreasing.size() == 1);
    CHECK(decreasing[0].find("captured-graphs.yaml:9:") != std::string::npos);
    CHECK(decreasing[0].find("batch_sizes") != std::string::npos);

    const auto not_boolean = messages("  batch_sizes: [1, 2]\n  padding: sometimes\n");
    REQUIRE(not_boolean.size() == 1);
    CHECK(not_boolean[0].find(":10:") != std::string::npos);
    CHECK(not_boolean[0].find("padding") != std::string::npos);

    const auto below = messages("  batch_sizes: [4, 8]\n  tiers:\n    - {min_memory: 0 GiB, max_batch: 2}\n");
    REQUIRE(below.size() == 1);
    CHECK(below[0].find(":11:") != std::string::npos);
    CHECK(below[0].find("max_batch") != std::string::npos);
    CHECK(below[0].find("below the smallest captured size, 4") != std::string::npos);

    const auto no_memory = messages("  batch_sizes: [4, 8]\n  tiers:\n    - {max_batch: 8}\n");
    REQUIRE(no_memory.size() == 1);
    CHECK(no_memory[0].find("min_memory") != std::string::npos);

    const auto unitless = messages("  batch_sizes: [4, 8]\n  tiers:\n    - {min_memory: 20, max_batch: 8}\n");
    REQUIRE(unitless.size() == 1);
    CHECK(unitless[0].find("min_memory") != std::string::npos);

    const auto unknown = messages("  batch_sizes: [4, 8]\n  pading: true\n");
    REQUIRE(unknown.size() == 1);
    CHECK(unknown[0].find("pading") != std::string::npos);
    CHECK(unknown[0].find("padding") != std::string::npos);
}

TEST_CASE("a decode batch with no captured graph is named among the point's warnings") {
    // TensorRT-LLM 1.0 captures 1 to 32, 64 and 128 and does not pad: 40 replays none, and its
    // 512 ops a step at 45 us are 23.04 ms of dispatch; 64 replays its own graph.
    const auto setup = testing::setup("h100-sxm", "llama-3.1-8b", "bf16", "", 1, "tensorrt-llm");
    const auto warnings_at = [&](double batch) {
        return engine::point_warnings(setup.point(engine::Workload::step(batch, 1024.0)));
    };
    const auto named = [](const std::vector<std::string>& warnings, const std::string& text) {
        return std::any_of(warnings.begin(), warnings.end(),
                           [&](const std::string& warning) { return warning.find(text) != std::string::npos; });
    };
    const auto forty = warnings_at(40.0);
    CHECK(named(forty, "a batch of 40 replays none"));
    CHECK(named(forty, "512 ops from the host (23.04 ms)"));
    CHECK_FALSE(named(warnings_at(64.0), "replays none"));
    // SGLang pads: on an H100 at tp 1 it replays up to 256 and runs 300 without a graph.
    const auto sglang = testing::setup("h100-sxm", "llama-3.1-8b", "bf16", "", 1, "sglang");
    CHECK(named(engine::point_warnings(sglang.point(engine::Workload::step(300.0, 1024.0))),
                "captures decode graphs for batches up to 256: a batch of 300 replays none"));
    CHECK_FALSE(named(engine::point_warnings(sglang.point(engine::Workload::step(130.0, 1024.0))), "replays none"));
}

TEST_CASE("serve counts the decode passes no captured graph holds") {
    // 32 clients under TensorRT-LLM 1.0: every decode batch is 32 or fewer, each captured. 40
    // clients: decode batches of 33 to 40 sequences, none captured, so every decode pass among
    // the ones with more than 32 sequences is dispatched op by op, and none with 32 or fewer.
    const auto setup = testing::setup("h100-sxm", "llama-3.1-8b", "bf16", "", 1, "tensorrt-llm");
    const auto evaluator = setup.realistic();
    const auto run = [&](long long clients) {
        serving::ServeConfig config;
        config.closed_loop = serving::ClosedLoop{clients, 0.0};
        return serving::simulate_serving(evaluator, testing::fixed_stream(1.0, 500, 100, 10 * clients), config, {});
    };
    CHECK(run(32).decode_passes_without_graph == 0);
    const auto forty = run(40);
    CHECK(forty.decode_passes_without_graph > 0);
    CHECK(forty.decode_passes_without_graph < forty.steps);
    // Most of the run decodes more than 32 at once: 40 clients, each prompt a pass of its own.
    CHECK(forty.decode_passes_without_graph > forty.steps / 2);
}
