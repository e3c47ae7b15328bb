#pragma once
// predict's JSON document (schema in docs/cli.md): SI units only, snake_case keys with unit suffixes.

#include <nlohmann/json.hpp>
#include <string>

#include "engine/prediction.hpp"

namespace decodesim::report {

// What the user asked for, echoed so a JSON line stands on its own.
struct Conditions {
    std::string hardware;
    std::string model;
    std::string weights;
    std::string kv;
    std::string activation;
    int tensor_parallel = 1;
    std::string runtime = "vllm";
};

inline constexpr int kSchemaVersion = 1;

// The start every JSON document shares: schema_version, hardware, model, and `conditions` with
// the formats, tensor parallelism and runtime; each command adds its own fields.
nlohmann::json document_for(const Conditions& conditions);

nlohmann::json prediction_to_json(const Conditions& conditions, const engine::Prediction& prediction,
                                  bool include_operators = true);

// `band`: the low and high estimates (docs/model.md, "Uncertainty band").
nlohmann::json band_to_json(const engine::Prediction& low, const engine::Prediction& high);

}  // namespace decodesim::report
