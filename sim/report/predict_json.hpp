#pragma once
// predict's JSON document (schema in docs/cli.md): SI units only, snake_case keys with unit suffixes.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "engine/prediction.hpp"
#include "report/json_units.hpp"
#include "workload/workload_scenario.hpp"

namespace decodesim::report {

// What the user asked for, echoed so a JSON line stands on its own.
struct Conditions {
    std::string hardware;
    std::string model;
    std::string weights;
    std::string kv;
    std::string activation;
    int tensor_parallel = 1;
    std::string runtime;
    std::string backend;          // the interface its kernels run on (core::Backend)
    std::string clocks;           // engine::clock_label
    double compute_share = 1.0;   // of the listed peaks, at those clocks
    double memory_share = 1.0;
    std::optional<engine::Workload> workload;  // batch and context, or batch, prompt and output
    const workload::WorkloadScenario* scenario = nullptr;  // the named workload it came from, if any
    engine::Parallelism parallelism;  // tensor_parallel above is parallelism.tensor
    bool kv_offload = false;
    bool in_process = false;  // the client runs in the engine's process: no request path (serve --in-process)
    int api_servers = 1;      // the front end's processes an instance runs (serve --api-servers)
    // The host's time per op of a pass dispatched eagerly (engine::EagerDispatch); 0: every pass
    // replays a graph or runs compiled. every_pass_eager: decode passes too (graphs off).
    double eager_op_time_s = 0.0;
    bool every_pass_eager = false;
    std::string attention;  // "fused" or "unfused" (engine::AttentionKernels)
    // Whether the runtime build has measurements of its own (engine::RuntimeProfile::measured; the
    // ideal runtime is a bound and counts as measured), and where its figures come from.
    bool runtime_measured = true;
    std::string runtime_source;
    engine::Speculation speculation;
    std::string draft;  // the draft model's id, "mtp", or empty
};

// "tensor parallel 8, expert parallel 8, 2 pipeline stages": the parallelism beyond one device, in
// words (empty for one device).
std::string parallelism_text(const engine::Parallelism& parallelism);

// The conditions of an operating point, as every output (text, JSON, CSV, JSONL) records them.
Conditions conditions_of(const std::string& hardware_id, const std::string& model_id,
                         const engine::Deployment& deployment, std::optional<engine::Workload> workload = {});
Conditions conditions_of(const engine::OperatingPoint& point);

inline constexpr int kSchemaVersion = 1;

// The `conditions` block: formats, activation, tensor parallelism, runtime, and the workload
// when there is one (batch, and context_tokens or prompt_tokens and output_tokens).
nlohmann::json conditions_to_json(const Conditions& conditions);

// A named workload scenario as JSON: its lengths, arrivals and targets (the `scenario` member of
// `conditions`).
nlohmann::json scenario_to_json(const workload::WorkloadScenario& scenario);

// The start every JSON document shares: schema_version, hardware, model, and `conditions`; each
// command adds its own fields.
nlohmann::json document_for(const Conditions& conditions);

// schema_version alone: the start of a document about no one operating point (accuracy), and
// of document_for's.
nlohmann::json schema_document();

nlohmann::json prediction_to_json(const Conditions& conditions, const engine::Prediction& prediction,
                                  bool include_operators = true);

// `band`: the low and high estimates (docs/model.md, "Uncertainty band").
nlohmann::json band_to_json(const engine::Prediction& low, const engine::Prediction& high);

}  // namespace decodesim::report
