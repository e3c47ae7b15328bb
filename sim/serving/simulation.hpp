#pragma once
// A request-level simulation of serving: continuous batching with chunked prefill, paged KV
// blocks within the memory the engine leaves, preemption by recompute, prefix caching, and
// replicas behind a least-loaded router, or disaggregated prefill and decode pools with the KV
// cache sent between them. One event per forward pass, priced by the engine's one cost function
// (engine::step_costs), so a million requests simulate in seconds. A deployment that speculates
// verifies k draft tokens per decoding sequence in each pass and keeps a random accepted prefix
// (docs/serving.md, "Speculative decoding").

#include <functional>
#include <optional>
#include <vector>

#include "engine/prediction.hpp"
#include "serving/disaggregation.hpp"
#include "serving/scheduler_limits.hpp"
#include "workload/request_stream.hpp"

namespace decodesim::serving {

// A fixed number of clients, each sending its next request when its last one has finished (or was
// refused), after a think time: the load of `vllm bench serve --max-concurrency`, SGLang's
// `bench_serving --max-concurrency`, AIPerf and GenAI-Perf at a concurrency, and of users in a chat.
// The first `clients` requests arrive together at time 0, as those tools start them.
struct ClosedLoop {
    long long clients = 1;
    double think_time_s = 0.0;
};

// What the prefix cache holds when the run starts: prompts the server saw just before it. A
// benchmark client sends its first request once, untimed, before the run it times (`vllm bench
// serve`'s initial test run, SGLang `bench_serving`'s warm-up), and a sweep over prompt lengths
// that draws its prompts from the same seed sends, at each length, prompts that begin with the
// previous run's (vLLM's random dataset: prompt i is consecutive token ids from a seeded offset).
// With prefix caching on, the timed requests find those tokens cached (docs/serving.md, "A warm
// cache").
struct WarmCache {
    long long prefix_tokens = 0;  // every prompt's first this many tokens (capped at the prompt)
    long long whole_prompts = 0;  // the first this many prompts, whole, sent last
    bool any() const { return prefix_tokens > 0 || whole_prompts > 0; }
};

struct ServeConfig {
    int replicas = 1;  // colocated replicas; ignored when `disaggregation` is set
    SchedulerLimits limits;
    // Set: separate prefill and decode pools (docs/serving.md, "Disaggregated prefill and decode"),
    // each instance with the same scheduler limits.
    std::optional<PoolShape> disaggregation;
    // With disaggregation: the prefill pool's deployment when it runs on other devices than the
    // decode pool (simulate_serving's evaluator); null: the same. The caller keeps it alive.
    const engine::Evaluator* prefill_pool = nullptr;
    // A mixed fleet: colocated replicas on other devices (or layouts), after the `replicas` of the
    // evaluator's deployment, one for each entry, behind the same router. Not with
    // `disaggregation`. The caller keeps them alive.
    std::vector<const engine::Evaluator*> added_replicas;
    // Seeds the draws of accepted draft tokens under speculative decoding: the same seed gives
    // the same run.
    unsigned long long seed = 1;
    // Set: the requests' arrival times are ignored and set as the loop runs (ServeResult::requests
    // holds them); unset: an open loop, the requests arriving at their stated times.
    std::optional<ClosedLoop> closed_loop;
    // Prompts in the prefix cache at the start; on one colocated replica, for a stream that names no
    // prefixes of its own.
    WarmCache warm;
    // Told the share of the requests that have arrived, every few thousand arrivals (a progress
    // bar where a person waits); unset: not told.
    std::function<void(double share_arrived)> progress;
};

// Latency targets for goodput; unset: not checked.
struct ServiceTargets {
    std::optional<double> ttft_s;
    std::optional<double> tpot_s;
    std::optional<double> e2e_s;  // total completion time: the last token's
};

struct Percentiles {
    double p50 = 0.0, p90 = 0.0, p99 = 0.0, mean = 0.0, max = 0.0;
};

struct RequestRecord {
    workload::Request request;   // arrival_s: when the client sent it
    int replica = 0;             // disaggregated: the prefill instance
    int decode_replica = -1;     // disaggregated: the decode instance; -1 otherwise
    // When the scheduler could first take it: the send plus the runtime's request path in
    // (engine::RequestPath::before), never before a request sent earlier (one front end, in order).
    double scheduled_s = 0.0;
    double first_token_s = 0.0;  // the end of the pass that made it; disaggregated: when the KV cache reached the decode instance
    double finish_s = 0.0;       // the end of the pass that made the last token
    // From the end of the pass that made the first token, and the last, to the client: the runtime's
    // way out (engine::RequestPath::after_step), after the front end has worked through the pass's
    // tokens where it streams them at a cost (RequestPath::per_output_token).
    double first_delivery_s = 0.0;
    double delivery_s = 0.0;
    int preemptions = 0;
    bool prefix_hit = false;
    bool rejected = false;  // longer than a replica can ever hold or schedule: never served

    // Time to first token as the client measures it (vllm bench serve, SGLang bench_serving, AIPerf):
    // from its send to the first token's arrival.
    double ttft() const { return first_token_s + first_delivery_s - request.arrival_s; }
    // As the server measures it (vLLM's time_to_first_token_seconds): from the scheduler's queue to the pass's end.
    double server_ttft() const { return first_token_s - scheduled_s; }
    double e2e() const { return finish_s + delivery_s - request.arrival_s; }
    // Mean time per output token after the first, between the first and the last token's arrivals
    // (vllm bench serve's); 0 for one-token outputs.
    double tpot() const {
        return request.output_tokens > 1
                   ? ((finish_s - first_token_s) + (delivery_s - first_delivery_s)) / static_cast<double>(request.output_tokens - 1)
                   : 0.0;
    }
};

// Whether a served request met every target that is set: the one test of goodput, for serve and
// for plan's verification.
inline bool within_targets(const RequestRecord& record, const ServiceTargets& targets) {
    return (!targets.ttft_s || record.ttft() <= *targets.ttft_s) && (!targets.tpot_s || record.tpot() <= *targets.tpot_s) &&
           (!targets.e2e_s || record.e2e() <= *targets.e2e_s);
}

// The state of the server at one moment (replicas summed).
struct TimelineSample {
    double time_s = 0.0;
    long long waiting = 0;
    long long running = 0;
    double kv_fraction = 0.0;  // of the KV capacity, mean over replicas
};

// The two pools of a disaggregated run.
struct DisaggregationStats {
    PoolShape pools;
    KvLink link;
    double prefill_utilization = 0.0;     // share of the run the prefill instances spent in passes (their mean)
    double decode_utilization = 0.0;      // the same for the decode instances
    double mean_prefill_batch = 0.0;      // time-weighted prompts being prefilled, per prefill instance
    double mean_decode_batch = 0.0;       // time-weighted sequences decoding, per decode instance
    double mean_kv_transfer_s = 0.0;      // latency + bytes / bandwidth of each transfer, mean
    double mean_kv_transfer_wait_s = 0.0; // from the end of prefill to the transfer's start (a decode slot, the link)
    double mean_kv_transfer_bytes = 0.0;  // all devices of an instance
    long long transfers = 0;
};

// What speculative decoding did in a run.
struct SpeculationStats {
    int length = 0;                                 // draft tokens per verification (k)
    double acceptance = 0.0;                        // the chance each draft token is accepted (a)
    bool multi_token_heads = false;                 // the model's own MTP module drafts
    double expected_tokens_per_verification = 0.0; // (1 - a^(k+1)) / (1 - a)
    // Tokens a sequence kept per verification, the mean over the run: below the expectation by
    // the drafts cut off at the end of each output.
    double mean_tokens_per_verification = 0.0;
    long long verifications = 0;                    // one per decoding sequence per pass
    double draft_time_fraction = 0.0;               // of the time in passes, the drafter's
};

// One colocated replica's part of a run.
struct ReplicaLoad {
    long long requests = 0;           // routed to it
    double utilization = 0.0;         // share of the run it spent in passes
    double mean_running_batch = 0.0;  // time-weighted
};

struct ServeResult {
    std::vector<RequestRecord> requests;   // in the order given (a conversation's later turns after their first)
    std::vector<TimelineSample> timeline;  // at most about 4,096 samples, evenly thinned
    Percentiles ttft_s, tpot_s, itl_s, e2e_s;  // as the client measures them
    Percentiles server_ttft_s;                 // RequestRecord::server_ttft
    double duration_s = 0.0;               // first arrival to last finish
    double output_tokens_per_s = 0.0;
    double total_tokens_per_s = 0.0;       // prompt and output tokens
    double requests_per_s = 0.0;
    double offered_rate_per_s = 0.0;       // arrivals over the arrival window
    double goodput_requests_per_s = 0.0;   // requests that met the targets
    double goodput_fraction = 0.0;
    double mean_running_batch = 0.0;       // time-weighted, per replica (disaggregated: per decode instance)
    double mean_waiting = 0.0;             // time-weighted, all replicas
    double peak_kv_fraction = 0.0;
    double kv_capacity_tokens = 0.0;       // per replica, in tokens of one sequence's cache
    long long preemptions = 0;
    long long prefix_hits = 0;
    long long steps = 0;
    // Of them, decode passes no captured graph held, dispatched op by op (engine/graph_capture.hpp).
    long long decode_passes_without_graph = 0;
    long long rejected = 0;
    // Of them, prompts longer than a pass holds without chunked prefill (the scheduler's
    // max_batched_tokens): the runtime refuses them whatever its memory.
    long long rejected_longer_than_pass = 0;
    long long waiting_at_last_arrival = 0;
    bool saturated = false;                // arrivals outran service (docs/serving.md)
    std::optional<DisaggregationStats> disaggregation;  // set for a disaggregated run
    std::optional<SpeculationStats> speculation;        // set when the deployment speculates
    // Colocated runs: each replica's part, the evaluator's replicas first, then ServeConfig::added_replicas.
    std::vector<ReplicaLoad> replica_loads;
};

// Simulates `requests` (sorted by arrival; in a closed loop, in the order the clients send them;
// a request that follows another is sent after it, Request::follows) on `config.replicas` copies of the evaluator's
// deployment, or on its disaggregated pools. The KV room is what the weights leave, a draft
// model's weights included; each token's KV holds the draft's too. Throws core::InputError when
// the weights leave no room for one sequence's KV, or (disaggregated) when the device has no link
// for the KV cache.
ServeResult simulate_serving(const engine::Evaluator& evaluator, const std::vector<workload::Request>& requests,
                             const ServeConfig& config, const ServiceTargets& targets);

// What the weights leave one device of `deployment` for the KV cache, in bytes. Throws
// core::InputError naming the memory when that is not one block of `block_tokens` tokens.
double kv_room(const engine::Evaluator& deployment, long long block_tokens);

// The tokens one replica of `deployment` holds in its KV cache: every attention replica's room (each
// holds its own sequences), less what a sequence holds however short, over a token's cache; 0 where
// the weights leave no room.
double kv_capacity_tokens(const engine::Evaluator& deployment);

// Percentiles of `values` (core::quantile_of_sorted: interpolated between ranks); all zero when empty.
Percentiles percentiles(std::vector<double> values);

}  // namespace decodesim::serving
