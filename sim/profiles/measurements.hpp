#pragma once
// Public measurements (validation/measurements.csv): one row per measured figure, with its source.

#include <string>
#include <vector>

#include "profiles/measurement.hpp"

namespace decodesim::profiles {

// Reads the CSV (header: id,hardware,model,weights,kv,engine,runtime,batch,prompt,output,context,
// metric,value,source,conditions,notes). `conditions` holds "key=value" pairs separated by "; "
// (profiles/measurement.hpp, docs/validation.md); `notes` is free text, never read. Throws
// core::InputError naming the file, line and column of every bad field.
std::vector<Measurement> load_measurements(const std::string& path);

}  // namespace decodesim::profiles
