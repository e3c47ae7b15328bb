#include "engine/residual_band.hpp"

#include <array>

namespace decodesim::engine {
namespace {

using core::MemoryFamily;

// `decodesim accuracy --held-out`, section "Band", on validation/measurements.csv (1678 rows);
// written by scripts/update-residual-bands.py.
constexpr auto kShipped = std::to_array<ShippedBand>({
    {true, {MemoryFamily::hbm, Runtime::vllm, PassKind::decode, 0.58, 1.43, 996}},
    {true, {MemoryFamily::hbm, Runtime::vllm, PassKind::prefill, 0.45, 1.44, 369}},
    {false, {MemoryFamily::hbm, Runtime::vllm, PassKind::decode, 0.55, 1.20, 222}},
    {false, {MemoryFamily::hbm, Runtime::vllm, PassKind::prefill, 0.23, 1.32, 38}},
    {false, {MemoryFamily::hbm, Runtime::tensorrt_llm, PassKind::decode, 0.73, 1.63, 370}},
    {false, {MemoryFamily::gddr, Runtime::vllm, PassKind::decode, 0.49, 1.28, 23}},
    {false, {MemoryFamily::gddr, Runtime::llama_cpp, PassKind::decode, 0.46, 1.10, 86}},
    {false, {MemoryFamily::gddr, Runtime::llama_cpp, PassKind::prefill, 0.39, 1.94, 98}},
    {false, {MemoryFamily::gddr, Runtime::tensorrt_llm, PassKind::decode, 0.77, 1.08, 60}},
    {false, {MemoryFamily::unified, Runtime::llama_cpp, PassKind::decode, 0.73, 1.10, 224}},
    {false, {MemoryFamily::unified, Runtime::llama_cpp, PassKind::prefill, 0.50, 1.31, 206}},
});

}  // namespace

std::span<const ShippedBand> shipped_residual_bands() { return kShipped; }

BandRatios residual_band(MemoryFamily family, Runtime runtime, PassKind kind) {
    if (runtime == Runtime::ideal) return {};
    const ResidualBand* pooled = nullptr;
    for (const ShippedBand& entry : kShipped) {
        const ResidualBand& band = entry.band;
        if (band.kind != kind) continue;
        if (entry.pooled) {
            pooled = &band;
        } else if (band.family == family && band.runtime == runtime) {
            return {band.low, band.high};
        }
    }
    return pooled ? BandRatios{pooled->low, pooled->high} : BandRatios{};
}

}  // namespace decodesim::engine
