#pragma once
// `predict --gpu-layers`: where the layers sit, what each side reads a token, and the speed.

#include <nlohmann/json.hpp>
#include <string>

#include "engine/partial_offload.hpp"
#include "report/predict_json.hpp"

namespace decodesim::report {

struct OffloadReport {
    Conditions conditions;
    engine::HostMemory host;
    engine::PartialOffload offload;
    std::string host_link;      // the device's link to host memory, as its profile names it
    double prompt = 0.0;
    double context = 0.0;       // tokens a stream holds when it decodes
    bool automatic = false;     // --gpu-layers auto chose the placement
};

std::string offload_to_text(const OffloadReport& report);
nlohmann::json offload_to_json(const OffloadReport& report);

}  // namespace decodesim::report
