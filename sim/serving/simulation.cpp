#include "serving/simulation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <limits>
#include <queue>
#include <random>
#include <set>
#include <tuple>
#include <unordered_map>

#include "core/statistics.hpp"
#include "core/error.hpp"

namespace decodesim::serving {

namespace {

constexpr std::size_t kTimelineLimit = 4096;

// Percentiles of a stream too long to keep (inter-token gaps): log-spaced bins 0.2% wide from
// 1 ns to 1e6 s, so a percentile is within 0.1% of the exact one.
class LogHistogram {
public:
    void add(double value, double weight = 1.0) {
        total_ += weight;
        sum_ += value * weight;
        max_ = std::max(max_, value);
        min_ = total_ == weight ? value : std::min(min_, value);
        // The sequences decoding in one pass add the same gap, the pass's: its bin is found once.
        if (value != last_value_) {
            last_value_ = value;
            last_bin_ = bin_of(value);
        }
        bins_[last_bin_] += weight;
    }
    Percentiles summary() const {
        Percentiles result;
        if (total_ <= 0.0) return result;
        result.mean = sum_ / total_;
        result.max = max_;
        result.p50 = quantile(0.50);
        result.p90 = quantile(0.90);
        result.p99 = quantile(0.99);
        return result;
    }

private:
    static constexpr double kLowest = 1e-9;
    static constexpr double kGrowth = 1.002;
    static constexpr std::size_t kBins = 13'900;  // log(1e15) / log(1.002)

    static std::size_t bin_of(double value) {
        if (value <= kLowest) return 0;
        const auto bin = static_cast<std::size_t>(std::log(value / kLowest) / std::log(kGrowth)) + 1;
        return std::min(bin, kBins - 1);
    }
    // A bin's middle, held within the values seen: a percentile never exceeds the maximum (nor
    // falls below the minimum) because a bin is wider than the values in it.
    double quantile(double fraction) const {
        const double target = fraction * total_;
        double seen = 0.0;
        for (std::size_t bin = 0; bin < kBins; ++bin) {
            seen += bins_[bin];
            if (seen >= target) {
                const double middle = bin == 0 ? kLowest : kLowest * std::pow(kGrowth, static_cast<double>(bin) - 0.5);
                return std::clamp(middle, min_, max_);
            }
        }
        return max_;
    }

    std::vector<double> bins_ = std::vector<double>(kBins, 0.0);
    double total_ = 0.0, sum_ = 0.0, max_ = 0.0, min_ = 0.0;
    double last_value_ = 0.0;
    std::size_t last_bin_ = bin_of(0.0);
};

struct Sequence {
    std::size_t request = 0;
    long long target = 0;     // tokens to have in the cache before the next token: the prompt, or after a
                              // preemption the prompt and every token generated so far (recompute)
    long long cached = 0;     // tokens whose KV is in the cache (shared prefix included)
    long long generated = 0;  // output tokens produced
    long long shared = 0;     // leading tokens held by the prefix cache, not by this sequence
    std::size_t shared_links = 0;  // links of its prefix chain this sequence reads from the cache
    long long allocated = 0;  // tokens of cache space held, in whole blocks (shared prefix included)
    double bytes = 0.0;       // KV bytes this sequence holds
    double last_token_s = 0.0;  // the end of the pass that made its last token
    double last_delivery_s = 0.0;  // and that token's way from there to the client
    // Disaggregated: the prompt's KV cache is on a prefill instance, still to be sent here.
    bool remote = false;
    double handed_off_s = 0.0;  // when its prefill ended

    bool prefilling() const { return cached < target; }
};

// One link of a prompt's prefix chain in the cache (a whole shared prefix, or one block of a
// chain of blocks): its own tokens' bytes, the sequences reading it, and when it was last used.
struct CachedPrefix {
    long long tokens = 0;     // the prompt's tokens up to and including this link
    double bytes = 0.0;       // this link's own share of the cache
    int references = 0;
    double last_used_s = 0.0;
    int depth = 0;            // links before it in its chain
};

// Links no sequence reads, least recently used first; of equal use, the deepest first (a chain is
// dropped from its end, as it is used from its start).
using EvictionOrder = std::set<std::tuple<double, int, long long>>;

EvictionOrder::value_type eviction_key(long long id, const CachedPrefix& prefix) {
    return {prefix.last_used_s, -prefix.depth, id};
}

// The ids of a warm cache's links (Simulation::warm_up_cache), apart from any a stream names.
constexpr long long kWarmLinks = 1LL << 60;

// The prefix chain of a request: its block ids, a generated conversation's implicit chain, or its
// one shared prefix as a chain of one link; a conversation's chain goes on past the prompt into the
// blocks its reply completes (Request::chain_base).
struct PrefixChain {
    const workload::Request& request;
    bool implicit() const { return request.chain_base >= 0 && request.block_tokens > 0; }
    // Links of the prompt: looked up when it is admitted and left in the cache after its prefill.
    std::size_t prompt_links() const {
        if (implicit()) return static_cast<std::size_t>(request.prompt_tokens / request.block_tokens);
        if (!request.block_ids.empty()) return request.block_ids.size();
        return request.prefix_id >= 0 && request.prefix_tokens > 0 ? 1 : 0;
    }
    // Every link: a conversation's reply blocks, past the prompt's, are left in the cache when the
    // request finishes.
    std::size_t links() const {
        if (!implicit()) return prompt_links();
        return static_cast<std::size_t>((request.prompt_tokens + request.output_tokens - 1) / request.block_tokens);
    }
    long long id(std::size_t link) const {
        const auto index = static_cast<long long>(link);
        if (implicit()) return index < request.shared_blocks ? request.shared_base + index : request.chain_base + index;
        return request.block_ids.empty() ? request.prefix_id : request.block_ids[link];
    }
    // Tokens up to and including `link`.
    long long tokens(std::size_t link) const {
        if (!implicit() && request.block_ids.empty()) return request.prefix_tokens;
        const long long end = static_cast<long long>(link + 1) * request.block_tokens;
        return implicit() ? end : std::min(end, request.prompt_tokens);
    }
};

// One scheduled piece of a forward pass.
struct Work {
    std::size_t sequence;  // index into Replica::running at scheduling time
    long long tokens;      // positions through the model: a prefill chunk, 1 to decode, k + 1 to verify
};

// A colocated replica runs prefill and decode; in a disaggregated run an instance runs one.
enum class Role { colocated, prefill, decode };

struct Replica {
    Role role = Role::colocated;
    const engine::Evaluator* deployment = nullptr;  // what its passes run: its device, layout and formats
    double capacity_bytes = 0.0;                     // its KV room, one device
    std::deque<Sequence> waiting;
    std::vector<Sequence> running;
    std::unordered_map<long long, CachedPrefix> prefixes;
    EvictionOrder evictable;  // the prefixes no running sequence reads
    std::vector<Work> step;  // the pass in flight
    double used_bytes = 0.0;
    double busy_until = -1.0;  // < 0: idle
    double running_time = 0.0;  // integral of running sequences over time
    double accounted_s = 0.0;   // running_time (and the run's waiting time) integrated up to here
    double peak_bytes = 0.0;
    double busy_time = 0.0;     // time spent in passes
    // Sequences whose KV cache this replica holds outside `running`: a prefill instance's prompts
    // handed off and not yet sent, a decode instance's incoming transfers.
    long long parked = 0;
    double link_free_s = 0.0;   // decode instance: when its receiving link is free again

    bool busy() const { return busy_until >= 0.0; }
    std::size_t outstanding() const { return waiting.size() + running.size() + static_cast<std::size_t>(parked); }
};

// A KV cache on its way from a prefill to a decode instance.
struct Transfer {
    double done_s = 0.0;
    std::size_t decode = 0;  // index into replicas_
    Sequence sequence;       // as it will run on the decode instance

    bool operator>(const Transfer& other) const { return done_s > other.done_s; }
};

class Simulation {
public:
    Simulation(const engine::Evaluator& evaluator, const std::vector<workload::Request>& requests, const ServeConfig& config)
        : evaluator_(evaluator), requests_(requests), config_(config),
          path_(evaluator.deployment().request_path()),
          replicas_(static_cast<std::size_t>(config.disaggregation ? config.disaggregation->instances()
                                                                   : std::max(1, config.replicas)) +
                    (config.disaggregation ? 0 : config.added_replicas.size())),
          speculation_(evaluator.deployment().speculation), draft_(evaluator.draft()), random_(config.seed) {
        if (config.disaggregation) {
            if (config.disaggregation->prefill_instances < 1 || config.disaggregation->decode_instances < 1) {
                throw core::InputError(core::unlocated("disaggregation", "needs at least one prefill and one decode instance"));
            }
            if (config.prefill_pool != nullptr && (config.prefill_pool->deployment().speculation.enabled() ||
                                                   evaluator.deployment().speculation.enabled())) {
                throw core::InputError(core::unlocated(
                    "prefill-hardware", "speculative decoding is not simulated with pools on two kinds of device"));
            }
            link_ = kv_link_between(prefiller(), evaluator);
            prefill_count_ = static_cast<std::size_t>(config.disaggregation->prefill_instances);
            for (std::size_t r = 0; r < replicas_.size(); ++r) {
                replicas_[r].role = r < prefill_count_ ? Role::prefill : Role::decode;
            }
        }
        if (!config.added_replicas.empty()) {
            if (config.disaggregation) {
                throw core::InputError(core::unlocated("add-replicas", "a mixed fleet is of colocated replicas, not disaggregated pools"));
            }
            for (const engine::Evaluator* added : config.added_replicas) {
                if (added->deployment().speculation.enabled() || evaluator.deployment().speculation.enabled()) {
                    throw core::InputError(core::unlocated("add-replicas", "speculative decoding is not simulated in a mixed fleet"));
                }
            }
        }
        capacity_bytes_ = kv_room(evaluator);
        api_servers_ = evaluator.deployment().api_servers;
        front_ends_ = static_cast<double>(std::max<std::size_t>(1, disaggregated() ? prefill_count_ : replicas_.size())) *
                      api_servers_;
        const double prefill_capacity = config.prefill_pool != nullptr ? kv_room(*config.prefill_pool) : capacity_bytes_;
        // The replicas of the evaluator's deployment first, then those added on other devices.
        const std::size_t own = replicas_.size() - (config.disaggregation ? 0 : config.added_replicas.size());
        for (std::size_t r = 0; r < replicas_.size(); ++r) {
            Replica& replica = replicas_[r];
            if (r >= own) {
                replica.deployment = config.added_replicas[r - own];
                replica.capacity_bytes = kv_room(*replica.deployment);
            } else if (replica.role == Role::prefill) {
                replica.deployment = &prefiller();
                replica.capacity_bytes = prefill_capacity;
            } else {
                replica.deployment = &evaluator_;
                replica.capacity_bytes = capacity_bytes_;
            }
        }
        records_.resize(requests.size());
        for (std::size_t i = 0; i < requests.size(); ++i) records_[i].request = requests[i];
        successors_.assign(requests.size(), -1);
        sent_.assign(requests.size(), false);
        for (std::size_t i = 0; i < requests.size(); ++i) {
            const long long previous = requests[i].follows;
            if (previous < 0) continue;
            if (previous >= static_cast<long long>(i) || successors_[static_cast<std::size_t>(previous)] >= 0) {
                throw core::InputError(core::unlocated(
                    "follows", fmt::format("request {} follows request {}: a turn follows one earlier turn, and no turn has two next turns",
                                           i, previous)));
            }
            successors_[static_cast<std::size_t>(previous)] = static_cast<long long>(i);
        }
        while (next_head_ < requests.size() && requests[next_head_].follows >= 0) ++next_head_;
        if (config.closed_loop) {
            if (config.closed_loop->clients < 1 || !(config.closed_loop->think_time_s >= 0.0)) {
                throw core::InputError(core::unlocated("concurrency", "a closed loop needs at least one client and a think time of at least 0"));
            }
            const auto clients = std::min<long long>(config.closed_loop->clients, static_cast<long long>(requests.size()));
            for (long long c = 0; c < clients; ++c) ready_clients_.push(0.0);
        }
        if (config.warm.any()) warm_up_cache();
    }

    ServeResult run(const ServiceTargets& targets);

private:
    // One sequence's cache at `tokens` tokens: the model's, and the draft model's beside it, on one
    // device of the decode pool (or a colocated replica), or of `replica`'s pool.
    double kv_bytes(long long tokens) const { return evaluator_.kv_bytes_per_sequence(static_cast<double>(tokens)).value; }
    double kv_bytes(const Replica& replica, long long tokens) const {
        return evaluator_of(replica).kv_bytes_per_sequence(static_cast<double>(tokens)).value;
    }
    // The deployment a replica runs: the prefill pool's for a prefill instance on other devices.
    const engine::Evaluator& prefiller() const { return config_.prefill_pool != nullptr ? *config_.prefill_pool : evaluator_; }
    const engine::Evaluator& evaluator_of(const Replica& replica) const { return *replica.deployment; }
    double capacity_of(const Replica& replica) const { return replica.capacity_bytes; }
    // A replica's cache: each attention replica of its stage holds its own sequences in its own
    // device's room (engine/memory.cpp), so the stage holds that many rooms' worth; one device
    // without data-parallel attention.
    double kv_room(const engine::Evaluator& deployment) const {
        return serving::kv_room(deployment, config_.limits.block_tokens) * deployment.deployment().parallelism.attention_data;
    }
    bool speculates() const { return speculation_.enabled(); }
    long long accepted_drafts();
    long long round_up_to_block(long long tokens) const {
        const long long block = config_.limits.block_tokens;
        return (tokens + block - 1) / block * block;
    }

    // Puts ServeConfig::warm's prompts in the one replica's prefix cache before the run: each request
    // a link of its own, the sweep's shorter prompts first and the client's warm-up last (the most
    // recently used), as many as the cache holds.
    void warm_up_cache();
    // Sends the next request (next_send): the front end starts taking it in.
    void send(double now);
    // The front end has taken the oldest request in (taking_in_): it is routed to an instance.
    void arrive(double now);
    // The front end takes in a request sent at `sent` after the work it was given before; when the
    // scheduler can have it (RequestRecord::scheduled_s).
    double take_in(double sent, long long prompt_tokens);
    // The front end works through the tokens of `streams` streams that a pass ending at `now` made;
    // their way to the client from `now`.
    double deliver(double now, double streams);
    void start_step(Replica& replica, double now);
    void finish_step(Replica& replica, double now);
    bool reserve(Replica& replica, Sequence& sequence, long long tokens_needed);
    // The cache a sequence is admitted with when its next pass writes up to `next` tokens: those, or
    // under whole-request admission (SchedulerLimits::reserve_whole_request, TensorRT-LLM's
    // GUARANTEED_NO_EVICT) its prompt and its whole output, and the drafts a verification writes past
    // its last token, so that it never needs more and is never preempted. A prefill instance holds
    // the prompt alone: the output is the decode instance's.
    long long admission_tokens(const Replica& replica, const Sequence& sequence, long long next) const;
    bool evict_prefix(Replica& replica);
    void release(Replica& replica, Sequence& sequence);
    void leave_in_cache(Replica& replica, Sequence& sequence, std::size_t end, double now);
    void preempt(Replica& replica, std::size_t index);
    Sequence admit(Replica& replica, std::size_t request, double now);
    void sample(double now);
    void reject(Replica& replica, double now);
    // The next request to be sent and when: a conversation's next turn whose client has thought
    // long enough, else the next request that starts something (at its stated time, or in a closed
    // loop when a client is ready); infinity when none is left to send.
    std::pair<double, std::size_t> next_send() const;
    // A request has left (finished or refused): its client sends its next turn, or in a closed loop
    // its next request, after thinking.
    void client_done(std::size_t request, double now);
    SpeculationStats speculation_stats() const;
    // Integrates the replica's running and waiting sequences up to `now`: called before anything
    // changes them, so each replica is brought up to date only when it changes, not at every event.
    void account(Replica& replica, double now);
    // The busy replica whose pass ends first (the lowest index among equal ends), or null.
    Replica* soonest_replica();
    std::size_t least_loaded(std::size_t first, std::size_t last) const;
    void hand_off(Replica& replica, Sequence sequence, double now);
    void start_transfer(Replica& replica, Sequence sequence, double now);
    void finish_transfer(const Transfer& transfer, double now);
    void release_source(std::size_t request, double now);
    DisaggregationStats pool_stats(double duration) const;
    bool disaggregated() const { return config_.disaggregation.has_value(); }

    const engine::Evaluator& evaluator_;
    std::vector<workload::Request> requests_;  // a closed loop sets their arrival times as it runs
    ServeConfig config_;
    engine::RequestPath path_;       // the runtime's request path (in before the scheduler, out after each pass)
    // When the front end is through taking in the requests it has been sent, one at a time in the
    // order they were sent (docs/serving.md, "The time a client sees").
    double front_end_free_s_ = 0.0;
    // The front ends: the instances that take requests in (the colocated replicas, or a
    // disaggregated run's prefill instances) times the API servers each runs; their work is done
    // side by side, at this many times one front end's rate.
    double front_ends_ = 1.0;
    double api_servers_ = 1.0;  // of them, an instance's
    // Requests sent and being taken in, as (when the scheduler can have them, request), in order.
    std::deque<std::pair<double, std::size_t>> taking_in_;
    // When it is through streaming the tokens it has been given, in the order their passes ended: a
    // queue apart from the way in (docs/decisions.md, "The front end streams at a cost").
    double streaming_free_s_ = 0.0;
    // A closed loop's clients, by the time each will send its next request.
    std::priority_queue<double, std::vector<double>, std::greater<>> ready_clients_;
    // Each request's next turn in its conversation (Request::follows turned round), or -1.
    std::vector<long long> successors_;
    // Later turns their clients will send, as (send time, request), soonest first.
    std::priority_queue<std::pair<double, std::size_t>, std::vector<std::pair<double, std::size_t>>, std::greater<>>
        follow_ups_;
    std::size_t next_head_ = 0;  // the next request in order that follows none
    std::size_t arrived_ = 0;
    std::vector<bool> sent_;  // by request: whether it has been sent
    std::vector<Replica> replicas_;
    std::vector<RequestRecord> records_;
    std::vector<TimelineSample> timeline_;
    std::size_t sample_stride_ = 1, steps_since_sample_ = 0;
    LogHistogram gaps_;
    double capacity_bytes_ = 0.0;  // KV room of a decode instance or a colocated replica of evaluator_'s, one device
    double waiting_time_ = 0.0;
    // Pass ends as (time, replica index), smallest first; an entry whose replica has since become
    // idle or started another pass is dropped when it surfaces.
    std::priority_queue<std::pair<double, std::size_t>, std::vector<std::pair<double, std::size_t>>, std::greater<>>
        pass_ends_;
    long long steps_ = 0, preemptions_ = 0, prefix_hits_ = 0, rejected_ = 0, rejected_longer_than_pass_ = 0;
    long long decode_passes_without_graph_ = 0;
    // Disaggregated runs: prefill instances come first in replicas_, then the decode instances.
    KvLink link_;
    std::size_t prefill_count_ = 0;
    std::priority_queue<Transfer, std::vector<Transfer>, std::greater<>> transfers_;
    // The prefill-side state of each handed-off prompt until its KV cache has been sent, with its instance.
    std::unordered_map<std::size_t, std::pair<std::size_t, Sequence>> handed_off_;
    double transfer_time_ = 0.0, transfer_wait_ = 0.0, transfer_bytes_ = 0.0;
    long long transfers_done_ = 0;
    // Speculative decoding: the drafter (null for multi-token-prediction heads) and the draws of
    // accepted drafts.
    engine::Speculation speculation_;
    const engine::Evaluator* draft_ = nullptr;
    std::mt19937_64 random_;
    long long verifications_ = 0;
    double kept_tokens_ = 0.0, draft_time_ = 0.0;
};

void Simulation::warm_up_cache() {
    const WarmCache& warm = config_.warm;
    const std::string key = warm.prefix_tokens != 0 ? "warm-prefix" : "warm-up";
    if (warm.prefix_tokens < 0 || warm.whole_prompts < 0) {
        throw core::InputError(core::unlocated(key, "a warm cache holds 0 or more tokens of 0 or more prompts"));
    }
    if (replicas_.size() != 1 || disaggregated()) {
        throw core::InputError(core::unlocated(
            key, "a warm cache is simulated on one colocated replica (which replica held an earlier run's prompt is not known)"));
    }
    for (const workload::Request& request : requests_) {
        if (request.prefix_id >= 0 || !request.block_ids.empty() || request.chain_base >= 0 || request.follows >= 0) {
            throw core::InputError(core::unlocated(
                key, "the stream names prefixes of its own (a shared prefix, a trace's block ids or conversations); a warm "
                     "cache is for a stream without them"));
        }
    }
    if (!config_.limits.prefix_caching) return;  // nothing is kept: the warm prompts change nothing
    Replica& replica = replicas_.front();
    // Each request's warm link: whole blocks only, as the cache keeps them, and short of the prompt's
    // last token, which is computed again for its logits (vLLM V1 looks up at most the prompt's
    // tokens but one, in whole blocks).
    const long long block = config_.limits.block_tokens;
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < requests_.size(); ++i) {
        workload::Request& request = requests_[i];
        const bool whole = static_cast<long long>(i) < warm.whole_prompts;
        const long long tokens = std::min(whole ? request.prompt_tokens : warm.prefix_tokens, request.prompt_tokens - 1) /
                                 block * block;
        if (tokens <= 0) continue;
        request.prefix_id = kWarmLinks + static_cast<long long>(i);
        request.prefix_tokens = tokens;
        if (!whole) order.push_back(i);
    }
    // The client's warm-up went out after the sweep's previous run: its prompts are the newest.
    for (std::size_t i = 0; i < requests_.size() && static_cast<long long>(i) < warm.whole_prompts; ++i) {
        if (requests_[i].prefix_id >= 0) order.push_back(i);
    }
    for (std::size_t position = 0; position < order.size(); ++position) {
        const workload::Request& request = requests_[order[position]];
        CachedPrefix link{request.prefix_tokens, kv_bytes(replica, request.prefix_tokens), 0,
                          -static_cast<double>(order.size() - position), 0};
        bool room = true;
        while (room && replica.used_bytes + link.bytes > capacity_of(replica)) room = evict_prefix(replica);
        if (!room) continue;  // longer than the whole cache
        replica.used_bytes += link.bytes;
        replica.evictable.insert(eviction_key(request.prefix_id, link));
        replica.prefixes.emplace(request.prefix_id, link);
    }
}

// Draft tokens accepted in one verification: j with probability a^j (1 - a) for j < k and a^k
// for j = k (each accepted with probability a given the ones before). One draw u on (0, 1]:
// j = floor(ln u / ln a) has P(j >= m) = P(u <= a^m) = a^m; capping it at k gives the law above.
// The uniform comes from the raw 53 bits, so a seed gives the same run on every standard library.
long long Simulation::accepted_drafts() {
    const double u = (static_cast<double>(random_() >> 11) + 1.0) * 0x1.0p-53;
    const double acceptance = speculation_.acceptance;
    if (acceptance <= 0.0) return 0;
    if (acceptance >= 1.0) return speculation_.length;
    const double drafts = std::floor(std::log(u) / std::log(acceptance));
    return std::min(static_cast<long long>(speculation_.length), static_cast<long long>(drafts));
}

std::size_t Simulation::least_loaded(std::size_t first, std::size_t last) const {
    // Least outstanding requests; ties go to the lowest index.
    std::size_t chosen = first;
    for (std::size_t r = first + 1; r < last; ++r) {
        if (replicas_[r].outstanding() < replicas_[chosen].outstanding()) chosen = r;
    }
    return chosen;
}

// A prompt whose prefill ended on a prefill instance: its KV cache stays there (parked) until the
// decode instance it is routed to admits it and the transfer ends.
void Simulation::hand_off(Replica& replica, Sequence sequence, double now) {
    const auto source = static_cast<std::size_t>(&replica - replicas_.data());
    const std::size_t decode = least_loaded(prefill_count_, replicas_.size());
    ++replica.parked;
    handed_off_[sequence.request] = {source, sequence};
    Sequence incoming;
    incoming.request = sequence.request;
    incoming.target = requests_[sequence.request].prompt_tokens;
    incoming.remote = true;
    incoming.handed_off_s = now;
    records_[sequence.request].decode_replica = static_cast<int>(decode - prefill_count_);
    account(replicas_[decode], now);
    replicas_[decode].waiting.push_back(incoming);
    if (!replicas_[decode].busy()) start_step(replicas_[decode], now);
}

// The decode instance has reserved the sequence's cache: the KV crosses the link, one transfer
// at a time per receiving instance.
void Simulation::start_transfer(Replica& replica, Sequence sequence, double now) {
    const double tokens = static_cast<double>(sequence.target);
    const double duration = kv_transfer_seconds_between(prefiller(), evaluator_, link_, tokens);
    const double start = std::max(now, replica.link_free_s);
    replica.link_free_s = start + duration;
    ++replica.parked;
    transfer_time_ += duration;
    transfer_wait_ += start - sequence.handed_off_s;
    transfer_bytes_ += prefiller().cost_model().kv_bytes_per_sequence(tokens).value *
                       static_cast<double>(prefiller().deployment().parallelism.devices());
    ++transfers_done_;
    transfers_.push({start + duration, static_cast<std::size_t>(&replica - replicas_.data()), sequence});
}

// The prefill instance frees the cache it kept for a handed-off prompt (sent, or rejected downstream).
void Simulation::release_source(std::size_t request, double now) {
    const auto it = handed_off_.find(request);
    if (it == handed_off_.end()) return;
    Replica& source = replicas_[it->second.first];
    account(source, now);
    release(source, it->second.second);
    --source.parked;
    handed_off_.erase(it);
    if (!source.busy()) start_step(source, now);
}

// The KV cache is on the decode instance: the first token reaches the user now (docs/serving.md),
// and the sequence decodes from the next pass on.
void Simulation::finish_transfer(const Transfer& transfer, double now) {
    Replica& replica = replicas_[transfer.decode];
    account(replica, now);
    --replica.parked;
    Sequence sequence = transfer.sequence;
    sequence.remote = false;
    sequence.cached = sequence.target;
    sequence.generated = 1;
    sequence.last_token_s = now;
    sequence.last_delivery_s = deliver(now, 1.0);
    records_[sequence.request].first_token_s = now;
    records_[sequence.request].first_delivery_s = sequence.last_delivery_s;
    replica.running.push_back(sequence);
    release_source(sequence.request, now);
    if (!replica.busy()) start_step(replica, now);
}

// Whole blocks for `tokens_needed` tokens, evicting unused prefixes if memory is short.
bool Simulation::reserve(Replica& replica, Sequence& sequence, long long tokens_needed) {
    if (tokens_needed <= sequence.allocated) return true;
    const long long allocated = round_up_to_block(tokens_needed);
    const double bytes = kv_bytes(replica, allocated) - kv_bytes(replica, sequence.shared);
    while (replica.used_bytes - sequence.bytes + bytes > capacity_of(replica)) {
        if (!evict_prefix(replica)) return false;
    }
    replica.used_bytes += bytes - sequence.bytes;
    replica.peak_bytes = std::max(replica.peak_bytes, replica.used_bytes);
    sequence.bytes = bytes;
    sequence.allocated = allocated;
    return true;
}

long long Simulation::admission_tokens(const Replica& replica, const Sequence& sequence, long long next) const {
    if (!config_.limits.reserve_whole_request || replica.role == Role::prefill) return next;
    const workload::Request& request = requests_[sequence.request];
    const long long drafts = speculates() ? speculation_.length : 0;
    return std::max(next, request.prompt_tokens + request.output_tokens + drafts);
}

// Drops the least recently used prefix no running sequence reads; false when there is none.
bool Simulation::evict_prefix(Replica& replica) {
    if (replica.evictable.empty()) return false;
    const long long id = std::get<2>(*replica.evictable.begin());
    replica.evictable.erase(replica.evictable.begin());
    const auto victim = replica.prefixes.find(id);
    replica.used_bytes -= victim->second.bytes;
    replica.prefixes.erase(victim);
    return true;
}

// Hands the sequence's links up to `end` (exclusive), beyond those it reads already, to the prefix
// cache: with their bytes, held by the sequence until it leaves. Stops at the first link another
// request has left there meanwhile (the rest of the chain is that one's).
void Simulation::leave_in_cache(Replica& replica, Sequence& sequence, std::size_t end, double now) {
    if (!config_.limits.prefix_caching || replica.role == Role::decode) return;
    const PrefixChain chain{requests_[sequence.request]};
    for (std::size_t link = sequence.shared_links; link < end && !replica.prefixes.count(chain.id(link)); ++link) {
        const long long before = sequence.shared;
        const long long tokens = chain.tokens(link);
        CachedPrefix prefix{tokens, kv_bytes(replica, tokens) - (before > 0 ? kv_bytes(replica, before) : 0.0), 1, now,
                            static_cast<int>(link)};
        sequence.shared = tokens;
        sequence.shared_links = link + 1;
        sequence.bytes -= prefix.bytes;
        replica.prefixes.emplace(chain.id(link), prefix);
    }
}

void Simulation::release(Replica& replica, Sequence& sequence) {
    replica.used_bytes -= sequence.bytes;
    sequence.bytes = 0.0;
    sequence.allocated = 0;
    const PrefixChain chain{requests_[sequence.request]};
    for (std::size_t link = 0; link < sequence.shared_links; ++link) {
        if (auto it = replica.prefixes.find(chain.id(link)); it != replica.prefixes.end() && --it->second.references == 0) {
            replica.evictable.insert(eviction_key(it->first, it->second));
        }
    }
    sequence.shared = 0;
    sequence.shared_links = 0;
}

// Recompute preemption (vLLM's default): the sequence gives back its cache and waits at the head
// of the queue; it will prefill its prompt and every token generated so far in one go.
void Simulation::preempt(Replica& replica, std::size_t index) {
    Sequence sequence = replica.running[index];
    release(replica, sequence);
    sequence.target = requests_[sequence.request].prompt_tokens + sequence.generated;
    sequence.cached = 0;
    replica.running.erase(replica.running.begin() + static_cast<std::ptrdiff_t>(index));
    replica.waiting.push_front(sequence);
    ++records_[sequence.request].preemptions;
    ++preemptions_;
}

// The request at the head of the queue can never be served here: it is dropped and counted.
void Simulation::reject(Replica& replica, double now) {
    ++rejected_;
    const Sequence sequence = replica.waiting.front();
    records_[sequence.request].rejected = true;
    client_done(sequence.request, now);
    replica.waiting.pop_front();
    if (sequence.remote) release_source(sequence.request, now);
}

std::pair<double, std::size_t> Simulation::next_send() const {
    constexpr double kNever = std::numeric_limits<double>::infinity();
    double head = kNever;
    if (next_head_ < requests_.size()) {
        head = !config_.closed_loop ? requests_[next_head_].arrival_s
                                    : (ready_clients_.empty() ? kNever : ready_clients_.top());
    }
    if (!follow_ups_.empty() && follow_ups_.top().first < head) return follow_ups_.top();
    return {head, next_head_};
}

// The scheduler sees a request after its way in, and never before one sent earlier: the front end
// hands requests to the engine in the order it received them. The way in is the front end's work,
// one request at a time (docs/serving.md, "The time a client sees"): a request sent while others
// are still being taken in waits for them, so a burst reaches the engine spread out.
double Simulation::take_in(double sent, long long prompt_tokens) {
    const double path_in = path_.before(static_cast<double>(prompt_tokens)).value;
    front_end_free_s_ = std::max(front_end_free_s_ + path_in / front_ends_, sent + path_in);
    return front_end_free_s_;
}

// Where the runtime states a front end's work per streamed token, a pass's tokens wait for the
// earlier passes' tokens the front end is still streaming and then for their own; without it they
// leave at once. Either way the way out follows.
double Simulation::deliver(double now, double streams) {
    const double work = path_.per_output_token.value * streams;
    if (work <= 0.0) return path_.after_step.value;
    // An instance's API servers each stream their share of the pass's streams.
    streaming_free_s_ = std::max(streaming_free_s_ + work / front_ends_, now + work / api_servers_);
    return streaming_free_s_ - now + path_.after_step.value;
}

// The client has the last token (or the refusal) after the way out, then thinks: it sends its
// conversation's next turn, or in a closed loop its next request.
void Simulation::client_done(std::size_t request, double now) {
    const double delivered = now + records_[request].delivery_s;
    if (const long long next_turn = successors_[request]; next_turn >= 0) {
        follow_ups_.push({delivered + requests_[static_cast<std::size_t>(next_turn)].think_s, static_cast<std::size_t>(next_turn)});
    } else if (config_.closed_loop) {
        ready_clients_.push(delivered + config_.closed_loop->think_time_s);
    }
}

void Simulation::send(double now) {
    const auto [sent, index] = next_send();
    if (!follow_ups_.empty() && follow_ups_.top().second == index && follow_ups_.top().first == sent) {
        follow_ups_.pop();
    } else {
        if (config_.closed_loop) ready_clients_.pop();
        ++next_head_;
        while (next_head_ < requests_.size() && requests_[next_head_].follows >= 0) ++next_head_;
    }
    sent_[index] = true;
    requests_[index].arrival_s = now;
    records_[index].request.arrival_s = now;
    records_[index].first_delivery_s = path_.after_step.value;
    records_[index].delivery_s = path_.after_step.value;
    taking_in_.emplace_back(take_in(now, requests_[index].prompt_tokens), index);
}

void Simulation::arrive(double now) {
    const std::size_t index = taking_in_.front().second;
    taking_in_.pop_front();
    ++arrived_;
    records_[index].scheduled_s = now;
    // A conversation's later turn goes where its previous turn went, whose cache holds its start (the
    // affinity of cache-aware routers); any other request to the least loaded instance.
    const long long previous = requests_[index].follows;
    const std::size_t chosen = previous >= 0 ? static_cast<std::size_t>(records_[static_cast<std::size_t>(previous)].replica)
                                             : least_loaded(0, disaggregated() ? prefill_count_ : replicas_.size());
    Sequence sequence;
    sequence.request = index;
    sequence.target = requests_[index].prompt_tokens;
    records_[index].replica = static_cast<int>(chosen);
    account(replicas_[chosen], now);
    replicas_[chosen].waiting.push_back(sequence);
    if (!replicas_[chosen].busy()) start_step(replicas_[chosen], now);
}

void Simulation::start_step(Replica& replica, double now) {
    account(replica, now);
    const SchedulerLimits& limits = config_.limits;
    // The deployment this replica runs: its passes' shapes and times are priced on it.
    const engine::Evaluator& deployment = evaluator_of(replica);
    const engine::CostModel& cost = deployment.cost_model();
    // A runtime that runs prefill in passes of its own (SGLang) takes one whenever a prompt is being
    // prefilled or a waiting request may join, and a decode pass otherwise; when no prompt could be
    // placed after all (the cache is full), the pass is formed again for the decodes.
    const bool separate = limits.separate_prefill && replica.role == Role::colocated;
    const auto can_admit = [&] {
        return !replica.waiting.empty() && static_cast<long long>(replica.running.size()) < limits.max_sequences;
    };
    bool prefill_pass = separate && (can_admit() || std::any_of(replica.running.begin(), replica.running.end(),
                                                                [](const Sequence& s) { return s.prefilling(); }));
    long long budget = 0;
    const long long preemptions_at_pass_start = preemptions_;
    engine::StepShape shape;
    // Speculating, a decoding sequence takes k + 1 positions of the pass (its last token and the
    // k drafts), with room in its cache for all of them.
    const long long decode_positions = speculates() ? speculation_.length + 1 : 1;
    double decoding = 0.0, decoding_context = 0.0;  // decoding sequences in the pass, their cached tokens
    for (;;) {
        budget = limits.max_batched_tokens;
        replica.step.clear();
        shape = engine::StepShape{};
        decoding = decoding_context = 0.0;
        // Running sequences first, oldest first: one token for each decoding sequence, the next chunk
        // of each prompt being prefilled. Memory short: the youngest running sequence is preempted.
        for (std::size_t i = 0; i < replica.running.size();) {
            Sequence& sequence = replica.running[i];
            const long long remaining = sequence.target - sequence.cached;
            const bool takes_part = !separate || sequence.prefilling() == prefill_pass;
            const long long tokens = !takes_part            ? 0
                                     : sequence.prefilling() ? (limits.chunked_prefill ? std::min(remaining, budget)
                                                                                       : (remaining <= budget ? remaining : 0))
                                                             : (budget >= decode_positions ? decode_positions : 0);
            if (tokens == 0) {
                ++i;
                continue;
            }
            bool preempted_self = false, wait_for_transfers = false;
            while (!reserve(replica, sequence, sequence.cached + tokens)) {
                if (replica.running.size() == 1 && replica.parked > 0) {
                    // The rest of the memory holds caches in transit: they free it (or join the batch) soon.
                    wait_for_transfers = true;
                    break;
                }
                if (replica.running.size() == 1) {
                    // Alone with the whole cache and still short: this request can never be served here.
                    release(replica, sequence);
                    ++rejected_;
                    records_[sequence.request].rejected = true;
                    client_done(sequence.request, now);
                    replica.running.clear();
                    preempted_self = true;
                    break;
                }
                const std::size_t youngest = replica.running.size() - 1;
                preempt(replica, youngest);
                if (youngest == i) {
                    preempted_self = true;
                    break;
                }
            }
            if (preempted_self) break;
            if (wait_for_transfers) {
                ++i;
                continue;
            }
            Sequence& scheduled = replica.running[i];
            if (scheduled.prefilling()) {
                shape += engine::prefill_shape(cost, 1.0, static_cast<double>(scheduled.cached), static_cast<double>(tokens),
                                               scheduled.cached + tokens == scheduled.target);
            } else if (speculates()) {
                shape += engine::verification_shape(cost, speculation_.length, 1.0, static_cast<double>(scheduled.cached));
                decoding += 1.0;
                decoding_context += static_cast<double>(scheduled.cached);
            } else {
                engine::add_decode(shape, cost, 1.0, static_cast<double>(scheduled.cached + 1));
            }
            replica.step.push_back({i, tokens});
            budget -= tokens;
            ++i;
        }
        // Then waiting requests, first come first served, while the pass has room; none after a
        // preemption in this pass (as vLLM's scheduler: admitting then would only evict again).
        const long long preemptions_before_admission = preemptions_;
        // A decode instance counts the sequences whose cache is arriving among its running ones.
        auto arriving = [&replica] { return replica.role == Role::decode ? replica.parked : 0; };
        while ((!separate || prefill_pass) && preemptions_before_admission == preemptions_at_pass_start &&
               !replica.waiting.empty() && budget > 0 &&
               static_cast<long long>(replica.running.size()) + arriving() < limits.max_sequences) {
            Sequence sequence = replica.waiting.front();
            const workload::Request& request = requests_[sequence.request];
            const bool alone = replica.running.empty() && replica.step.empty() && replica.parked == 0;
            if (sequence.remote) {
                // Disaggregated: reserve the whole prompt's cache here, then pull it from the prefill instance.
                if (!reserve(replica, sequence, admission_tokens(replica, sequence, sequence.target))) {
                    if (!alone) break;
                    reject(replica, now);  // not even an empty decode instance holds this prompt
                    continue;
                }
                replica.waiting.pop_front();
                start_transfer(replica, sequence, now);
                continue;
            }
            // The longest run of the prompt's leading links in the cache.
            const PrefixChain chain{request};
            std::size_t hit_links = 0;
            if (limits.prefix_caching && replica.role != Role::decode && sequence.cached == 0) {
                while (hit_links < chain.prompt_links() && replica.prefixes.count(chain.id(hit_links))) ++hit_links;
            }
            const bool hit = hit_links > 0;
            if (hit) {
                // The last prompt token is always computed: its logits give the first output token.
                const long long tokens = chain.tokens(hit_links - 1);
                sequence.shared = tokens;
                sequence.cached = std::min(tokens, sequence.target - 1);
                sequence.allocated = round_up_to_block(tokens);
            }
            // The links it reads are held while room is made for its other tokens, so that making
            // room cannot drop them; let go again if it is not admitted.
            for (std::size_t link = 0; link < hit_links; ++link) {
                CachedPrefix& prefix = replica.prefixes.at(chain.id(link));
                if (prefix.references++ == 0) replica.evictable.erase(eviction_key(chain.id(link), prefix));
            }
            auto let_go = [&] {
                for (std::size_t link = 0; link < hit_links; ++link) {
                    CachedPrefix& prefix = replica.prefixes.at(chain.id(link));
                    if (--prefix.references == 0) replica.evictable.insert(eviction_key(chain.id(link), prefix));
                }
            };
            const long long remaining = sequence.target - sequence.cached;
            const long long tokens = limits.chunked_prefill ? std::min(remaining, budget) : remaining;
            if (tokens > budget) {
                let_go();
                if (!alone) break;
                reject(replica, now);  // a whole prompt longer than a pass allows, without chunking
                ++rejected_longer_than_pass_;
                continue;
            }
            if (!reserve(replica, sequence, admission_tokens(replica, sequence, sequence.cached + tokens))) {
                let_go();
                if (!alone || !replica.prefixes.empty()) {
                    if (alone) {
                        while (evict_prefix(replica)) {
                        }
                        continue;
                    }
                    break;
                }
                reject(replica, now);  // not even an empty replica holds this prompt
                continue;
            }
            if (hit) {
                for (std::size_t link = 0; link < hit_links; ++link) replica.prefixes.at(chain.id(link)).last_used_s = now;
                sequence.shared_links = hit_links;
                if (!records_[sequence.request].prefix_hit) ++prefix_hits_;
                records_[sequence.request].prefix_hit = true;
            }
            replica.waiting.pop_front();
            shape += engine::prefill_shape(cost, 1.0, static_cast<double>(sequence.cached), static_cast<double>(tokens),
                                           sequence.cached + tokens == sequence.target);
            replica.running.push_back(sequence);
            replica.step.push_back({replica.running.size() - 1, tokens});
            budget -= tokens;
        }
        if (replica.step.empty() && prefill_pass) {
            prefill_pass = false;  // no prompt could be placed: the decodes run
            continue;
        }
        break;
    }
    if (replica.step.empty()) {
        replica.busy_until = -1.0;
        return;
    }
    double pass = deployment.step_time(shape).value;
    // A decode pass no captured graph holds is dispatched op by op (engine/graph_capture.hpp).
    if (shape.prompt_tokens() <= 0.0 && engine::decode_without_graph(cost, shape.sequences)) ++decode_passes_without_graph_;
    if (decoding > 0.0) {
        // The drafter's k steps for the decoding sequences run before the verification pass, and
        // the runtime's host work of the round beside it where nothing overlaps that.
        const double drafting = engine::draft_round_time(evaluator_, draft_, speculation_.length, decoding,
                                                         decoding_context / decoding)
                                    .value;
        pass += drafting + engine::round_host_time(evaluator_).value;
        draft_time_ += drafting;
    }
    replica.busy_until = now + pass;
    pass_ends_.push({replica.busy_until, static_cast<std::size_t>(&replica - replicas_.data())});
    replica.busy_time += pass;
    ++steps_;
}

void Simulation::finish_step(Replica& replica, double now) {
    account(replica, now);
    // The streams this pass gives a token (a verification's accepted drafts and its own token
    // together): a decode, or a prefill's end, but not a prefill instance's first token, which
    // reaches the client from the decode instance. Counted only where streaming costs the front end.
    double streams = 0.0;
    if (path_.per_output_token.value > 0.0) {
        for (const Work& work : replica.step) {
            const Sequence& sequence = replica.running[work.sequence];
            if (!sequence.prefilling()) {
                streams += 1.0;
            } else if (sequence.cached + work.tokens >= sequence.target) {
                const bool handed_off = replica.role == Role::prefill && sequence.generated == 0 &&
                                        requests_[sequence.request].output_tokens > 1;
                streams += handed_off ? 0.0 : 1.0;
            }
        }
    }
    const double delivery = deliver(now, streams);
    for (const Work& work : replica.step) {
        Sequence& sequence = replica.running[work.sequence];
        RequestRecord& record = records_[sequence.request];
        const bool was_prefilling = sequence.prefilling();
        if (!was_prefilling && speculates()) {
            // A verification: the accepted drafts and the model's own next token, never past the
            // output's end. The cache keeps the last token's and the accepted drafts' KV.
            const long long left = requests_[sequence.request].output_tokens - sequence.generated;
            const long long kept = std::min(accepted_drafts() + 1, left);
            sequence.cached += kept;
            sequence.generated += kept;
            ++verifications_;
            kept_tokens_ += static_cast<double>(kept);
            // The tokens reach the user together: one gap per delivery.
            gaps_.add((now - sequence.last_token_s) + (delivery - sequence.last_delivery_s));
            sequence.last_token_s = now;
            sequence.last_delivery_s = delivery;
            continue;
        }
        sequence.cached += work.tokens;
        // A decode token, or the token that ends a prefill (the first, or the next after a recompute).
        if (was_prefilling && sequence.prefilling()) continue;
        ++sequence.generated;
        if (sequence.generated == 1) {
            // A prefill instance's first token reaches the user with the cache on the decode instance.
            if (replica.role != Role::prefill || requests_[sequence.request].output_tokens <= 1) {
                record.first_token_s = now;
                record.first_delivery_s = delivery;
            }
        } else {
            gaps_.add((now - sequence.last_token_s) + (delivery - sequence.last_delivery_s));
        }
        sequence.last_token_s = now;
        sequence.last_delivery_s = delivery;
        if (was_prefilling) {
            // The first prefill of a prompt leaves the links of its chain beyond those it read in the
            // cache for later requests.
            const PrefixChain chain{requests_[sequence.request]};
            leave_in_cache(replica, sequence, chain.prompt_links(), now);
        }
    }
    // Finished sequences leave, in order.
    std::size_t kept = 0;
    for (std::size_t i = 0; i < replica.running.size(); ++i) {
        Sequence& sequence = replica.running[i];
        if (sequence.generated >= requests_[sequence.request].output_tokens) {
            records_[sequence.request].finish_s = now;
            records_[sequence.request].delivery_s = sequence.last_delivery_s;
            client_done(sequence.request, now);
            // Its whole prompt in the cache, a finished request leaves the blocks its output
            // completed there too: the next turn of its conversation starts with them.
            const PrefixChain chain{requests_[sequence.request]};
            if (sequence.shared_links == chain.prompt_links()) leave_in_cache(replica, sequence, chain.links(), now);
            release(replica, sequence);
            continue;
        }
        if (replica.role == Role::prefill && sequence.generated >= 1) {
            hand_off(replica, sequence, now);
            continue;
        }
        if (kept != i) replica.running[kept] = sequence;
        ++kept;
    }
    replica.running.resize(kept);
    replica.busy_until = -1.0;
}

void Simulation::account(Replica& replica, double now) {
    const double elapsed = now - replica.accounted_s;
    if (elapsed <= 0.0) return;
    replica.running_time += elapsed * static_cast<double>(replica.running.size());
    waiting_time_ += elapsed * static_cast<double>(replica.waiting.size());
    replica.accounted_s = now;
}

Replica* Simulation::soonest_replica() {
    while (!pass_ends_.empty()) {
        const auto [end, index] = pass_ends_.top();
        Replica& replica = replicas_[index];
        if (replica.busy() && replica.busy_until == end) return &replica;
        pass_ends_.pop();
    }
    return nullptr;
}

void Simulation::sample(double now) {
    if (++steps_since_sample_ < sample_stride_) return;
    steps_since_sample_ = 0;
    TimelineSample point;
    point.time_s = now;
    for (const Replica& replica : replicas_) {
        point.waiting += static_cast<long long>(replica.waiting.size());
        point.running += static_cast<long long>(replica.running.size());
        point.kv_fraction += replica.used_bytes / capacity_of(replica) / static_cast<double>(replicas_.size());
    }
    timeline_.push_back(point);
    if (timeline_.size() >= kTimelineLimit) {
        // Keep every other sample and sample half as often from now on: bounded memory, even spacing.
        std::size_t kept = 0;
        for (std::size_t i = 0; i < timeline_.size(); i += 2) timeline_[kept++] = timeline_[i];
        timeline_.resize(kept);
        sample_stride_ *= 2;
    }
}

ServeResult Simulation::run(const ServiceTargets& targets) {
    ServeResult result;
    double now = 0.0;
    bool counted_last_arrival = false;
    while (true) {
        Replica* soonest = soonest_replica();
        const double step_end = soonest == nullptr ? std::numeric_limits<double>::infinity() : soonest->busy_until;
        const double transfer_end =
            transfers_.empty() ? std::numeric_limits<double>::infinity() : transfers_.top().done_s;
        // A send first (it only gives the front end work), then a request the front end has taken
        // in, then the engine's events.
        const double send_at = next_send().first;
        const double arrival = taking_in_.empty() ? std::numeric_limits<double>::infinity() : taking_in_.front().first;
        const double engine_next = std::min(step_end, transfer_end);
        const bool send_first = std::isfinite(send_at) && send_at <= std::min(arrival, engine_next);
        const bool arrival_first = !send_first && std::isfinite(arrival) && arrival <= engine_next;
        const bool transfer_first = !send_first && !arrival_first && transfer_end <= step_end && !transfers_.empty();
        if (!send_first && !arrival_first && !transfer_first && soonest == nullptr) break;
        now = send_first ? send_at : arrival_first ? arrival : transfer_first ? transfer_end : step_end;
        if (send_first) {
            send(now);
        } else if (transfer_first) {
            const Transfer transfer = transfers_.top();
            transfers_.pop();
            finish_transfer(transfer, now);
        } else if (arrival_first) {
            arrive(now);
            if (config_.progress && arrived_ % 4096 == 0) config_.progress(static_cast<double>(arrived_) / requests_.size());
            if (arrived_ == requests_.size() && !counted_last_arrival) {
                counted_last_arrival = true;
                for (const Replica& replica : replicas_) {
                    result.waiting_at_last_arrival += static_cast<long long>(replica.waiting.size());
                }
            }
        } else {
            finish_step(*soonest, now);
            start_step(*soonest, now);
            sample(now);
        }
    }

    for (Replica& replica : replicas_) account(replica, now);

    // A request still unfinished when no event is left could not be scheduled (a recomputed
    // prompt longer than a pass without chunked prefill): counted as rejected, never as served.
    for (const Replica& replica : replicas_) {
        for (const Sequence& sequence : replica.running) {
            records_[sequence.request].rejected = true;
            ++rejected_;
        }
        for (const Sequence& sequence : replica.waiting) {
            records_[sequence.request].rejected = true;
            ++rejected_;
        }
    }

    // A later turn never sent (the turn before it never finished) was not served either.
    for (std::size_t i = 0; i < requests_.size(); ++i) {
        if (sent_[i]) continue;
        records_[i].rejected = true;
        ++rejected_;
    }

    // Latencies of the requests that were served.
    std::vector<double> ttft, server_ttft, tpot, e2e;
    double output_tokens = 0.0, total_tokens = 0.0, met = 0.0, last_finish = 0.0;
    for (const RequestRecord& record : records_) {
        if (record.rejected) continue;
        ttft.push_back(record.ttft());
        server_ttft.push_back(record.server_ttft());
        e2e.push_back(record.e2e());
        if (record.request.output_tokens > 1) tpot.push_back(record.tpot());
        output_tokens += static_cast<double>(record.request.output_tokens);
        total_tokens += static_cast<double>(record.request.output_tokens + record.request.prompt_tokens);
        last_finish = std::max(last_finish, record.finish_s + record.delivery_s);
        met += within_targets(record, targets) ? 1.0 : 0.0;
    }
    // Sends in time order: a conversation's later turns are sent after the requests that follow it.
    double first_arrival = requests_.empty() ? 0.0 : std::numeric_limits<double>::infinity(), last_arrival = 0.0;
    for (std::size_t i = 0; i < requests_.size(); ++i) {
        if (!sent_[i]) continue;
        first_arrival = std::min(first_arrival, requests_[i].arrival_s);
        last_arrival = std::max(last_arrival, requests_[i].arrival_s);
    }
    result.duration_s = last_finish - first_arrival;
    result.ttft_s = percentiles(ttft);
    result.server_ttft_s = percentiles(server_ttft);
    result.tpot_s = percentiles(tpot);
    result.e2e_s = percentiles(e2e);
    result.itl_s = gaps_.summary();
    if (result.duration_s > 0.0) {
        result.output_tokens_per_s = output_tokens / result.duration_s;
        result.total_tokens_per_s = total_tokens / result.duration_s;
        result.requests_per_s = static_cast<double>(ttft.size()) / result.duration_s;
        result.goodput_requests_per_s = met / result.duration_s;
        // The running batch of the instances that decode: every replica, or the decode pool.
        double running_time = 0.0;
        for (std::size_t r = prefill_count_; r < replicas_.size(); ++r) running_time += replicas_[r].running_time;
        result.mean_running_batch = running_time / result.duration_s / static_cast<double>(replicas_.size() - prefill_count_);
        result.mean_waiting = waiting_time_ / result.duration_s;
    }
    if (disaggregated()) {
        result.disaggregation = pool_stats(result.duration_s);
    } else {
        result.replica_loads.resize(replicas_.size());
        for (std::size_t i = 0; i < records_.size(); ++i) {
            if (sent_[i]) ++result.replica_loads[static_cast<std::size_t>(records_[i].replica)].requests;
        }
        for (std::size_t r = 0; r < replicas_.size() && result.duration_s > 0.0; ++r) {
            result.replica_loads[r].utilization = replicas_[r].busy_time / result.duration_s;
            result.replica_loads[r].mean_running_batch = replicas_[r].running_time / result.duration_s;
        }
    }
    if (speculates()) result.speculation = speculation_stats();
    result.goodput_fraction = ttft.empty() ? 0.0 : met / static_cast<double>(records_.size());
    result.offered_rate_per_s =
        last_arrival > first_arrival ? static_cast<double>(requests_.size() - 1) / (last_arrival - first_arrival) : 0.0;
    for (const Replica& replica : replicas_) {
        result.peak_kv_fraction = std::max(result.peak_kv_fraction, replica.peak_bytes / capacity_of(replica));
    }
    result.kv_capacity_tokens = kv_capacity_tokens(evaluator_);
    result.preemptions = preemptions_;
    result.prefix_hits = prefix_hits_;
    result.steps = steps_;
    result.decode_passes_without_graph = decode_passes_without_graph_;
    result.rejected = rejected_;
    result.rejected_longer_than_pass = rejected_longer_than_pass_;
    // Arrivals outran service when a backlog stands at the last arrival (docs/serving.md).
    const long long backlog_limit =
        std::max<long long>(20, static_cast<long long>(0.05 * static_cast<double>(requests_.size())));
    // A closed loop holds at most its clients' requests: it slows down instead of queueing without end.
    result.saturated = (!config_.closed_loop && result.waiting_at_last_arrival > backlog_limit) || rejected_ > 0;
    result.requests = std::move(records_);
    result.timeline = std::move(timeline_);
    return result;
}

SpeculationStats Simulation::speculation_stats() const {
    SpeculationStats stats;
    stats.length = speculation_.length;
    stats.acceptance = speculation_.acceptance;
    stats.multi_token_heads = speculation_.multi_token_heads;
    stats.expected_tokens_per_verification =
        engine::expected_tokens_per_verification(speculation_.length, speculation_.acceptance);
    stats.verifications = verifications_;
    if (verifications_ > 0) stats.mean_tokens_per_verification = kept_tokens_ / static_cast<double>(verifications_);
    double busy = 0.0;
    for (const Replica& replica : replicas_) busy += replica.busy_time;
    if (busy > 0.0) stats.draft_time_fraction = draft_time_ / busy;
    return stats;
}

DisaggregationStats Simulation::pool_stats(double duration) const {
    DisaggregationStats stats;
    stats.pools = *config_.disaggregation;
    stats.link = link_;
    double prefill_busy = 0.0, decode_busy = 0.0, prefill_running = 0.0, decode_running = 0.0;
    for (std::size_t r = 0; r < replicas_.size(); ++r) {
        (r < prefill_count_ ? prefill_busy : decode_busy) += replicas_[r].busy_time;
        (r < prefill_count_ ? prefill_running : decode_running) += replicas_[r].running_time;
    }
    const double prefill = static_cast<double>(stats.pools.prefill_instances);
    const double decode = static_cast<double>(stats.pools.decode_instances);
    if (duration > 0.0) {
        stats.prefill_utilization = prefill_busy / duration / prefill;
        stats.decode_utilization = decode_busy / duration / decode;
        stats.mean_prefill_batch = prefill_running / duration / prefill;
        stats.mean_decode_batch = decode_running / duration / decode;
    }
    stats.transfers = transfers_done_;
    if (transfers_done_ > 0) {
        const double count = static_cast<double>(transfers_done_);
        stats.mean_kv_transfer_s = transfer_time_ / count;
        stats.mean_kv_transfer_wait_s = transfer_wait_ / count;
        stats.mean_kv_transfer_bytes = transfer_bytes_ / count;
    }
    return stats;
}

}  // namespace

Percentiles percentiles(std::vector<double> values) {
    Percentiles result;
    if (values.empty()) return result;
    std::sort(values.begin(), values.end());
    result.p50 = core::quantile_of_sorted(values, 0.50);
    result.p90 = core::quantile_of_sorted(values, 0.90);
    result.p99 = core::quantile_of_sorted(values, 0.99);
    double sum = 0.0;
    for (double value : values) sum += value;
    result.mean = sum / static_cast<double>(values.size());
    result.max = values.back();
    return result;
}

double kv_room(const engine::Evaluator& deployment, long long block_tokens) {
    const engine::MemoryFootprint memory = deployment.memory(1.0, 1.0);
    const double room = (memory.usable - memory.weights).value;
    if (room <= deployment.kv_bytes_per_sequence(static_cast<double>(block_tokens)).value) {
        throw core::InputError(core::unlocated(
            "memory", fmt::format("the weights ({}) leave no room for the KV cache in the {} usable on {}",
                                  memory.weights, memory.usable, deployment.hardware().name)));
    }
    return room;
}

// Tokens one sequence could hold: what a sequence holds however short (recurrent states,
// compressors' carried blocks) first, then a token's cache for each further token.
double kv_capacity_tokens(const engine::Evaluator& deployment) {
    const engine::MemoryFootprint memory = deployment.memory(1.0, 1.0);
    const double room = std::max(0.0, (memory.usable - memory.weights).value) * deployment.deployment().parallelism.attention_data;
    const double fixed = deployment.kv_bytes_per_sequence(0.0).value;
    const double per_token = deployment.kv_bytes_per_sequence(1.0).value - fixed;
    return per_token > 0.0 ? std::max(0.0, room - fixed) / per_token : 0.0;
}

ServeResult simulate_serving(const engine::Evaluator& evaluator, const std::vector<workload::Request>& requests,
                             const ServeConfig& config, const ServiceTargets& targets) {
    Simulation simulation(evaluator, requests, config);
    return simulation.run(targets);
}

}  // namespace decodesim::serving
