// Parallelism by hand: collectives on one level and across domains, the topology of tensor,
// expert and pipeline groups on shipped devices, attention data parallelism, KV offload and
// speculative decoding. Every expected number is derived in the comments from the alpha-beta
// formulas (docs/model.md, "Collectives"), the hardware profiles and the models' config.json
// figures; none is read back from the program.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <nlohmann/json.hpp>

#include "engine/collectives.hpp"
#include "engine/cost_model.hpp"
#include "engine/memory.hpp"
#include "profiles/measurements.hpp"
#include "fit/accuracy.hpp"
#include "engine/speculative.hpp"
#include "cli_runner.hpp"
#include "test_support.hpp"

using namespace decodesim;
using engine::Collective;
using engine::CollectiveAlgorithm;
using engine::OperatorKind;

namespace {

// doctest::Approx's default scale of 1 adds an absolute tolerance of about 1.2e-5, which would
// let any two times of a few microseconds compare equal: times are compared relatively only.
doctest::Approx near(double value, double epsilon = 1e-9) { return doctest::Approx(value).scale(0.0).epsilon(epsilon).scale(0.0); }

engine::LinkLevel link(double bytes_per_s, double latency_s) {
    return {core::Bandwidth(bytes_per_s), core::Seconds(latency_s)};
}

// A model on a device with any parallelism, resolved by the one resolver every command uses.
testing::Setup deployed(const std::string& hardware, const std::string& model, const std::string& weights,
                        engine::Parallelism parallelism, bool kv_offload = false) {
    const auto catalog = testing::shipped_catalog();
    testing::Setup result{catalog.hardware(hardware), catalog.model(model), {}};
    engine::DeploymentChoice choice;
    choice.weights = core::find_named(core::weight_formats(), weights);
    choice.parallelism = parallelism;
    choice.kv_offload = kv_offload;
    choice.runtime = testing::test_runtime("vllm");
    result.deployment = engine::resolve_deployment(result.hardware, result.model, choice);
    return result;
}

engine::Parallelism parallelism(int tp, int pp = 1, int ep = 1, int dp_attention = 1) {
    engine::Parallelism p;
    p.tensor = tp;
    p.pipeline = pp;
    p.expert = ep;
    p.attention_data = dp_attention;
    return p;
}

core::Seconds operator_time(const engine::StepTime& step, OperatorKind kind) {
    return step.operators[engine::index_of(kind)].time;
}

bool any_contains(const std::vector<std::string>& lines, const std::string& text) {
    return std::any_of(lines.begin(), lines.end(), [&](const std::string& line) { return line.find(text) != std::string::npos; });
}

// Default per-hop latencies the loader takes when a profile lists none (hardware_loader.cpp): the
// shipped H100, H200 and GB200 profiles list none for either level.
constexpr double kLinkLatency = 2e-6;
constexpr double kScaleOutLatency = 5e-6;

}  // namespace

TEST_CASE("collectives on one level: 8 devices at 100 GB/s and 1 us per hop") {
    const engine::GroupTopology eight = engine::group_topology(8, 8, link(100e9, 1e-6), link(50e9, 5e-6));
    REQUIRE_FALSE(eight.crosses_domain());

    SUBCASE("all-reduce: a tree for a small buffer, a ring for a large one") {
        // 1,024 B: the whole buffer over one link takes 1024 / 100e9 = 10.24 ns.
        //   ring: 2(p-1) = 14 hops x 1 us + 10.24 ns x 2(p-1)/p = 1.75 -> 14 us + 17.92 ns = 14.01792 us
        //   tree: 2 ceil(log2 8) = 6 hops x 1 us + 10.24 ns x 2      -> 6 us + 20.48 ns  = 6.02048 us
        const auto small = engine::collective_time(Collective::all_reduce, core::Bytes(1024.0), eight);
        CHECK(small.algorithm == CollectiveAlgorithm::tree);
        CHECK(small.latency == near(6e-6, 1e-6));
        CHECK(small.transfer == near(20.48e-9, 1e-6));
        CHECK(small.time == near(6.02048e-6, 1e-6));
        // 100 MB: 1e8 / 100e9 = 1 ms over one link.
        //   ring: 14 us + 1 ms x 1.75 = 1.764 ms;  tree: 6 us + 1 ms x 2 = 2.006 ms
        // (they cross where 8 us = 0.25 x full, at 3.2 MB).
        const auto large = engine::collective_time(Collective::all_reduce, core::Bytes(1e8), eight);
        CHECK(large.algorithm == CollectiveAlgorithm::ring);
        CHECK(large.latency == near(14e-6, 1e-6));
        CHECK(large.time == near(1.764e-3, 1e-6));
    }

    SUBCASE("all-gather and reduce-scatter: recursive doubling for a power of two, a ring otherwise") {
        // 1 MB: 1e6 / 100e9 = 10 us over one link; both move (p-1)/p = 7/8 of it = 8.75 us.
        //   ring: 7 hops = 7 us -> 15.75 us;  recursive doubling: log2 8 = 3 hops -> 11.75 us
        for (Collective collective : {Collective::all_gather, Collective::reduce_scatter}) {
            CAPTURE(engine::collective_name(collective));
            const auto time = engine::collective_time(collective, core::Bytes(1e6), eight);
            CHECK(time.algorithm == CollectiveAlgorithm::recursive_doubling);
            CHECK(time.latency == near(3e-6, 1e-6));
            CHECK(time.transfer == near(8.75e-6, 1e-6));
            CHECK(time.time == near(11.75e-6, 1e-6));
        }
        // 6 devices: not a power of two, so a ring: 5 hops = 5 us + 10 us x 5/6 = 8.3333 us -> 13.3333 us.
        const engine::GroupTopology six = engine::group_topology(6, 8, link(100e9, 1e-6), link(50e9, 5e-6));
        for (Collective collective : {Collective::all_gather, Collective::reduce_scatter}) {
            CAPTURE(engine::collective_name(collective));
            const auto time = engine::collective_time(collective, core::Bytes(1e6), six);
            CHECK(time.algorithm == CollectiveAlgorithm::ring);
            CHECK(time.latency == near(5e-6, 1e-6));
            CHECK(time.time == near(5e-6 + 10e-6 * 5.0 / 6.0));
        }
    }

    SUBCASE("all-to-all pairwise, send point to point") {
        // all-to-all of 1 MB: p-1 = 7 rounds of 1 us, each sending 1/8 of it: 7 us + 8.75 us = 15.75 us.
        const auto exchange = engine::collective_time(Collective::all_to_all, core::Bytes(1e6), eight);
        CHECK(exchange.algorithm == CollectiveAlgorithm::pairwise);
        CHECK(exchange.time == near(15.75e-6, 1e-6));
        // send of 1 MB: one hop, 1 us + 10 us = 11 us.
        const auto send = engine::collective_time(Collective::send, core::Bytes(1e6), eight);
        CHECK(send.algorithm == CollectiveAlgorithm::point_to_point);
        CHECK(send.time == near(11e-6, 1e-6));
    }

    SUBCASE("a group of one device costs nothing") {
        const engine::GroupTopology one = engine::group_topology(1, 8, link(100e9, 1e-6), link(50e9, 5e-6));
        for (Collective collective : {Collective::all_reduce, Collective::all_gather, Collective::reduce_scatter,
                                      Collective::all_to_all, Collective::send}) {
            const auto time = engine::collective_time(collective, core::Bytes(1e9), one);
            CHECK(time.time.value == 0.0);
            CHECK(time.algorithm == CollectiveAlgorithm::none);
        }
    }
}

TEST_CASE("collectives across domains: 16 devices in domains of 8, scale-out 50 GB/s and 5 us") {
    const engine::GroupTopology sixteen = engine::group_topology(16, 8, link(100e9, 1e-6), link(50e9, 5e-6));
    REQUIRE(sixteen.crosses_domain());
    REQUIRE(sixteen.domains() == 2);

    // all-reduce of 1 MB = reduce-scatter inside (8) + all-reduce of the 1/8 shard across the 2
    // domains + all-gather inside (8), each phase choosing its algorithm:
    //   reduce-scatter(8): recursive halving, 3 x 1 us latency, 1e6/100e9 x 7/8 = 8.75 us transfer
    //   all-reduce(2) of 125,000 B at 50 GB/s (2.5 us over one link):
    //     ring 2 hops x 5 us + 2.5 us x 2(1)/2 = 12.5 us; tree 2 x 5 us + 2 x 2.5 us = 15 us -> ring,
    //     10 us latency, 2.5 us transfer
    //   all-gather(8): 3 us latency, 8.75 us transfer
    // The phases are pipelined chunk by chunk on their own links (collectives.cpp, hierarchical):
    // the hops add, 3 + 10 + 3 = 16 us, and the slowest phase sets the transfer, max(8.75, 2.5,
    // 8.75) = 8.75 us: 24.75 us. (Run one after another they would take 16 + 20 = 36 us.)
    const auto reduce = engine::collective_time(Collective::all_reduce, core::Bytes(1e6), sixteen);
    CHECK(reduce.algorithm == CollectiveAlgorithm::hierarchical);
    CHECK(reduce.latency == near(16e-6));
    CHECK(reduce.transfer == near(8.75e-6));
    CHECK(reduce.time == near(24.75e-6));

    // all-to-all of 1.6 MB (16 parts of 100 kB): the 7 in-domain parts over the scale-up link,
    // 1.6e6 x 7/16 / 100e9 = 7 us, and the 8 others over the NIC, 1.6e6 x 8/16 / 50e9 = 16 us, at
    // once: 16 us. Latency: 7 scale-up hops of 1 us, and one scale-out hop of 5 us for the one
    // remote domain (its 8 peers' sends are posted together) = 12 us. Total 28 us.
    const auto exchange = engine::collective_time(Collective::all_to_all, core::Bytes(1.6e6), sixteen);
    CHECK(exchange.algorithm == CollectiveAlgorithm::hierarchical);
    CHECK(exchange.transfer == near(16e-6));
    CHECK(exchange.latency == near(12e-6));
    CHECK(exchange.time == near(28e-6));

    // all-gather of 1 MB: across domains on the 125,000 B slice (2 devices: ring and doubling tie
    // at 5 us + 2.5 us x 1/2 = 1.25 us transfer), then inside (3 us + 8.75 us): latency 5 + 3 = 8 us,
    // transfer max(1.25, 8.75) = 8.75 us, total 16.75 us.
    const auto gather = engine::collective_time(Collective::all_gather, core::Bytes(1e6), sixteen);
    CHECK(gather.latency == near(8e-6));
    CHECK(gather.time == near(16.75e-6));

    // A send between domains: one scale-out hop, 5 us + 1e6 / 50e9 = 5 us + 20 us = 25 us.
    const engine::GroupTopology hop = engine::group_topology(2, 1, link(100e9, 1e-6), link(50e9, 5e-6));
    CHECK(engine::collective_time(Collective::send, core::Bytes(1e6), hop).time == near(25e-6));
}

TEST_CASE("topology: Llama-3.1-70B at tp 16 crosses the H100's 8-GPU NVLink domain, not a GB200 NVL72 rack") {
    const engine::Workload step = engine::Workload::step(1.0, 1024.0);
    // Llama-3.1-70B: 80 layers, hidden 8192. An all-reduce after attention and after the MLP of
    // each layer: 160 collectives per step, each of 1 token x 8192 x 2 B (bf16) = 16,384 B.
    const double reductions = 160.0;
    const double message = 8192.0 * 2.0;

    SUBCASE("h100-sxm: hierarchical, with a note") {
        const auto s = testing::setup("h100-sxm", "llama-3.1-70b", "bf16", "", 16);
        const auto prediction = s.ideal().predict(step);
        CHECK(any_contains(prediction.warnings, "exceeds the 8-device"));
        const auto costs = engine::decode_step_costs(s.ideal().cost_model(), 1.0, 1024.0);
        CHECK(costs[OperatorKind::all_reduce].messages == reductions);
        CHECK(costs[OperatorKind::all_reduce].bytes == doctest::Approx(reductions * message));
        // At the roofline (link efficiency 1): NVLink 450 GB/s and 2 us (the loader's default),
        // InfiniBand 50 GB/s and 5 us (default). One 16,384 B all-reduce over 2 domains of 8:
        //   reduce-scatter(8): halving, 3 x 2 us latency, 16384/450e9 x 7/8 = 31.858 ns transfer
        //   all-reduce(2) of 2,048 B: ring 2 x 5 us + 2048/50e9 x 1 = 10 us + 40.96 ns
        //                             (tree 10 us + 2 x 40.96 ns: slower)
        //   all-gather(8): 6 us + 31.858 ns
        //   pipelined: latency 6 + 10 + 6 = 22 us, transfer max(31.858, 40.96, 31.858) ns
        //   = 22.04096 us; x 160 = 3.526554 ms.
        const double one = (3.0 * kLinkLatency + 2.0 * kScaleOutLatency + 3.0 * kLinkLatency) +
                           std::max(message / 450e9 * 7.0 / 8.0, (message / 8.0) / 50e9);
        CHECK(one == near(22.04096e-6));
        const auto& reported = *std::find_if(prediction.decode.operators.begin(), prediction.decode.operators.end(),
                                             [](const auto& op) { return op.kind == OperatorKind::all_reduce; });
        CHECK(reported.time == near(reductions * one));
        CHECK(reported.time == near(3.5265536e-3));
        CHECK(reported.bound == engine::Bound::communication);
    }

    SUBCASE("gb200: one 72-GPU domain, a flat tree") {
        const auto s = testing::setup("gb200", "llama-3.1-70b", "bf16", "", 16);
        const auto prediction = s.ideal().predict(step);
        CHECK_FALSE(any_contains(prediction.warnings, "exceeds the"));
        // 16 devices on NVLink 5, 900 GB/s, 2 us: 16384/900e9 = 18.204 ns over one link.
        //   ring: 30 hops = 60 us + 18.204 ns x 30/16 -> 60.034 us
        //   tree: 2 x log2 16 = 8 hops = 16 us + 2 x 18.204 ns -> 16.036409 us: the tree
        const double one = 8.0 * kLinkLatency + 2.0 * message / 900e9;
        CHECK(one == near(16.036409e-6, 1e-6));
        const auto roofline = s.ideal().roofline_decode_step(1.0, 1024.0);
        CHECK(operator_time(roofline, OperatorKind::all_reduce) == near(reductions * one));
        CHECK(operator_time(roofline, OperatorKind::all_reduce) == near(2.5658254e-3, 1e-6));
    }

    SUBCASE("a profile without scale_out cannot reach past its domain") {
        auto s = testing::setup("h100-sxm", "llama-3.1-70b", "bf16", "", 8);
        s.hardware.scale_out.reset();
        s.deployment.parallelism.tensor = 8;
        CHECK_NOTHROW(s.ideal());  // 8 devices fit in the domain of 8
        s.deployment.parallelism.tensor = 16;
        CHECK_THROWS_AS(s.ideal(), core::InputError);
        const auto messages = testing::error_messages([&] { (void)s.ideal(); });
        REQUIRE(messages.size() == 1);
        CHECK(messages[0].find("scale_out") != std::string::npos);
    }
}

TEST_CASE("expert parallelism: DeepSeek-V3 fp8 on h200-sxm") {
    // DeepSeek-V3: 61 layers, the first 3 dense, so 58 MoE layers; 256 routed experts of
    // intermediate 2048, 8 per token; hidden 7168. One expert: gate, up and down, 3 x 7168 x 2048
    // = 44,040,192 parameters, at 8 bits per weight (fp8 covers the linear layers) = 44,040,192 B.
    const double expert_params = 3.0 * 7168.0 * 2048.0;
    REQUIRE(expert_params == 44040192.0);
    const double moe_layers = 58.0;
    const auto s = deployed("h200-sxm", "deepseek-v3", "fp8", parallelism(8, 1, 8));
    const auto evaluator = s.ideal();
    const auto& cost = evaluator.cost_model();

    // tp 8 ep 8: the expert group is the stage's 8 devices, so each expert sits whole on one
    // device and each device holds 256/8 = 32 of them in each of the 58 MoE layers:
    // 32 x 44,040,192 x 58 = 81,738,596,352 B.
    CHECK(cost.moe_layers == 58);
    CHECK(cost.local_experts == 32);
    CHECK(cost.expert.bytes * static_cast<double>(cost.local_experts) ==
          doctest::Approx(32.0 * expert_params * moe_layers * 8.0 / 8.0));
    CHECK(32.0 * expert_params * moe_layers == 81738596352.0);

    // Batch 64: each device dispatches and combines its 64/8 = 8 tokens x 8 experts each = 64 token
    // copies of 7168 x 2 B (bf16 activations) = 917,504 B per message, 2 messages per MoE layer.
    const auto costs = engine::decode_step_costs(cost, 64.0, 1024.0);
    const double message = 64.0 / 8.0 * 8.0 * 7168.0 * 2.0;
    REQUIRE(message == 917504.0);
    CHECK(costs[OperatorKind::all_to_all].messages == 2.0 * moe_layers);
    CHECK(costs[OperatorKind::all_to_all].bytes / costs[OperatorKind::all_to_all].messages == doctest::Approx(message));
    // Flat pairwise on NVLink 4 (450 GB/s, 2 us): 7 x 2 us + 917504/450e9 x 7/8 = 14 us + 1.784036 us
    // = 15.784036 us per message; x 116 = 1.830948 ms.
    const double flat_one = 7.0 * kLinkLatency + message / 450e9 * 7.0 / 8.0;
    CHECK(flat_one == near(15.784036e-6, 1e-6));
    const auto roofline = evaluator.roofline_decode_step(64.0, 1024.0);
    CHECK(operator_time(roofline, OperatorKind::all_to_all) == near(116.0 * flat_one));
    // With expert parallelism the MoE output is combined by the all-to-all: the tensor group
    // all-reduces after the 61 attentions and the 3 dense MLPs only, 64 messages.
    CHECK(costs[OperatorKind::all_reduce].messages == 61.0 + 3.0);

    // The busiest device's routed slots: 64 tokens x 8 = 512 slots over 8 devices, mean 64,
    // sd sqrt(512 x 1/8 x 7/8) = sqrt(56) = 7.4833, x sqrt(2 ln 8) = 2.03933 -> 64 + 15.2610 = 79.261
    // (the cap, 64 x min(8, 32) = 512, does not bind). The experts operator runs 2 FLOPs per
    // parameter per slot over the device's 58 MoE layers.
    const double slots = 64.0 + std::sqrt(56.0) * std::sqrt(2.0 * std::log(8.0));
    CHECK(slots == doctest::Approx(79.2610).epsilon(1e-5));
    CHECK(costs[OperatorKind::experts].flops == doctest::Approx(2.0 * slots * expert_params * moe_layers));

    SUBCASE("ep 16 crosses into the scale-out network") {
        // 16 devices (tp 16, or tp 8 with two attention replicas): 64 tokens x 8 / 16 = 32 copies
        // per device, 32 x 7168 x 2 = 458,752 B per message. Hierarchical over 2 domains of 8:
        //   inside  458752 x 7/16 / 450e9 = 0.446 us
        //   outside 458752 x 8/16 / 50e9  = 4.58752 us   -> transfer 4.58752 us (both at once)
        //   latency 7 in-domain hops x 2 us + 1 remote domain x 5 us = 19 us
        //   = 23.58752 us per message, against 15.784 us at ep 8 with twice the bytes; x 116 = 2.736 ms.
        const double wide_message = 32.0 * 7168.0 * 2.0;
        const double wide_one = 7.0 * kLinkLatency + 1.0 * kScaleOutLatency + wide_message * 8.0 / 16.0 / 50e9;
        CHECK(wide_one == near(23.58752e-6));
        CHECK(wide_one > flat_one);
        for (const auto& p : {parallelism(16, 1, 16), parallelism(8, 1, 16, 2)}) {
            CAPTURE(p.tensor);
            const auto wide = deployed("h200-sxm", "deepseek-v3", "fp8", p);
            const auto wide_evaluator = wide.ideal();
            const auto wide_costs = engine::decode_step_costs(wide_evaluator.cost_model(), 64.0, 1024.0);
            CHECK(wide_costs[OperatorKind::all_to_all].messages == 116.0);
            CHECK(wide_costs[OperatorKind::all_to_all].bytes / 116.0 == doctest::Approx(wide_message));
            CHECK(operator_time(wide_evaluator.roofline_decode_step(64.0, 1024.0), OperatorKind::all_to_all) ==
                  near(116.0 * wide_one));
            CHECK(any_contains(wide_evaluator.predict(engine::Workload::step(64.0, 1024.0)).warnings,
                               "expert-parallel group of 16 devices exceeds the 8-device"));
        }
    }
}

TEST_CASE("pipeline parallelism: Llama-3.1-70B on h100-sxm at pp 2") {
    // Llama-3.1-70B, from its config.json: 80 layers, hidden 8192, MLP 28672, 64 heads, 8 KV heads
    // of 128, vocabulary 128,256, untied. Per layer: q and o 2 x 8192^2, k and v 2 x 8192 x 1024,
    // MLP 3 x 8192 x 28672, 2 norms of 8192: 855,654,400. x 80 + 2 x 128256 x 8192 + 8192 (final
    // norm) = 70,553,706,496 parameters, x 2 B (bf16) = 141,107,412,992 B.
    const double layer = 2.0 * 8192.0 * 8192.0 + 2.0 * 8192.0 * 1024.0 + 3.0 * 8192.0 * 28672.0 + 2.0 * 8192.0;
    const double parameters = 80.0 * layer + 2.0 * 128256.0 * 8192.0 + 8192.0;
    REQUIRE(parameters == 70553706496.0);
    const auto one = deployed("h100-sxm", "llama-3.1-70b", "bf16", parallelism(1));
    const auto two = deployed("h100-sxm", "llama-3.1-70b", "bf16", parallelism(1, 2));
    const auto flat = one.ideal();
    const auto piped = two.ideal();

    const auto memory_one = flat.predict(engine::Workload::step(1.0, 1024.0)).memory;
    const auto memory_two = piped.predict(engine::Workload::step(1.0, 1024.0)).memory;
    CHECK(memory_one.weights == doctest::Approx(2.0 * parameters));
    CHECK(memory_two.weights == doctest::Approx(parameters));  // each stage holds 40 of the 80 layers
    // KV: 2 x 8 heads x 128 x 2 B = 4,096 B per token per layer; 80 layers x 1,024 tokens =
    // 335,544,320 B per sequence on one device, 167,772,160 on each of two stages.
    CHECK(memory_one.kv_per_sequence == doctest::Approx(4096.0 * 80.0 * 1024.0));
    CHECK(memory_two.kv_per_sequence == doctest::Approx(4096.0 * 40.0 * 1024.0));
    CHECK(memory_two.kv == doctest::Approx(memory_one.kv.value / 2.0));

    // Batch 1: one micro-batch runs through both stages in turn (the bubble), so the step is pp 1's
    // plus one hop of 1 token x 8192 x 2 B = 16,384 B inside the NVLink domain:
    // 2 us + 16384 / 450e9 = 2.036409 us.
    const double hop_1 = kLinkLatency + 16384.0 / 450e9;
    CHECK(hop_1 == near(2.036409e-6, 1e-6));
    CHECK(piped.roofline_decode_step(1.0, 1024.0).totals.time ==
          near(flat.roofline_decode_step(1.0, 1024.0).totals.time.value + hop_1));
    CHECK(operator_time(piped.roofline_decode_step(1.0, 1024.0), OperatorKind::pipeline_send) == near(hop_1));

    // Batch 8: two micro-batches of 4 keep both stages busy; a token's step is one micro-batch's
    // pass, pp 1's step at batch 4, plus a hop of 4 x 16,384 = 65,536 B: 2 us + 145.636 ns.
    const double hop_4 = kLinkLatency + 65536.0 / 450e9;
    CHECK(piped.roofline_decode_step(8.0, 1024.0).totals.time ==
          near(flat.roofline_decode_step(4.0, 1024.0).totals.time.value + hop_4));
}

TEST_CASE("attention data parallelism: DeepSeek-V3 at tp 1, dp-attention 8, ep 8 on h200-sxm fp8") {
    const auto s = deployed("h200-sxm", "deepseek-v3", "fp8", parallelism(1, 1, 8, 8));
    const auto evaluator = s.ideal();
    const double context = 4096.0;
    const auto memory = evaluator.predict(engine::Workload::step(64.0, context)).memory;

    // The MLA latent cache: kv_lora_rank 512 + rope 64 = 576 values x 2 B (bf16) = 1,152 B per
    // token per layer, 61 layers: 70,272 B per token; 4,096 tokens: 287,834,112 B per sequence.
    const double per_sequence = 576.0 * 2.0 * 61.0 * context;
    REQUIRE(per_sequence == 287834112.0);
    CHECK(memory.kv_per_token == doctest::Approx(70272.0));
    CHECK(memory.kv_per_sequence == doctest::Approx(per_sequence));
    // Each of the 8 attention replicas holds 64/8 = 8 sequences.
    CHECK(memory.kv == doctest::Approx(8.0 * per_sequence));

    // Weights on one device (tp 1: attention, dense MLPs, the shared expert, embedding and head
    // are whole on every device; 32 of the 256 routed experts):
    //   MLA per layer: q down 7168 x 1536 + q up 1536 x 128 x 192 + kv down 7168 x 576
    //     + kv up 512 x 128 x 256 + o 128 x 128 x 7168 = 187,105,280; x 61 = 11,413,422,080
    //   dense MLP 3 x 7168 x 18432 x 3 layers = 1,189,085,184
    //   shared + 32 routed experts: 33 x 44,040,192 x 58 = 84,292,927,488
    //   -> 96,895,434,752 parameters at fp8 (1 B)
    //   router 7168 x 256 x 58 = 106,430,464 at bf16 = 212,860,928 B
    //   norms (2 x 61 + 1) x 7168 x 2 B = 1,763,328 B
    //   embedding and lm_head 2 x 129280 x 7168 x 2 B (bf16 under fp8) = 3,706,716,160 B
    //   = 100,816,775,168 B
    const double mla = 7168.0 * 1536.0 + 1536.0 * 128.0 * 192.0 + 7168.0 * 576.0 + 512.0 * 128.0 * 256.0 +
                       128.0 * 128.0 * 7168.0;
    const double weights = 61.0 * mla + 3.0 * 3.0 * 7168.0 * 18432.0 + 33.0 * 44040192.0 * 58.0 +
                           2.0 * 7168.0 * 256.0 * 58.0 + 123.0 * 7168.0 * 2.0 + 2.0 * 129280.0 * 7168.0 * 2.0;
    REQUIRE(weights == 100816775168.0);
    CHECK(memory.weights == doctest::Approx(weights));
    // Usable: 141 GiB (151,397,597,184 B) x 0.90 = 136,257,837,465.6 B; room 35,441,062,297.6 B
    // = 123.13 sequences of 4,096 tokens on one replica's device: 123, and 8 replicas hold
    // 8 x 123 = 984.
    const double one_replica = std::floor((141.0 * 1073741824.0 * 0.9 - weights) / per_sequence);
    REQUIRE(one_replica == 123.0);
    CHECK(memory.max_batch == 8 * 123);

    // Each replica attends over its own 8 sequences: the step reads 8 x 61 x 4,096 latent rows.
    const auto costs = engine::decode_step_costs(evaluator.cost_model(), 64.0, context);
    CHECK(costs[OperatorKind::attention_score].bytes == doctest::Approx(8.0 * per_sequence));
}

TEST_CASE("KV offload: Llama-3.1-8B on h100-sxm spills what exceeds device memory over PCIe") {
    // Weights 8,030,261,248 x 2 B = 16,060,522,496 B (test_engine_physics.cpp); usable 80 GiB x 0.9
    // = 85,899,345,920 x 0.9 = 77,309,411,328 B; room for KV 61,248,888,832 B. Batch 64 at 8,192
    // tokens: 64 x 8192 x 131,072 B = 68,719,476,736 B of KV, 7,470,587,904 B more than the room.
    const double weights = 2.0 * 8030261248.0;
    const double room = 0.9 * 80.0 * 1073741824.0 - weights;
    const double kv = 64.0 * 8192.0 * 131072.0;
    const double spilled = kv - room;
    REQUIRE(spilled == doctest::Approx(7470587904.0));
    const engine::Workload workload = engine::Workload::step(64.0, 8192.0);

    const auto resident = deployed("h100-sxm", "llama-3.1-8b", "bf16", parallelism(1));
    CHECK_FALSE(resident.ideal().predict(workload).memory.fits);

    const auto offloaded = deployed("h100-sxm", "llama-3.1-8b", "bf16", parallelism(1), true);
    const auto evaluator = offloaded.ideal();
    const auto prediction = evaluator.predict(workload);
    CHECK(prediction.memory.fits);  // only the weights must fit
    CHECK(prediction.memory.spilled == doctest::Approx(spilled));
    // The step reads the whole cache once, 68.72 GB; the spilled share, spilled / kv = 10.87%,
    // comes over the host link, the rest (exactly the room) from device memory.
    const auto costs = engine::decode_step_costs(evaluator.cost_model(), 64.0, 8192.0);
    CHECK(costs[OperatorKind::kv_offload].bytes == doctest::Approx(spilled));
    CHECK(costs[OperatorKind::attention_score].bytes + costs[OperatorKind::attention_value].bytes ==
          doctest::Approx(room));
    // At the roofline over PCIe 5.0 x16, 64 GB/s: 7.471e9 / 64e9 = 0.11673 s.
    CHECK(operator_time(evaluator.roofline_decode_step(64.0, 8192.0), OperatorKind::kv_offload) ==
          near(spilled / 64e9));

    auto no_link = offloaded;
    no_link.hardware.host_link.reset();
    const auto messages = testing::error_messages([&] { (void)no_link.ideal(); });
    REQUIRE(messages.size() == 1);
    CHECK(messages[0].find("host") != std::string::npos);
    CHECK(messages[0].find("kv-offload") != std::string::npos);
}

TEST_CASE("speculative decoding: Llama-3.1-70B drafted by Llama-3.2-1B on h100-sxm") {
    const auto catalog = testing::shipped_catalog();
    const auto hardware = catalog.hardware("h100-sxm");
    const auto target = catalog.model("llama-3.1-70b");
    const auto draft = catalog.model("llama-3.2-1b");
    const engine::Workload workload = engine::Workload::step(1.0, 1024.0);
    // The evaluator points into its operating point, so both stay inside the lambda; it returns
    // the speculative figures with plain decoding's step time, predicted and at the roofline.
    struct Outcome {
        engine::SpeculativeResult result;
        double target_step = 0.0;
        double roofline_target_step = 0.0;
    };
    auto speculate = [&](int length, double acceptance) {
        engine::DeploymentChoice choice;
        choice.runtime = testing::test_runtime("vllm");
        choice.speculation = {length, acceptance, false};
        const auto point = engine::resolve_operating_point(hardware, target, choice, workload, draft);
        const engine::Evaluator evaluator(point);
        const auto prediction = evaluator.predict(point.workload);
        REQUIRE(prediction.speculative.has_value());
        return Outcome{*prediction.speculative, evaluator.decode_step_time(1.0, 1024.0).value,
                       evaluator.roofline_decode_step(1.0, 1024.0).totals.time.value};
    };

    // Weights streamed per decode step, bf16:
    //   Llama-3.2-1B: 16 layers of (2 x 2048^2 + 2 x 2048 x 512 + 3 x 2048 x 8192 + 2 x 2048) =
    //   60,821,504, + one tied 128256 x 2048 matrix + 2048 = 1,235,814,400 parameters, all read
    //   (the tied matrix as the head): 2,471,628,800 B.
    //   Llama-3.1-70B: 70,553,706,496 parameters (pipeline case above): 141,107,412,992 B.
    const double draft_params = 16.0 * (2.0 * 2048.0 * 2048.0 + 2.0 * 2048.0 * 512.0 + 3.0 * 2048.0 * 8192.0 +
                                         2.0 * 2048.0) + 128256.0 * 2048.0 + 2048.0;
    REQUIRE(draft_params == 1235814400.0);
    const double draft_bytes = 2.0 * draft_params;
    const double target_bytes = 2.0 * 70553706496.0;

    // E = (1 - 0.7^5) / (1 - 0.7) = (1 - 0.16807) / 0.3 = 2.7731.
    const double expected = (1.0 - std::pow(0.7, 5.0)) / 0.3;
    CHECK(expected == doctest::Approx(2.7731));
    const Outcome outcome = speculate(4, 0.7);
    const engine::SpeculativeResult& result = outcome.result;
    CHECK(result.tokens_per_step == doctest::Approx(2.7731));

    // The engine's own definition: E x t_target / (4 t_draft + t_verify).
    const double t_target = outcome.target_step;
    CHECK(result.step_time == near(result.draft_time.value + result.verify_time.value));
    CHECK(result.speedup == doctest::Approx(expected * t_target / (result.draft_time + result.verify_time).value));
    CHECK(result.speedup < expected);
    CHECK(result.speedup > 1.0);

    // At the roofline every pass is a weight stream: four draft steps cost 4 x draft/target of a
    // target step, verification (5 positions) about one, so the speed-up is about
    // E / (1 + 4 x 2.4716 / 141.107) = 2.7731 / 1.07006 = 2.5915; KV and activations shave a
    // little (within 5%), and it can never exceed E.
    const double hand = expected / (1.0 + 4.0 * draft_bytes / target_bytes);
    CHECK(hand == doctest::Approx(2.5915).epsilon(1e-4).scale(0.0));
    const double roofline_speedup =
        result.roofline_tokens_per_s_per_stream * outcome.roofline_target_step;
    CHECK(roofline_speedup >= hand * 0.95);
    CHECK(roofline_speedup <= expected);

    // Acceptance 0: every step yields one token, and the draft only costs.
    const auto rejected = speculate(4, 0.0).result;
    CHECK(rejected.tokens_per_step == doctest::Approx(1.0));
    CHECK(rejected.speedup < 1.0);
    // Acceptance 1: all 4 drafts kept plus the model's own token, E = 5.
    CHECK(speculate(4, 1.0).result.tokens_per_step == doctest::Approx(5.0));

    // A draft with another tokenizer (Mistral-7B, 32,000 tokens against 128,256) is refused.
    engine::DeploymentChoice choice;
    choice.runtime = testing::test_runtime("vllm");
    choice.speculation = {4, 0.7, false};
    const auto messages = testing::error_messages(
        [&] { (void)engine::resolve_operating_point(hardware, target, choice, workload, catalog.model("mistral-7b")); });
    REQUIRE(messages.size() == 1);
    CHECK(messages[0].find("vocabulary") != std::string::npos);
}

TEST_CASE("a deployment wider than any cluster is refused before its device count can overflow") {
    // 4,096 x 4,096 x 32 = 536,870,912 devices: far past the 1,048,576 limit (and, with more stages,
    // past what an int holds).
    const auto result = testing::run({"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--tp", "4096",
                                      "--dp-attention", "4096", "--pp", "32"});
    CHECK(result.exit_code == 1);
    CHECK(result.err.find("tp 4096 x dp-attention 4096 x pp 32 = 536870912 devices, beyond the 1048576") !=
          std::string::npos);
}

TEST_CASE("why evaluates the point with its draft model and lets offloaded KV run past the memory wall") {
    // Llama-3.1-70B at tp 8 drafted by Llama-3.2-1B, k = 4: the verdict speaks of the verification
    // pass of k + 1 = 5 positions, which only the draft-aware evaluation reports.
    const auto drafted = testing::run({"why", "--hardware", "h100-sxm", "--model", "llama-3.1-70b", "--tp", "8", "--draft",
                                       "llama-3.2-1b", "--acceptance", "0.7", "--batch", "64", "--json"});
    REQUIRE(drafted.exit_code == 0);
    const auto verdict = nlohmann::json::parse(drafted.out)["verdict"].get<std::string>();
    CHECK(verdict.find("each verification pass checks 5 positions per stream") != std::string::npos);
    // Llama-3.1-8B at 8,192 tokens: 52 streams fit on an H100 (test_engine_physics), but with the
    // cache allowed to spill over the host link all 64 asked for run.
    const auto spilled = testing::run({"why", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--kv-offload",
                                       "--batch", "64", "--context", "8192", "--json"});
    REQUIRE(spilled.exit_code == 0);
    CHECK(nlohmann::json::parse(spilled.out)["evaluated_batch"] == 64);
}

TEST_CASE("a row's ep= and dp-attention= deploy it as its source states: DP attention holds each latent cache once") {
    // TensorRT-LLM's DeepSeek-R1 max-throughput run on 8 B200s, "TP8, EP8, attention DP" in the
    // blog's words, is written ep=8; dp-attention=8. Unstated, the same row runs as 8-way tensor
    // parallelism; its min-latency run, "TP8, EP2", keeps TP8 attention with the experts over 2.
    const std::string table = testing::write_temp(
        "decodesim_stated_parallelism.csv",
        testing::kMeasurementHeader +
            "dp,b200,deepseek-r1,nvfp4,fp16,tensorrt-llm,tensorrt-llm@0.17,3072,1024,2048,,decode_tokens_per_s_total,36384,src,"
            "devices=8; ep=8; dp-attention=8,TP8 EP8 attention DP\n"
            "tp,b200,deepseek-r1,nvfp4,fp16,tensorrt-llm,tensorrt-llm@0.17,3072,1024,2048,,decode_tokens_per_s_total,36384,src,"
            "devices=8,\n"
            "ep,b200,deepseek-r1,nvfp4,fp16,tensorrt-llm,tensorrt-llm@0.17,1,1024,2048,,decode_tokens_per_s_per_stream,274,src,"
            "devices=8; ep=2,\n");
    const auto rows = profiles::load_measurements(table);
    REQUIRE(rows.size() == 3);
    // "dp-attention=8" is its own key, not the attention= switch (fused or unfused).
    CHECK_FALSE(rows[0].flash_attention.has_value());
    const auto deployed_as = [](const profiles::Measurement& row) {
        return fit::stated_deployment(row, testing::shipped_runtime("tensorrt-llm")).parallelism;
    };
    const engine::Parallelism dp = deployed_as(rows[0]), tp = deployed_as(rows[1]), ep = deployed_as(rows[2]);
    CHECK(dp.tensor == 1);
    CHECK(dp.attention_data == 8);
    CHECK(dp.expert == 8);
    CHECK(tp.tensor == 8);
    CHECK(tp.attention_data == 1);
    CHECK(tp.expert == 1);
    CHECK(ep.tensor == 8);
    CHECK(ep.expert == 2);

    // The latent cache: 61 layers x (kv_lora_rank 512 + qk_rope_head_dim 64) x 2 B = 70,272 B a token.
    // At the run's deepest context, 1024 + 2048 = 3072 tokens, its 3072 sequences hold:
    //   dp-attention=8: 384 sequences a replica, 384 x 3072 x 70,272 B = 82,896,224,256 B a device;
    //   tensor parallelism: one latent head cannot be split, so every device holds all 3072,
    //   8 x that = 663,169,794,048 B, which no B200 holds.
    const auto catalog = testing::shipped_catalog();
    const auto& hardware = catalog.hardware("b200");
    const auto& model = catalog.model("deepseek-r1");
    const auto kv_on_a_device = [&](const profiles::Measurement& row) {
        const auto deployment =
            engine::resolve_deployment(hardware, model, fit::stated_deployment(row, testing::shipped_runtime("tensorrt-llm")));
        return engine::memory_footprint(engine::build_cost_model(model, deployment), hardware, 3072.0, 3072.0).kv.value;
    };
    CHECK(kv_on_a_device(rows[0]) == near(82'896'224'256.0));
    CHECK(kv_on_a_device(rows[1]) == near(663'169'794'048.0));
    // Each sequence is whole on one replica: one stream's cache, 3072 x 70,272 = 215,875,584 B, sits
    // on one device, and nine streams put two, 431,751,168 B, on the busiest.
    {
        const auto deployment =
            engine::resolve_deployment(hardware, model, fit::stated_deployment(rows[0], testing::shipped_runtime("tensorrt-llm")));
        const auto cost = engine::build_cost_model(model, deployment);
        CHECK(engine::memory_footprint(cost, hardware, 1.0, 3072.0).kv.value == near(215'875'584.0));
        CHECK(engine::memory_footprint(cost, hardware, 9.0, 3072.0).kv.value == near(431'751'168.0));
    }

    // A degree that is not a whole divisor of the devices is refused, naming the line and the key.
    for (const char* conditions : {"devices=8; ep=3", "devices=8; ep=16", "devices=8; dp-attention=x",
                                   "devices=4; dp-attention=0", "devices=8; split=layer; dp-attention=8"}) {
        const std::string wrong = testing::write_temp(
            "decodesim_stated_parallelism_bad.csv",
            testing::kMeasurementHeader + "a,b200,deepseek-r1,nvfp4,fp16,tensorrt-llm,tensorrt-llm@0.17,8,1024,2048,,"
                                          "decode_tokens_per_s_total,100,src," + std::string(conditions) + ",\n");
        const auto problems = testing::error_messages([&] { profiles::load_measurements(wrong); });
        REQUIRE(problems.size() == 1);
        CHECK(problems[0].find(":2:15: error: conditions:") != std::string::npos);
        const std::string key = std::string(conditions).find("ep=") != std::string::npos &&
                                        std::string(conditions).find("dp-") == std::string::npos
                                    ? "'ep="
                                    : "'dp-attention=";
        CHECK(problems[0].find(key) != std::string::npos);
    }
}

TEST_CASE("a prompt is never split across attention replicas: the step waits on the replica holding it") {
    // DeepSeek-R1 on 8 B200s with DP attention (tp 1, 8 replicas, experts over 8). Its prompt
    // attention runs MLA un-absorbed: 128 heads x (qk_nope 128 + qk_rope 64) = 24,576 multiply-adds
    // per (query, key) pair and layer. One 1,024-token prompt has 1,024 x 1,025 / 2 = 524,800
    // causal pairs a layer, 61 layers: 32,012,800 pairs, 2 x 24,576 x 32,012,800 =
    // 1,573,493,145,600 FLOPs of Q.K, all on the one replica that holds the sequence (an even
    // split would put an eighth, 196,686,643,200, on each).
    const auto s = deployed("b200", "deepseek-r1", "nvfp4", parallelism(1, 1, 8, 8));
    const auto cost = engine::build_cost_model(s.model, s.deployment);
    const double one_prompt = 2.0 * 128.0 * 192.0 * 61.0 * (1024.0 * 1025.0 / 2.0);
    CHECK(one_prompt == near(1'573'493'145'600.0));
    CHECK(engine::prefill_costs(cost, 1.0, 1024.0)[OperatorKind::attention_score].flops.value == near(one_prompt));
    // Sixteen prompts over eight replicas: the busiest holds two of them.
    CHECK(engine::prefill_costs(cost, 16.0, 1024.0)[OperatorKind::attention_score].flops.value == near(2.0 * one_prompt));
    // Decode sequences spread evenly: 64 sequences, 8 a replica, each reading its latent cache
    // of 1,024 tokens x 61 layers x 576 elements x 2 B (fp16 by default here: bf16 activations).
    const double cache_bytes = 8.0 * 1024.0 * 61.0 * 576.0 * 2.0;
    CHECK(engine::decode_step_costs(cost, 64.0, 1024.0)[OperatorKind::attention_score].bytes.value ==
          near(cache_bytes, 1e-6));
    // One stream is on one replica: the step reads its whole cache there, not an eighth of it; nine
    // streams put two on the busiest replica.
    CHECK(engine::decode_step_costs(cost, 1.0, 1024.0)[OperatorKind::attention_score].bytes.value ==
          near(cache_bytes / 8.0, 1e-6));
    CHECK(engine::decode_step_costs(cost, 9.0, 1024.0)[OperatorKind::attention_score].bytes.value ==
          near(cache_bytes / 4.0, 1e-6));
}
