#pragma once
// The flags that name an operating point, shared by every command that evaluates one: the same
// names, help and defaults everywhere, and one resolver from them to an engine::OperatingPoint.

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "cli/io.hpp"
#include "engine/memory.hpp"
#include "engine/operating_point.hpp"
#include "profiles/catalog.hpp"
#include "report/predict_json.hpp"
#include "workload/workload_scenario.hpp"

namespace decodesim::cli {

inline constexpr long long kMaxBatch = core::kMaxBatch;
inline constexpr long long kMaxTokens = core::kMaxTokens;
inline constexpr int kMaxTensorParallel = 4096;
inline constexpr int kMaxSpecLength = 64;
// The highest board power a limit may name: above any single device we know (1.4 kW parts) by far.
inline constexpr double kMaxPowerLimitWatts = 100'000.0;
inline constexpr long long kDefaultContext = 1024;

// What to run and how: --hardware --model --weights --kv --activation --runtime --tp.
// Unset formats take the resolver's defaults (engine/operating_point.hpp).
struct DeploymentOptions {
    std::string hardware;
    std::string model;
    std::optional<std::string> weights;  // unset: bf16
    std::optional<std::string> kv;       // unset: the activation datatype
    std::optional<std::string> activation;  // unset: bf16, or fp16 where the device or format needs it
    std::optional<std::string> runtime;  // a runtime build (runtime_profiles/) or a profile file; unset: the device's default
    std::optional<std::string> backend;  // unset: the device's native backend
    int tensor_parallel = 1;
    int pipeline_parallel = 1;
    int expert_parallel = 1;
    int attention_data = 1;
    bool kv_offload = false;
    std::optional<std::string> draft;  // a draft model id or path, or "mtp" for the model's own heads
    int spec_length = 4;
    std::optional<double> acceptance;
    std::optional<double> accept_length;  // or the mean tokens a verification step yields, as logs print it
    std::string clocks = "sustained";  // or peak
    std::optional<double> power_limit_watts;
    bool in_process = false;  // serve's --in-process (engine::DeploymentChoice::in_process)
    int api_servers = 1;      // serve's --api-servers (engine::DeploymentChoice::api_servers)
    std::string cuda_graphs = "on";  // --cuda-graphs on|off; off: engine::DeploymentChoice::cuda_graphs_off
};

// At which load: --batch and --context, or --batch --prompt --output, or a --scenario's mean
// request (explicit --context or --prompt/--output override it).
struct WorkloadOptions {
    long long batch = 1;
    std::optional<long long> context;  // unset: kDefaultContext
    std::optional<long long> prompt;
    std::optional<long long> output;
    std::optional<std::string> scenario;
    long long shared_prefix = 0;  // prompt tokens every stream shares, found in the prefix cache
    long long images = 0;         // images in each prompt (a vision-language model)
    std::optional<long long> image_size;  // pixels a side; unset: the model's vision encoder's default

    // `max_context`: the model's, to which a scenario's mean prompt is truncated (prompt + output).
    engine::Workload workload(std::optional<std::int64_t> max_context = std::nullopt) const;
    const workload::WorkloadScenario* named_scenario() const;  // null when none was given
    // `workload` with --images added for `model` (refused for a model without a vision encoder).
    engine::Workload with_images(engine::Workload workload, const profiles::ModelProfile& model) const;
};

struct PointOptions {
    DeploymentOptions deployment;
    WorkloadOptions workload;
};

void add_deployment_options(CLI::App& command, DeploymentOptions& options);
void add_workload_options(CLI::App& command, WorkloadOptions& options);
void add_point_options(CLI::App& command, PointOptions& options);

// Help texts, shared with the list-valued flags of `sweep`.
namespace help {
inline constexpr const char* kHardware = "Hardware id or path to a profile YAML";
inline constexpr const char* kModel = "Model id, profile YAML, config.json, .gguf file, model folder, or Hugging Face repo id (ORG/NAME, read from the local hub cache)";
inline constexpr const char* kWeights = "Weight format (default bf16; docs/quantization.md)";
inline constexpr const char* kInProcess =
    "The clients run in the engine's own process (MLPerf LoadGen, trtllm-bench, vLLM's offline LLM): no API server, so "
    "the runtime profile's request path is not taken (docs/serving.md)";
inline constexpr const char* kApiServers =
    "The front end's processes each instance runs (vLLM's --api-server-count): requests are taken in and tokens "
    "streamed that many at a time (docs/serving.md, \"The time a client sees\")";
inline constexpr const char* kKv = "KV-cache format (default: the activation datatype)";
inline constexpr const char* kActivation = "Activation datatype: bf16, fp16 or fp32 (default: bf16, fp16 where needed)";
inline constexpr const char* kBackend =
    "The interface the runtime's kernels run on: cuda, rocm, metal, vulkan, sycl or other (default: the device's "
    "vendor's own; it sets the compute rate the runtime reaches, docs/model.md \"Backends\")";
inline constexpr const char* kRuntime =
    "Software stack and build: vllm, vllm@0.6, sglang, llama.cpp, llama.cpp@2024-06, tensorrt-llm@0.17, mlx, ideal, ... "
    "(decodesim profiles list runtimes), or a runtime profile path.yaml (docs/profiles.md); default: vllm, or llama.cpp "
    "on a Metal device (Apple)";
inline constexpr const char* kTensorParallel = "Tensor-parallel degree";
inline constexpr const char* kPipelineParallel = "Pipeline stages (layers split into contiguous blocks; docs/model.md)";
inline constexpr const char* kExpertParallel = "Devices the routed experts of a stage are spread over (MoE; divides tp x dp-attention)";
inline constexpr const char* kAttentionData = "Attention replicas per stage, each with its share of the batch (MoE; needs --ep tp x dp-attention)";
inline constexpr const char* kCudaGraphs =
    "on: the runtime's own graphs (its prompt passes may still run eagerly); off: every pass dispatched op by op "
    "from the host, as vLLM --enforce-eager or TensorRT-LLM's PyTorch backend before 1.0 (docs/model.md, \"Eager passes\")";
inline constexpr const char* kKvOffload = "Let the KV cache spill to CPU memory, read back over the profile's host_link each step";
inline constexpr const char* kDraft = "Speculative decoding: a draft model id or path, or mtp for the model's multi-token-prediction heads";
inline constexpr const char* kSpecLength = "Draft tokens per verification step (with --draft; default 4)";
inline constexpr const char* kAcceptance = "Chance each draft token is accepted, given the ones before it were (with --draft; 0 to 1)";
inline constexpr const char* kAcceptLength =
    "Or the mean tokens a verification step yields, accepted drafts plus its own, as SGLang's \"Accept length\" and "
    "vLLM's \"Mean acceptance length\" print it (with --draft; 1 to --spec-length + 1)";
inline constexpr const char* kClocks =
    "sustained (what the device holds under long load at its default power) or peak (the datasheet's clock); docs/clocks.md";
inline constexpr const char* kPowerLimit = "Board power limit in W (sets the sustained clock; within the profile's range)";
inline constexpr const char* kBatch = "Concurrent sequences";
inline constexpr const char* kContext = "Tokens in each sequence's cache (default 1024)";
inline constexpr const char* kPrompt = "Prompt tokens of a request";
inline constexpr const char* kSharedPrefix =
    "Leading prompt tokens every stream shares, already in the prefix cache: prefill skips them, the cache holds them once";
inline constexpr const char* kOutput = "Output tokens of a request";
inline constexpr const char* kScenario =
    "A named workload: chat, code, summarize, agent or batch (docs/scenarios.md); explicit flags override it";
}  // namespace help

// "h100-sxm:8" -> ("h100-sxm", 8): an item of a --hardware list with the devices it spans (its
// tensor parallelism); none after the id: unset. UsageError naming `flag` for a count that is no
// whole number from 1 to kMaxTensorParallel.
std::pair<std::string, std::optional<int>> hardware_with_devices(const std::string& item, const std::string& flag);

// Names to the engine's values; UsageError with a suggestion for an unknown name.
const core::WeightFormat& weight_format_named(const std::string& name);
const core::KvFormat& kv_format_named(const std::string& name);
core::Datatype activation_named(const std::string& name);
engine::ClockCondition clock_condition_named(const std::string& name);
engine::ClockChoice clock_choice(const std::string& clocks, std::optional<double> power_limit_watts);
// The shared flags as a choice on `hardware` (the runtime: --runtime's, else the device's default).
engine::DeploymentChoice deployment_choice(const profiles::Catalog& catalog, const DeploymentOptions& options,
                                           const profiles::HardwareProfile& hardware);

// The one resolver every command uses: loads the profiles and resolves the deployment and the
// workload. Throws InputError for bad profiles or a deployment the device cannot run, UsageError
// for unknown names. With --verbose, logs the files loaded and the deployment resolved.
engine::OperatingPoint resolve_point(const profiles::Catalog& catalog, const DeploymentOptions& deployment,
                                     const engine::Workload& workload, Io io);
engine::OperatingPoint resolve_point(const profiles::Catalog& catalog, const PointOptions& options, Io io);
// The same without the warnings about the point (memory that does not fit, an unmeasured build):
// for a caller that answers those itself (predict --gpu-layers places layers off the device).
engine::OperatingPoint resolve_point_quietly(const profiles::Catalog& catalog, const DeploymentOptions& options,
                                             const engine::Workload& workload, Io io);
// The same with the hardware and the model loaded already (the Python module's objects): the
// catalog still resolves the runtime and a draft model by name.
engine::OperatingPoint resolve_point(const profiles::Catalog& catalog, profiles::HardwareProfile hardware,
                                     profiles::ModelProfile model, const DeploymentOptions& deployment,
                                     const engine::Workload& workload, Io io);

// The limits the command line's flags check (CLI11's Range), for callers that fill the options
// without a command line (the Python module): a UsageError naming the flag when a value is out of
// range or a combination is refused (--prompt without --output, --context with --prompt).
void check_option_limits(const DeploymentOptions& deployment);
void check_option_limits(const WorkloadOptions& workload);

// report::conditions_of(point), with the scenario the workload came from.
report::Conditions point_conditions(const engine::OperatingPoint& point, const WorkloadOptions& workload);

void warn(Io io, const std::string& message);

// Warns (once per run) when `context_tokens` is beyond the model's max_position_embeddings
// (engine::context_warning): every command that takes a context or a prompt calls it.
void warn_beyond_context(Io io, const profiles::ModelProfile& model, double context_tokens);

// Warns (once per run) when not even one stream of the point's workload fits in memory, naming the
// cause (engine::memory_problem): the weights alone, or one stream's KV cache beside them.
void warn_if_no_stream_fits(Io io, const engine::OperatingPoint& point);

// The memory footprint of one stream of the point's workload (max_batch 0: not one fits).
engine::MemoryFootprint one_stream_memory(const engine::OperatingPoint& point);

}  // namespace decodesim::cli
