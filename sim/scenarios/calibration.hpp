#pragma once
// Fits a runtime preset's factors for one memory family on the training split, by grid search
// minimizing the median absolute error. Fitted values are copied into engine/runtime.hpp with the
// command that reproduces them (docs/validation.md); nothing is tuned per row.

#include <string>
#include <vector>

#include "engine/runtime.hpp"
#include "scenarios/accuracy.hpp"

namespace decodesim::scenarios {

// A measurement with its profiles resolved.
struct CalibrationCase {
    const profiles::Measurement* measurement;
    const profiles::ModelProfile* model;
    const profiles::HardwareProfile* hardware;
    engine::Deployment deployment;  // evaluated with the candidate preset's factors while fitting
};

struct FitResult {
    std::string runtime;
    std::vector<core::MemoryFamily> families;
    engine::RuntimeFactors factors;
    int decode_rows = 0;
    int prefill_rows = 0;
    double decode_error_before = 0.0, decode_error_after = 0.0;
    double prefill_error_before = 0.0, prefill_error_after = 0.0;
};

// Fits two factors at a time for the training-split cases of `preset` on `family`: (kernel
// overhead, quantized weight bandwidth) on single-stream decode rows, or (compute, kernel overhead)
// for tensorrt-llm's batched-throughput rows; then (compute, quantized compute) on prefill rows.
// A group with fewer than 10 rows of a kind keeps its defaults.
// `families` are fitted together (one backend: CUDA/ROCm on discrete GPUs, Metal and others on
// unified memory).
FitResult fit_runtime(const std::vector<CalibrationCase>& cases, const engine::RuntimePreset& preset,
                      const std::vector<core::MemoryFamily>& families);

}  // namespace decodesim::scenarios
