#pragma once
// Derives the band (profiles/residual_band_table.hpp) from leave-one-source-out predictions, and measures
// whether it means what it says: the share of each source's measurements that fall inside a band
// derived without that source (nested coverage).

#include <string>
#include <vector>

#include "engine/runtime.hpp"
#include "fit/calibration.hpp"

namespace decodesim::fit {

// measured / predicted as a rate: for a time (lower is better) predicted / measured, so that a
// ratio above 1 is always "faster than predicted".
double rate_ratio(const AccuracyRow& row);
engine::PassKind pass_kind(profiles::Metric metric);

struct BandCoverage {
    std::string name;  // a metric, or "all"
    int rows = 0;
    double inside = 0.0;  // share of rows inside their band
};

struct DerivedBands {
    std::vector<engine::ShippedBand> bands;  // the pooled band of each pass kind, then each class with enough rows
    std::vector<BandCoverage> nested;        // each source's rows against the band derived without it
    std::vector<BandCoverage> shipped;       // every row against the shipped table (in sample for the table)
};

// `by_source`: leave_one_group_out(cases, "source", ...) on the same cases.
DerivedBands derive_residual_bands(const std::vector<CalibrationCase>& cases, const HeldOutErrors& by_source);

}  // namespace decodesim::fit
