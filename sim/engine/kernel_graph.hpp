#pragma once
// The kernels a runtime launches for one layer: its graph after the backend's fusions. The
// operators count one kernel for each matrix group, norm, cache write and attention (the
// structural kernels of a fused engine); a runtime that runs its graph node by node launches
// more, for rotary embedding, residual adds, activations, biases, expert selection and
// weighting, and the conversion of each matrix product's input. Each launch costs the runtime's
// per-kernel time, so at batch 1 on a fast device the graph, not the bytes, sets the step. The
// counts are read from the runtime's source and stated in its profile (KernelGraph,
// runtime_profiles/; docs/model.md, "Kernel graphs"), never fitted: the
// per-kernel time is fitted on them, and a mixture-of-experts layer's share of launches then
// carries over from dense rows to MoE rows.

#include "engine/runtime.hpp"

namespace decodesim::engine {

// The structural kernels: what the operators launch (engine/cost_model.cpp counts its operators'
// kernels from these). A block's norm is one kernel; the q, k and v projections one; each MLP, a
// dense one, an expert's or a shared expert's, two (gate/up, then down).
inline constexpr double kNormKernels = 1.0;
inline constexpr double kProjectionKernels = 1.0;
inline constexpr double kAttentionKernels = 1.0;
inline constexpr double kCacheWriteKernels = 1.0;
inline constexpr double kOutputKernels = 1.0;
inline constexpr double kMlpMatrixKernels = 2.0;
inline constexpr double kRouterKernels = 1.0;

// Structural kernels per block: attention 5 (norm, projections, attention, cache write, output),
// dense MLP 3 (norm, gate/up, down), routed MoE 4 (norm, router, gate/up, down).
inline constexpr double kStructuralAttentionKernels =
    kNormKernels + kProjectionKernels + kAttentionKernels + kCacheWriteKernels + kOutputKernels;
inline constexpr double kStructuralDenseMlpKernels = kNormKernels + kMlpMatrixKernels;
inline constexpr double kStructuralMoeKernels = kNormKernels + kRouterKernels + kMlpMatrixKernels;

// Launches beyond the structural ones in one block: the graph's count less the structural count;
// 0 where the graph is not counted.
double extra_kernels(double graph_block, double structural);

}  // namespace decodesim::engine
