#include "explore/compare.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "core/search.hpp"

namespace decodesim::explore {

namespace {

engine::DeploymentChoice choice_for(engine::DeploymentChoice choice, const Candidate& candidate) {
    if (candidate.devices) choice.parallelism.tensor = *candidate.devices;
    if (candidate.runtime) choice.runtime = candidate.runtime;
    return choice;
}

CompareRow evaluate_candidate(const profiles::ModelProfile& model, const engine::DeploymentChoice& choice,
                              const Candidate& candidate, const CompareOptions& options) {
    CompareRow row;
    row.hardware = candidate.hardware.id;
    row.devices = choice.parallelism.tensor;
    const engine::Deployment deployment = engine::resolve_deployment(candidate.hardware, model, choice);
    row.deployment = deployment;
    const engine::Evaluator evaluator(model, candidate.hardware, deployment);
    const engine::Prediction requested = evaluator.predict(options.workload, engine::Detail::figures);
    row.fits = requested.memory.fits;
    row.tokens_per_s_per_stream = requested.decode.tokens_per_s_per_stream;
    row.ttft = requested.ttft;
    if (requested.request) row.time_to_last_token = requested.request->end_to_end;
    row.headroom = requested.memory.headroom();
    row.max_batch = requested.memory.max_batch;

    // Throughput at the largest batch that fits, or the largest that still meets the target speed.
    long long batch = row.max_batch;
    if (options.target_tokens_per_s_per_stream && batch > 0) {
        engine::Workload workload = options.workload;
        auto meets = [&](long long b) {
            workload.batch = static_cast<double>(b);
            return evaluator.predict(workload, engine::Detail::figures).decode.tokens_per_s_per_stream >=
                   *options.target_tokens_per_s_per_stream;
        };
        // Per-stream speed falls with batch: the last batch that still meets the target.
        batch = core::last_true(1, batch, meets).value_or(0);
    }
    row.throughput_batch = batch;
    if (batch > 0) {
        engine::Workload workload = options.workload;
        workload.batch = static_cast<double>(batch);
        row.tokens_per_s_total = evaluator.predict(workload, engine::Detail::figures).decode.tokens_per_s_total;
    }
    if (candidate.hardware.power && row.tokens_per_s_total > 0.0) {
        row.tokens_per_joule = row.tokens_per_s_total / (candidate.hardware.power->value * row.devices);
    }
    const auto& price = candidate.hardware.price_per_hour;  // --price has set it where given (cli/price_option)
    if (price && row.tokens_per_s_total > 0.0) {
        row.usd_per_million_tokens = *price * row.devices / (row.tokens_per_s_total * 3600.0) * 1e6;
        row.price_basis = candidate.hardware.price_basis;
    }
    return row;
}

}  // namespace

std::vector<CompareRow> compare(const profiles::ModelProfile& model, const engine::DeploymentChoice& choice,
                                const std::vector<Candidate>& candidates, const CompareOptions& options,
                                CompareOrder order) {
    std::vector<CompareRow> rows;
    for (const auto& candidate : candidates) {
        const engine::DeploymentChoice candidate_choice = choice_for(choice, candidate);
        try {
            rows.push_back(evaluate_candidate(model, candidate_choice, candidate, options));
        } catch (const core::InputError& error) {
            CompareRow row;
            row.hardware = candidate.hardware.id;
            row.devices = candidate_choice.parallelism.tensor;
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
            case CompareOrder::ttft: return row.ttft.value;
            case CompareOrder::cost:
                return row.usd_per_million_tokens.value_or(std::numeric_limits<double>::max());
        }
        return 0.0;
    };
    std::stable_sort(rows.begin(), rows.end(), [&](const CompareRow& a, const CompareRow& b) { return key(a) < key(b); });
    return rows;
}

}  // namespace decodesim::explore
