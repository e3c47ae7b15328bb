#include "engine/residual_band.hpp"

#include <vector>

namespace decodesim::engine {
namespace {

using core::MemoryFamily;

// `decodesim accuracy --held-out`, section "Band", on validation/measurements.csv (1678 rows);
// written by scripts/update-residual-bands.py.
const std::vector<ShippedBand>& shipped_table() {
    static const std::vector<ShippedBand> kShipped{
    {true, {MemoryFamily::hbm, "", PassKind::decode, 0.58, 1.43, 996}},
    {true, {MemoryFamily::hbm, "", PassKind::prefill, 0.45, 1.44, 369}},
    {false, {MemoryFamily::hbm, "vllm", PassKind::decode, 0.55, 1.20, 222}},
    {false, {MemoryFamily::hbm, "vllm", PassKind::prefill, 0.23, 1.32, 38}},
    {false, {MemoryFamily::hbm, "tensorrt-llm", PassKind::decode, 0.73, 1.63, 370}},
    {false, {MemoryFamily::gddr, "vllm", PassKind::decode, 0.49, 1.28, 23}},
    {false, {MemoryFamily::gddr, "llama.cpp", PassKind::decode, 0.46, 1.10, 86}},
    {false, {MemoryFamily::gddr, "llama.cpp", PassKind::prefill, 0.39, 1.94, 98}},
    {false, {MemoryFamily::gddr, "tensorrt-llm", PassKind::decode, 0.77, 1.08, 60}},
    {false, {MemoryFamily::unified, "llama.cpp", PassKind::decode, 0.73, 1.10, 224}},
    {false, {MemoryFamily::unified, "llama.cpp", PassKind::prefill, 0.50, 1.31, 206}},
};
    return kShipped;
}

}  // namespace

std::span<const ShippedBand> shipped_residual_bands() { return shipped_table(); }

BandRatios residual_band(MemoryFamily family, std::string_view fit_group, PassKind kind) {
    if (fit_group.empty()) return {};
    const ResidualBand* pooled = nullptr;
    for (const ShippedBand& entry : shipped_table()) {
        const ResidualBand& band = entry.band;
        if (band.kind != kind) continue;
        if (entry.pooled) {
            pooled = &band;
        } else if (band.family == family && band.fit_group == fit_group) {
            return {band.low, band.high};
        }
    }
    return pooled ? BandRatios{pooled->low, pooled->high} : BandRatios{};
}

}  // namespace decodesim::engine
