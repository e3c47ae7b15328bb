// Invariants that must hold for every shipped model on every shipped device, and the request
// average checked against a brute-force loop over tokens.

#include <doctest/doctest.h>

#include <random>

#include "engine/cost_model.hpp"
#include "test_support.hpp"

using namespace decodesim;

TEST_CASE("invariants over every shipped model on every shipped device") {
    const auto catalog = testing::shipped_catalog();
    std::vector<profiles::HardwareProfile> devices;
    for (const auto& id : catalog.hardware_ids()) devices.push_back(catalog.hardware(id));
    std::vector<profiles::ModelProfile> models;
    for (const auto& id : catalog.model_ids()) models.push_back(catalog.model(id));
    std::mt19937 random(20261130);
    std::uniform_real_distribution<double> log_batch(0.0, 9.0), log_context(0.0, 17.0);
    int points = 0;
    for (const auto& model : models) {
        for (const auto& hardware : devices) {
            CAPTURE(model.id);
            CAPTURE(hardware.id);
            const auto deployment = engine::resolve_deployment(hardware, *core::find_weight_format("bf16"), nullptr, 1);
            const engine::Evaluator realistic(model, hardware, deployment);
            const engine::Evaluator ideal(model, hardware, deployment, engine::ideal_efficiency());
            profiles::HardwareProfile faster_memory = hardware;
            faster_memory.memory_bandwidth = hardware.memory_bandwidth * 2.0;
            const engine::Evaluator faster(model, faster_memory, deployment);
            for (int sample = 0; sample < 2; ++sample, ++points) {
                const double batch = std::floor(std::exp2(log_batch(random)));
                const double context = std::floor(std::exp2(log_context(random))) + 1.0;
                const double step = realistic.decode_step(batch, context).time_s;
                CAPTURE(batch);
                CAPTURE(context);
                REQUIRE(std::isfinite(step));
                REQUIRE(step > 0.0);
                // The prediction is never faster than the roofline bound.
                CHECK(step >= ideal.decode_step(batch, context).time_s);
                // More bandwidth is never slower.
                CHECK(faster.decode_step(batch, context).time_s <= step);
                // More context is never faster.
                CHECK(realistic.decode_step(batch, context * 2.0).time_s >= step);
                // Per-stream speed never rises with batch (step time never falls).
                CHECK(realistic.decode_step(batch * 2.0, context).time_s >= step);
                // Total throughput never falls when batch grows while memory-bound.
                if (ideal.decode_step(batch * 2.0, context).bound == engine::Bound::memory) {
                    CHECK(batch * 2.0 / ideal.decode_step(batch * 2.0, context).time_s >=
                          batch / ideal.decode_step(batch, context).time_s);
                }
            }
        }
    }
    CHECK(points >= 4000);  // 31 models x 75 devices x 2
}

TEST_CASE("a request's mean decode step equals the loop over every token") {
    struct Case {
        const char* hardware;
        const char* model;
        double batch, prompt, output;
    };
    // Cases cross the sliding window (Gemma 2: 4096; GPT-OSS: 128) and the point where attention
    // turns compute-bound at large batch.
    for (const Case c : {Case{"h100-sxm", "llama-3.1-8b", 1, 100, 900},
                         Case{"h100-sxm", "gemma-2-9b", 8, 3000, 3000},
                         Case{"rtx-4090", "gpt-oss-20b", 4, 64, 500},
                         Case{"apple-m2-max", "mistral-7b", 1, 4000, 300},
                         Case{"h100-sxm", "llama-3.1-8b", 256, 1000, 3000},
                         Case{"l4", "qwen3-30b-a3b", 64, 10, 2}}) {
        CAPTURE(c.model);
        const auto s = testing::setup(c.hardware, c.model, std::string(c.model).starts_with("gpt-oss") ? "mxfp4" : "bf16");
        const auto evaluator = s.realistic();
        engine::Workload workload;
        workload.batch = c.batch;
        workload.prompt = c.prompt;
        workload.output = c.output;
        const auto prediction = evaluator.predict(workload);
        // Brute force: steps for tokens 2..N hold P+1 .. P+N-1 tokens.
        double sum = 0.0;
        for (double context = c.prompt + 1; context <= c.prompt + c.output - 1; ++context) {
            sum += evaluator.decode_step(c.batch, context).time_s;
        }
        const double mean = sum / (c.output - 1);
        CHECK(prediction.request->time_per_output_token_s == doctest::Approx(mean).epsilon(1e-9));
        CHECK(prediction.request->end_to_end_s == doctest::Approx(prediction.ttft_s + sum).epsilon(1e-9));
    }
}

TEST_CASE("the same inputs give the same bits") {
    const auto s = testing::setup("h100-sxm", "deepseek-v3", "fp8", "", 8);
    const auto a = s.realistic().predict(engine::Workload::step(32.0, 4096.0));
    const auto b = s.realistic().predict(engine::Workload::step(32.0, 4096.0));
    CHECK(a.decode.step_time_s == b.decode.step_time_s);
    CHECK(a.prefill.time_s == b.prefill.time_s);
}
