#pragma once
// Serving in steady state, in closed form on the engine's step model: for an arrival rate and
// mean lengths, the decode batch a replica sustains (Little's law), the mean step, TTFT and TPOT
// with their tails, and the saturation rate. Fast enough to search deployments (`plan`); the
// request-level simulation (serving.hpp) checks it where its assumptions hold (docs/serving.md).

#include <algorithm>
#include <optional>

#include "engine/prediction.hpp"
#include "serving/disaggregation.hpp"
#include "serving/simulation.hpp"

namespace decodesim::serving {

struct LoadShape {
    double rate_per_s = 1.0;      // arrivals at one replica
    double prompt_tokens = 1.0;   // mean
    double output_tokens = 1.0;   // mean
    double arrival_cv2 = 1.0;     // squared coefficient of variation of the gaps: 1 for Poisson, 1/k for gamma(k)
    // Mean tokens of a prompt found in the prefix cache (a conversation's earlier turns): they are
    // read, not computed, though the sequence's cache still holds them.
    double cached_prompt_tokens = 0.0;
    // The arrivals are a fixed population's completions (closed_loop_state): a longer pass delays
    // them instead of gathering more, so the passes carry no feedback through the rate.
    bool closed_loop = false;
    // The squared coefficient of variation of the output lengths (0: every output the mean): a
    // request of few tokens averages its TPOT over few passes, which widens the tail.
    double output_cv2 = 0.0;
    // The same of the prompt lengths: a pass's prompt work varies with the chunk it carries.
    double prompt_cv2 = 0.0;

    // The prompt tokens a prefill computes, at least the last (its logits give the first token).
    double computed_prompt_tokens() const { return std::max(1.0, prompt_tokens - cached_prompt_tokens); }
};

struct SteadyState {
    bool stable = false;            // a fixed point exists within the replica's limits
    double batch = 0.0;             // mean decoding sequences
    double prompts_per_step = 0.0;  // mean new prompts per pass
    double step_s = 0.0;            // mean pass time
    double decode_step_s = 0.0;     // a pass of the batch's decode tokens alone
    double prompt_step_s = 0.0;     // a pass that also carries one new prompt
    double max_batch = 0.0;         // the batch memory and the scheduler allow
    double utilization = 0.0;       // rate over the saturation rate
    double saturation_rate_per_s = 0.0;
    // How much of a change in one pass's length the mean pass repeats (the slope of the fixed-point
    // map at the point, below 1 where it is stable): a longer pass gathers more arriving prompts and
    // keeps more sequences decoding, which lengthen the next. It amplifies every fluctuation of a
    // request's passes by 1 / (1 - gain). Colocated replicas only: 0 for a disaggregated decode pool,
    // whose spread does not take it (docs/serving.md, "The analytic steady state").
    double loop_gain = 0.0;
    Percentiles ttft_s;             // mean and tails (p50, p90, p99)
    Percentiles tpot_s;
    // Total completion time, TTFT plus the mean output's decode steps. Its tails add the two tails
    // (a request late to start is not also faster to finish), so its p99 errs long.
    Percentiles e2e_s;
    double output_tokens_per_s = 0.0;
    // What stops the rate from growing: "memory" (the KV cache caps the batch), "scheduler"
    // (max sequences or batched tokens), or the step's own bound ("bandwidth", "compute",
    // "interconnect", "overhead") when the step time itself runs away.
    const char* binding = "bandwidth";
};

// The steady state of one replica under `load`. Unstable loads come back with stable = false and
// the saturation rate filled in.
SteadyState steady_state(const engine::Evaluator& evaluator, const LoadShape& load, const SchedulerLimits& limits);

// The requests a second one API server (one front-end process) of the deployment takes in and
// streams at `load`'s lengths: infinite where its runtime states no request path.
double api_server_capacity(const engine::Evaluator& evaluator, const LoadShape& load, const SchedulerLimits& limits);

// The rate at which one replica's engine saturates at `load`'s lengths, whatever its front end
// takes (a colocated replica's; steady_state's saturation_rate_per_s is the lower of this and the
// front end's capacity).
double engine_saturation_rate(const engine::Evaluator& evaluator, const LoadShape& load, const SchedulerLimits& limits);

// A closed loop at one replica: `users`, each waiting `think_time_s` after a response before the
// next request, generate the rate that solves rate = users / (think time + end-to-end latency at
// that rate). The state at that rate; unstable when the users would drive the replica past
// saturation (a real closed loop then queues: its latency grows without a steady state).
SteadyState closed_loop_state(const engine::Evaluator& evaluator, LoadShape load, const SchedulerLimits& limits,
                              double users, double think_time_s);

// The target a steady state misses at p99 ("ttft target", "tpot target", "e2e target"), or null
// when it meets them all: the one check every planner uses.
const char* missed_target(const SteadyState& state, const ServiceTargets& targets);

// The largest arrival rate at one replica whose steady state meets `targets` at p99 (and is
// stable); 0 when even a trickle misses them.
double max_rate_at_targets(const engine::Evaluator& evaluator, LoadShape load, const SchedulerLimits& limits,
                           const ServiceTargets& targets);

// Disaggregated prefill and decode in steady state (docs/serving.md, "Disaggregated prefill and
// decode"): the prefill pool is an M/G/c queue whose c = x servers each prefill one prompt at a
// time; the decode pool's instances each hold the batch Little's law gives at their share of the
// rate, priced by the engine's decode step at that batch; between them the KV transfer.
struct DisaggregatedState {
    PoolShape pools;
    // The figures a colocated replica reports, for the whole deployment: `batch`, `step_s`,
    // `decode_step_s`, `max_batch` are a decode instance's; `saturation_rate_per_s` and
    // `utilization` are the whole deployment's; `binding` is "prefill" when the prefill pool
    // saturates first, else what saturates a decode instance.
    SteadyState overall;
    double prefill_s = 0.0;              // one prompt's prefill alone (all its chunks' passes)
    double prefill_utilization = 0.0;    // offered load per prefill instance: rate x prefill_s / x
    double prefill_wait_s = 0.0;         // mean wait for a prefill instance
    double decode_utilization = 0.0;     // a decode instance's rate over its saturation rate
    double decode_saturation_per_instance_s = 0.0;  // requests/s one decode instance sustains
    double kv_transfer_s = 0.0;          // one mean prompt's KV cache (kv_transfer_seconds)
};

// What a disaggregated deployment's pools can do whatever the rate and however many instances
// each has: one prompt's prefill and KV transfer, and the rate one decode instance sustains. A
// search over pools and rates (serving/plan.cpp) finds them once rather than at every state.
struct PoolCapacity {
    double prefill_s = 0.0;                         // DisaggregatedState::prefill_s
    double kv_transfer_s = 0.0;                     // DisaggregatedState::kv_transfer_s
    double decode_saturation_per_instance_s = 0.0;  // DisaggregatedState::decode_saturation_per_instance_s
    const char* decode_binding = "bandwidth";       // what saturates a decode instance
};

// The capacity of the pools of `evaluator` (decode) and `prefill_pool` (prefill; null: the same)
// under `load`'s lengths; its rate is not read. Throws as disaggregated_state.
PoolCapacity pool_capacity(const engine::Evaluator& evaluator, const LoadShape& load, const SchedulerLimits& limits,
                           const engine::Evaluator* prefill_pool = nullptr);

// The state of `pools` under `load` (its rate_per_s: all arrivals, both pools). `evaluator` is the
// decode pool's deployment; `prefill_pool`, when given, the prefill pool's on other devices (else the
// same). Throws core::InputError when the devices have no link for the KV cache (kv_link_between).
DisaggregatedState disaggregated_state(const engine::Evaluator& evaluator, const LoadShape& load,
                                       const SchedulerLimits& limits, const PoolShape& pools,
                                       const engine::Evaluator* prefill_pool = nullptr);
// The same with the pools' capacity under `load`'s lengths already found (pool_capacity, which
// holds what the prefill pool's deployment gives).
DisaggregatedState disaggregated_state(const engine::Evaluator& evaluator, const LoadShape& load,
                                       const SchedulerLimits& limits, const PoolShape& pools,
                                       const PoolCapacity& capacity);

}  // namespace decodesim::serving
