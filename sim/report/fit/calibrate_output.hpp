#pragma once
// `decodesim calibrate`'s output: the fit as a text summary or JSON, and the runtime profile
// it writes (docs/cli.md, "Runtime profile files").

#include <string>
#include <string_view>

#include "fit/user_calibration.hpp"

namespace decodesim::report {

// What the run was about, for the summary and the preset's `source:`.
struct CalibrateContext {
    std::string command;   // the command line, for `source:`
    std::string date;      // YYYY-MM-DD (UTC)
    std::string format;    // the input format detected
    std::string hardware;  // profile id
    std::string model;     // profile id
    std::string base;      // the base runtime's name
    std::string name;      // the preset's name
    int skipped_rows = 0;  // rows read but not evaluated
};

// The `source:` line: command, date, row counts and the errors before -> after.
std::string calibrate_source(const fit::UserCalibration& calibration, const CalibrateContext& context);

// A runtime profile that `--runtime path.yaml` reads back: name, base, source, and the calibrated
// family's factors (the other families keep the base's). Overheads in us to 0.01 us, multipliers
// to 4 decimals, finer than any grid step of the fit.
std::string runtime_preset_yaml(const fit::UserCalibration& calibration, const CalibrateContext& context);

std::string calibrate_to_text(const fit::UserCalibration& calibration, const CalibrateContext& context);
std::string calibrate_to_json(const fit::UserCalibration& calibration, const CalibrateContext& context,
                              const std::string& preset_path);

}  // namespace decodesim::report
