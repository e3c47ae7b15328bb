#pragma once
// Which graph a decode pass replays. A serving runtime captures its decode passes as CUDA (HIP)
// graphs at start-up, one graph for each of a list of batch sizes (vLLM's cudagraph_capture_sizes,
// SGLang's cuda_graph_bs up to cuda_graph_max_bs, TensorRT-LLM's cuda_graph_config.batch_sizes).
// A decode batch of a captured size replays its graph. One between two sizes either replays the
// next larger graph with dummy rows (vLLM, SGLang: the padding computes like real rows through
// every matrix, at almost no context) or, where the runtime does not pad (TensorRT-LLM's default,
// enable_padding false), runs without a graph. A batch above the largest size always runs without
// one: the host dispatches every op, as an eager pass does (docs/model.md, "Captured batch sizes").
//
// The sizes are the runtime's own defaults, read from its source and stated in its profile
// (RuntimeProfile::captured_graphs), never fitted.

#include <vector>

namespace decodesim::engine {

struct GraphReplay {
    bool replayed = true;  // false: no captured graph holds the batch; every op is dispatched from the host
    double rows = 0.0;     // the sequences the pass computes: the batch, or the captured size it is padded to
};

// A decode pass of `batch` sequences where the runtime captured `captured` (increasing);
// `padding`: whether a batch between two sizes replays the next one. A whole batch (a simulated
// step's) is padded to the next size; a fraction (a steady state's mean) is looked up as the next
// whole batch and pays the mean padding of the sizes that replay the same graph. An empty list
// states nothing: every batch replays a graph of its own size.
GraphReplay graph_replay(const std::vector<long long>& captured, bool padding, double batch);

}  // namespace decodesim::engine
