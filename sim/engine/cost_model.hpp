#pragma once
// A model under one deployment, reduced to per-device coefficients, so that evaluating a step
// for any batch and context is a handful of multiply-adds (sweeps call it millions of times).

#include <optional>
#include <vector>

#include "engine/deployment.hpp"
#include "engine/graph_capture.hpp"
#include "engine/operators.hpp"
#include "profiles/model_profile.hpp"

namespace decodesim::engine {

// A weight matrix group read once per forward pass.
struct WeightGroup {
    core::Bytes bytes;              // on one device, summed over layers
    double params = 0.0;            // multiply-adds per token on one device, summed over layers
    double activation_width = 0.0;  // input + output elements per token (for activation traffic)
    double layers = 0.0;            // kernel launches per step for the group (one or two per layer)
};

struct CostModel {
    WeightGroup qkv, output, mlp, router, shared_experts, lm_head;
    // Routed experts: one expert's weights, summed over MoE layers, on one device.
    WeightGroup expert;
    int moe_layers = 0;
    int shared_expert_layers = 0;             // MoE layers with shared experts
    double shared_expert_matrix_kernels = 0;  // their structural kernels: two each shared expert
    int dense_layers = 0;      // layers with a dense MLP (each ends in a tensor-parallel all-reduce)
    int routed_experts = 0;    // in the model, per MoE layer
    int local_experts = 0;     // of them on one device (routed_experts / expert parallelism)
    int experts_per_token = 0;

    core::Bytes embedding_row_bytes;    // one token's embedding row (the whole row, before vocab split)
    core::Bytes embedding_table_bytes;  // the input table on one device (0 when tied to lm_head)
    double hidden_size = 0.0;
    core::Bytes activation_bytes{2.0};  // per activation element
    double layers = 0.0;
    // Weights held but not read by a decode step, on one device: a vision encoder's (its pass is
    // priced per image, Evaluator::vision_encoder_time), and cross-attention layers' without images.
    core::Bytes encoder_weight_bytes;
    int mixer_layers = 0;      // layers with attention or a recurrent mixer (all but Nemotron-H's MLP blocks)
    double norm_count = 0.0;   // norms a token passes: each block's and the final one

    // KV cache on one device.
    core::Bytes kv_bytes_per_token_per_layer;
    int full_attention_layers = 0;
    int sliding_layers = 0;
    double window = 0.0;                // tokens; 0 when no layer slides
    double query_heads = 0.0;           // on one device
    double score_width = 0.0;           // multiply-adds per query head per cached token for Q·K
    double value_width = 0.0;           // ... for P·V
    double prefill_score_width = 0.0;   // prefill runs MLA un-absorbed: per-head widths
    double prefill_value_width = 0.0;
    double query_key_value_width = 0.0; // Q, K, V elements per token (prefill attention traffic)
    bool latent_cache = false;          // MLA: one cache read serves both score and value
    // The runtime's attention writes its score matrix to device memory (AttentionKernels::unfused).
    bool unfused_attention = false;
    // Block-format weights go through 16-bit copies in passes of more than this many tokens (the
    // runtime's BlockFormatMatmul on the deployment's backend); 0: never.
    double dequantized_block_matmul_above_tokens = 0.0;
    // A fused prompt kernel's query rows per load of a key/value head (engine/attention_tile.hpp),
    // and the bytes of each key or value element it loads; 0 rows: loaded once per layer.
    double prefill_rows_per_kv_load = 0.0;
    core::Bytes prefill_kv_element_bytes;
    // The runtime's kernels beyond the structural ones, per step (engine/kernel_graph.hpp).
    double elementwise_kernels = 0.0;
    // The ops the host dispatches for a pass carrying prompt tokens, and for a decode-only pass,
    // where the deployment runs such passes eagerly (EagerDispatch); 0 where it replays a graph.
    double eager_prefill_ops = 0.0;
    double eager_decode_ops = 0.0;
    // The ops a pass dispatches op by op, whether or not the deployment runs any so: what a decode
    // pass costs the host when no captured graph holds its batch (engine/graph_capture.hpp); 0
    // where the runtime states no eager_passes counts.
    double eager_pass_ops = 0.0;
    // The decode batch sizes captured on this device (Deployment::captured_batches) and whether a
    // batch between two replays the next; empty: every decode batch replays a graph.
    std::vector<long long> captured_batches;
    bool graph_padding = true;
    // Llama 4 chunked local attention: a chunked layer reads and holds at most `chunk` tokens (the
    // worst case within a chunk: a sequence's cost never falls as its context grows).
    int chunked_layers = 0;
    double chunk = 0.0;
    // DeepSeek sparse attention: each query reads min(context, topk) latent tokens of a cache that
    // holds the whole context, after the indexer scans its own small key cache over all of it.
    int sparse_layers = 0;
    double topk = 0.0;
    core::Bytes indexer_bytes_per_token_per_layer;  // fp8 keys + one fp32 scale
    double indexer_width = 0.0;         // indexer multiply-adds per scanned token per layer (heads x dim)
    // DeepSeek-V4's compressed attention (profiles::CompressedAttention): layers that keep the last
    // `window` tokens whole and one compressed row per `ratio` tokens after them, a row of the
    // one shared key-value head (kv_bytes_per_token_per_layer). A sparse group's indexer scans its
    // own keys, one a row, and attention reads `topk` of the rows; the others read every row.
    // Layers of ratio 0 keep the window alone and count among sliding_layers.
    struct CompressedLayers {
        int layers = 0;
        double ratio = 0.0;
        bool sparse = false;
    };
    std::vector<CompressedLayers> compressed;
    // Each compressed layer's compressor carries the block it is pooling (and, where blocks
    // overlap, the one before) in fp32 from token to token: held per sequence whatever the context.
    core::Bytes compressor_state_bytes;  // one sequence, summed over layers, on one device
    // Llama 3.2 Vision's cross-attention layers when the requests carry images: every such layer
    // reads each sequence's `cross_states` image states at every pass, a cache that does not grow
    // (kv_bytes_per_token_per_layer a state), after the prompt's first pass has projected their
    // keys and values (cross_kv). Without images (0 states) the layers are skipped whole and their
    // weights only held (encoder_weight_bytes).
    int cross_layers = 0;
    double cross_states = 0.0;
    WeightGroup cross_kv;
    // Recurrent layers (Gated DeltaNet, Mamba) hold a constant state per sequence instead of a
    // cache; each pass reads and writes it whole.
    int recurrent_layers = 0;
    core::Bytes recurrent_state_bytes;  // one sequence, summed over recurrent layers, on one device
    double recurrent_flops_per_token = 0.0;  // state-update FLOPs per token, summed over recurrent layers
    double recurrent_io_width = 0.0;    // elements in and out of the recurrent kernels per token, summed over layers

    int tensor_parallel = 1;
    Parallelism parallelism;
    core::Bytes norms_weight_bytes;
    // KV-cache room on one device when the cache may spill to CPU memory (--kv-offload); unset:
    // no offload, the cache must fit.
    std::optional<core::Bytes> kv_device_room;
    KvCacheSizing kv_sizing;  // how the deployment's runtime sizes its cache (engine/runtime.hpp)

    // Layers with a KV cache (every layer but the recurrent ones).
    int attention_layers() const;
    // Tokens of context a sequence of `context` tokens actually reads, summed over layers (sliding
    // windows, chunks and DSA's top-k applied; recurrent layers read none).
    double attended_tokens(double context) const;
    // Indexer keys a DSA sequence of `context` tokens scans, summed over layers.
    double indexed_tokens(double context) const;
    // Cache bytes one new token adds on one device, summed over layers (KV and indexer keys).
    core::Bytes kv_bytes_per_token() const;
    // KV bytes on one device for one sequence at `context` (its pipeline stage's layers): the
    // cache the layers hold (all of it under DSA, which reads only top-k) plus the recurrent state.
    core::Bytes kv_bytes_per_sequence(double context) const;
    // What one more token keeps in a sequence of `context` tokens, averaged over the next
    // `stretch` tokens (so that a compressed row a ratio of tokens counts at its share): less than
    // kv_bytes_per_token once sliding windows are full, and for compressed rows.
    core::Bytes kv_growth_per_token(double context, double stretch) const;
    core::Bytes weight_bytes() const;  // every weight on one device (its experts, its stage's layers)
    // KV bytes on one device of a `prefix` every sequence shares. Only layers that keep every token
    // (full and DSA attention) still hold a prefix once the context has moved on; sliding, chunked
    // and recurrent layers are counted as not sharing it.
    core::Bytes shared_prefix_bytes(double prefix) const;
};

// Bytes of one weight in the dequantized copy cuBLAS multiplies: fp16.
inline constexpr double kCopyBytesPerWeight = 2.0;

// Expects a deployment that validate_deployment (prediction.hpp) accepted. `cross_states`: the
// image states each sequence carries into a model's cross-attention layers (0: text only).
CostModel build_cost_model(const profiles::ModelProfile& model, const Deployment& deployment, double cross_states = 0.0);

// Operators whose cost is structurally zero for this model and deployment (no MoE, no dense MLP,
// no tensor parallelism) are left out of per-operator reports.
bool operator_shown(const OperatorInfo& info, const CostModel& cost);

// What one forward pass processes, summed over its sequences, so that any mix of decode tokens
// and prefill chunks (continuous batching with chunked prefill) costs one call. Token counts
// marked "layer-tokens" are summed over layers (attended_tokens applies the sliding windows).
struct StepShape {
    double tokens = 0.0;             // new tokens through the weights: one per decode sequence, a chunk per prefill
    double logits = 0.0;             // positions that need logits: each decode sequence, each prompt that completes
    double decode_attended = 0.0;    // layer-tokens of cache the decode sequences read: sum of attended_tokens(context)
    double prefill_tokens = 0.0;     // prompt tokens in prefill chunks
    double prefill_pairs = 0.0;      // layer-summed (query, key) pairs of the chunks' causal attention
    // Layer-summed (query, key) pairs an unfused attention scores in the chunks: the runtime runs a
    // chunk's queries in blocks (kUnfusedQueryBlock) and scores each block against the whole cache
    // up to the block's end, masking the future keys rather than skipping them.
    double prefill_masked_pairs = 0.0;
    double prefill_cached = 0.0;     // layer-tokens of earlier cache the chunks read: sum of attended_tokens(start)
    // Layer-summed pairs whose keys and values a fused kernel's query tiles load again after the
    // first load (engine/attention_tile.hpp): a chunk of N queries in tiles of R rows loads them
    // N / R times, the first load counted with the cache and the chunk's own keys; 0 for N <= R.
    double prefill_reloaded_pairs = 0.0;
    double decode_indexed = 0.0;     // layer-tokens of DSA indexer keys the decode sequences scan: sum of indexed_tokens(context)
    double prefill_index_pairs = 0.0;  // layer-summed (query, key) pairs the DSA indexer scores in the chunks
    double prefill_indexed = 0.0;    // layer-tokens of earlier indexer keys the chunks read: sum of indexed_tokens(start)
    double state_passes = 0.0;       // whole recurrent states read or written: 2 per decode sequence, 1 or 2 per chunk
    double encoded_states = 0.0;     // image states whose cross-attention keys and values the chunks project (first chunks)
    double sequences = 0.0;          // sequences in the pass (pipeline micro-batches split these)
    double prefill_sequences = 0.0;  // of them, those passing a prompt chunk (each chunk stays whole on one attention replica)
    // Of prefill_tokens, the positions a speculative verification checks (speculative.hpp): priced
    // as a chunk, but a decode pass to the runtime, which replays a captured graph for it (SGLang's
    // TARGET_VERIFY, TensorRT-LLM's generation requests with drafts, vLLM V1's uniform decode).
    double verified_tokens = 0.0;

    // The prompt tokens proper: a pass with any runs as a prompt pass (eagerly, where the runtime
    // runs prompts so); one without is a decode pass, verifications included.
    double prompt_tokens() const { return prefill_tokens - verified_tokens; }

    StepShape& operator+=(const StepShape& other);
};

// Of `count` sequences (or prompt chunks) over `replicas` attention replicas, how many the busiest
// holds: each is whole on one replica, so ceil(count / replicas) of them; a count of one or less
// (a steady state's mean can be a fraction), all of it.
double on_busiest_replica(double count, double replicas);

// The shape of `batch` decode sequences at `context` tokens each (this step's token included).
StepShape decode_shape(const CostModel& cost, double batch, double context);
// The same added into `shape`: a pass built sequence by sequence (the serving simulation) adds
// its decodes' few fields without a whole shape each.
void add_decode(StepShape& shape, const CostModel& cost, double batch, double context);
// The shape of a prefill chunk of `tokens` prompt tokens after `start` tokens already in the
// cache, for `sequences` sequences; `completes`: the chunk ends the prompt, so it needs logits.
StepShape prefill_shape(const CostModel& cost, double sequences, double start, double tokens, bool completes = true);

// The cost of one forward pass of any shape: the engine's one cost function.
StepCosts step_costs(const CostModel& cost, const StepShape& shape);

// One decode step: `batch` sequences, each with `context` tokens in its cache (this step's token included).
StepCosts decode_step_costs(const CostModel& cost, double batch, double context);

// The graph a decode-only pass of `batch` sequences replays, looked up as step_costs does: by the
// sequences of one attention replica's micro-batch (engine/graph_capture.hpp).
GraphReplay decode_graph_replay(const CostModel& cost, double batch);

// Whether a decode-only pass of `batch` sequences is dispatched op by op for want of a captured
// graph, where the runtime counts the ops it would dispatch: false where none holds a price
// (eager_pass_ops 0) or where every decode pass runs so anyway (graphs off).
bool decode_without_graph(const CostModel& cost, double batch);

// Prefill of `batch` prompts of `prompt` tokens each, in one forward pass (attention is causal).
StepCosts prefill_costs(const CostModel& cost, double batch, double prompt);

// Unfused attention (docs/model.md, "Unfused attention"). Bytes per score element: Q.K writes it in
// fp32, the softmax reads and rewrites it, the value product reads it back (llama.cpp's non-flash
// path: mul_mat, soft_max_ext, mul_mat, all with fp32 scores).
inline constexpr double kUnfusedScoreBytes = 16.0;
// llama.cpp's physical batch (n_ubatch, default 512): the unit its graph runs a prompt in.
inline constexpr double kPhysicalBatchTokens = 512.0;
// Queries one unfused pass scores together: one physical batch.
inline constexpr double kUnfusedQueryBlock = kPhysicalBatchTokens;

// (query, key) pairs of causal attention for prompt tokens start+1 .. start+tokens, at one layer
// with a sliding `window` (0: none).
double causal_pairs(double start, double tokens, double window);
// The same for a chunked-attention layer: each token attends within its `chunk`-token chunk.
double chunked_pairs(double start, double tokens, double chunk);

// Expected distinct experts a layer reads when `tokens` tokens each pick k of E uniformly:
// E * (1 - (1 - k/E)^tokens).
double expected_distinct_experts(double experts, double per_token, double tokens);

}  // namespace decodesim::engine
