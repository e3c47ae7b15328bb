// Engine speed: one decode-step evaluation is what sweeps call millions of times. Each engine
// figure sits beside a minimal formula written here, so docs/performance.md can quote ratios.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <ostream>
#include <streambuf>

#include "core/registry.hpp"
#include "engine/prediction.hpp"
#include "profiles/catalog.hpp"
#include "report/explore/sweep_writer.hpp"
#include "cli/runtime_option.hpp"
#include "serving/plan.hpp"
#include "serving/simulation.hpp"
#include "explore/sweep.hpp"

namespace {

using namespace decodesim;

// Built by the one resolver every command uses.
engine::OperatingPoint load(const char* hardware, const char* model, const char* weights) {
    const profiles::Catalog catalog(DECODESIM_ROOT);
    engine::DeploymentChoice choice;
    choice.weights = core::find_named(core::weight_formats(), weights);
    choice.runtime = catalog.runtime("vllm");
    return engine::resolve_operating_point(catalog.hardware(hardware), catalog.model(model), choice,
                                           engine::Workload::step(1.0, 4096.0));
}

// The floor to compare against: a per-operator roofline in its barest form. Each of 13 operators
// has bytes = a + b * batch + c * batch * context and flops = d * batch + e * batch * context,
// with precomputed reciprocal rates; time = sum of max(bytes / BW, flops / F) + kernels * overhead.
struct MinimalOperator {
    double bytes_fixed, bytes_per_token, bytes_per_cached, flops_per_token, flops_per_cached;
    double seconds_per_byte, seconds_per_flop, kernels;
};

std::array<MinimalOperator, engine::kOperatorCount> minimal_operators(const engine::Evaluator& evaluator) {
    // Coefficients from the engine's own costs at two batches and two contexts, so both do the same work.
    const auto& cost = evaluator.cost_model();
    const auto at = [&](double batch, double context) { return engine::decode_step_costs(cost, batch, context); };
    const auto base = at(1, 1), batch2 = at(2, 1), context2 = at(2, 2);
    std::array<MinimalOperator, engine::kOperatorCount> ops{};
    for (std::size_t i = 0; i < ops.size(); ++i) {
        const double per_cached_bytes = (context2.operators[i].bytes - batch2.operators[i].bytes).value / 2.0;
        const double per_token_bytes = (batch2.operators[i].bytes - base.operators[i].bytes).value - per_cached_bytes;
        const double per_cached_flops = (context2.operators[i].flops - batch2.operators[i].flops).value / 2.0;
        ops[i] = {base.operators[i].bytes.value - per_token_bytes - per_cached_bytes, per_token_bytes, per_cached_bytes,
                  (batch2.operators[i].flops - base.operators[i].flops).value - per_cached_flops, per_cached_flops,
                  evaluator.rates().seconds_per_byte[i].value, evaluator.rates().seconds_per_flop[i].value,
                  base.operators[i].kernels};
    }
    return ops;
}

void minimal_formula(benchmark::State& state) {
    const auto point = load("h100-sxm", "llama-3.1-8b", "bf16");
    const engine::Evaluator evaluator(point);
    const auto ops = minimal_operators(evaluator);
    const double overhead = evaluator.rates().kernel_overhead.value;
    double batch = 1.0;
    for (auto _ : state) {
        double time = 0.0;
        for (const auto& op : ops) {
            const double cached = batch * 4096.0;
            const double bytes = op.bytes_fixed + op.bytes_per_token * batch + op.bytes_per_cached * cached;
            const double flops = op.flops_per_token * batch + op.flops_per_cached * cached;
            time += std::max(bytes * op.seconds_per_byte, flops * op.seconds_per_flop) + op.kernels * overhead;
        }
        benchmark::DoNotOptimize(time);
        batch = batch >= 256.0 ? 1.0 : batch + 1.0;
    }
    state.SetItemsProcessed(state.iterations());
}

// The engine's fast path: the step time, every operator costed and timed, no per-operator report.
void decode_step_time(benchmark::State& state, const char* hardware, const char* model, const char* weights) {
    const auto point = load(hardware, model, weights);
    const engine::Evaluator evaluator(point);
    double batch = 1.0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(evaluator.decode_step_time(batch, 4096.0));
        batch = batch >= 256.0 ? 1.0 : batch + 1.0;
    }
    state.SetItemsProcessed(state.iterations());
}

// Every operator's time kept (what `predict` shows).
void decode_step(benchmark::State& state) {
    const auto point = load("h100-sxm", "llama-3.1-8b", "bf16");
    const engine::Evaluator evaluator(point);
    double batch = 1.0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(evaluator.decode_step(batch, 4096.0).totals.time);
        batch = batch >= 256.0 ? 1.0 : batch + 1.0;
    }
    state.SetItemsProcessed(state.iterations());
}

void full_prediction(benchmark::State& state, const engine::Workload& workload, engine::Detail detail) {
    const auto point = load("h100-sxm", "llama-3.1-8b", "bf16");
    const engine::Evaluator evaluator(point);
    for (auto _ : state) benchmark::DoNotOptimize(evaluator.predict(workload, detail).decode.step_time);
    state.SetItemsProcessed(state.iterations());
}

void evaluator_construction(benchmark::State& state) {
    const auto point = load("h100-sxm", "deepseek-v3", "fp8");
    for (auto _ : state) {
        const engine::Evaluator evaluator(point);
        benchmark::DoNotOptimize(evaluator.cost_model().qkv.bytes);
    }
}

// Discards what it is given, so the benchmark measures formatting, not the disk.
class NullBuffer : public std::streambuf {
protected:
    std::streamsize xsputn(const char*, std::streamsize count) override { return count; }
    int overflow(int character) override { return character; }
};

// The sweep of docs/performance.md: 1 device x 1 model x 256 batches x 4,096 contexts =
// 1,048,576 points, evaluated and (optionally) written as CSV, one core.
void sweep_million(benchmark::State& state, bool write) {
    const profiles::Catalog catalog(DECODESIM_ROOT);
    explore::SweepGrid grid;
    grid.hardware = {catalog.hardware("h100-sxm")};
    grid.models = {catalog.model("llama-3.1-8b")};
    grid.weights = {core::find_named(core::weight_formats(), "bf16")};
    grid.kv = {nullptr};
    grid.tensor_parallel = {1};
    for (long long i = 1; i <= 256; ++i) grid.batch.push_back(i);
    for (long long i = 0; i < 4096; ++i) grid.context.push_back(1 + i * 32);
    NullBuffer null_buffer;
    std::ostream null_stream(&null_buffer);
    double points = 0.0;
    for (auto _ : state) {
        report::SweepWriter writer(null_stream, report::SweepFormat::csv);
        explore::run_sweep(
            grid,
            [&](const explore::SweepPoint& point) {
                if (write) writer.write(point);
                benchmark::DoNotOptimize(point.prediction->decode.step_time);
                points += 1.0;
            },
            [](const explore::SweepSkip&) {});
    }
    state.counters["points_per_s"] = benchmark::Counter(points, benchmark::Counter::kIsRate);
}

// Requests simulated per second: 100,000 requests (lognormal lengths around 1000 in, 200 out) at
// 20 per second on one H100, about 370,000 passes.
void serve_requests(benchmark::State& state) {
    const auto point = load("h100-sxm", "llama-3.1-8b", "bf16");
    const engine::Evaluator evaluator(point);
    workload::StreamSpec spec;
    spec.arrivals.rate_per_s = 20.0;
    spec.prompt = {workload::LengthDistribution::Kind::lognormal, 1000.0, 500.0, std::nullopt};
    spec.output = {workload::LengthDistribution::Kind::lognormal, 200.0, 100.0, std::nullopt};
    spec.requests = 100'000;
    const auto requests = workload::generate_requests(spec);
    double simulated = 0.0;
    for (auto _ : state) {
        const auto result = serving::simulate_serving(evaluator, requests, {}, {});
        benchmark::DoNotOptimize(result.ttft_s.p99);
        simulated += static_cast<double>(requests.size());
    }
    state.counters["requests_per_s"] = benchmark::Counter(simulated, benchmark::Counter::kIsRate);
}

// "What should we buy?" over every shipped device: the plan docs/serving.md times from the
// command line (Llama-3.1-8B, 20 requests/s of 1000 in and 200 out, TTFT p99 1 s and TPOT p99
// 50 ms; bf16, tp 1-8, one or two stages, disaggregated pools considered, every option verified
// by 2,000 simulated requests; every shipped device, as `--segments all`), built as plan_command builds
// it. The budget is 5 s on one core.
void plan_every_device(benchmark::State& state) {
    const profiles::Catalog catalog(DECODESIM_ROOT);
    const profiles::ModelProfile model = catalog.model("llama-3.1-8b");
    std::vector<profiles::HardwareProfile> candidates;
    for (const auto& id : catalog.hardware_ids()) candidates.push_back(catalog.hardware(id));
    serving::PlanWorkload workload;
    workload.rate_per_s = 20.0;
    workload.prompt_tokens = 1000.0;
    workload.output_tokens = 200.0;
    serving::ServiceTargets targets;
    targets.ttft_s = 1.0;
    targets.tpot_s = 0.05;
    serving::PlanSpace space;
    space.weights = {core::find_named(core::weight_formats(), "bf16")};
    space.kv = {nullptr};
    space.runtime = cli::runtime_chooser(catalog, std::nullopt);
    space.verify = serving::VerifySettings{};
    for (auto _ : state) {
        const serving::Plan plan = serving::plan_deployments(model, candidates, workload, targets, space,
                                                             serving::PlanOrder::cost);
        benchmark::DoNotOptimize(plan.options.size());
    }
    state.counters["devices"] = static_cast<double>(candidates.size());
}

}  // namespace

BENCHMARK(minimal_formula);
BENCHMARK_CAPTURE(decode_step_time, llama_3_1_8b_h100, "h100-sxm", "llama-3.1-8b", "bf16");
BENCHMARK_CAPTURE(decode_step_time, deepseek_v3_h200_fp8, "h200-sxm", "deepseek-v3", "fp8");
BENCHMARK_CAPTURE(decode_step_time, gemma_3_27b_rtx4090_q4km, "rtx-4090", "gemma-3-27b", "q4_k_m");
BENCHMARK(decode_step);
BENCHMARK_CAPTURE(full_prediction, step_figures, decodesim::engine::Workload::step(1.0, 4096.0),
                  decodesim::engine::Detail::figures);
BENCHMARK_CAPTURE(full_prediction, step_full, decodesim::engine::Workload::step(1.0, 4096.0),
                  decodesim::engine::Detail::full);
BENCHMARK_CAPTURE(full_prediction, request_1000_in_500_out, decodesim::engine::Workload::request(8.0, 1000.0, 500.0),
                  decodesim::engine::Detail::figures);
BENCHMARK(evaluator_construction);
BENCHMARK_CAPTURE(sweep_million, evaluate_only, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(sweep_million, evaluate_and_write_csv, true)->Unit(benchmark::kMillisecond);

BENCHMARK(serve_requests)->Unit(benchmark::kMillisecond);
BENCHMARK(plan_every_device)->Unit(benchmark::kMillisecond)->Iterations(3);

BENCHMARK_MAIN();
