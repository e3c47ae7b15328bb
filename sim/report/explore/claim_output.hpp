#pragma once
// A claim check as prose and a table, or JSON.

#include <nlohmann/json.hpp>
#include <string>

#include "report/predict_json.hpp"
#include "explore/claim_check.hpp"

namespace decodesim::report {

std::string claim_to_text(const Conditions& conditions, const explore::Claim& claim, const explore::ClaimCheck& check);
nlohmann::json claim_to_json(const Conditions& conditions, const explore::Claim& claim,
                             const explore::ClaimCheck& check);

}  // namespace decodesim::report
