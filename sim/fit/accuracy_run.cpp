#include "fit/accuracy_run.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <exception>

#include "core/error.hpp"
#include "core/registry.hpp"
#include "engine/cost_model.hpp"
#include "engine/operating_point.hpp"

namespace decodesim::fit {

namespace {

// Profiles by id, each looked up once: a thousand rows name a few dozen profiles. A lookup that
// throws core::InputError is remembered as the id's problem. Node-based maps keep the pointers
// handed out valid while the resolver lives.
template <typename Profile>
class ResolvedProfiles {
public:
    explicit ResolvedProfiles(std::function<Profile(const std::string&)> lookup) : lookup_(std::move(lookup)) {}

    // The profile, or null with `problem` set to why it did not load.
    const Profile* find(const std::string& id, std::string& problem) {
        auto found = profiles_.find(id);
        if (found == profiles_.end()) {
            std::optional<Profile> loaded;
            try {
                loaded = lookup_(id);
            } catch (const core::InputError& error) {
                problems_[id] = error.diagnostics().front().message;
            }
            found = profiles_.emplace(id, std::move(loaded)).first;
        }
        if (!found->second) {
            problem = problems_[id];
            return nullptr;
        }
        return &*found->second;
    }

private:
    std::function<Profile(const std::string&)> lookup_;
    std::map<std::string, std::optional<Profile>> profiles_;
    std::map<std::string, std::string> problems_;
};

// Apple rows measured on a binned GPU (fewer cores than the profile) are not this profile's chip;
// the profile's name states its core count, "(40-core GPU)".
std::string binned_gpu_problem(const profiles::Measurement& m, const profiles::HardwareProfile& hardware) {
    if (!m.gpu_cores) return {};
    const std::string cores = std::to_string(*m.gpu_cores);
    if (hardware.name.find("(" + cores + "-core") != std::string::npos) return {};
    return fmt::format("measured on a {}-core GPU variant that has no profile", cores);
}

// A measurement better than physics allows is either missing a condition that would explain it
// or wrong; name what the row leaves unstated.
// Whether how a batch's tokens route could change the bytes a decode step reads: the row's model
// routes to experts, and at its concurrency independent uniform routing (what the engine takes,
// engine::expected_distinct_experts) would leave more than 5% of the experts unread, so a batch whose
// sequences route alike reads fewer. At large batches every expert is read whatever the routing.
bool routing_could_matter(const profiles::Measurement& m, const profiles::ModelProfile* model) {
    if (model == nullptr || !model->moe || !m.batch || *m.batch <= 1.0) return false;
    if (m.metric == profiles::Metric::prefill_tokens_per_s || m.metric == profiles::Metric::ttft_s) return false;
    const double experts = model->moe->n_routed_experts, per_token = model->moe->num_experts_per_tok;
    if (experts <= 0.0 || per_token <= 0.0) return false;
    return engine::expected_distinct_experts(experts, per_token, *m.batch) < 0.95 * experts;
}

// `routing`: routing_could_matter for the row.
std::string explain_beating_row(const profiles::Measurement& m, bool routing) {
    if (const auto conditions = profiles::unmodelled_conditions(m); !conditions.empty()) {
        return fmt::format("stated condition not modelled: {}", fmt::join(conditions, ", "));
    }
    std::vector<std::string> unstated;
    if (m.kv.empty()) unstated.push_back("KV precision");
    if (!m.batch && !m.request_rate) unstated.push_back("concurrency");
    // A replayed row that states neither its lengths nor how they were drawn is replayed with fixed
    // lengths: a benchmark that drew its lengths below the nominal ones (a random dataset's range
    // ratio) served fewer tokens a request.
    if (m.replayed() && !m.fixed_lengths && !m.drawn_lengths() && m.request_lengths.empty()) {
        unstated.push_back("request length distribution (fixed lengths replayed)");
    }
    // Several sequences of an MoE model read the experts their tokens route to: the engine takes
    // the expected count under independent uniform routing, which is not the fewest possible; a
    // benchmark whose sequences route alike (the same or similar prompts) reads fewer.
    if (routing) unstated.push_back("expert routing (uniform assumed)");
    if (!unstated.empty()) return fmt::format("hidden condition: {} not stated", fmt::join(unstated, ", "));
    return "data error or a condition the source does not state (check the source)";
}

}  // namespace

AccuracyResult evaluate_accuracy(const std::vector<profiles::Measurement>& measurements, const ProfileLookup& lookup,
                                 const AccuracySettings& settings) {
    ResolvedProfiles<profiles::HardwareProfile> hardware_profiles(lookup.hardware);
    ResolvedProfiles<profiles::ModelProfile> model_profiles(lookup.model);
    ResolvedProfiles<std::shared_ptr<const engine::RuntimeProfile>> runtime_profiles(lookup.runtime);
    AccuracyResult result;
    std::vector<CalibrationCase> cases;
    // The held-out fits share most grid points on most rows, and every pass shares the rows' bounds.
    PredictionCache cache;
    for (const auto& m : measurements) {
        AccuracyRow skipped;
        skipped.measurement = &m;
        skipped.split = split_of(m.hardware);
        std::string problem;
        const auto* hardware = hardware_profiles.find(m.hardware, problem);
        const auto* model = hardware ? model_profiles.find(m.model, problem) : nullptr;
        const auto* runtime =
            settings.runtime ? &settings.runtime : (model ? runtime_profiles.find(m.runtime, problem) : nullptr);
        if (problem.empty() && hardware) problem = binned_gpu_problem(m, *hardware);
        if (problem.empty()) problem = unsupported_reason(m);
        if (!problem.empty()) {
            skipped.skipped = problem;
            result.rows.push_back(skipped);
            continue;
        }
        try {
            const engine::DeploymentChoice choice = stated_deployment(m, *runtime);
            const engine::Deployment deployment = engine::resolve_deployment(*hardware, *model, choice);
            const CalibrationCase evaluated{&m, model, hardware, deployment};
            result.rows.push_back(cache.evaluate(evaluated, deployment.runtime_profile()));
            cases.push_back(evaluated);
        } catch (const std::exception& error) {
            skipped.skipped = error.what();
            result.rows.push_back(skipped);
        }
    }

    if (settings.fit) {
        std::vector<CalibrationCase> training;
        for (const auto& c : cases) {
            if (split_of(c.measurement->hardware) == Split::train) training.push_back(c);
        }
        result.fits = fit_presets(training);
    }
    if (settings.held_out) {
        HeldOutFigures figures;
        figures.by_source = leave_one_group_out(
            cases, "source", [](const CalibrationCase& c) { return source_key(c.measurement->source); }, &cache);
        figures.by_family = leave_one_group_out(
            cases, "hardware family",
            [](const CalibrationCase& c) { return c.hardware->family(); }, &cache);
        figures.in_sample = in_sample(cases, &cache);
        figures.bands = derive_residual_bands(cases, figures.by_source);
        result.held_out = std::move(figures);
    }

    auto family_of = [&](const AccuracyRow& row) {
        std::string ignored;  // an evaluated row's hardware loaded
        return core::memory_family_name(hardware_profiles.find(row.measurement->hardware, ignored)->memory_family);
    };
    auto metric_of = [](const AccuracyRow& row) { return profiles::metric_label(*row.measurement); };
    result.by_split_and_metric = summarize(result.rows, [&](const AccuracyRow& row) {
        return fmt::format("{} {}", split_name(row.split), metric_of(row));
    });
    result.by_subset = summarize(result.rows, [&](const AccuracyRow& row) {
        return fmt::format("{} | {} | {} | {}", split_name(row.split), row.measurement->engine, family_of(row),
                           metric_of(row));
    });

    for (std::size_t i = 0; i < result.rows.size(); ++i) {
        const AccuracyRow& row = result.rows[i];
        if (row.skipped.empty()) {
            result.worst_first.push_back(i);
        } else {
            ++result.skip_reasons[row.skipped];
        }
    }
    // Not stable: rows of equal |error| come in an unspecified but repeatable order.
    std::sort(result.worst_first.begin(), result.worst_first.end(), [&](std::size_t a, std::size_t b) {
        return std::fabs(result.rows[a].error) > std::fabs(result.rows[b].error);
    });
    for (const std::size_t i : result.worst_first) {
        if (!result.rows[i].beats_bound) continue;
        const profiles::Measurement& m = *result.rows[i].measurement;
        std::string problem;
        const profiles::ModelProfile* model = model_profiles.find(m.model, problem);
        result.beating_bound.push_back({i, explain_beating_row(m, routing_could_matter(m, model))});
    }
    return result;
}

}  // namespace decodesim::fit
