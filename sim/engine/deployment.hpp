#pragma once
// How a model is deployed: storage formats, the activation datatype, the software stack and the
// parallelism. Resolved once (operating_point.hpp); the engine never sees a name.

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "core/datatype.hpp"
#include "core/quantization.hpp"
#include "engine/clocks.hpp"
#include "engine/runtime.hpp"

namespace decodesim::engine {

// How one model instance is spread over devices (docs/model.md, "Parallelism"). Devices are
// placed tensor-innermost: a tensor group fills a scale-up domain first, then the attention
// replicas of a stage, then the pipeline stages, so the groups that talk every layer are the ones
// most likely to share a domain.
struct Parallelism {
    int tensor = 1;          // devices splitting every layer's attention heads and dense MLP
    int pipeline = 1;        // stages, each a contiguous block of layers; one micro-batch per stage
    int expert = 1;          // devices the routed experts of a stage are spread over (divides stage_devices)
    int attention_data = 1;  // attention replicas in a stage, each with its own share of the batch (MLA: DP attention)

    int stage_devices() const { return tensor * attention_data; }
    int devices() const { return stage_devices() * pipeline; }
    bool any() const { return devices() > 1; }
};

// Speculative decoding: a cheap drafter proposes `length` tokens, the model verifies them in one
// forward pass, and keeps the accepted prefix plus one token of its own (docs/model.md,
// "Speculative decoding").
struct Speculation {
    int length = 0;            // draft tokens per verification step; 0: no speculation
    double acceptance = 0.0;   // chance each draft token is accepted, given the ones before it were
    bool multi_token_heads = false;  // the model's own multi-token-prediction module drafts (no draft model)

    bool enabled() const { return length > 0; }
};

// The passes the host dispatches op by op (EagerPasses): those the runtime runs so, or every pass
// where the run turned graphs off.
struct EagerDispatch {
    bool prefill = false;  // passes carrying prompt tokens
    bool decode = false;   // decode-only passes

    bool any() const { return prefill || decode; }
};

struct Deployment {
    const core::WeightFormat* weights = nullptr;  // never null once resolved
    const core::KvFormat* kv = nullptr;           // never null once resolved
    core::Datatype activation = core::Datatype::bf16;
    // The runtime build (runtime_profiles/): its factors, kernels, cache sizing and scheduler.
    // Never null once resolved; read through runtime_profile().
    std::shared_ptr<const RuntimeProfile> runtime;
    core::Backend backend = core::Backend::cuda;  // the interface the runtime's kernels run on
    // The device's family (HardwareProfile::family()): which of the runtime's counted kernel
    // graphs hold (KernelGraph::families); empty: the runtime's graph as stated.
    std::string hardware_family;
    core::MemoryFamily hardware_memory = core::MemoryFamily::hbm;  // and its memory family (KernelGraph::memory)
    Parallelism parallelism;
    ClockState clocks;  // the shares of the listed peaks it runs at
    bool kv_offload = false;  // KV beyond device memory lives in CPU memory, read over the host link
    Speculation speculation;
    // The attention kernels it runs: the runtime's own, unless the run stated flash attention on
    // or off (DeploymentChoice::attention).
    AttentionKernels attention = AttentionKernels::fused;
    // The client runs in the engine's own process (DeploymentChoice::in_process).
    bool in_process = false;
    // The front end's processes an instance runs (DeploymentChoice::api_servers).
    int api_servers = 1;
    // The passes dispatched op by op: the runtime's, or all of them (DeploymentChoice::cuda_graphs_off).
    EagerDispatch eager;
    // The decode batch sizes the runtime captures as graphs on this device (CapturedGraphs::
    // on_device; engine/graph_capture.hpp), and whether a batch between two replays the next;
    // empty: not stated, every decode batch replays a graph of its own size.
    std::vector<long long> captured_batches;
    bool graph_padding = true;

    const RuntimeProfile& runtime_profile() const { return runtime ? *runtime : structural_runtime(); }
    // The runtime's kernel graph on this device: the counted one where it was read for the
    // device's family, the structural kernels elsewhere.
    KernelGraph kernel_graph() const {
        const KernelGraph* graph = runtime_profile().graph.on_family(hardware_family, hardware_memory);
        if (graph == nullptr) return KernelGraph{};
        KernelGraph chosen = *graph;
        chosen.other_families.clear();
        return chosen;
    }
    // The way a request takes between the client and the scheduler: the runtime's, or none for a
    // client in the engine's process.
    RequestPath request_path() const { return in_process ? RequestPath{} : runtime_profile().request_path; }
};

// What a user chose; unset members take the documented defaults when resolved.
struct DeploymentChoice {
    const core::WeightFormat* weights = nullptr;  // null: bf16
    const core::KvFormat* kv = nullptr;           // null: the activation datatype
    std::optional<core::Datatype> activation;     // unset: bf16, or fp16 where the device or the weights need it
    // Required: resolve_deployment refuses a choice without one (the catalog resolves a name,
    // profiles::Catalog::runtime; there is no built-in runtime).
    std::shared_ptr<const RuntimeProfile> runtime;
    std::optional<core::Backend> backend;  // unset: the device's native backend (core::native_backend)
    Parallelism parallelism;
    ClockChoice clocks;  // default: sustained clocks at the default board power
    bool kv_offload = false;
    Speculation speculation;
    // A run condition: flash attention stated on (fused) or off (unfused), as a measurement's
    // conditions state it; unset: the runtime's own default.
    std::optional<AttentionKernels> attention;
    // A run condition: the client calls the engine in its own process (MLPerf's LoadGen,
    // trtllm-bench, vLLM's offline LLM class), so no request passes through an API server and the
    // runtime's request path is not taken (docs/serving.md, "The time a client sees").
    bool in_process = false;
    // A run condition: no pass replays a captured CUDA (HIP) graph; the host dispatches every op
    // of every pass (vLLM --enforce-eager or before graphs, 2023-12; TensorRT-LLM's PyTorch
    // backend before 1.0 without use_cuda_graph). Its ops a block are the runtime profile's
    // eager_passes; a runtime that states none is refused (docs/model.md, "Eager passes").
    bool cuda_graphs_off = false;
    // The front end's processes an instance runs, each taking its share of the requests in and
    // streaming their tokens (vLLM's --api-server-count; docs/serving.md, "The time a client sees").
    int api_servers = 1;
};

// The name a deployment's runtime is shown by.
inline std::string_view runtime_label(const Deployment& deployment) { return deployment.runtime_profile().id; }

}  // namespace decodesim::engine
