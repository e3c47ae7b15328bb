#include "serving/steady_state.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "core/search.hpp"
#include "serving/disaggregation.hpp"

namespace decodesim::serving {

namespace {

// The front end's queues: each request's way in (RequestPath::before) is its work, one request at
// a time, on each of `front_ends` front ends that share `rate_per_s` (the simulation's rule: as one
// front end at that many times the rate). An M/D/1 queue: utilization rho = rate x work /
// front ends, mean wait rho x service / (2 (1 - rho)); its tail taken as exponential, P(W > t) =
// rho exp(-t rho / mean), which keeps that mean. Where the runtime states a cost per streamed
// token (RequestPath::per_output_token), a pass's tokens are the front end's work too, in a queue
// of their own as the simulation keeps it: each request's `deliveries` (its passes that give it a
// token) load it, and a pass's tokens reach their clients after the pass's share of that work.
struct FrontEnd {
    double service_s = 0.0;    // one request's way in, over the front ends
    double rate_per_s = 0.0;
    double token_work_s = 0.0;  // one streamed token's work
    double streaming_s = 0.0;   // one request's streamed tokens' work, over the front ends
    double api_servers = 1.0;   // an instance's front-end processes, which share each pass's streams

    // `instances`: those that take requests in; each runs the deployment's API servers.
    FrontEnd(const engine::Evaluator& evaluator, const LoadShape& load, double rate, double instances, double deliveries)
        : FrontEnd(evaluator.deployment().request_path(), load, rate, instances, evaluator.deployment().api_servers,
                   deliveries) {}
    FrontEnd(const engine::RequestPath& path, const LoadShape& load, double rate, double instances, double servers,
             double deliveries)
        : service_s(path.before(load.prompt_tokens).value / (instances * servers)), rate_per_s(rate),
          token_work_s(path.per_output_token.value), streaming_s(token_work_s * deliveries / (instances * servers)),
          api_servers(servers) {}
    // The most requests a second it takes in and streams; infinite without such work.
    double capacity() const {
        const double busiest = std::max(service_s, streaming_s);
        return busiest > 0.0 ? 1.0 / busiest : std::numeric_limits<double>::infinity();
    }
    double utilization() const { return rate_per_s * std::max(service_s, streaming_s); }
    double mean_wait() const {
        const double rho = rate_per_s * service_s;
        return rho > 0.0 && rho < 1.0 ? rho * service_s / (2.0 * (1.0 - rho)) : 0.0;
    }
    double wait_quantile(double fraction) const {
        const double rho = rate_per_s * service_s, tail = 1.0 - fraction, mean = mean_wait();
        return mean > 0.0 && rho > tail ? std::log(rho / tail) * mean / rho : 0.0;
    }
    // From a pass's end to its tokens' leaving the front end: the pass's own work (`streams`
    // tokens, shared by the API servers) and, as an M/D/1 queue of such passes, the wait behind
    // the passes before.
    double delivery_delay(double streams) const {
        const double pass_work = token_work_s * streams / api_servers, rho = rate_per_s * streaming_s;
        return pass_work > 0.0 && rho < 1.0 ? pass_work + rho * pass_work / (2.0 * (1.0 - rho)) : 0.0;
    }
};

// The client's time to first token (the server's plus the runtime's request path in and out, as
// serve counts it, and the wait at the front end), its completion from the first token and the
// per-token pace, and the output rate.
void finish_request_figures(SteadyState& state, const LoadShape& load, const engine::Evaluator& evaluator,
                            const FrontEnd& front_end) {
    const engine::RequestPath path = evaluator.deployment().request_path();
    const double way = path.before(load.prompt_tokens).value + path.after_step.value + front_end.delivery_delay(state.batch);
    state.ttft_s.mean += way + front_end.mean_wait();
    state.ttft_s.p50 += way + front_end.wait_quantile(0.50);
    state.ttft_s.p90 += way + front_end.wait_quantile(0.90);
    state.ttft_s.p99 += way + front_end.wait_quantile(0.99);
    state.ttft_s.max += way + front_end.wait_quantile(0.99);
    const double decode_steps = std::max(0.0, load.output_tokens - 1.0);
    state.e2e_s.mean = state.ttft_s.mean + decode_steps * state.tpot_s.mean;
    state.e2e_s.p50 = state.ttft_s.p50 + decode_steps * state.tpot_s.p50;
    state.e2e_s.p90 = state.ttft_s.p90 + decode_steps * state.tpot_s.p90;
    state.e2e_s.p99 = state.ttft_s.p99 + decode_steps * state.tpot_s.p99;
    state.e2e_s.max = state.ttft_s.max + decode_steps * state.tpot_s.max;
    state.output_tokens_per_s = load.rate_per_s * load.output_tokens;
}

constexpr double kZ99 = 2.326;  // the standard normal's 99th percentile
constexpr double kZ90 = 1.282;
// Equally likely strata of a request's output length, for the TPOT tail over a spread of lengths.
constexpr int kOutputStrata = 32;
// The fixed-point searches: at most this many evaluations of the pass, settled within this
// share of it, and no pass longer than this (seconds).
constexpr int kIterations = 200;
constexpr double kSettled = 1e-9;
constexpr double kLongestPass = 1e6;
// A steady state holds only where the pass time's feedback on itself (d pass / d pass through the
// batch and the prompts it gathers) is below this: at a gain g a fluctuation in the pass comes back
// amplified 1 / (1 - g) times, tenfold at 0.9, and at 1 the fixed point is a tangency past which
// the queue grows without end. The figure is where the plain iteration this search replaced (200
// steps, settled to 1e-9) stopped settling, which the plans and their serve checks were built on.
constexpr double kMostLoopGain = 0.9;
// The relative span either side of the fixed point over which its loop gain is taken.
constexpr double kGainSpan = 0.05;

struct Model {
    const engine::Evaluator& evaluator;
    const engine::CostModel& cost;
    LoadShape load;
    SchedulerLimits limits;
    double context;    // mean decode context: the prompt and half the output
    double max_batch;  // by memory and by the scheduler
    // Speculative decoding (docs/serving.md): k drafts per verification, 0 without, and the
    // tokens a verification yields on average, E = (1 - a^(k+1)) / (1 - a); 1 without.
    int drafts = 0;
    double tokens_per_pass = 1.0;

    double positions() const { return drafts + 1.0; }  // a decoding sequence's tokens in a pass
    // The tokens of the budget a pass has for prompts: beside the decodes, or all of it where
    // prompts are prefilled in passes of their own (SchedulerLimits::separate_prefill, SGLang).
    double room(double batch) const {
        const double budget = static_cast<double>(limits.max_batched_tokens);
        return limits.separate_prefill ? budget : budget - batch * positions();
    }
    // The prompts' worth a pass holds beside `batch` decoding sequences: with chunked prefill the
    // budget's free room counted to the token (the scheduler fills it with part of the next prompt
    // where a whole one does not fit); without it, the whole prompts that room holds, none when a
    // prompt is longer than the whole budget. Negative when the decodes alone overrun the budget.
    double prompts_held(double batch) const {
        const double prompts = room(batch) / load.computed_prompt_tokens();
        return limits.chunked_prefill ? prompts : std::floor(prompts);
    }
    // Passes a mean prompt's prefill takes: its chunks of the whole budget.
    double prompt_passes() const {
        return std::ceil(load.computed_prompt_tokens() / static_cast<double>(limits.max_batched_tokens));
    }
    // Passes a mean request decodes over: its output - 1 tokens, E per pass.
    double decode_passes() const { return std::max(0.0, load.output_tokens - 1.0) / tokens_per_pass; }
    // The decode part of a pass: one token per sequence, or each sequence's verification.
    engine::StepShape decode_part(double batch) const {
        return drafts > 0 ? engine::verification_shape(cost, drafts, batch, std::max(0.0, context - 1.0))
                          : engine::decode_shape(cost, batch, context);
    }
    // A pass with `batch` decoding sequences and `prompts` whole prompts' worth of prefill; when
    // speculating, the drafter's k steps for the batch before it and the round's host work.
    // Where prompts are prefilled in passes of their own, the decodes' pass and the prompts' pass
    // that comes between it and the next: a decode token waits for both.
    double step(double batch, double prompts) const {
        engine::StepShape shape = decode_part(batch);
        double time = 0.0;
        if (prompts > 0.0) {
            if (limits.separate_prefill) {
                time += prompts_pass(prompts);
            } else {
                shape += engine::prefill_shape(cost, prompts, load.cached_prompt_tokens, load.computed_prompt_tokens());
            }
        }
        time += evaluator.step_time(shape).value;
        if (drafts > 0) {
            time += engine::round_time_beside_verification(evaluator, evaluator.draft(), drafts, batch,
                                                           std::max(0.0, context - 1.0))
                        .value;
        }
        return time;
    }
    // A pass of `prompts` prompts' worth of prefill alone.
    double prompts_pass(double prompts) const {
        return evaluator.step_time(engine::prefill_shape(cost, prompts, load.cached_prompt_tokens, load.computed_prompt_tokens())).value;
    }
    // The pass that carries a prompt to its first token, with `prompts` prompts' worth in all: the
    // mixed pass, or where prompts have passes of their own, that pass alone.
    double carrying(double batch, double prompts) const {
        return limits.separate_prefill ? prompts_pass(prompts) : step(batch, prompts);
    }
    // What bounds the decode part of a pass at `batch`, as a binding name.
    const char* decode_binding(double batch) const {
        const engine::Bound bound =
            engine::step_totals(engine::step_costs(cost, decode_part(std::max(1.0, batch))), evaluator.rates()).bound;
        return bound == engine::Bound::compute         ? "compute"
               : bound == engine::Bound::communication ? "interconnect"
               : bound == engine::Bound::overhead      ? "overhead"
                                                       : "bandwidth";
    }
};

// The spread speculation adds to a request's TPOT: the tokens a verification yields, T = j + 1
// with j accepted drafts, vary (P(j) = a^j (1 - a) for j < k, a^k at k), so a request of n tokens
// needs a random number of passes, of variance n Var(T) / E^3 (renewal theory). Returns the
// relative spread of TPOT, sd / mean, for `tokens` decoded tokens.
double acceptance_spread(const Model& model, double tokens) {
    if (model.drafts == 0 || tokens <= 0.0) return 0.0;
    const double a = model.evaluator.deployment().speculation.acceptance;
    double second_moment = 0.0;
    for (int j = 0; j <= model.drafts; ++j) {
        const double p = j < model.drafts ? std::pow(a, j) * (1.0 - a) : std::pow(a, j);
        second_moment += p * (j + 1.0) * (j + 1.0);
    }
    const double e = model.tokens_per_pass;
    const double variance = std::max(0.0, second_moment - e * e);
    // sd(passes) / mean(passes) = sqrt(n Var(T) / E^3) / (n / E).
    return std::sqrt(variance / (tokens * e));
}

Model make_model(const engine::Evaluator& evaluator, const LoadShape& load, const SchedulerLimits& limits) {
    const engine::CostModel& cost = evaluator.cost_model();
    const double context = engine::decode_range(load.prompt_tokens, load.output_tokens).mean();
    // Memory: the KV cache left beside the weights, over a sequence's mean footprint; a draft
    // model's weights and cache share the devices (Evaluator::memory, as in the simulation).
    const engine::MemoryFootprint memory = evaluator.memory(1.0, context);
    auto kv_bytes = [&](double tokens) { return evaluator.kv_bytes_per_sequence(tokens).value; };
    const double room = (memory.usable - memory.weights).value;
    // A runtime that reserves each request's whole cache at admission (TensorRT-LLM's
    // GUARANTEED_NO_EVICT) holds the prompt and the whole output for every running request, the
    // drafts a verification writes past the last token included; the others hold what a sequence has
    // written, its mean over the decode.
    const engine::Speculation& speculation = evaluator.deployment().speculation;
    const double per_sequence =
        limits.reserve_whole_request
            ? kv_bytes(load.prompt_tokens + load.output_tokens + (speculation.enabled() ? speculation.length : 0.0))
            : kv_bytes(context);
    // Each attention replica holds its own sequences in its own device's room (engine/memory.cpp).
    const double rooms = evaluator.deployment().parallelism.attention_data;
    double by_memory = room > 0.0 && per_sequence > 0.0 ? rooms * room / per_sequence : 0.0;
    // The mean footprint sets how many share the memory, but each request must fit whole at its
    // longest (the prompt and every output token), as the simulator's admission demands: when one
    // cannot, nothing is served, however small the fraction of a slot the mean would promise.
    if (kv_bytes(load.prompt_tokens + load.output_tokens) > room) by_memory = 0.0;
    Model model{evaluator, cost, load, limits, context, std::min(by_memory, static_cast<double>(limits.max_sequences))};
    if (speculation.enabled()) {
        model.drafts = speculation.length;
        model.tokens_per_pass = engine::expected_tokens_per_verification(speculation.length, speculation.acceptance);
    }
    return model;
}

// The pass time when the prompts that arrive during a pass are prefilled in the next one: k new
// prompts with probability Poisson(k; mean), each pass also carrying the batch's decode tokens.
// A pass holds at most the token budget; prompt tokens beyond it spill into later passes.
struct PassMixture {
    double mean = 0.0;
    double second_moment = 0.0;  // E[T^2], for the spread of TPOT and the residual pass
    double decode_only = 0.0;    // k = 0
    double with_prompt = 0.0;    // the pass carrying a given new prompt: k >= 1, length-weighted
};

// The passes a batch of `batch` decoding sequences goes through when prompts arrive at
// `mean_prompts` per pass. Prefill work comes as chunks of at most the pass's free budget (a prompt
// longer than that is prefilled over several passes, one chunk each); a pass carries k chunks with
// Poisson probability, at most as many as fit. One table serves the mean pass and the TTFT
// quantiles, so the two cannot drift apart.
struct PassTable {
    double chunk_share = 1.0;          // of one prompt, per chunk
    double room = 1.0;                 // tokens of the budget beside the decodes
    double chunk_tokens = 1.0;         // a mean prompt's chunk
    double mean_chunks = 0.0;          // chunks a pass carries, before the cap
    std::vector<double> probability;   // of k chunks in a pass, k = 0 .. K (the tail past 1e-12 cut)
    std::vector<double> time;          // of a pass with k chunks, k = 0 .. K + 1
    double covered = 0.0;              // the probability the table holds
    double most_chunks = 1.0;          // a full pass's chunks: passes with more take its time
};

// The Poisson probabilities of 0, 1, 2, ... about `mean`, as far as 1e-12 of the tail or `most`
// terms.
std::vector<double> poisson_terms(double mean, int most) {
    std::vector<double> terms;
    double p = std::exp(-mean), held = 0.0;
    for (int k = 0; k < most && held < 1.0 - 1e-12; ++k) {
        if (k > 0) p *= mean / k;
        terms.push_back(p);
        held += p;
    }
    return terms;
}

PassTable pass_table(const Model& model, double batch, double mean_prompts) {
    PassTable table;
    const double room = std::max(1.0, model.room(batch));
    const double chunk = std::min(model.load.computed_prompt_tokens(), room);
    table.room = room;
    table.chunk_share = chunk / model.load.computed_prompt_tokens();
    table.chunk_tokens = chunk;
    const double mean_chunks = mean_prompts / table.chunk_share;
    table.mean_chunks = mean_chunks;
    // The chunks a pass holds, at least the one it carries (Model::prompts_held). Under chunked
    // prefill a whole count would make the full pass shorter as the batch grows across the point
    // where two prompts stop fitting, and the mean pass would no longer rise with the pass time,
    // which the fixed point and the saturation search rely on.
    const double most_chunks = std::max(1.0, model.prompts_held(batch) / table.chunk_share);
    table.most_chunks = most_chunks;
    table.probability = poisson_terms(mean_chunks, 512);
    for (double p : table.probability) table.covered += p;
    // A pass holds at most `most_chunks` chunks: the passes past that take the full pass's time,
    // priced once.
    for (std::size_t k = 0; k <= table.probability.size(); ++k) {
        const bool full = k > 0 && static_cast<double>(k - 1) >= most_chunks;
        table.time.push_back(full ? table.time.back()
                                  : model.step(batch, std::min(static_cast<double>(k), most_chunks) * table.chunk_share));
    }
    return table;
}

PassMixture pass_mixture(const Model& model, double batch, double mean_prompts) {
    const PassTable table = pass_table(model, batch, mean_prompts);
    PassMixture mixture;
    double weighted_k = 0.0, carried = 0.0;
    for (std::size_t k = 0; k < table.probability.size(); ++k) {
        const double p = table.probability[k], time = table.time[k];
        mixture.mean += p * time;
        mixture.second_moment += p * time * time;
        // A given chunk sits in a pass with k chunks with probability proportional to k p(k).
        weighted_k += p * static_cast<double>(k);
        carried += p * static_cast<double>(k) * time;
    }
    mixture.mean /= table.covered;
    mixture.second_moment /= table.covered;
    // Prompts of spread lengths: each chunk a pass carries adds its own tokens' time, so the passes
    // spread further by (chunks a pass) x (time a token)^2 x Var(chunk). A chunk lies between none
    // and the room beside the decodes, so its variance is at most a quarter of that room squared
    // (Popoviciu's inequality), however long the prompts' tail.
    if (model.load.prompt_cv2 > 0.0 && table.time.size() > 1) {
        const double prompt = model.load.computed_prompt_tokens();
        const double chunk_variance = std::min(model.load.prompt_cv2 * prompt * prompt, table.room * table.room / 4.0);
        const double per_token = (table.time[1] - table.time[0]) / table.chunk_tokens;
        mixture.second_moment += table.mean_chunks * per_token * per_token * chunk_variance;
    }
    mixture.decode_only = table.time[0];
    mixture.with_prompt = weighted_k > 0.0 ? carried / weighted_k : table.time[1];
    return mixture;
}

struct TtftQuantiles {
    double in_flight_mean = 0.0;  // the mean rest of the pass in flight at the arrival
    double own_mean = 0.0;        // the mean of the pass or passes that carry the prompt
    double p50 = 0.0, p90 = 0.0, p99 = 0.0;
};

// Quantiles of the time from arrival to the end of the pass that completes the prompt, before any
// wait for a slot. The arrival lands in a pass with probability proportional to its length and
// waits a uniform part of it; its own pass carries its chunk and k2 others (a prompt longer than
// the budget takes `chunks` such passes). The others are the prompts that arrived during the pass
// in flight, so k2 is Poisson about the chunks a pass of that length gathers, not about the mean:
// a request that lands in a long pass, as the length bias makes likely, shares its own pass with
// more prompts. Taking k2 independent of the pass in flight read the TTFT p99 9-23% short of the
// simulation at 25-90% load (docs/serving.md). Mixed passes: the pass in flight carries k1 chunks
// with probability p(k1). Prompts in passes of their own (separate_prefill): a cycle is the
// decodes' pass and, when k1 > 0, the prompts' pass after it; the arrival lands in either, and its
// own pass is a prompts' pass (Model::carrying).
TtftQuantiles ttft_quantiles(const Model& model, double batch, double mean_prompts, double chunks) {
    const PassTable table = pass_table(model, batch, mean_prompts);
    const std::vector<double>& probability = table.probability;
    double mean_cycle = 0.0;
    for (std::size_t k = 0; k < probability.size(); ++k) mean_cycle += probability[k] * table.time[k];
    mean_cycle /= table.covered;
    const double chunks_per_s = table.mean_chunks / mean_cycle;
    // The passes an arrival can land in: their share of the time, their length, and the others'
    // chunks Poisson about what they gather, as far as 1e-12 of the tail.
    struct Landing {
        double share = 0.0, length = 0.0;
        std::vector<double> others;
    };
    std::vector<Landing> landings;
    std::size_t most_others = 0;
    auto land = [&](double share, double length) {
        Landing landing{share, length, poisson_terms(chunks_per_s * length, 4096)};
        most_others = std::max(most_others, landing.others.size());
        landings.push_back(std::move(landing));
    };
    const bool separate = model.limits.separate_prefill;
    const double decodes = table.time[0];
    for (std::size_t k1 = 0; k1 < probability.size(); ++k1) {
        const double weight = probability[k1] / table.covered / mean_cycle;
        if (!separate || k1 == 0) {
            land(weight * table.time[k1], table.time[k1]);
        } else {
            land(weight * decodes, decodes);
            land(weight * (table.time[k1] - decodes), table.time[k1] - decodes);
        }
    }
    // The pass that carries the prompt with k - 1 others, k >= 1 (Model::carrying); past a full
    // pass, a full pass's time.
    std::vector<double> own(most_others + 1);
    for (std::size_t k = 1; k < own.size(); ++k) {
        const bool full = k > 1 && static_cast<double>(k - 1) >= table.most_chunks;
        own[k] = full ? own[k - 1]
                      : !separate && k < table.time.size()
                          ? table.time[k]
                          : model.carrying(batch, std::min(static_cast<double>(k), table.most_chunks) * table.chunk_share);
    }
    double in_flight_mean = 0.0, own_mean = 0.0, longest = 0.0;
    for (const Landing& landing : landings) {
        longest = std::max(longest, landing.length);
        in_flight_mean += landing.share * landing.length / 2.0;
        for (std::size_t k2 = 0; k2 < landing.others.size(); ++k2) own_mean += landing.share * landing.others[k2] * chunks * own[k2 + 1];
    }
    auto below = [&](double t) {
        double fraction = 0.0;
        for (const Landing& landing : landings) {
            if (landing.length <= 0.0) continue;
            for (std::size_t k2 = 0; k2 < landing.others.size(); ++k2) {
                fraction += landing.share * landing.others[k2] * std::clamp((t - chunks * own[k2 + 1]) / landing.length, 0.0, 1.0);
            }
        }
        return fraction;
    };
    auto quantile = [&](double q) {
        return core::bisect(0.0, chunks * own.back() + longest, [&](double t) { return below(t) < q; }).high;
    };
    return {in_flight_mean, own_mean, quantile(0.50), quantile(0.90), quantile(0.99)};
}

// The q-quantile of TPOT over requests: a request of n passes has a mean pass about `mean` with
// variance per_pass / n + whole (the part it sees whole over its life). With outputs spread
// (output_cv2 > 0), n is lognormal about `passes` with that squared coefficient of variation, taken
// in kOutputStrata equally likely strata: requests of few tokens average few passes, and the tail
// is theirs.
double standard_normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

double standard_normal_quantile(double p) {
    return core::bisect(-10.0, 10.0, [&](double x) { return standard_normal_cdf(x) < p; }).high;
}

double tpot_quantile(double q, double mean, double per_pass, double whole, double passes, double output_cv2) {
    auto spread = [&](double n) { return std::sqrt(per_pass / std::max(1.0, n) + whole); };
    if (output_cv2 <= 0.0) return mean + standard_normal_quantile(q) * spread(passes);
    const double sigma2 = std::log1p(output_cv2), sigma = std::sqrt(sigma2);
    std::array<double, kOutputStrata> strata{};
    double widest = spread(passes);
    for (int i = 0; i < kOutputStrata; ++i) {
        const double u = standard_normal_quantile((i + 0.5) / kOutputStrata);
        strata[static_cast<std::size_t>(i)] = spread(passes * std::exp(sigma * u - sigma2 / 2.0));
        widest = std::max(widest, strata[static_cast<std::size_t>(i)]);
    }
    auto above = [&](double x) {
        double share = 0.0;
        for (double s : strata) share += 1.0 - standard_normal_cdf((x - mean) / s);
        return share / kOutputStrata;
    };
    return core::bisect(mean, mean + 10.0 * widest, [&](double x) { return above(x) > 1.0 - q; }).high;
}

// The fixed point of Little's law: batch = rate x (output - 1) / E x pass, prompts per pass = rate x
// pass, pass = the mean of the pass mixture. Fills `state`; false when it diverges or leaves the
// replica's limits. The mean pass rises with the pass time (a longer pass gathers more sequences
// and prompts), so iterating it from a lone sequence's pass climbs to the fixed point; the search
// finds that point without the iteration's creep near saturation (core::increasing_fixed_point).
bool solve(const Model& model, double rate, SteadyState& state) {
    const double decode_passes = model.decode_passes();
    auto mean_pass = [&](double step) {
        return pass_mixture(model, std::max(rate * decode_passes * step, 1e-9), rate * step).mean;
    };
    // Each pass carries a token (speculating: k + 1) per decoding sequence and, on average, the
    // prompts that arrived meanwhile, which must stay within what a pass holds beside the decodes
    // (whole prompts only without chunked prefill), or they queue without end; the batch stays
    // within the replica's, counting the requests whose prompts are being prefilled, which hold
    // their slots too (a pass each chunk): with a short output they are a large part of the slots,
    // and a batch of the decodes alone called stable a load whose slots never free (the TTFT's wait
    // for one is then without end).
    const double prompt_passes = model.prompt_passes();
    const double slots = std::floor(model.max_batch);  // whole sequences; none: nothing fits
    auto within_limits = [&](double step) {
        const double batch = rate * decode_passes * step;
        return batch + rate * prompt_passes * step <= slots && rate * step <= model.prompts_held(batch);
    };
    const std::optional<core::FixedPoint> found =
        core::increasing_fixed_point(model.step(1.0, 0.0), mean_pass, within_limits, kSettled, kIterations, kLongestPass);
    if (!found || found->slope > kMostLoopGain) return false;
    // The gain over a span of the pass either side of the point, not at it: the pass table has
    // corners (a budget's room, whole chunks), where a one-sided difference jumps.
    const double x = found->x;
    state.loop_gain = std::clamp((mean_pass(x * (1.0 + kGainSpan)) - mean_pass(x * (1.0 - kGainSpan))) / (2.0 * kGainSpan * x),
                                 0.0, kMostLoopGain);
    state.batch = rate * decode_passes * found->x;
    state.prompts_per_step = rate * found->x;
    state.step_s = found->x;
    return true;
}

// The largest rate with a fixed point inside the limits (bisection on a log scale; stability is
// monotone in the rate).
double saturation_rate(const Model& model) {
    double low = 0.0, high = 1.0;
    SteadyState probe;
    while (solve(model, high, probe) && high < 1e9) {
        low = high;
        high *= 2.0;
    }
    return core::bisect(low, high, [&](double rate) { return solve(model, rate, probe); }, 60, 1e-6).low;
}

// The saturation rate and what binds there: the batch cap when lifting it would raise the rate,
// otherwise the pass's own bound at the saturating batch.
void find_saturation(const Model& model, SteadyState& state) {
    state.saturation_rate_per_s = saturation_rate(model);
    // The front end takes requests in no faster than one way in at a time, nor streams their tokens
    // faster than their work.
    const double front_end = FrontEnd(model.evaluator, model.load, 0.0, 1.0, 1.0 + model.decode_passes()).capacity();
    if (front_end < state.saturation_rate_per_s) {
        state.saturation_rate_per_s = front_end;
        state.binding = "front end";
        return;
    }
    Model uncapped = model;
    uncapped.max_batch = std::numeric_limits<double>::infinity();
    uncapped.limits.max_batched_tokens = std::numeric_limits<long long>::max() / 4;
    // The caps bind when the replica without them still holds a steady state 2% above the capped
    // saturation. One solve there, not a second saturation search: without the caps, far past
    // the tangency, a fixed point of 20 s passes over 100,000 sequences exists again, which is
    // not what a larger memory would give (docs/decisions.md).
    // The token budget binds when lifting it alone does; else the batch cap, memory's or the
    // scheduler's sequence limit, whichever is the smaller.
    Model unbudgeted = model;
    unbudgeted.limits.max_batched_tokens = uncapped.limits.max_batched_tokens;
    SteadyState lifted;
    if (solve(unbudgeted, 1.02 * state.saturation_rate_per_s, lifted)) {
        state.binding = "scheduler";
        return;
    }
    if (solve(uncapped, 1.02 * state.saturation_rate_per_s, lifted)) {
        state.binding = model.max_batch < static_cast<double>(model.limits.max_sequences) ? "memory" : "scheduler";
        return;
    }
    SteadyState edge;
    solve(model, state.saturation_rate_per_s, edge);
    state.binding = model.decode_binding(edge.batch);
}

// Erlang C: the chance that an arrival finds all `servers` busy at `offered` erlangs (< servers),
// from Erlang B's recursion. Past the offered load each step multiplies B by about offered / k,
// so once B is below 1e-30 it only shrinks, and the chance it leaves is 0 to a double's precision
// in every figure built on it: the recursion stops there rather than run to a replica's thousands
// of slots at every state a plan's searches take.
double erlang_c(double servers, double offered) {
    double erlang_b = 1.0;
    for (double k = 1.0; k <= servers; k += 1.0) {
        erlang_b = offered * erlang_b / (k + offered * erlang_b);
        if (k > offered && erlang_b < 1e-30) return 0.0;
    }
    return servers * erlang_b / (servers - offered * (1.0 - erlang_b));
}

// The state at `load.rate_per_s`, given the saturation already found.
SteadyState state_at(const Model& model, const SteadyState& saturation) {
    const LoadShape& load = model.load;
    const SchedulerLimits& limits = model.limits;
    SteadyState state = saturation;
    state.max_batch = model.max_batch;
    state.utilization = saturation.saturation_rate_per_s > 0.0 ? load.rate_per_s / saturation.saturation_rate_per_s
                                                               : std::numeric_limits<double>::infinity();
    const FrontEnd front_end(model.evaluator, load, load.rate_per_s, 1.0, 1.0 + model.decode_passes());
    if (front_end.utilization() >= 1.0 || !solve(model, load.rate_per_s, state)) {
        state.stable = false;
        return state;
    }
    state.stable = true;
    const PassMixture mixture = pass_mixture(model, std::max(state.batch, 1e-9), state.prompts_per_step);
    state.decode_step_s = mixture.decode_only;
    state.prompt_step_s = mixture.with_prompt;
    // TPOT: a request's mean over its output - 1 tokens, decoded in (output - 1) / E passes
    // (E = 1 without speculation). Its mean is the mean pass over E: the approximation takes every
    // pass to yield E tokens on average, whatever the batch and context. Its spread is the passes'
    // spread over the square root of their count (central limit), and under speculation the
    // spread of the passes a request needs (acceptance_spread).
    // The batch a request decodes beside varies too: busy slots of an M/G/infinity system are
    // Poisson with mean `batch`, and a request lives about one holding time, so it sees that
    // variance almost whole: d(pass)/d(batch)^2 x batch.
    // Neither is independent of the passes before: a pass longer than the mean gathers more
    // prompts and keeps more sequences for the next, which is longer too, by the loop gain g of
    // the fixed point. Over a request's passes that feedback scales each fluctuation by 1 / (1 - g)
    // (the sum of g^k), so the spread grows without bound as the rate nears saturation. A closed
    // loop has no such feedback: its arrivals are its own users' completions, which a longer pass
    // delays.
    const double passes = std::max(1.0, model.decode_passes());
    const double variance = std::max(0.0, mixture.second_moment - mixture.mean * mixture.mean);
    const double batch_now = std::max(state.batch, 1.0);
    const double slope = (model.step(batch_now + 1.0, state.prompts_per_step) - model.step(batch_now, state.prompts_per_step));
    const double relative = acceptance_spread(model, load.output_tokens - 1.0);
    const double tpot = state.step_s / model.tokens_per_pass;
    const double amplified = load.closed_loop ? 1.0 : 1.0 / (1.0 - state.loop_gain);
    const double scale = amplified * amplified / std::pow(model.tokens_per_pass, 2.0);
    const double per_pass = variance * scale;
    const double whole = slope * slope * batch_now * scale + tpot * tpot * relative * relative;
    const double spread = std::sqrt(per_pass / passes + whole);
    state.tpot_s.mean = tpot;
    state.tpot_s.p50 = tpot;
    state.tpot_s.p90 = tpot_quantile(0.90, tpot, per_pass, whole, passes, load.output_cv2);
    state.tpot_s.p99 = tpot_quantile(0.99, tpot, per_pass, whole, passes, load.output_cv2);
    state.tpot_s.max = tpot + 4.0 * spread;

    // TTFT: the rest of the pass in flight when the request arrives (length-biased: E[T^2] / 2E[T]
    // on average), the pass or passes that carry its prompt, and a wait for a free slot. Continuous
    // batching is c = max_batch parallel slots, each held for the request's decode: Erlang C gives
    // the chance of finding them all busy and an exponential wait (M/M/c; docs/serving.md).
    const double residual = mixture.second_moment / (2.0 * mixture.mean);
    const double chunks = model.prompt_passes();
    const double slots = std::max(1.0, std::floor(model.max_batch));
    // A slot's occupancy per request, in mean passes as the stability limit counts it (solve), so
    // that every stable load has a finite wait.
    const double hold = (passes + chunks) * state.step_s;
    const double offered = load.rate_per_s * hold;
    double wait_probability = 1.0, wait_rate = 0.0;
    if (offered < slots) {
        wait_probability = erlang_c(slots, offered);
        wait_rate = (slots - offered) / hold;  // P(W > t) = C exp(-wait_rate t)
    }
    auto wait_quantile = [&](double fraction) {
        if (wait_rate <= 0.0) return std::numeric_limits<double>::infinity();
        const double tail = 1.0 - fraction;
        return wait_probability > tail ? std::log(wait_probability / tail) / wait_rate : 0.0;
    };
    const double wait_mean = wait_rate > 0.0 ? wait_probability / wait_rate : std::numeric_limits<double>::infinity();
    const TtftQuantiles passes_part = ttft_quantiles(model, std::max(state.batch, 1e-9), state.prompts_per_step, chunks);
    // The rest of the pass in flight: the mixture's, its prompts' spread included, where passes
    // mix; the passes' own where prompts have passes of their own (a cycle is not one pass).
    const double in_flight = limits.separate_prefill ? passes_part.in_flight_mean : residual;
    state.ttft_s.mean = in_flight + passes_part.own_mean + wait_mean;
    state.ttft_s.p50 = passes_part.p50 + wait_quantile(0.50);
    state.ttft_s.p90 = passes_part.p90 + wait_quantile(0.90);
    state.ttft_s.p99 = passes_part.p99 + wait_quantile(0.99);
    state.ttft_s.max = state.ttft_s.p99;
    finish_request_figures(state, load, model.evaluator, front_end);
    return state;
}

// --- Disaggregated pools -------------------------------------------------------------------

// One prompt alone on a prefill instance: a pass per chunk of the token budget (infinite when a
// whole prompt cannot fit a pass without chunked prefill).
double prefill_alone(const Model& model) {
    // The tokens the cache holds are read; the rest are computed, chunk by chunk after them.
    const double prompt = model.load.computed_prompt_tokens();
    const double cached = model.load.cached_prompt_tokens;
    const double budget = static_cast<double>(model.limits.max_batched_tokens);
    if (!model.limits.chunked_prefill && prompt > budget) return std::numeric_limits<double>::infinity();
    double time = 0.0;
    for (double start = 0.0; start < prompt; start += budget) {
        const double chunk = std::min(budget, prompt - start);
        time += model.evaluator.step_time(engine::prefill_shape(model.cost, 1.0, cached + start, chunk, start + chunk >= prompt)).value;
    }
    return time;
}

// A decode instance's fixed point of Little's law: batch = rate x (output - 1) x step, step =
// the engine's decode step at that batch (no prompt ever rides in its passes). False when it
// diverges or leaves the instance's limits.
// `transfer_s`: the time a request holds its decode slot before it decodes, its KV cache coming
// over from the prefill pool; the slots count it as the TTFT's wait for one does (whole sequences).
bool solve_decode(const Model& model, double rate, double& batch, double& step, double transfer_s) {
    const double decode_passes = model.decode_passes();
    auto pass = [&](double s) { return model.step(std::max(rate * decode_passes * s, 1e-9), 0.0); };
    const double slots = std::floor(model.max_batch);
    auto within_limits = [&](double s) {
        const double b = rate * decode_passes * s;
        return b + rate * transfer_s <= slots && b * model.positions() <= static_cast<double>(model.limits.max_batched_tokens);
    };
    const std::optional<core::FixedPoint> found =
        core::increasing_fixed_point(model.step(1.0, 0.0), pass, within_limits, kSettled, kIterations, kLongestPass);
    if (!found || found->slope > kMostLoopGain) return false;
    step = found->x;
    batch = rate * decode_passes * step;
    return true;
}

// The largest rate a decode instance sustains (bisection, as saturation_rate), and what binds there.
double decode_saturation(const Model& model, double transfer_s, const char*& binding) {
    double batch = 0.0, step = 0.0, low = 0.0, high = 1.0;
    while (solve_decode(model, high, batch, step, transfer_s) && high < 1e9) {
        low = high;
        high *= 2.0;
    }
    const double rate =
        core::bisect(low, high, [&](double r) { return solve_decode(model, r, batch, step, transfer_s); }, 60, 1e-6).low;
    Model uncapped = model;
    uncapped.max_batch = std::numeric_limits<double>::infinity();
    uncapped.limits.max_batched_tokens = std::numeric_limits<long long>::max() / 4;
    // As find_saturation: one solve at 1.02 x the capped rate tells whether lifting the caps helps.
    double lifted_batch = 0.0, lifted_step = 0.0;
    if (solve_decode(uncapped, 1.02 * rate, lifted_batch, lifted_step, transfer_s)) {
        binding = model.max_batch < static_cast<double>(model.limits.max_sequences) ? "memory" : "scheduler";
        return rate;
    }
    solve_decode(model, rate, batch, step, transfer_s);
    binding = model.decode_binding(batch);
    return rate;
}

// A queue's wait as Erlang C and an exponential tail: P(W > t) = probability x exp(-rate t).
struct Wait {
    double probability = 0.0;
    double rate = std::numeric_limits<double>::infinity();

    double mean() const { return probability > 0.0 ? probability / rate : 0.0; }
    double quantile(double fraction) const {
        const double tail = 1.0 - fraction;
        return probability > tail ? std::log(probability / tail) / rate : 0.0;
    }
};

}  // namespace

PoolCapacity pool_capacity(const engine::Evaluator& evaluator, const LoadShape& load, const SchedulerLimits& limits,
                           const engine::Evaluator* prefill_pool) {
    PoolCapacity capacity;
    const engine::Evaluator& prefiller = prefill_pool != nullptr ? *prefill_pool : evaluator;
    const KvLink link = kv_link_between(prefiller, evaluator);
    capacity.kv_transfer_s = kv_transfer_seconds_between(prefiller, evaluator, link, load.prompt_tokens);
    const Model decode = make_model(evaluator, load, limits);
    capacity.prefill_s = prefill_pool != nullptr ? prefill_alone(make_model(*prefill_pool, load, limits))
                                                 : prefill_alone(decode);
    capacity.decode_saturation_per_instance_s = decode_saturation(decode, capacity.kv_transfer_s, capacity.decode_binding);
    return capacity;
}

DisaggregatedState disaggregated_state(const engine::Evaluator& evaluator, const LoadShape& load,
                                       const SchedulerLimits& limits, const PoolShape& pools,
                                       const engine::Evaluator* prefill_pool) {
    return disaggregated_state(evaluator, load, limits, pools, pool_capacity(evaluator, load, limits, prefill_pool));
}

DisaggregatedState disaggregated_state(const engine::Evaluator& evaluator, const LoadShape& load,
                                       const SchedulerLimits& limits, const PoolShape& pools, const PoolCapacity& capacity) {
    DisaggregatedState result;
    result.pools = pools;
    result.kv_transfer_s = capacity.kv_transfer_s;
    const double prefill_instances = static_cast<double>(std::max(1, pools.prefill_instances));
    const double decode_instances = static_cast<double>(std::max(1, pools.decode_instances));
    LoadShape per_decode = load;
    per_decode.rate_per_s = load.rate_per_s / decode_instances;
    const Model decode = make_model(evaluator, per_decode, limits);
    SteadyState& state = result.overall;
    state.max_batch = decode.max_batch;

    // Saturation: the prefill pool at x / prefill time, the decode pool at y times one instance's.
    result.prefill_s = capacity.prefill_s;
    const double prefill_saturation = std::isfinite(result.prefill_s) ? prefill_instances / result.prefill_s : 0.0;
    const char* decode_binding = capacity.decode_binding;
    result.decode_saturation_per_instance_s = capacity.decode_saturation_per_instance_s;
    const double decode_saturation_rate = decode_instances * result.decode_saturation_per_instance_s;
    state.saturation_rate_per_s = std::min(prefill_saturation, decode_saturation_rate);
    state.binding = prefill_saturation <= decode_saturation_rate
                        ? (std::isfinite(result.prefill_s) ? "prefill" : "scheduler")
                        : decode_binding;
    // Requests come in through the prefill instances' front ends (the deployment's request path, as
    // the simulation takes it).
    const FrontEnd front_end(evaluator, load, load.rate_per_s, prefill_instances, 1.0 + decode.decode_passes());
    if (front_end.capacity() < state.saturation_rate_per_s) {
        state.saturation_rate_per_s = front_end.capacity();
        state.binding = "front end";
    }
    const double infinite = std::numeric_limits<double>::infinity();
    state.utilization = state.saturation_rate_per_s > 0.0 ? load.rate_per_s / state.saturation_rate_per_s : infinite;
    const double prefill_offered = load.rate_per_s * result.prefill_s;  // erlangs
    result.prefill_utilization = prefill_offered / prefill_instances;
    result.decode_utilization =
        result.decode_saturation_per_instance_s > 0.0 ? per_decode.rate_per_s / result.decode_saturation_per_instance_s : infinite;
    double batch = 0.0, step = 0.0;
    if (!(prefill_offered < prefill_instances) || front_end.utilization() >= 1.0 ||
        !solve_decode(decode, per_decode.rate_per_s, batch, step, result.kv_transfer_s)) {
        state.stable = false;
        return result;
    }
    state.stable = true;
    state.batch = batch;
    state.step_s = step;
    state.decode_step_s = step;
    state.prompt_step_s = result.prefill_s;

    // TPOT: decode-only passes over the tokens each yields (E, speculating); their spread is the
    // batch's own fluctuation (Poisson about its mean, as in the colocated model), seen almost
    // whole over a request's life, and speculation's (acceptance_spread). Not amplified by the loop
    // gain as the colocated passes are: no prompt rides in these passes, and the prefill pool hands
    // requests on more evenly than Poisson arrivals, so the batch varies less than the Poisson count
    // already taken (the simulation's TPOT p99 of DeepSeek-V3 on H200 as 4P5D at 20 requests/s is
    // 46.6 ms against this 49.7 ms; amplified it would read 51.0 ms).
    const double passes = std::max(1.0, decode.decode_passes());
    const double batch_now = std::max(batch, 1.0);
    const double slope = decode.step(batch_now + 1.0, 0.0) - decode.step(batch_now, 0.0);
    const double tpot = step / decode.tokens_per_pass;
    const double relative = acceptance_spread(decode, load.output_tokens - 1.0);
    const double spread = std::sqrt(slope * slope * batch_now / std::pow(decode.tokens_per_pass, 2.0) +
                                    tpot * tpot * relative * relative);
    state.tpot_s = {tpot, tpot + kZ90 * spread, tpot + kZ99 * spread, tpot, tpot + 4.0 * spread};

    // TTFT = wait for a prefill instance + prefill + wait for a decode slot + the rest of the
    // decode pass in flight (a decode instance admits between passes) + the KV transfer.
    // Prefill wait: M/G/c by Allen-Cunneen, the M/M/c wait scaled by (ca^2 + cs^2) / 2 with a
    // fixed prefill time (cs^2 = 0); the tail keeps Erlang C's exponential form on that scale.
    Wait prefill_wait;
    if (prefill_offered > 0.0) {
        const double variability = std::max(1e-9, load.arrival_cv2 / 2.0);
        prefill_wait.probability = erlang_c(prefill_instances, prefill_offered);
        prefill_wait.rate = (prefill_instances - prefill_offered) / result.prefill_s / variability;
    }
    // A decode slot: as in the colocated model, c = max batch slots held for the decode and the
    // transfer, as solve_decode's limits count them, so the offered load stays below the slots.
    Wait slot_wait;
    const double slots = std::floor(decode.max_batch);
    const double hold = passes * step + result.kv_transfer_s;
    const double slot_offered = per_decode.rate_per_s * hold;
    if (slot_offered >= slots) {  // only where the decodes take less than a pass (one-token outputs)
        slot_wait.probability = 1.0;
        slot_wait.rate = 0.0;
    } else if (slot_offered > 0.0) {
        slot_wait.probability = erlang_c(slots, slot_offered);
        slot_wait.rate = (slots - slot_offered) / hold;
    }
    const double busy = std::min(1.0, batch);  // share of time a decode instance is in a pass
    auto in_flight = [&](double fraction) {
        return busy > 0.0 ? step * std::clamp((fraction - (1.0 - busy)) / busy, 0.0, 1.0) : 0.0;
    };
    const double fixed = result.prefill_s + result.kv_transfer_s;
    result.prefill_wait_s = prefill_wait.mean();
    auto ttft_at = [&](double fraction) {
        return fixed + prefill_wait.quantile(fraction) + slot_wait.quantile(fraction) + in_flight(fraction);
    };
    state.ttft_s.mean = fixed + prefill_wait.mean() + slot_wait.mean() + busy * step / 2.0;
    state.ttft_s.p50 = ttft_at(0.50);
    state.ttft_s.p90 = ttft_at(0.90);
    state.ttft_s.p99 = ttft_at(0.99);
    state.ttft_s.max = state.ttft_s.p99;
    finish_request_figures(state, load, evaluator, front_end);
    return result;
}

double api_server_capacity(const engine::Evaluator& evaluator, const LoadShape& load, const SchedulerLimits& limits) {
    const Model model = make_model(evaluator, load, limits);
    return FrontEnd(evaluator.deployment().request_path(), load, 0.0, 1.0, 1.0, 1.0 + model.decode_passes()).capacity();
}

double engine_saturation_rate(const engine::Evaluator& evaluator, const LoadShape& load, const SchedulerLimits& limits) {
    return saturation_rate(make_model(evaluator, load, limits));
}

SteadyState steady_state(const engine::Evaluator& evaluator, const LoadShape& load, const SchedulerLimits& limits) {
    const Model model = make_model(evaluator, load, limits);
    SteadyState saturation;
    find_saturation(model, saturation);
    return state_at(model, saturation);
}

SteadyState closed_loop_state(const engine::Evaluator& evaluator, LoadShape load, const SchedulerLimits& limits,
                              double users, double think_time_s) {
    load.closed_loop = true;
    Model model = make_model(evaluator, load, limits);
    SteadyState saturation;
    find_saturation(model, saturation);
    auto state_for = [&](double rate) {
        model.load.rate_per_s = rate;
        return state_at(model, saturation);
    };
    auto latency = [](const SteadyState& state) { return state.e2e_s.mean; };
    // g(rate) = rate - users / (think + latency(rate)) rises with the rate: bisect for its zero.
    const double top = saturation.saturation_rate_per_s * (1.0 - 1e-6);
    if (top <= 0.0) return state_for(1.0);
    const SteadyState at_top = state_for(top);
    if (!at_top.stable || top < users / (think_time_s + latency(at_top))) {
        SteadyState beyond = at_top;
        beyond.stable = false;
        return beyond;
    }
    const core::Bracket root = core::bisect(0.0, top, [&](double rate) {
        const SteadyState state = state_for(rate);
        return state.stable && rate < users / (think_time_s + latency(state));
    }, 60, 1e-7);
    return state_for(root.high);
}

const char* missed_target(const SteadyState& state, const ServiceTargets& targets) {
    if (targets.ttft_s && state.ttft_s.p99 > *targets.ttft_s) return "ttft target";
    if (targets.tpot_s && state.tpot_s.p99 > *targets.tpot_s) return "tpot target";
    if (targets.e2e_s && state.e2e_s.p99 > *targets.e2e_s) return "e2e target";
    return nullptr;
}

double max_rate_at_targets(const engine::Evaluator& evaluator, LoadShape load, const SchedulerLimits& limits,
                           const ServiceTargets& targets) {
    Model model = make_model(evaluator, load, limits);
    SteadyState saturation;
    find_saturation(model, saturation);
    auto meets = [&](double rate) {
        model.load.rate_per_s = rate;
        const SteadyState state = state_at(model, saturation);
        return state.stable && missed_target(state, targets) == nullptr;
    };
    const double top = saturation.saturation_rate_per_s;
    if (top <= 0.0 || !meets(top * 1e-6)) return 0.0;
    if (meets(top)) return top;
    return core::bisect(top * 1e-6, top, meets, 50, 1e-4).low;
}

}  // namespace decodesim::serving

