#pragma once
// How far a prediction may be from a measurement on hardware and software the model was not
// fitted on: the spread of decodesim's own leave-one-source-out errors (docs/validation.md,
// "The band"). A band is a pair of ratios, measured / predicted, between which the stated share of
// held-out measurements fell, per device class, fit group and kind of pass. `decodesim accuracy
// --held-out --write-bands FILE` derives them from validation/measurements.csv and writes the
// table validation/residual_bands.csv, which this header's reader loads: data, never retyped.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/memory_family.hpp"

namespace decodesim::profiles {

// Which rate a measurement exercises: the prompt's pass (prefill throughput, time to first token)
// or the generation steps (decode throughput, time per output token, end-to-end latency).
enum class PassKind { decode, prefill };
constexpr std::string_view pass_kind_name(PassKind kind) { return kind == PassKind::decode ? "decode" : "prefill"; }

// The central share of held-out ratios a band spans: 0.90 spans the 5th to the 95th percentile.
// Chosen so that the band, derived without a source's rows, holds at least 80% of that source's
// measurements (docs/validation.md, "The band": the nested coverage the command reports).
inline constexpr double kBandCentralShare = 0.90;
// A class with fewer held-out rows than this takes the pooled band of its pass kind.
inline constexpr int kBandMinimumRows = 20;

struct ResidualBand {
    core::MemoryFamily family;
    std::string fit_group;  // RuntimeProfile::fit_group; empty in a pooled band
    PassKind kind;
    double low;   // measured / predicted at the low end (the slow side when below 1)
    double high;  // measured / predicted at the high end
    int rows;     // held-out rows it was derived from
};

// One row of the table: the pooled band of a pass kind (`pooled` true, family and fit group
// unused), or a class with at least kBandMinimumRows held-out rows.
struct ShippedBand {
    bool pooled;
    ResidualBand band;
};

// A pair of ratios; {1, 1}: no spread (the ideal runtime's roofline is a bound).
struct BandRatios {
    double low = 1.0;
    double high = 1.0;
};

// The band a prediction on this device class under this fit group carries: its class's row, else
// the pooled band of the pass kind; {1, 1} for an empty fit group (the ideal runtime).
BandRatios band_for(std::span<const ShippedBand> table, core::MemoryFamily family, std::string_view fit_group,
                    PassKind kind);

// Reads the table (header `memory,fit_group,pass,low,high,rows`; a pooled row says `all` for memory
// and fit group). A bad field, a missing pooled row, or low not below high is an InputError naming
// the file, line and column.
std::vector<ShippedBand> load_residual_bands(const std::string& path);

// The table as CSV, in the order given: what load_residual_bands reads.
std::string residual_bands_csv(std::span<const ShippedBand> table);

}  // namespace decodesim::profiles
