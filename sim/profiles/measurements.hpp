#pragma once
// Public measurements (validation/measurements.csv): one row per measured figure, with its source.

#include <string>
#include <vector>

#include "profiles/measurement.hpp"

namespace decodesim::profiles {

// Reads the CSV (header: id,hardware,model,weights,kv,engine,batch,prompt,output,context,metric,
// value,source,notes). Throws core::InputError naming the file, line and column of every bad field.
std::vector<Measurement> load_measurements(const std::string& path);

}  // namespace decodesim::profiles
