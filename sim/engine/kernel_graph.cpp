#include "engine/kernel_graph.hpp"

#include <algorithm>

namespace decodesim::engine {

double extra_kernels(double graph_block, double structural) {
    if (graph_block <= 0.0) return 0.0;
    return std::max(0.0, graph_block - structural);
}

}  // namespace decodesim::engine
