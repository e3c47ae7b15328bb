#pragma once
// Public measurements (validation/measurements.csv): one row per measured figure, with its source.

#include <optional>
#include <string>
#include <vector>

namespace decodesim::profiles {

struct Measurement {
    int line = 0;  // in the CSV file, for messages
    std::string id;
    std::string hardware;
    std::string model;
    std::string weights;  // empty: not stated
    std::string kv;       // empty: not stated
    std::string engine;
    std::optional<double> batch;
    std::optional<double> prompt;
    std::optional<double> output;
    std::optional<double> context;
    std::string metric;
    double value = 0.0;
    std::string source;
    std::string notes;
    int devices = 1;      // "n_gpus=N" in the notes
};

// The metrics a row may carry.
const std::vector<std::string>& measurement_metrics();

// Reads the CSV (header: id,hardware,model,weights,kv,engine,batch,prompt,output,context,metric,
// value,source,notes). Throws core::InputError naming the file, line and column of every bad field.
std::vector<Measurement> load_measurements(const std::string& path);

}  // namespace decodesim::profiles
