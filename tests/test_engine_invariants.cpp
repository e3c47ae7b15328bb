// Invariants that must hold for every shipped model on every shipped device, and the request
// average checked against a brute-force loop over tokens.

#include <doctest/doctest.h>

#include <cstdio>

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
    // Every shipped runtime build takes its turn: each (model, device) pair runs under the next one.
    std::vector<std::shared_ptr<const engine::RuntimeProfile>> runtimes;
    for (const auto& id : catalog.runtime_ids()) runtimes.push_back(catalog.runtime(id));
    std::size_t pair = 0;
    std::mt19937 random(20261130);
    std::uniform_real_distribution<double> log_batch(0.0, 9.0), log_context(0.0, 17.0);
    int points = 0;
    int split_pairs = 0;
    for (const auto& model : models) {
        for (const auto& hardware : devices) {
            CAPTURE(model.id);
            CAPTURE(hardware.id);
            engine::DeploymentChoice choice;
            choice.runtime = runtimes[pair++ % runtimes.size()];
            CAPTURE(choice.runtime->id);
            const auto deployment = engine::resolve_deployment(hardware, model, choice);
            const engine::Evaluator realistic(model, hardware, deployment);
            const engine::Evaluator ideal(model, hardware, deployment, engine::ideal_efficiency());
            profiles::HardwareProfile faster_memory = hardware;
            faster_memory.memory_bandwidth = hardware.memory_bandwidth * 2.0;
            const engine::Evaluator faster(model, faster_memory, deployment);
            for (int sample = 0; sample < 2; ++sample, ++points) {
                const double batch = std::floor(std::exp2(log_batch(random)));
                const double context = std::floor(std::exp2(log_context(random))) + 1.0;
                const double step = realistic.decode_step_time(batch, context).value;
                CAPTURE(batch);
                CAPTURE(context);
                REQUIRE(std::isfinite(step));
                REQUIRE(step > 0.0);
                // The prediction is never faster than the roofline bound.
                CHECK(step >= ideal.decode_step_time(batch, context).value);
                // More bandwidth is never slower.
                CHECK(faster.decode_step_time(batch, context).value <= step);
                // More context is never faster.
                CHECK(realistic.decode_step_time(batch, context * 2.0).value >= step);
                // Per-stream speed never rises with batch (step time never falls).
                CHECK(realistic.decode_step_time(batch * 2.0, context).value >= step);
                // Total throughput never falls when batch grows while memory-bound.
                if (ideal.decode_step(batch * 2.0, context).totals.bound == engine::Bound::memory) {
                    CHECK(batch * 2.0 / ideal.decode_step_time(batch * 2.0, context).value >=
                          batch / ideal.decode_step_time(batch, context).value);
                }
                // Prefill of a prompt of `context` tokens: never faster than its bound, than a
                // shorter prompt, or than on faster memory.
                const double prefill = realistic.prefill(1.0, context).time.value;
                REQUIRE(std::isfinite(prefill));
                CHECK(prefill >= realistic.prefill(1.0, context).roofline_time.value);
                CHECK(prefill >= ideal.prefill(1.0, context).time.value);
                CHECK(realistic.prefill(1.0, context * 2.0).time.value >= prefill);
                CHECK(faster.prefill(1.0, context).time.value <= prefill);
            }
            // Two devices in tensor parallelism, where the device has a link and the heads divide:
            // still never faster than the bound, and the step still grows with the context.
            if (hardware.interconnect && model.num_attention_heads % 2 == 0 && model.num_key_value_heads % 2 == 0) {
                engine::DeploymentChoice split = choice;
                split.parallelism.tensor = 2;
                engine::Deployment split_deployment;
                try {
                    split_deployment = engine::resolve_deployment(hardware, model, split);
                } catch (const core::InputError&) {
                    continue;  // refused with a reason (a datatype the link or device lacks): tested elsewhere
                }
                const engine::Evaluator two(model, hardware, split_deployment);
                const engine::Evaluator two_ideal(model, hardware, split_deployment, engine::ideal_efficiency());
                const double step = two.decode_step_time(8.0, 2048.0).value;
                REQUIRE(std::isfinite(step));
                CHECK(step >= two_ideal.decode_step_time(8.0, 2048.0).value);
                CHECK(two.decode_step_time(8.0, 4096.0).value >= step);
                CHECK(two.prefill(1.0, 2048.0).time.value >= two_ideal.prefill(1.0, 2048.0).time.value);
                ++split_pairs;
            }
        }
    }
    CHECK(points >= 4000);  // 31 models x 75 devices x 2
    CHECK(split_pairs > 1000);  // most devices have a link, most models an even head count
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
            sum += evaluator.decode_step_time(c.batch, context).value;
        }
        const double mean = sum / (c.output - 1);
        CHECK(prediction.request->time_per_output_token == doctest::Approx(mean).epsilon(1e-9));
        CHECK(prediction.request->end_to_end == doctest::Approx(prediction.ttft.value + sum).epsilon(1e-9));
    }
}

TEST_CASE("two processes given the same inputs print the same bytes") {
    // Separate processes differ in address layout and allocation order, so this catches output
    // that depends on uninitialized memory or on pointer order, which a rerun in one process cannot.
    const std::string command = std::string(DECODESIM_BINARY) + " --profiles-dir " + DECODESIM_ROOT +
                                " predict --hardware h100-sxm --model deepseek-v3 --weights fp8 --tp 8 --batch 32"
                                " --context 4096 --json 2>&1";
    auto run_once = [&] {
        std::string output;
        FILE* pipe = ::popen(command.c_str(), "r");
        REQUIRE(pipe != nullptr);
        char chunk[4096];
        for (std::size_t read; (read = std::fread(chunk, 1, sizeof chunk, pipe)) > 0;) output.append(chunk, read);
        CHECK(::pclose(pipe) == 0);
        return output;
    };
    const std::string first = run_once();
    CHECK(first.find("\"tokens_per_s_total\"") != std::string::npos);
    CHECK(run_once() == first);
}
