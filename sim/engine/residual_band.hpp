#pragma once
// How far a prediction may be from a measurement on hardware and software the model was not
// fitted on: the spread of decodesim's own leave-one-source-out errors (docs/validation.md,
// "The band"). A band is a pair of ratios, measured / predicted, between which the stated share of
// held-out measurements fell, per device class, runtime and kind of pass. `decodesim accuracy
// --held-out` derives them from validation/measurements.csv and prints this table; the rows below
// are its output, copied with the commit that changed the data or the model (a test recomputes them).

#include <span>
#include <string>
#include <string_view>

#include "core/memory_family.hpp"

namespace decodesim::engine {

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

// The shipped table: the pooled band of each pass kind (`pooled` true, family and runtime unused),
// then each class with at least kBandMinimumRows held-out rows. Regenerate with
// `decodesim accuracy --held-out`.
struct ShippedBand {
    bool pooled;
    ResidualBand band;
};
std::span<const ShippedBand> shipped_residual_bands();

// The band a prediction on this device class under this fit group carries; the pooled band of the
// pass kind when the class has too few held-out rows or the group has none; {1, 1} for an empty
// group, the ideal runtime's (the roofline has no spread: it is a bound).
struct BandRatios {
    double low = 1.0;
    double high = 1.0;
};
BandRatios residual_band(core::MemoryFamily family, std::string_view fit_group, PassKind kind);

}  // namespace decodesim::engine
