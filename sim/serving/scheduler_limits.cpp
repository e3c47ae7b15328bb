#include "serving/scheduler_limits.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "serving/simulation.hpp"

namespace decodesim::serving {

SchedulerLimits resolve_scheduler(const SchedulerChoice& choice, const engine::RuntimeProfile& runtime,
                                  const profiles::HardwareProfile& hardware, std::optional<std::int64_t> model_context,
                                  bool speculating) {
    SchedulerLimits limits = runtime.scheduler.on_device(hardware.memory_capacity, hardware.id);
    if (speculating && runtime.scheduler.speculative_max_sequences) {
        limits.max_sequences = *runtime.scheduler.speculative_max_sequences;
    }
    if (choice.max_sequences) limits.max_sequences = *choice.max_sequences;
    // A cap set by the user or by speculation is the cap: the runtime sizes none from its cache.
    if (choice.max_sequences || (speculating && runtime.scheduler.speculative_max_sequences)) {
        limits.sequences_from_cache.reset();
    }
    if (choice.max_batched_tokens) limits.max_batched_tokens = *choice.max_batched_tokens;
    if (choice.block_tokens) limits.block_tokens = *choice.block_tokens;
    if (choice.chunked_prefill) limits.chunked_prefill = *choice.chunked_prefill;
    if (choice.prefix_caching) limits.prefix_caching = *choice.prefix_caching;
    if (choice.separate_prefill) limits.separate_prefill = *choice.separate_prefill;
    if (choice.reserve_whole_request) limits.reserve_whole_request = *choice.reserve_whole_request;
    if (!limits.chunked_prefill && runtime.scheduler.unchunked_budget_is_context && !choice.max_batched_tokens &&
        model_context) {
        limits.max_batched_tokens = std::max<long long>(limits.max_batched_tokens, *model_context);
    }
    return limits;
}

SchedulerLimits limits_on_deployment(SchedulerLimits limits, const engine::Evaluator& deployment) {
    const int workers = deployment.deployment().parallelism.attention_data;
    if (limits.limits_per_attention_replica) {
        // Each data-parallel rank schedules alone under the runtime's limits: the stage runs that many.
        limits.limits_per_attention_replica = false;
        limits.max_sequences *= workers;
        limits.max_batched_tokens *= workers;
        limits.schedulers = workers;
    }
    if (!limits.sequences_from_cache) return limits;
    const engine::CacheSizedSequences rule = *limits.sequences_from_cache;
    limits.sequences_from_cache.reset();
    const std::optional<std::int64_t> context = deployment.model().max_position_embeddings;
    if (!context || *context <= 0) return limits;  // no context to size by: the profile's stated cap
    const double worker_tokens = kv_capacity_tokens(deployment) / workers;
    if (worker_tokens < 1.0) return limits;  // no cache: the run or the plan says so on its own
    limits.max_sequences = static_cast<long long>(workers) * rule.running_cap(worker_tokens, static_cast<double>(*context));
    return limits;
}

SchedulerLimits limits_for(const SchedulerChoice& choice, const engine::Evaluator& deployment) {
    return limits_on_deployment(resolve_scheduler(choice, deployment.deployment().runtime_profile(), deployment.hardware(),
                                                  deployment.model().max_position_embeddings,
                                                  deployment.deployment().speculation.enabled()),
                                deployment);
}

std::string describe_scheduler(const SchedulerLimits& limits) {
    return fmt::format("{} sequences, {} tokens a pass, {}-token blocks, chunked prefill {}, prefix caching {}{}",
                       limits.max_sequences, limits.max_batched_tokens, limits.block_tokens,
                       limits.chunked_prefill ? "on" : "off", limits.prefix_caching ? "on" : "off",
                       scheduler_traits(limits));
}

std::string scheduler_traits(const SchedulerLimits& limits) {
    return fmt::format("{}{}{}", limits.separate_prefill ? ", prefill in passes of its own" : "",
                       limits.reserve_whole_request ? ", each request's whole cache reserved at admission" : "",
                       limits.schedulers > 1 ? fmt::format(", {} data-parallel schedulers' together", limits.schedulers) : "");
}

}  // namespace decodesim::serving
