#pragma once
// The vendor's number against the user's, condition by condition (scenarios/condition_ladder.hpp):
// a text table, JSON and a bar chart.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "report/predict_json.hpp"
#include "explore/condition_ladder.hpp"

namespace decodesim::report {

struct LadderReport {
    std::string hardware;  // id
    std::string hardware_name;
    std::string model;     // id
    std::optional<double> claimed_tokens_per_s_per_stream;  // the vendor's figure, when given
    std::vector<explore::LadderStep> steps;
};

std::string ladder_to_text(const LadderReport& report);
nlohmann::json ladder_to_json(const LadderReport& report);
std::string ladder_chart(const LadderReport& report);

}  // namespace decodesim::report
