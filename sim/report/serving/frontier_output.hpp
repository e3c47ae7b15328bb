#pragma once
// `frontier` results: a table per deployment, the JSON document and the SVG chart of throughput
// per device against tokens per second per user, with each deployment's knee marked.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/predict_json.hpp"
#include "serving/frontier.hpp"

namespace decodesim::report {

struct FrontierDeployment {
    Conditions point;       // hardware, model, formats, runtime, parallelism (no workload)
    std::string label;      // "h100-sxm", "h200-sxm tp2": how the chart and the tables name it
    std::optional<double> price_per_device_hour;
    std::string price_basis;  // "cloud", "purchase", "proxy", "given" or "" without a price
    serving::Frontier frontier;
};

struct FrontierConditions {
    std::string model;
    std::string prompt;  // "1000", "lognormal 1000 sd 500"
    std::string output;
    long long requests_per_client = 0;
    long long min_requests = 0;
    unsigned long long seed = 0;
};

std::string frontier_to_text(const FrontierConditions& conditions, const std::vector<FrontierDeployment>& deployments);
nlohmann::json frontier_to_json(const FrontierConditions& conditions, const std::vector<FrontierDeployment>& deployments);
std::string frontier_chart(const FrontierConditions& conditions, const std::vector<FrontierDeployment>& deployments);

}  // namespace decodesim::report
