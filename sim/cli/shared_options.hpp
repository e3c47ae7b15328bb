#pragma once
// What several subcommands share: resolving ids and formats, limits on flags, warnings.

#include <string>

#include "cli/io.hpp"
#include "cli/workload_options.hpp"
#include "engine/deployment.hpp"
#include "profiles/catalog.hpp"
#include "report/predict_json.hpp"

namespace decodesim::cli {

inline constexpr long long kMaxBatch = 1'000'000'000LL;
inline constexpr long long kMaxTokens = 1'000'000'000LL;
inline constexpr int kMaxTensorParallel = 4096;
inline constexpr long long kDefaultContext = 1024;

// Profiles and formats, loaded and resolved for one evaluation.
struct OperatingPoint {
    profiles::HardwareProfile hardware;
    profiles::ModelProfile model;
    engine::Deployment deployment;
};

// Throws InputError for bad profiles and UsageError for an unknown format name.
// With --verbose, logs the files loaded and the deployment resolved.
OperatingPoint resolve_operating_point(const profiles::Catalog& catalog, const std::string& hardware,
                                       const std::string& model, const std::string& weights, const std::string& kv,
                                       int tensor_parallel, const std::string& runtime, Io io);
OperatingPoint resolve_operating_point(const profiles::Catalog& catalog, const WorkloadOptions& options, Io io);

// Format names from the command line; UsageError with a suggestion when unknown.
const core::WeightFormat& weight_format_named(const std::string& name);
const core::KvFormat* kv_format_named(const std::string& name);  // nullptr for ""
const engine::RuntimePreset& runtime_named(const std::string& name);

report::Conditions conditions_of(const OperatingPoint& point);

void warn(Io io, const std::string& message);

}  // namespace decodesim::cli
