#include "fit/calibration.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "core/statistics.hpp"
#include "profiles/runtime_fields.hpp"
#include "engine/efficiency.hpp"

namespace decodesim::fit {

namespace {

constexpr std::size_t kMinimumRows = 10;
// A prompt plus its cached context this long makes attention a large share of a prefill's work
// (at 8k tokens an 8B model's attention arithmetic is about a third of its matrix work).
constexpr double kLongContext = 8192.0;

// The most tokens a row's attention spans: its context, plus its prompt or half its output.
double reach(const profiles::Measurement& m) {
    return m.context.value_or(0.0) + m.prompt.value_or(0.0) + m.output.value_or(0.0) / 2.0;
}

// Prefill throughput and time to first token measure the prompt's pass.
bool is_prefill(const profiles::Measurement& m) {
    return m.metric == profiles::Metric::prefill_tokens_per_s || m.metric == profiles::Metric::ttft_s;
}

// Median absolute error of `cases` under `preset` (predictions only: the bound is not needed).
double error_of(const std::vector<const CalibrationCase*>& cases, const engine::RuntimeProfile& preset,
                PredictionCache* cache) {
    std::vector<double> errors;
    errors.reserve(cases.size());
    for (const CalibrationCase* c : cases) {
        const double predicted =
            cache ? cache->predict(*c, preset)
                  : predict_measurement(*c->measurement, *c->model, *c->hardware, c->deployment, preset);
        errors.push_back(std::fabs(predicted / c->measurement->value - 1.0));
    }
    return core::median(std::move(errors));
}

std::vector<double> steps(double first, double last, double step) {
    std::vector<double> values;
    for (double value = first; value <= last + step / 2; value += step) values.push_back(value);
    return values;
}

// first, first * ratio, ... up to last: a multiplier's grid, as fine at 0.2 as at 4.
std::vector<double> geometric_steps(double first, double last, double ratio) {
    std::vector<double> values;
    for (double value = first; value <= last * (1.0 + 1e-9); value *= ratio) values.push_back(value);
    return values;
}

}  // namespace

double PredictionCache::predict(const CalibrationCase& c, const engine::RuntimeProfile& preset) {
    const engine::RuntimeFactors& f = preset.factors(c.hardware->memory_family);
    const Key key{c.measurement,       f.kernel_overhead.value, f.quantized_weight_bandwidth,
                  f.quantized_compute, f.attention_bandwidth,   f.compute_on(c.deployment.backend),
                  f.sequence_overhead.value, f.attention_on(c.deployment.backend),
                  c.hardware->dies > 1 ? f.cross_die_kernel_overhead.value : 0.0,
                  c.model->moe ? f.tile_setup_rows : 0.0};
    const auto found = predictions_.find(key);
    if (found != predictions_.end()) return found->second;
    const double predicted = predict_measurement(*c.measurement, *c.model, *c.hardware, c.deployment, preset, &cost_of(c));
    predictions_.emplace(key, predicted);
    return predicted;
}

const engine::CostModel& PredictionCache::cost_of(const CalibrationCase& c) {
    auto found = costs_.find(c.measurement);
    if (found == costs_.end()) {
        found = costs_.emplace(c.measurement, engine::Evaluator::text_cost_model(*c.model, *c.hardware, c.deployment)).first;
    }
    return found->second;
}

AccuracyRow PredictionCache::evaluate(const CalibrationCase& c, const engine::RuntimeProfile& preset) {
    const profiles::Measurement& m = *c.measurement;
    AccuracyRow row;
    row.measurement = &m;
    row.split = split_of(m.hardware);
    row.skipped = unsupported_reason(m);
    if (!row.skipped.empty()) return row;
    row.predicted = predict(c, preset);
    row.error = row.predicted / m.value - 1.0;
    auto bound = bounds_.find(&m);
    if (bound == bounds_.end()) bound = bounds_.emplace(&m, physical_bound(m, *c.model, *c.hardware, c.deployment)).first;
    row.bound = bound->second.figure;
    row.beats_bound = bound->second.beaten;
    return row;
}

bool read_by_fits(const profiles::Measurement& m) {
    // A run under a condition the engine does not model is not the kernels' rate: a
    // speculative run's is theirs times the accepted tokens per step (the DeepSeek MTP rows
    // pulled TensorRT-LLM's bandwidths to 0.4); a llama.cpp row split waits on synchronisations.
    // Fitting on them would credit the kernels with what they are not.
    // A run with graphs off is modelled (its host dispatch, EagerPasses), but the host, not the
    // kernels, sets its rate (llm-perf-bench's 2023 multi-GPU rows, up to 7x below the fit, pulled
    // the vLLM-class per-kernel cost up): no fit reads it either.
    // A replayed row (a request rate, a closed loop) is a whole serving run, queueing included:
    // it checks the serving model, and a simulation per grid point would make every fit minutes long.
    return unsupported_reason(m).empty() && profiles::unmodelled_conditions(m).empty() && !m.replayed() &&
           !m.eager_launch;
}

FitResult fit_runtime(const std::vector<CalibrationCase>& cases, const engine::RuntimeProfile& preset,
                      const std::vector<core::MemoryFamily>& families, PredictionCache* cache, FitKinds kinds) {
    std::vector<const CalibrationCase*> decode, prefill;
    for (const auto& c : cases) {
        if (std::find(families.begin(), families.end(), c.hardware->memory_family) == families.end()) continue;
        if (!read_by_fits(*c.measurement)) continue;
        if (is_prefill(*c.measurement) && !kinds.prefill) continue;
        (is_prefill(*c.measurement) ? prefill : decode).push_back(&c);
    }
    // Single-stream decode measures the per-kernel costs; batched decode (a stated concurrency or
    // an offline run at the batch memory allows) the compute rate and the per-sequence host cost.
    // A multi-die package's single streams pay a cost per kernel that one die does not: they are
    // kept apart, so they measure that cost and do not pull the one-die per-kernel cost up.
    std::vector<const CalibrationCase*> single_stream, multi_die, batched;
    for (const CalibrationCase* c : decode) {
        const auto& batch = c->measurement->batch;
        const bool single = batch && *batch <= 1.0;
        if (single ? !kinds.single_stream : !kinds.batched) continue;
        (single ? (c->hardware->dies > 1 ? multi_die : single_stream) : batched).push_back(c);
    }
    // Without enough one-die rows to fit on (a user calibrating on their Mac Studio), the
    // per-kernel cost is read off the multi-die rows themselves, the cross-die part included.
    if (single_stream.size() < kMinimumRows) {
        single_stream.insert(single_stream.end(), multi_die.begin(), multi_die.end());
        multi_die.clear();
    }
    decode = single_stream;  // the decode rows the fit reads
    decode.insert(decode.end(), multi_die.begin(), multi_die.end());
    decode.insert(decode.end(), batched.begin(), batched.end());
    FitResult result;
    result.fit_group = preset.fit_group;
    result.families = families;
    result.decode_rows = static_cast<int>(decode.size());
    result.single_stream_rows = static_cast<int>(single_stream.size() + multi_die.size());
    result.batched_rows = static_cast<int>(batched.size());
    result.multi_die_rows = static_cast<int>(multi_die.size());
    result.prefill_rows = static_cast<int>(prefill.size());
    engine::RuntimeProfile candidate = preset;
    // Start from the defaults, so the fit does not depend on values fitted before; the group's
    // families share one set of factors, written back to each after every change.
    engine::RuntimeFactors factors{};
    auto apply = [&] {
        for (core::MemoryFamily family : families) candidate.by_family[static_cast<std::size_t>(family)] = factors;
    };
    apply();
    result.decode_error_before = error_of(decode, candidate, cache);
    result.prefill_error_before = error_of(prefill, candidate, cache);

    // Two factors at a time on a grid; the best pair is kept.
    auto search = [&](const std::vector<const CalibrationCase*>& rows, double& first, const std::vector<double>& first_values,
                      double& second, const std::vector<double>& second_values) {
        if (rows.empty()) return;
        double best = std::numeric_limits<double>::infinity(), best_first = first, best_second = second;
        for (double a : first_values) {
            for (double b : second_values) {
                first = a;
                second = b;
                apply();
                const double error = error_of(rows, candidate, cache);
                if (error < best - 1e-12) {
                    best = error;
                    best_first = a;
                    best_second = b;
                }
            }
        }
        first = best_first;
        second = best_second;
        apply();
        // Which members were searched, by the table that names them (a single value is no search).
        const auto record = [&](const double& member, std::size_t values) {
            if (values < 2) return;
            for (const profiles::RuntimeFactorField& field : profiles::kRuntimeFactorFields) {
                if (&field.value(factors) != &member) continue;
                if (std::find(result.fitted.begin(), result.fitted.end(), field.key) == result.fitted.end()) {
                    result.fitted.push_back(field.key);
                }
            }
        };
        record(first, first_values.size());
        record(second, second_values.size());
    };
    // Too few rows would fit noise, so a family with fewer than kMinimumRows keeps the defaults.
    if (single_stream.size() >= kMinimumRows) {
        search(single_stream, factors.kernel_overhead.value, steps(0.0, 30e-6, 1e-6), factors.quantized_weight_bandwidth,
               steps(0.4, 1.0, 0.02));
        // Then how well the attention kernels stream the KV cache, read off the rows whose cache
        // is long enough to weigh in the step (the same line as prefill's long prompts); on short
        // contexts the factor moves nothing, and a search there fits whichever rows sit at the
        // median. Too few long rows: it keeps the default. It is searched with the per-kernel cost
        // (the long rows' spread of contexts separates the two), and the per-kernel pair is then
        // refitted on every row beside it.
        std::vector<const CalibrationCase*> long_rows;
        for (const CalibrationCase* c : single_stream) {
            if (reach(*c->measurement) >= kLongContext) long_rows.push_back(c);
        }
        if (long_rows.size() >= kMinimumRows) {
            search(long_rows, factors.attention_bandwidth, steps(0.3, 1.0, 0.05), factors.kernel_overhead.value,
                   steps(0.0, 30e-6, 1e-6));
            search(single_stream, factors.kernel_overhead.value, steps(0.0, 30e-6, 1e-6),
                   factors.quantized_weight_bandwidth, steps(0.4, 1.0, 0.02));
        }
        // Then the multi-die packages' extra per-kernel cost, given the one-die factors: their
        // single streams differ from one die's by that cost alone (the same kernels, formats and
        // bandwidth fraction). Too few of them: 0, a multi-die package runs as one die.
        if (multi_die.size() >= kMinimumRows) {
            double& unchanged = factors.quantized_weight_bandwidth;
            search(multi_die, factors.cross_die_kernel_overhead.value, steps(0.0, 40e-6, 1e-6), unchanged, {unchanged});
        }
    }
    const bool prefill_fitted = prefill.size() >= kMinimumRows;
    // Prompts whose attention is a small share of the work (prompt and context under kLongContext).
    const auto short_prompts = [](const std::vector<const CalibrationCase*>& rows) {
        std::vector<const CalibrationCase*> short_rows;
        for (const CalibrationCase* c : rows) {
            if (reach(*c->measurement) < kLongContext) short_rows.push_back(c);
        }
        return short_rows;
    };
    // The family's matrix rate is read off its short prompts where there are enough of them, else
    // off all; long prompts then measure the attention kernels (below). A backend's multiplier is
    // read off its short prompts alone, however few: on long ones a slower matrix rate and a slower
    // attention rate trade against each other.
    const auto matrix_rows = [&](const std::vector<const CalibrationCase*>& rows) {
        auto short_rows = short_prompts(rows);
        return short_rows.size() >= kMinimumRows ? short_rows : rows;
    };
    if (prefill_fitted) {
        search(matrix_rows(prefill), factors.compute, steps(0.1, 1.25, 0.05), factors.quantized_compute,
               steps(0.2, 1.0, 0.05));
        // The same runtime on another backend runs other matrix kernels: each backend with enough
        // prefill rows gets its own multiplier on the compute factor, the backend with the most
        // rows keeping 1 so the pair is not degenerate; then the family's pair is refitted given
        // them (two rounds of coordinate descent).
        std::map<core::Backend, std::vector<const CalibrationCase*>> by_backend;
        for (const CalibrationCase* c : prefill) by_backend[c->deployment.backend].push_back(c);
        std::optional<core::Backend> reference;
        for (const auto& [backend, rows] : by_backend) {
            if (!reference || rows.size() > by_backend[*reference].size()) reference = backend;
        }
        if (reference) result.compute_measured[static_cast<std::size_t>(*reference)] = true;
        const bool several = std::count_if(by_backend.begin(), by_backend.end(), [](const auto& entry) {
                                 return entry.second.size() >= kMinimumRows;
                             }) > 1;
        // The staging of a weight tile shows only where a routed expert sees a few rows: the
        // prompts of MoE models (a dense model's prompt gives each weight hundreds of rows, and
        // the factor moves nothing there). It is read off the MoE prompts alone, at the compute
        // rate the prompts as a whole set (a search on all of them would fit whichever rows sit
        // at their median, mostly dense ones); too few MoE prompts, and it keeps 0
        // (docs/model.md, "Expert tiles").
        std::vector<const CalibrationCase*> moe_rows;
        for (const CalibrationCase* c : matrix_rows(prefill)) {
            if (c->model->moe) moe_rows.push_back(c);
        }
        const bool moe_prompts = moe_rows.size() >= kMinimumRows;
        for (int round = 0; (several || moe_prompts) && round < 2; ++round) {
            for (const auto& [backend, rows] : by_backend) {
                if (!several || backend == *reference || rows.size() < kMinimumRows) continue;
                const auto matrix = short_prompts(rows);
                if (matrix.empty()) continue;  // only long prompts: its matrix rate is not measured
                result.compute_measured[static_cast<std::size_t>(backend)] = true;
                double& multiplier = factors.backend_compute[static_cast<std::size_t>(backend)];
                double& unchanged = factors.quantized_compute;
                search(matrix, multiplier, geometric_steps(0.1, profiles::kMaxBackendComputeFactor, 1.05),
                       unchanged, {unchanged});
            }
            if (moe_prompts) {
                result.tile_setup_measured = true;
                double& unchanged = factors.quantized_compute;
                search(moe_rows, factors.tile_setup_rows, steps(0.0, 160.0, 4.0), unchanged, {unchanged});
            }
            search(matrix_rows(prefill), factors.compute, steps(0.1, 1.25, 0.05), factors.quantized_compute,
                   steps(0.2, 1.0, 0.05));
        }
        // A backend's attention kernels at depth: only rows where attention is a large share of
        // the work (a prompt plus its context of kLongContext tokens or more) measure them; the
        // backend's long single-stream decode rows are fitted beside them, so a slower attention
        // rate cannot buy prefill accuracy with decode error (decode attention is memory-bound
        // until the rate falls far enough).
        std::map<core::Backend, std::vector<const CalibrationCase*>> long_rows;
        for (const CalibrationCase* c : prefill) {
            if (reach(*c->measurement) >= kLongContext) long_rows[c->deployment.backend].push_back(c);
        }
        for (auto& [backend, rows] : long_rows) {
            if (rows.size() < kMinimumRows) continue;
            for (const CalibrationCase* c : single_stream) {
                if (c->deployment.backend == backend && reach(*c->measurement) >= kLongContext) rows.push_back(c);
            }
            double& multiplier = factors.backend_attention[static_cast<std::size_t>(backend)];
            double& unchanged = factors.quantized_compute;
            search(rows, multiplier, geometric_steps(0.1, profiles::kMaxBackendComputeFactor, 1.05), unchanged, {unchanged});
        }
    }
    if (batched.size() >= kMinimumRows) {
        // Batched throughput: the runtime's host work grows with the batch; the per-kernel cost
        // stays what single streams say. The compute rate is the prefill rows' where they fixed it
        // (a prefill is a purer compute measurement), else fitted here beside the host cost.
        std::vector<double> compute_values{factors.compute};
        if (!prefill_fitted) compute_values = steps(0.3, 1.25, 0.025);
        search(batched, factors.compute, compute_values, factors.sequence_overhead.value, steps(0.0, 40e-6, 1e-6));
    }
    result.factors = factors;
    result.decode_error_after = error_of(decode, candidate, cache);
    result.prefill_error_after = error_of(prefill, candidate, cache);
    return result;
}

std::vector<FitGroup> fit_groups() {
    // One set of factors per memory-family group: discrete GPUs (HBM and GDDR) and unified memory;
    // inside each, the backends (CUDA, ROCm, Metal, Vulkan ...) get their own multipliers.
    const std::vector<std::vector<core::MemoryFamily>> backends{{core::MemoryFamily::hbm, core::MemoryFamily::gddr},
                                                                {core::MemoryFamily::unified}};
    std::vector<FitGroup> groups;
    for (const auto& families : backends) groups.push_back({"vllm", families, {true, false, false}});
    for (const char* fit_group : {"llama.cpp", "tensorrt-llm"}) {
        for (const auto& families : backends) groups.push_back({fit_group, families, {}});
    }
    return groups;
}

bool in_fit_group(const CalibrationCase& c, const FitGroup& group) {
    return c.deployment.runtime_profile().fit_group == group.fit_group &&
           std::find(group.families.begin(), group.families.end(), c.hardware->memory_family) != group.families.end();
}

namespace {

// The fit of one group on `cases` (all of them in the group), or nothing when there are none.
std::optional<FitResult> fit_group(const std::vector<CalibrationCase>& cases, const FitGroup& group,
                                   PredictionCache* cache = nullptr) {
    if (cases.empty()) return std::nullopt;
    // Any member's profile carries the group's factors: its kernels come from each case's deployment.
    return fit_runtime(cases, cases.front().deployment.runtime_profile(), group.families, cache, group.kinds);
}

std::vector<CalibrationCase> cases_in(const std::vector<CalibrationCase>& cases, const FitGroup& group,
                                      const std::function<bool(std::size_t)>& keep) {
    std::vector<CalibrationCase> selected;
    for (std::size_t i = 0; i < cases.size(); ++i) {
        if (in_fit_group(cases[i], group) && keep(i)) selected.push_back(cases[i]);
    }
    return selected;
}

// Each case in `indices` predicted under the presets fitted as `fits`, into `errors.rows`.
void predict_cases(const std::vector<CalibrationCase>& cases, const std::vector<std::size_t>& indices,
                   const std::vector<FitResult>& fits, HeldOutErrors& errors, PredictionCache& cache) {
    // By runtime profile: the members of a fit group share its factors, but each keeps its own
    // request path, kernel graph and scheduler.
    std::map<const engine::RuntimeProfile*, engine::RuntimeProfile> presets;
    for (const std::size_t i : indices) {
        const CalibrationCase& c = cases[i];
        const engine::RuntimeProfile& runtime = c.deployment.runtime_profile();
        auto preset = presets.find(&runtime);
        if (preset == presets.end()) preset = presets.emplace(&runtime, fitted_preset(runtime, fits)).first;
        errors.rows[i] = cache.evaluate(c, preset->second);
    }
}

// The per-metric summaries of `errors.rows`, each with the number of groups its rows come from.
void summarize_by_metric(HeldOutErrors& errors) {
    const auto metric_of = [](const AccuracyRow& row) { return profiles::metric_label(*row.measurement); };
    std::map<std::string, std::set<std::string>> groups;
    std::map<const AccuracyRow*, std::string> group_names;
    for (std::size_t i = 0; i < errors.rows.size(); ++i) {
        groups[metric_of(errors.rows[i])].insert(errors.group_of_row[i]);
        group_names[&errors.rows[i]] = errors.group_of_row[i] + " | " + metric_of(errors.rows[i]);
    }
    errors.by_group = summarize(errors.rows, [&](const AccuracyRow& row) { return group_names.at(&row); });
    const auto summaries = summarize(errors.rows, metric_of);
    for (const std::string& name : profiles::metric_labels()) {
        for (const auto& summary : summaries) {
            if (summary.name == name) errors.by_metric.push_back({summary, static_cast<int>(groups[summary.name].size())});
        }
    }
}

}  // namespace

void share_backend_kernels(std::vector<FitResult>& fits) {
    // The smallest multiplier the fit's grid reaches: a borrowed one is clamped there too.
    static constexpr double kMinBackendFactor = 0.1;
    // The fraction of peak a fit's quantized matrices reach on backend b.
    const auto reached = [](const FitResult& fit, std::size_t b) {
        return fit.factors.compute * fit.factors.backend_compute[b] * fit.factors.quantized_compute;
    };
    const auto multiplier_for = [](const FitResult& fit, double fraction) {
        const double base = fit.factors.compute * fit.factors.quantized_compute;
        return std::clamp(fraction / base, kMinBackendFactor, profiles::kMaxBackendComputeFactor);
    };
    // Each runtime's typical measured backend: the geometric mean of the fractions its groups
    // measured, read before anything is written (a ratio's centre, so a backend at half the
    // reference and one at twice weigh alike).
    std::map<std::string, std::pair<double, int>> logs;
    for (const FitResult& fit : fits) {
        for (std::size_t b = 0; b < core::kBackends.size(); ++b) {
            if (!fit.compute_measured[b] || !(reached(fit, b) > 0.0)) continue;
            auto& [sum, count] = logs[fit.fit_group];
            sum += std::log(reached(fit, b));
            ++count;
        }
    }
    // Only a backend a fit did not measure is written, and only a measured one is read: nothing
    // borrowed is ever lent on.
    for (std::size_t i = 0; i < fits.size(); ++i) {
        FitResult& fit = fits[i];
        for (std::size_t b = 0; b < core::kBackends.size(); ++b) {
            if (fit.compute_measured[b]) continue;
            bool borrowed = false;
            for (std::size_t j = 0; j < fits.size() && !borrowed; ++j) {
                const FitResult& other = fits[j];
                if (j == i || other.fit_group != fit.fit_group || !other.compute_measured[b]) continue;
                fit.factors.backend_compute[b] = multiplier_for(fit, reached(other, b));
                fit.borrowed.push_back(core::kBackends[b].backend);
                borrowed = true;
            }
            // Measured in no group: the typical measured backend's fraction, not the reference's
            // (the reference is the backend with the most rows, the most tuned kernels: Metal on
            // unified memory, CUDA on discrete GPUs; a backend nobody measured is rarely that).
            const auto typical = logs.find(fit.fit_group);
            if (!borrowed && typical != logs.end()) {
                fit.factors.backend_compute[b] =
                    multiplier_for(fit, std::exp(typical->second.first / typical->second.second));
                fit.typical.push_back(core::kBackends[b].backend);
            }
        }
    }
    // A weight tile's staging is the runtime's kernels' too, in rows of their own arithmetic: a
    // group without enough MoE prompts to read it takes it from one that had them.
    for (std::size_t i = 0; i < fits.size(); ++i) {
        FitResult& fit = fits[i];
        if (fit.tile_setup_measured) continue;
        for (const FitResult& other : fits) {
            if (&other == &fit || other.fit_group != fit.fit_group || !other.tile_setup_measured) continue;
            fit.factors.tile_setup_rows = other.factors.tile_setup_rows;
            fit.tile_setup_borrowed = true;
            break;
        }
    }
}

std::vector<FitResult> fit_presets(const std::vector<CalibrationCase>& cases, PredictionCache* cache) {
    std::vector<FitResult> fits;
    for (const auto& group : fit_groups()) {
        auto fit = fit_group(cases_in(cases, group, [](std::size_t) { return true; }), group, cache);
        if (fit) fits.push_back(std::move(*fit));
    }
    share_backend_kernels(fits);
    return fits;
}

engine::RuntimeProfile fitted_preset(const engine::RuntimeProfile& runtime, const std::vector<FitResult>& fits) {
    engine::RuntimeProfile preset = runtime;
    for (const auto& group : fit_groups()) {
        if (group.fit_group != runtime.fit_group) continue;
        engine::RuntimeFactors factors{};  // the measured defaults, where every fit starts
        for (const auto& fit : fits) {
            if (fit.fit_group == runtime.fit_group && fit.families == group.families) factors = fit.factors;
        }
        // The build's own factors over its group's stay (profiles::with_own_factors).
        for (const core::MemoryFamily family : group.families)
            preset.by_family[static_cast<std::size_t>(family)] = profiles::with_own_factors(runtime, family, factors);
    }
    return preset;
}

HeldOutErrors leave_one_group_out(const std::vector<CalibrationCase>& cases, const std::string& grouping,
                                  const std::function<std::string(const CalibrationCase&)>& group_of,
                                  PredictionCache* cache) {
    HeldOutErrors errors;
    errors.grouping = grouping;
    errors.rows.resize(cases.size());
    std::map<std::string, std::vector<std::size_t>> members;
    for (std::size_t i = 0; i < cases.size(); ++i) {
        errors.group_of_row.push_back(group_of(cases[i]));
        members[errors.group_of_row.back()].push_back(i);
    }
    errors.groups = static_cast<int>(members.size());

    const auto groups = fit_groups();
    PredictionCache own_cache;
    if (!cache) cache = &own_cache;
    std::vector<std::optional<FitResult>> on_all;
    for (const auto& group : groups) {
        on_all.push_back(fit_group(cases_in(cases, group, [](std::size_t) { return true; }), group, cache));
    }

    for (const auto& [name, held_out] : members) {
        const std::set<std::size_t> out(held_out.begin(), held_out.end());
        std::vector<FitResult> fits;
        for (std::size_t g = 0; g < groups.size(); ++g) {
            const bool touched = std::any_of(held_out.begin(), held_out.end(),
                                             [&](std::size_t i) {
                                                 return in_fit_group(cases[i], groups[g]) && read_by_fits(*cases[i].measurement);
                                             });
            auto fit = touched ? fit_group(cases_in(cases, groups[g], [&](std::size_t i) { return !out.contains(i); }),
                                           groups[g], cache)
                               : on_all[g];
            if (fit) fits.push_back(std::move(*fit));
        }
        share_backend_kernels(fits);
        predict_cases(cases, held_out, fits, errors, *cache);
    }
    summarize_by_metric(errors);
    return errors;
}

HeldOutErrors in_sample(const std::vector<CalibrationCase>& cases, PredictionCache* cache) {
    HeldOutErrors errors;
    errors.grouping = "none";
    errors.groups = 0;
    errors.rows.resize(cases.size());
    errors.group_of_row.assign(cases.size(), "");
    std::vector<std::size_t> every(cases.size());
    for (std::size_t i = 0; i < cases.size(); ++i) every[i] = i;
    PredictionCache own_cache;
    if (!cache) cache = &own_cache;
    predict_cases(cases, every, fit_presets(cases, cache), errors, *cache);
    summarize_by_metric(errors);
    // Nothing was held out: no group counts, no per-group summaries.
    for (auto& metric : errors.by_metric) metric.groups = 0;
    errors.by_group.clear();
    return errors;
}

}  // namespace decodesim::fit
