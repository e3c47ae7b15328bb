#pragma once
// `plan` results: a ranked table of devices and the JSON document.

#include <nlohmann/json.hpp>
#include <string>

#include "serving/daily_scaling.hpp"
#include "serving/ownership_cost.hpp"
#include "serving/plan.hpp"
#include "workload/workload_scenario.hpp"

namespace decodesim::report {

struct PlanConditions {
    std::string model;
    std::string workload;  // "10 requests/s, prompt 2000, output 500"
    std::optional<double> rate_per_s;
    std::optional<double> users;
    double think_time_s = 0.0;
    double prompt_tokens = 0.0;
    double output_tokens = 0.0;
    // --turns: the conversations (prompt_tokens is then the mean prompt as sent) and the mean of a
    // prompt the prefix cache holds.
    std::optional<workload::Conversations> conversations;
    double cached_prompt_tokens = 0.0;
    serving::ServiceTargets targets;
    bool default_ttft = false;  // the TTFT target is serving::kDefaultTtftLimitS, not the user's
    std::string runtime;
    bool in_process = false;  // --in-process: the clients run in the engine's process
    bool cuda_graphs_off = false;  // --cuda-graphs off: every pass dispatched op by op
    std::string clocks;
    std::string order;
    std::string disaggregation = "auto";  // --disaggregation
    const workload::WorkloadScenario* scenario = nullptr;
    // --max-output: the cap, the mean output without it, and the best plan without it.
    std::optional<double> max_output_tokens;
    double uncapped_output_tokens = 0.0;
    std::optional<serving::PlanOption> best_uncapped;
    std::map<std::string, double> given_prices;  // --price: USD per device-hour in place of the profiles'
    // --basis purchase: each bought device's cost of ownership a device-hour (its price_per_hour in
    // the plan), by hardware id, and the assumptions behind it.
    std::map<std::string, serving::OwnershipCost> ownership;
    serving::OwnershipAssumptions ownership_assumptions;
    // --load-curve: the best option scaled over the day.
    std::optional<serving::ScaledDay> day;
    std::string load_curve;
    double scale_up_lag_minutes = 0.0;
    std::string candidates;  // without --hardware: which devices were considered ("34 of the 89 shipped ...")
    // The model as a serving command names it: its Hugging Face repository where its profile's
    // source names one, else its id.
    std::string model_repo;
    // The drawn lengths and arrivals behind the means (unset: fixed lengths, Poisson), and whether
    // the load is a recorded trace: what the check's load generator cannot send (PlannedLoad).
    std::optional<workload::ResolvedWorkload> lengths;
    bool trace = false;
};

std::string plan_to_text(const PlanConditions& conditions, const serving::Plan& plan);
// `plan --emit`: a shell script that launches the best option and checks it, with the figures the
// check should reproduce in its comments; empty when the option's runtime states no launch.
// `orchestrator`: under that framework's front end (NVIDIA Dynamo), as the runtime profile states it.
std::string launch_script(const PlanConditions& conditions, const serving::Plan& plan, const std::string& orchestrator = "");
nlohmann::json plan_to_json(const PlanConditions& conditions, const serving::Plan& plan);

}  // namespace decodesim::report
