// Engine speed: one decode-step evaluation is what sweeps call millions of times.
// Results are quoted in docs/performance.md.

#include <benchmark/benchmark.h>

#include <ostream>
#include <streambuf>

#include "engine/prediction.hpp"
#include "profiles/catalog.hpp"
#include "report/sweep_writer.hpp"
#include "scenarios/sweep.hpp"

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
        engine::resolve_deployment(fixture.hardware, *core::find_named(core::weight_formats(), weights), nullptr, 1);
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
    for (auto _ : state) benchmark::DoNotOptimize(evaluator.predict(workload).decode.step_time);
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

// Discards what it is given, so the benchmark measures formatting, not the disk.
class NullBuffer : public std::streambuf {
protected:
    std::streamsize xsputn(const char*, std::streamsize count) override { return count; }
    int overflow(int character) override { return character; }
};

// A sweep of 2 devices x 2 models x 64 batches x 64 contexts = 16,384 points, written as CSV.
void sweep_points(benchmark::State& state, bool write) {
    const profiles::Catalog catalog(DECODESIM_ROOT);
    scenarios::SweepGrid grid;
    grid.hardware = {catalog.hardware("h100-sxm"), catalog.hardware("mi300x")};
    grid.models = {catalog.model("llama-3.1-8b"), catalog.model("qwen3-30b-a3b")};
    grid.weights = {core::find_named(core::weight_formats(), "fp8")};
    grid.kv = {nullptr};
    grid.tensor_parallel = {1};
    for (long long i = 1; i <= 64; ++i) grid.batch.push_back(i * 4);
    for (long long i = 0; i < 64; ++i) grid.context.push_back(1 + i * 2048);
    NullBuffer null_buffer;
    std::ostream null_stream(&null_buffer);
    double points = 0.0;
    for (auto _ : state) {
        report::SweepWriter writer(null_stream, report::SweepFormat::csv);
        scenarios::run_sweep(
            grid,
            [&](const scenarios::SweepPoint& point) {
                if (write) writer.write(point);
                benchmark::DoNotOptimize(point.prediction->decode.step_time);
                points += 1.0;
            },
            [](const scenarios::SweepSkip&) {});
    }
    state.counters["points_per_s"] = benchmark::Counter(points, benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK_CAPTURE(sweep_points, evaluate_only, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(sweep_points, evaluate_and_write_csv, true)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(decode_step, llama_3_1_8b_h100, "h100-sxm", "llama-3.1-8b", "bf16");
BENCHMARK_CAPTURE(decode_step, deepseek_v3_h200_fp8, "h200-sxm", "deepseek-v3", "fp8");
BENCHMARK_CAPTURE(decode_step, gemma_3_27b_rtx4090_q4km, "rtx-4090", "gemma-3-27b", "q4_k_m");
BENCHMARK_CAPTURE(full_prediction, step_context_4096, decodesim::engine::Workload::step(1.0, 4096.0));
BENCHMARK_CAPTURE(full_prediction, request_1000_in_500_out, decodesim::engine::Workload::request(8.0, 1000.0, 500.0));
BENCHMARK(evaluator_construction);

BENCHMARK_MAIN();
