#pragma once
// Devices side by side: table, CSV or JSON.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "explore/compare.hpp"
#include "workload/workload_scenario.hpp"

namespace decodesim::report {

// Every output names the model, the workload and each row's resolved conditions (runtime included).
std::string compare_to_text(const std::string& model, const engine::Workload& workload,
                            const std::vector<explore::CompareRow>& rows);
std::string compare_to_csv(const std::string& model, const engine::Workload& workload,
                           const std::vector<explore::CompareRow>& rows);
nlohmann::json compare_to_json(const std::string& model, const engine::Workload& workload,
                               const std::vector<explore::CompareRow>& rows,
                               const workload::WorkloadScenario* scenario = nullptr);

}  // namespace decodesim::report
