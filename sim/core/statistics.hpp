#pragma once
// Order statistics of measured or simulated samples: the one median and the one quantile every
// report, fit and serving summary uses, so that "p99" means the same thing everywhere.

#include <vector>

namespace decodesim::core {

// The median of `values` (the mean of the two middle values for an even count); 0 for none.
double median(std::vector<double> values);

// The `fraction` quantile of `sorted` (ascending, not empty), interpolated linearly between the
// two nearest ranks: Hyndman and Fan's definition 7, NumPy's default `np.percentile`, which the
// serving benchmarks (vLLM's `bench serve`, SGLang's `bench_serving`) report their p50/p90/p99 with.
double quantile_of_sorted(const std::vector<double>& sorted, double fraction);

}  // namespace decodesim::core
