#pragma once
// "Will more FLOPS help?": a plain-language verdict, then the table; or JSON.

#include <nlohmann/json.hpp>
#include <string>

#include "report/predict_json.hpp"
#include "explore/what_if.hpp"

namespace decodesim::report {

std::string why_verdict(const explore::Explanation& explanation);
std::string why_to_text(const Conditions& conditions, const explore::Explanation& explanation);
nlohmann::json why_to_json(const Conditions& conditions, const explore::Explanation& explanation);

}  // namespace decodesim::report
