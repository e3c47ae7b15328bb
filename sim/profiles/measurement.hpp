#pragma once
// One public measurement (validation/measurements.csv) as plain data: what was measured, under
// which stated conditions, from which source.

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/backend.hpp"

namespace decodesim::profiles {

// What a row measured.
enum class Metric {
    decode_tokens_per_s_per_stream,
    decode_tokens_per_s_total,
    prefill_tokens_per_s,
    ttft_s,
    tpot_s,
    e2e_latency_s,
};

struct MetricInfo {
    Metric metric;
    std::string_view name;  // as written in the CSV
    bool lower_is_better;   // a time, not a rate
};

inline constexpr std::array kMetrics{
    MetricInfo{Metric::decode_tokens_per_s_per_stream, "decode_tokens_per_s_per_stream", false},
    MetricInfo{Metric::decode_tokens_per_s_total, "decode_tokens_per_s_total", false},
    MetricInfo{Metric::prefill_tokens_per_s, "prefill_tokens_per_s", false},
    MetricInfo{Metric::ttft_s, "ttft_s", true},
    MetricInfo{Metric::tpot_s, "tpot_s", true},
    MetricInfo{Metric::e2e_latency_s, "e2e_latency_s", true},
};

constexpr const MetricInfo& metric_info(Metric metric) { return kMetrics[static_cast<std::size_t>(metric)]; }

// The most requests a replayed row (a request rate, a closed loop) may ask for: each is simulated,
// so a bound keeps a hostile file from asking for hours.
inline constexpr long long kMaxReplayedRequests = 100000;
// The most clients a closed-loop row may state, for the same reason.
inline constexpr long long kMaxReplayedClients = 100000;

struct Measurement {
    int line = 0;  // in the CSV file, for messages
    std::string id;
    std::string hardware;
    std::string model;
    std::string weights;  // empty: not stated
    std::string kv;       // empty: not stated
    std::string engine;
    // The runtime profile that prices the row ("llama.cpp@2024-06", "vllm@0.6", "sglang"): its
    // kernels, graph and defaults (runtime_profiles/). Read as an id; resolved by the caller.
    std::string runtime;
    std::optional<double> batch;
    std::optional<double> prompt;
    std::optional<double> output;
    std::optional<double> context;
    Metric metric = Metric::decode_tokens_per_s_per_stream;
    double value = 0.0;
    std::string source;
    // Free text for people (how the figure was read, the build, the flags); no code reads it. The
    // conditions a reader acts on are the `conditions` column's keys, below.
    std::string notes;
    // The `conditions` column: "key=value" pairs separated by "; " (docs/validation.md). Each
    // member below is one key; an unstated key leaves the default written here.
    int devices = 1;  // "devices=N"
    // "ep=N": the routed experts spread over N of the devices (expert parallelism); unset: 1, each
    // expert split over the tensor-parallel devices. N divides `devices`.
    int expert_parallel = 1;
    // "dp-attention=N": N attention replicas, each with its share of the batch (DP attention, which
    // MLA models run because their one latent head cannot be split); the devices divided by N split
    // each replica's heads. Unset: 1, attention split over every device. N divides `devices`.
    int attention_data_parallel = 1;
    // "clocks=peak|sustained": the clocks the benchmark ran at. A short run (llama-bench, one
    // request, a few hundred iterations) sits near the peak clock; a run of minutes settles at the
    // sustained one, as every MLPerf result does (its runs last at least ten minutes by rule,
    // docs/validation.md). Unset: peak.
    bool sustained_clocks = false;
    // "backend=cuda|rocm|metal|vulkan|sycl|other": the backend the benchmark's build ran on, where
    // it is not the device's native one (Vulkan on any vendor, SYCL builds); unset: the native one.
    std::optional<core::Backend> backend;
    // "split=layer": the devices each hold a contiguous block of layers and a token passes through
    // them in turn (llama.cpp's default --split-mode layer): pipeline stages, not tensor parallelism.
    bool layer_split = false;
    // "speculative=METHOD" (mtp, eagle, draft): the run decoded speculatively, with an acceptance
    // the source does not state per row. Predicted as plain decoding (reported, and named when it
    // beats the bound), never read by a fit: its rate is not the kernels' rate.
    std::string speculative;
    // "arrivals=staggered|together|closed": staggered is a closed-loop benchmark whose many requests
    // keep the stated concurrency, so a request arrives as another finishes and its first token
    // waits for its own prefill (priced in closed form); unset or together: the stated
    // concurrency's requests arrived together, and each first token waits for the whole batch's
    // prefill. closed: the same closed loop replayed request by request, as `vllm bench serve
    // --max-concurrency` and SGLang's bench_serving run it (closed_loop below).
    bool staggered_arrivals = false;
    // "arrivals=closed": `batch` clients, each sending its next request when its last one finished,
    // no think time; replayed by the serving simulation's closed loop (`requests` of them, unset
    // 1000), every figure the run's own as the benchmark's client measures it. Never read by a fit
    // of the kernels' factors: it is read by `calibrate`'s fit of the serving costs.
    bool closed_loop = false;
    // "timed=run|decode", run only on a decode_tokens_per_s_total row and not with
    // "arrivals=staggered": the figure is the stated batch's output tokens over the time of the
    // whole run, its prefill included, as a static batch benchmark times it (TensorRT-LLM's
    // gptSessionBenchmark, lmdeploy's profile_generation, optimum-habana's run_generation); unset
    // or decode: the generation rate of the decode passes alone (llama-batched-bench's S_TG).
    // Without a stated batch (offline) the figure is always the whole run's.
    bool whole_run_throughput = false;
    // "attention=fused|unfused": fused (true) ran one flash-attention kernel; unfused (false) wrote
    // the score matrix to memory (llama.cpp with flash attention off, llama-bench's default before
    // it became "auto"). Unset: the runtime profile's own default.
    std::optional<bool> flash_attention;
    // "split=row": llama.cpp's --split-mode row, each matrix split by rows across the devices and
    // the partial results gathered to the main device after every product (the default before
    // llama.cpp PR #4606, 2023-12). Not modelled: predicted as tensor parallelism.
    bool row_split = false;
    // "graphs=on|off": off, the run launched every kernel from the host one by one, without
    // capturing them in CUDA (or HIP) graphs (vLLM before PR #1926 of 2023-12, or with
    // --enforce-eager, where each launch passes through Python), so a small batch waits on the
    // host: predicted with every pass eager (engine::DeploymentChoice::cuda_graphs_off), from the
    // runtime profile's ops a block; read by no fit (fit/calibration.cpp). Unset: on.
    bool eager_launch = false;
    // "client=in_process|http": in_process, the benchmark's client ran in the engine's own process
    // (MLPerf's LoadGen, trtllm-bench, vLLM's offline LLM class), so no request took the runtime's
    // request path (engine::DeploymentChoice::in_process); unset or http: it did, as a client of
    // the API server. Read only by replayed rows (the path is part of a served request's time).
    bool in_process = false;
    // "qps=R": requests arrived at R per second, Poisson (as `vllm bench serve`,
    // sglang.bench_serving and Triton's load generators draw them), not at a fixed concurrency.
    // Predicted by the serving simulation (scenarios/serving.hpp), never read by a fit.
    std::optional<double> request_rate;
    // Whether the row is a serving run the simulation replays request by request (at a request rate
    // or in a closed loop) rather than one operating point.
    bool replayed() const { return request_rate.has_value() || closed_loop; }
    // "requests=N", on a request-rate or closed-loop row only: how many the benchmark sent; unset: 1000.
    std::optional<long long> requests;
    // "latency=median|mean", on a request-rate or closed-loop row only: the statistic of the latency
    // reported over the requests; unset: mean.
    bool median_latency = false;
    // "lengths=fixed": every request had the stated prompt and output lengths, not lengths drawn
    // from a dataset or a range.
    bool fixed_lengths = false;
    // "lengths=dataset": each request carried a conversation dataset's own lengths (ShareGPT), of
    // which the row states the means only: replayed with the spread workload::dataset_lengths
    // gives, since fixed lengths would keep a closed loop's clients in step.
    bool dataset_lengths = false;
    // Replayed rows read from a benchmark's result (calibrate): each request's prompt and output
    // tokens in the order the client sent them, where the result lists them (SGLang's
    // bench_serving --output-details, vllm bench serve --save-detailed: input_lens, output_lens);
    // or the range each was drawn from, uniformly, where the result states its random dataset's
    // range (low, high in tokens). Empty, unset: as the flags above say.
    std::vector<std::pair<long long, long long>> request_lengths;
    std::optional<std::pair<double, double>> prompt_range;
    std::optional<std::pair<double, double>> output_range;
    // Whether the replay draws its lengths (a dataset's spread or a range) rather than fixing them.
    bool drawn_lengths() const { return dataset_lengths || prompt_range || output_range; }
    // "gpu-cores=K": the device's GPU had K cores (Apple silicon comes binned: an M3 Max with 30 or
    // 40); a row whose K is not the profile's "(K-core GPU)" was measured on another chip.
    std::optional<int> gpu_cores;
};

// The metric's name, with "_at_request_rate" appended for a row measured at a request rate and
// "_in_closed_loop" for one replayed as a closed loop: the summaries keep such rows apart, because
// throughput below saturation is the offered load and latency includes queueing and the request
// path, neither what one operating point measures.
std::string metric_label(const Measurement& m);
// Every label metric_label gives, in report order: each metric at a stated operating point, then
// each at a request rate, then each in a closed loop.
std::vector<std::string> metric_labels();

// The conditions a row states that the engine does not model (speculative decoding, a row
// split), each as a phrase for a report; empty when the engine models the run.
// Such a row is predicted and its error reported, but no fit reads it: its rate is not the rate
// of the kernels the presets describe.
std::vector<std::string> unmodelled_conditions(const Measurement& m);

}  // namespace decodesim::profiles
