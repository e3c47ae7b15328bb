// Engine speed: one decode-step evaluation is what sweeps call millions of times.
// Results are quoted in docs/performance.md.

#include <benchmark/benchmark.h>

#include "engine/prediction.hpp"
#include "profiles/catalog.hpp"

namespace {

using namespace decodesim;

struct Fixture {
    profiles::HardwareProfile hardware;
    profiles::ModelProfile model;
    engine::Deployment deployment;
};

Fixture load(const char* hardware, const char* model, const char* weights) {
    const profiles::Catalog catalog(DECODESIM_ROOT);
    Fixture fixture{catalog.hardware(hardware), catalog.model(model), {}};
    fixture.deployment =
        engine::resolve_deployment(fixture.hardware, *core::find_weight_format(weights), nullptr, 1);
    return fixture;
}

void decode_step(benchmark::State& state, const char* hardware, const char* model, const char* weights) {
    const Fixture fixture = load(hardware, model, weights);
    const engine::Evaluator evaluator(fixture.model, fixture.hardware, fixture.deployment,
                                      engine::default_efficiency(fixture.hardware));
    double batch = 1.0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(evaluator.decode_step(batch, 4096.0).time_s);
        batch = batch >= 256.0 ? 1.0 : batch + 1.0;
    }
    state.SetItemsProcessed(state.iterations());
}

void full_prediction(benchmark::State& state, const engine::Workload& workload) {
    const Fixture fixture = load("h100-sxm", "llama-3.1-8b", "bf16");
    const engine::Evaluator evaluator(fixture.model, fixture.hardware, fixture.deployment,
                                      engine::default_efficiency(fixture.hardware));
    for (auto _ : state) benchmark::DoNotOptimize(evaluator.predict(workload).decode.step_time_s);
    state.SetItemsProcessed(state.iterations());
}

void evaluator_construction(benchmark::State& state) {
    const Fixture fixture = load("h100-sxm", "deepseek-v3", "fp8");
    for (auto _ : state) {
        const engine::Evaluator evaluator(fixture.model, fixture.hardware, fixture.deployment,
                                          engine::default_efficiency(fixture.hardware));
        benchmark::DoNotOptimize(evaluator.cost_model().qkv.bytes);
    }
}

}  // namespace

BENCHMARK_CAPTURE(decode_step, llama_3_1_8b_h100, "h100-sxm", "llama-3.1-8b", "bf16");
BENCHMARK_CAPTURE(decode_step, deepseek_v3_h200_fp8, "h200-sxm", "deepseek-v3", "fp8");
BENCHMARK_CAPTURE(decode_step, gemma_3_27b_rtx4090_q4km, "rtx-4090", "gemma-3-27b", "q4_k_m");
BENCHMARK_CAPTURE(full_prediction, step_context_4096, decodesim::engine::Workload::step(1.0, 4096.0));
BENCHMARK_CAPTURE(full_prediction, request_1000_in_500_out, decodesim::engine::Workload::request(8.0, 1000.0, 500.0));
BENCHMARK(evaluator_construction);

BENCHMARK_MAIN();
