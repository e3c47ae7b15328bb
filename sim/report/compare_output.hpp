#pragma once
// Devices side by side: table, CSV or JSON.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "scenarios/compare.hpp"

namespace decodesim::report {

std::string compare_to_text(const std::string& model, const std::vector<scenarios::CompareRow>& rows);
std::string compare_to_csv(const std::vector<scenarios::CompareRow>& rows);
nlohmann::json compare_to_json(const std::string& model, const std::vector<scenarios::CompareRow>& rows);

}  // namespace decodesim::report
