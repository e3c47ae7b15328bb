#include "scenarios/compare.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "scenarios/search.hpp"

namespace decodesim::scenarios {

namespace {

CompareRow evaluate_candidate(const profiles::ModelProfile& model, const core::WeightFormat& weights,
                              const core::KvFormat* kv, const Candidate& candidate, const CompareOptions& options) {
    CompareRow row;
    row.hardware = candidate.hardware.id;
    row.devices = candidate.devices;
    const engine::Deployment deployment =
        engine::resolve_deployment(candidate.hardware, weights, kv, candidate.devices);
    const engine::Evaluator evaluator(model, candidate.hardware, deployment);
    const engine::Prediction requested = evaluator.predict(options.workload);
    row.fits = requested.memory.fits;
    row.tokens_per_s_per_stream = requested.decode.tokens_per_s_per_stream;
    row.ttft_s = requested.ttft_s;
    row.headroom_bytes = requested.memory.usable_bytes - requested.memory.weights_bytes - requested.memory.kv_bytes;
    row.max_batch = requested.memory.max_batch;

    // Throughput at the largest batch that fits, or the largest that still meets the target speed.
    long long batch = row.max_batch;
    if (options.target_tokens_per_s_per_stream && batch > 0) {
        engine::Workload workload = options.workload;
        auto meets = [&](long long b) {
            workload.batch = static_cast<double>(b);
            return evaluator.predict(workload).decode.tokens_per_s_per_stream >= *options.target_tokens_per_s_per_stream;
        };
        // Per-stream speed falls with batch: the last batch that still meets the target.
        batch = last_true(1, batch, meets).value_or(0);
    }
    row.throughput_batch = batch;
    if (batch > 0) {
        engine::Workload workload = options.workload;
        workload.batch = static_cast<double>(batch);
        row.tokens_per_s_total = evaluator.predict(workload).decode.tokens_per_s_total;
    }
    if (candidate.hardware.power && row.tokens_per_s_total > 0.0) {
        row.tokens_per_joule = row.tokens_per_s_total / (candidate.hardware.power->value * candidate.devices);
    }
    const auto price = candidate.price_per_hour ? candidate.price_per_hour : candidate.hardware.price_per_hour;
    if (price && row.tokens_per_s_total > 0.0) {
        row.usd_per_million_tokens = *price * candidate.devices / (row.tokens_per_s_total * 3600.0) * 1e6;
    }
    return row;
}

}  // namespace

std::vector<CompareRow> compare(const profiles::ModelProfile& model, const core::WeightFormat& weights,
                                const core::KvFormat* kv, const std::vector<Candidate>& candidates,
                                const CompareOptions& options, CompareOrder order) {
    std::vector<CompareRow> rows;
    for (const auto& candidate : candidates) {
        try {
            rows.push_back(evaluate_candidate(model, weights, kv, candidate, options));
        } catch (const core::InputError& error) {
            CompareRow row;
            row.hardware = candidate.hardware.id;
            row.devices = candidate.devices;
            row.error = error.diagnostics().front().message;
            rows.push_back(row);
        }
    }
    // Rows that cannot serve the workload sort last; then best first by the chosen figure.
    auto key = [order](const CompareRow& row) -> double {
        if (!row.error.empty()) return std::numeric_limits<double>::infinity();
        switch (order) {
            case CompareOrder::total: return -row.tokens_per_s_total;
            case CompareOrder::stream: return -row.tokens_per_s_per_stream;
            case CompareOrder::ttft: return row.ttft_s;
            case CompareOrder::cost:
                return row.usd_per_million_tokens.value_or(std::numeric_limits<double>::max());
        }
        return 0.0;
    };
    std::stable_sort(rows.begin(), rows.end(), [&](const CompareRow& a, const CompareRow& b) { return key(a) < key(b); });
    return rows;
}

}  // namespace decodesim::scenarios
