#pragma once
// The scheduler's limits a serving run uses: what the user set, else the runtime profile's defaults
// on that device (runtime_profiles/*.yaml, `scheduler:`), so `serve --runtime sglang` schedules as
// SGLang starts and vLLM V1 takes its larger budget on an H100 (docs/serving.md, "Scheduler").

#include <cstdint>
#include <optional>
#include <string>

#include "engine/prediction.hpp"
#include "engine/runtime.hpp"
#include "profiles/hardware_profile.hpp"

namespace decodesim::serving {

using SchedulerLimits = engine::SchedulerLimits;

// What a user set of the scheduler's limits; an unset member takes the runtime's default.
struct SchedulerChoice {
    std::optional<long long> max_sequences;
    std::optional<long long> max_batched_tokens;
    std::optional<long long> block_tokens;
    std::optional<bool> chunked_prefill;
    std::optional<bool> prefix_caching;
    std::optional<bool> separate_prefill;
    std::optional<bool> reserve_whole_request;
};

// `choice` over the runtime's defaults on `hardware` (engine::SchedulerDefaults::on_device); without
// chunked prefill and with no budget set by the user, a runtime that raises its budget to the
// model's context (SchedulerDefaults::unchunked_budget_is_context) holds `model_context` tokens a pass.
// A deployment that decodes speculatively (`speculating`) runs the runtime's own limit on sequences
// for that, where it states one (SchedulerDefaults::speculative_max_sequences) and the user set none.
SchedulerLimits resolve_scheduler(const SchedulerChoice& choice, const engine::RuntimeProfile& runtime,
                                  const profiles::HardwareProfile& hardware, std::optional<std::int64_t> model_context,
                                  bool speculating = false);

// The limits on `deployment`: where each attention replica schedules alone
// (SchedulerLimits::limits_per_attention_replica, vLLM's data-parallel ranks), that many times the
// runtime's; where the runtime sizes its cap on running requests from its cache
// (SchedulerLimits::sequences_from_cache, SGLang), the cap its cache gives there, each attention
// replica's from its own share; else `limits` as they are. Every caller that runs or plans a
// deployment passes its limits through here once.
SchedulerLimits limits_on_deployment(SchedulerLimits limits, const engine::Evaluator& deployment);

// What `choice` leaves of the runtime's limits, resolved on `deployment`'s device, model and
// speculation and applied to the deployment (resolve_scheduler, then limits_on_deployment): the
// limits one run of that deployment serves under.
SchedulerLimits limits_for(const SchedulerChoice& choice, const engine::Evaluator& deployment);

// "1024 sequences, 8192 tokens a pass, 16-token blocks, chunked prefill, prefix caching": for the
// line a report prints under its results.
std::string describe_scheduler(const SchedulerLimits& limits);

// How the scheduler works beyond its numbers and switches, each part after ", " (empty when it
// works as vLLM's): prompts in passes of their own, whole-request admission, data-parallel
// schedulers. The tail of describe_scheduler and of serve's scheduler line.
std::string scheduler_traits(const SchedulerLimits& limits);

}  // namespace decodesim::serving
