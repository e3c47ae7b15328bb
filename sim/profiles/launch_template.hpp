#pragma once
// How a runtime build is launched, as data (a runtime profile's `launch:` section, docs/profiles.md
// "Runtime profile"): the serving command, the flags that carry a planned deployment's layout,
// formats and scheduler limits, the roles of disaggregated instances and the load generator that
// checks it. Each runtime version states its own flags; report/serving/launch_command.hpp renders
// them for a plan, knowing no runtime by name.

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/enum_names.hpp"

namespace decodesim::profiles {

// When a flag or a note applies.
enum class LaunchCondition {
    always,
    tensor_parallel,     // more than one device in a tensor group
    pipeline_parallel,   // more than one stage
    attention_data,      // attention replicas (data-parallel attention)
    expert_parallel,     // the experts spread over the devices
    fp8_weights,         // weights a flag quantizes to fp8 at load time
    fp8_kv,              // an fp8 KV cache
    fp8_any,             // either
    no_prefix_caching,   // the plan ran without a prefix cache
    chunked_prefill,     // the plan splits prompts into chunks of a pass's budget
    no_chunked_prefill,  // the plan prefills each prompt whole
    incremental_admission,    // the plan's scheduler grows a sequence's cache as it decodes and preempts
    whole_request_admission,  // the plan's scheduler reserves each request's whole cache at admission
    disaggregated,       // prefill and decode pools
    closed_loop,         // the plan's load is a number of clients (--users)
    open_loop,           // the plan's load is a rate of arrivals (--rate)
    bursty,              // at a rate, its gaps gamma-distributed rather than Poisson (${burstiness} their shape)
    graphs_off,          // the plan turned CUDA graphs off: decode passes dispatched op by op, where the runtime replays graphs
    api_servers,         // more than one front-end process an instance (${api_servers} of them)
};
inline constexpr std::array<core::NamedValue<LaunchCondition>, 19> kLaunchConditionNames{{
    {LaunchCondition::always, "always"},
    {LaunchCondition::tensor_parallel, "tensor_parallel"},
    {LaunchCondition::pipeline_parallel, "pipeline_parallel"},
    {LaunchCondition::attention_data, "attention_data"},
    {LaunchCondition::expert_parallel, "expert_parallel"},
    {LaunchCondition::fp8_weights, "fp8_weights"},
    {LaunchCondition::fp8_kv, "fp8_kv"},
    {LaunchCondition::fp8_any, "fp8_any"},
    {LaunchCondition::no_prefix_caching, "no_prefix_caching"},
    {LaunchCondition::chunked_prefill, "chunked_prefill"},
    {LaunchCondition::no_chunked_prefill, "no_chunked_prefill"},
    {LaunchCondition::incremental_admission, "incremental_admission"},
    {LaunchCondition::whole_request_admission, "whole_request_admission"},
    {LaunchCondition::disaggregated, "disaggregated"},
    {LaunchCondition::closed_loop, "closed_loop"},
    {LaunchCondition::open_loop, "open_loop"},
    {LaunchCondition::bursty, "bursty"},
    {LaunchCondition::graphs_off, "graphs_off"},
    {LaunchCondition::api_servers, "api_servers"},
}};

// The placeholders a launch text may hold, each `${name}`: the model's repository, the layout
// (tensor group, stage devices, stages, attention replicas, expert group), the scheduler's limits,
// the weight format, the context all sequences hold together, the planned lengths, the load
// generator's load flags in vLLM's and SGLang's benchmark spelling (a rate or a concurrency, and a
// request count), and the load's parts for other generators (clients, rate, requests, and the
// gamma shape of a bursty rate's gaps, burstiness). For an
// orchestrator's manifest also: the engine's flags as a YAML list (engine_args), the instances
// (replicas: every instance, or the decode ones when disaggregated; prefill_replicas: 0 unless
// disaggregated), whether it is (disaggregated: true or false) and the devices of one instance;
// and the front-end processes an instance runs (api_servers).
inline constexpr std::array<std::string_view, 23> kLaunchPlaceholders{
    "model",    "tp",          "stage_devices", "pp",           "dp",         "ep",       "max_sequences",
    "max_batched_tokens", "weights", "total_context", "prompt", "output",     "load",     "users",
    "rate",     "requests",    "engine_args",   "replicas",     "prefill_replicas", "disaggregated", "devices",
    "burstiness", "api_servers"};

// `text` with each `${name}` replaced by `value(name)` (a std::optional<std::string>), or left as
// written where it gives none: the one reading of the placeholders, for the loader (which refuses
// a name it does not know) and for the renderer. An unterminated `${` has an empty name.
template <typename Value>
std::string fill_placeholders(std::string_view text, Value value) {
    std::string filled;
    std::size_t from = 0;
    for (std::size_t at = text.find("${"); at != std::string_view::npos; at = text.find("${", from)) {
        const std::size_t end = text.find('}', at);
        const std::size_t after = end == std::string_view::npos ? text.size() : end + 1;
        filled += text.substr(from, at - from);
        const std::optional<std::string> replaced =
            value(end == std::string_view::npos ? std::string_view() : text.substr(at + 2, end - at - 2));
        filled += replaced ? std::string_view(*replaced) : text.substr(at, after - at);
        from = after;
    }
    filled += text.substr(from);
    return filled;
}

struct LaunchPiece {
    LaunchCondition when = LaunchCondition::always;
    std::string text;
};

// A serving framework that runs the runtime's engine under its own front end (NVIDIA Dynamo): its
// worker command takes the engine's flags after its own head; its roles, front end, load
// generator and notes replace the engine's. `plan --emit NAME` asks for it by name.
struct Orchestrator {
    std::string name;
    std::string source;
    std::string serve;                   // the worker command and its model, before the engine's flags
    // A framework deployed from a file (llm-d's Helm values): the file's text, its name, the
    // commands that deploy it, and the engine flags the file sets itself (left out of
    // ${engine_args}: the chart passes --tensor-parallel-size from its own key). Empty manifest:
    // the worker command above.
    std::string manifest;
    std::string manifest_file;
    std::string install;
    std::vector<std::string> sets_flags;
    std::string prefill_role;
    std::string decode_role;
    std::string router;                  // the front end every request enters by, colocated or not
    std::string verify;
    std::vector<LaunchPiece> verify_flags;  // appended to verify, each when its condition holds
    std::vector<LaunchPiece> notes;
};

struct LaunchTemplate {
    std::string source;                 // where the flags come from (the runtime's CLI reference, its version)
    std::string serve;                  // the command and its model: "vllm serve ${model}"
    std::vector<LaunchPiece> flags;     // appended in order, each when its condition holds
    std::string prefill_role;           // disaggregated: appended to a prefill instance's command
    std::string decode_role;            // and to a decode instance's
    std::string router;                 // disaggregated: what sends each request to a prefill and a decode instance
    std::string verify;                 // the load generator replaying the plan against it
    std::vector<LaunchPiece> verify_flags;  // appended to verify, each when its condition holds
    std::vector<LaunchPiece> notes;     // what a flag cannot set, each when its condition holds
    std::vector<Orchestrator> orchestrators;
};

}  // namespace decodesim::profiles
