#pragma once
// The scheduler's limits as serve's and plan's JSON state them.

#include <nlohmann/json.hpp>

#include "serving/scheduler_limits.hpp"

namespace decodesim::report {

inline nlohmann::json scheduler_json(const serving::SchedulerLimits& limits) {
    return {{"max_sequences", limits.max_sequences},
            {"max_batched_tokens", limits.max_batched_tokens},
            {"block_tokens", limits.block_tokens},
            {"chunked_prefill", limits.chunked_prefill},
            {"prefix_caching", limits.prefix_caching},
            {"prefill_passes", core::name_of(profiles::kPrefillPassNames, limits.separate_prefill)},
            {"admission", core::name_of(profiles::kAdmissionNames, limits.reserve_whole_request)},
            {"schedulers", limits.schedulers}};
}

}  // namespace decodesim::report
