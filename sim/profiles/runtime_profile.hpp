#pragma once
// Software stacks as data: what a runtime build achieves on top of what the hardware can do, how
// its kernels are built, how it sizes its cache and schedules. The values live in
// runtime_profiles/*.yaml with their sources (docs/profiles.md, "Runtime profiles"); this header
// only gives them a shape.

#include <array>
#include <cstdint>
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/backend.hpp"
#include "core/enum_names.hpp"
#include "core/memory_family.hpp"
#include "core/units.hpp"
#include "profiles/launch_template.hpp"
#include "profiles/residual_band_table.hpp"

namespace decodesim::profiles {

struct RuntimeFactors {
    core::Seconds kernel_overhead{4e-6};      // fixed time per kernel launch
    double quantized_weight_bandwidth = 1.0;  // bandwidth multiplier for weight-only quantized matmuls (dequantization)
    double quantized_compute = 1.0;           // compute multiplier for weight-only quantized matmuls
    double attention_bandwidth = 1.0;         // bandwidth multiplier for KV-cache reads and writes
    double compute = 1.0;                     // multiplier on the hardware's achievable compute fraction
    // Host-side time each decode step spends per sequence in the batch (scheduling, sampling,
    // detokenization, batch bookkeeping): the overhead of a serving runtime that grows with the
    // batch, which a per-kernel launch cost cannot express (docs/model.md, "Runtime presets").
    core::Seconds sequence_overhead{0.0};
    // Multiplier on `compute` for the kernels a backend compiles, indexed by core::Backend: the
    // same runtime's matrix kernels reach different fractions of the matrix peak on CUDA, ROCm,
    // Metal, Vulkan and SYCL (docs/model.md, "Backends"). Only the product with `compute` is
    // fitted meaningfully; 1 where a backend had too few measurements to fit.
    std::array<double, core::kBackends.size()> backend_compute{1.0, 1.0, 1.0, 1.0, 1.0, 1.0};
    // Multiplier on the attention arithmetic (Q.K, softmax.V) for a backend's attention kernels,
    // on top of its compute: at depth, llama.cpp's prompt processing on ROCm falls off faster than
    // its matrix rate explains, on CUDA and Vulkan it does not (docs/model.md, "Backends").
    std::array<double, core::kBackends.size()> backend_attention{1.0, 1.0, 1.0, 1.0, 1.0, 1.0};
    // Extra fixed time per kernel for each die beyond the first on a multi-die package
    // (profiles::HardwareProfile::dies): a kernel spans every die and finishes when the slowest
    // has, over the die-to-die bridge. 0 where a runtime has no multi-die rows to fit it on.
    core::Seconds cross_die_kernel_overhead{0.0};
    // What staging a weight tile costs a tiled matrix kernel, in rows of its multiply-adds: each
    // tile is loaded and converted (dequantized) once per block of rows that reuses it, so a
    // product over m rows per weight takes (m + tile_setup_rows) / m of its arithmetic time.
    // Invisible at a prompt's hundreds of rows; it matters where a routed expert sees a few
    // (docs/model.md, "Expert tiles"). 0 where a runtime has too few MoE prefill rows to fit it.
    double tile_setup_rows = 0.0;

    constexpr double compute_on(core::Backend backend) const {
        return compute * backend_compute[static_cast<std::size_t>(backend)];
    }
    constexpr double attention_on(core::Backend backend) const {
        return backend_attention[static_cast<std::size_t>(backend)];
    }
};

// How a runtime sizes its KV cache on one device: the rule each runtime applies at start-up
// (docs/model.md, "Memory"). The KV cache gets
//     (capacity x capacity_share - workspace - weights) x free_share,
// capacity_share at most the operating system's limit on unified memory.
struct KvCacheSizing {
    // Of the capacity, what the weights, the workspace and the KV cache together may fill: vLLM's
    // `gpu_memory_utilization` (default 0.9, of the total).
    double capacity_share = 0.90;
    // Held before the cache is sized and not counted in capacity_share's reserve: activation
    // buffers, decoder and runtime buffers, the CUDA context.
    core::Bytes workspace{0.0};
    // Of what is free after the weights and the workspace, the share the KV cache takes:
    // TensorRT-LLM's `free_gpu_memory_fraction` (default 0.9, of the free memory).
    double free_share = 1.0;
};

// How the runtime's attention kernels treat the score matrix (docs/model.md, "Unfused attention").
// fused: one flash-attention kernel keeps the scores on chip; unfused: Q.K writes them to device
// memory, a softmax kernel reads and rewrites them, and the value product reads them back
// (llama.cpp with flash attention off, which llama-bench defaulted to; eager PyTorch attention).
enum class AttentionKernels { fused, unfused };

// The kernels a runtime launches for one layer: its graph after the backend's fusions
// (engine/kernel_graph.hpp). Launches per block, the structural kernels and the conversions of the
// matrix products' inputs included; 0: not counted (the structural ones of a fused engine).
struct KernelGraph {
    double attention_block = 0.0;  // norm, projections, rotary, cache writes, attention, output, residual
    // A multi-head latent attention block (DeepSeek's MLA, its decode absorbed): norms of the
    // latents, the down and up projections, the absorbed key and value products; 0: as a
    // grouped-query block (attention_block).
    double latent_attention_block = 0.0;
    // A DeepSeek sparse attention (DSA) block: MLA with its lightning indexer (the indexer's
    // projections, key norm and cache write, its scoring and top-k) and the sparse attention
    // kernel; 0: as latent_attention_block, the indexer's launches not counted.
    double sparse_attention_block = 0.0;
    double dense_mlp_block = 0.0;  // norm, gate/up and activation, down, residual
    double moe_mlp_block = 0.0;    // norm, router, expert selection, expert products, weighting, residual
    // A MoE layer's shared experts, run as one MLP beside the routed ones (vLLM: 6 launches) or
    // folded into the routed launches as one more expert (SGLang: 0); unset: their structural two
    // matrix kernels each.
    std::optional<double> shared_expert_block;
    // The hardware families (HardwareProfile::family(), "nvidia-hopper") whose kernels the counts
    // were read for; empty: every family. Elsewhere the runtime picks other kernels (FlashInfer
    // and fused MoE on Blackwell, AITER on CDNA) whose launches are not counted, and its blocks
    // keep the structural kernels.
    std::vector<std::string> families;
    // The weight formats whose MoE kernels the MoE and shared-expert counts were read for (vLLM
    // and SGLang: the Triton fused-MoE path of bf16 and fp8 experts); empty: every format. Other
    // formats take other kernels (MXFP4 experts: triton_kernels' matmul_ogs with the gather,
    // scatter and activation fused), not counted: their MoE blocks keep the structural kernels.
    std::vector<std::string> moe_formats;
    // The memory families of the devices the counts hold for, where a hardware family spans chips
    // that run other kernels (Blackwell's sm100 parts carry HBM; its sm120 parts, GDDR7 or LPDDR5X,
    // run neither TensorRT-LLM-gen MLA nor its MoE); empty: every one.
    std::vector<core::MemoryFamily> memory;
    // The time a launch of this graph costs on its families, where it is not the runtime's fitted
    // per-kernel time (RuntimeFactors::kernel_overhead): stated with the rows it was fitted on.
    std::optional<core::Seconds> launch_time;
    // The runtime's graphs counted on other families (Blackwell's FlashInfer and TensorRT-LLM
    // kernels in place of Hopper's), each with its own families, counts and source; none of its
    // own families is this graph's or another's.
    std::vector<KernelGraph> other_families;

    // The graph counted on a device of `family` and `memory_family`: this one, one of
    // other_families, or none (structural).
    const KernelGraph* on_family(const std::string& family, core::MemoryFamily memory_family) const {
        if (counted_on(family, memory_family)) return this;
        for (const KernelGraph& other : other_families) {
            if (other.counted_on(family, memory_family)) return &other;
        }
        return nullptr;
    }

    bool moe_counted_for(std::string_view format) const {
        return moe_formats.empty() || std::find(moe_formats.begin(), moe_formats.end(), format) != moe_formats.end();
    }

    bool counted_on(const std::string& family, core::MemoryFamily memory_family) const {
        const bool on_family =
            families.empty() || family.empty() || std::find(families.begin(), families.end(), family) != families.end();
        return on_family && (memory.empty() || std::find(memory.begin(), memory.end(), memory_family) != memory.end());
    }
};

// The passes a runtime runs without a captured graph, op by op from the host, and what each op
// costs the host to dispatch (docs/model.md, "Eager passes"). Such a pass lasts at least as long
// as its dispatch: the GPU cannot run ahead of the host that issues its kernels, so at a short
// prompt through many layers the host, not the device, sets the pass. SGLang and TensorRT-LLM's
// PyTorch backend from 1.0 replay CUDA graphs for decode batches and run prompt (extend, context)
// passes eagerly; TensorRT-LLM's PyTorch backend before 1.0 captured no graph unless told to, and
// vLLM with --enforce-eager captures none. Ops per block are counted from the runtime's source,
// never fitted; a run that turned graphs off (DeploymentChoice::cuda_graphs_off) dispatches every
// pass with them.
struct EagerPasses {
    bool prefill = false;              // passes that carry prompt tokens run eagerly
    bool decode = false;               // so do decode passes (`passes: all`)
    core::Seconds op_time{0.0};        // host time to dispatch one op
    double attention_block = 0.0;      // ops of a grouped-query attention block (norm through output and residual)
    double latent_attention_block = 0.0;  // ops of a multi-head latent attention (MLA) block
    // Ops of a DeepSeek sparse attention (DSA) block, its indexer included; 0: as
    // latent_attention_block, the indexer dispatching nothing.
    double sparse_attention_block = 0.0;
    double dense_mlp_block = 0.0;      // ops of a dense MLP block
    double moe_mlp_block = 0.0;        // ops of a routed MoE block, its shared experts included
    // Ops of a Gated DeltaNet mixer block (Qwen3-Next, Qwen3.5 linear attention); 0: not counted,
    // and such a layer's mixer then dispatches nothing (Mamba mixers are never counted).
    double delta_net_block = 0.0;
};

// How a runtime multiplies a block format's weights (q4_0, q4_k_m, ...) on one backend
// (docs/model.md, "Dequantized block matmuls").
struct BlockFormatMatmul {
    // The kernels multiply the blocks as stored with mma.sync tiles that every SM issues at one
    // rate (llama.cpp's MMQ on CUDA): their peak is the issue bound (engine::kernel_matmul_peak).
    bool issue_bound = false;
    // Passes of more tokens than this first dequantize each matrix into a 16-bit copy that cuBLAS
    // multiplies (llama.cpp's CUDA backend before PR #8075, 2024-06); 0: never.
    double dequantized_above_tokens = 0.0;
};

// A cap on running requests that a runtime sizes from its own KV cache when none is set: SGLang
// allocates a request table of about `per_context` requests for each context length of cache tokens,
// held between `at_least` and `at_most`, and runs no more requests than `cache_share` of the cache's
// tokens (model_runner.py: min(max(int(tokens / context_len x 512), 2048), 4096); the scheduler's
// min(tokens // 2, that)). One data-parallel attention worker sizes its own from its own cache.
struct CacheSizedSequences {
    double per_context = 0.0;
    long long at_least = 1;
    long long at_most = 1;
    double cache_share = 1.0;

    // The requests one worker runs with `cache_tokens` of cache for a model of `context` tokens.
    long long running_cap(double cache_tokens, double context) const {
        const double table = std::clamp(std::floor(cache_tokens / context * per_context), static_cast<double>(at_least),
                                        static_cast<double>(at_most));
        return std::max(1LL, static_cast<long long>(std::min(table, std::floor(cache_tokens * cache_share))));
    }
};

// The limits a serving scheduler runs under on one replica (docs/serving.md).
struct SchedulerLimits {
    long long max_sequences = 256;        // running sequences per replica (vLLM max_num_seqs)
    long long max_batched_tokens = 8192;  // tokens per forward pass (max_num_batched_tokens)
    long long block_tokens = 16;          // tokens per KV-cache block (page)
    bool chunked_prefill = true;          // false: a prompt is prefilled whole, in one pass
    bool prefix_caching = true;
    // Prompts are prefilled in passes of their own, taken ahead of the decodes whenever one can be
    // formed (SGLang's scheduler: "run prefill first if possible"); false: a pass mixes the
    // decodes with prefill chunks in its token budget (vLLM V1, TensorRT-LLM's in-flight batching).
    bool separate_prefill = false;
    // Admission reserves a request's cache for its prompt and its whole output at once, so nothing it
    // admitted is ever preempted (TensorRT-LLM's GUARANTEED_NO_EVICT capacity scheduler, its
    // default); false: a sequence's cache grows a block at a time as it decodes, and the youngest is
    // preempted when the cache runs out (vLLM, SGLang).
    bool reserve_whole_request = false;
    // Each attention replica (data-parallel rank) of a stage runs a scheduler of its own under these
    // limits, so the stage's are that many times them (vLLM: every DP rank is an engine core with
    // its own max_num_seqs and token budget); false: the limits are the stage's (SGLang divides its
    // chunk budget among its dp-attention workers). Applied once, by serving::limits_on_deployment.
    bool limits_per_attention_replica = false;
    // The schedulers a stage's limits are the sum of once applied: a launch flag states one's share.
    int schedulers = 1;
    // Set: max_sequences is the runtime's own, sized from the cache of the deployment it runs on
    // (serving::limits_on_deployment); unset once sized, or where a user or speculation set the cap.
    std::optional<CacheSizedSequences> sequences_from_cache;
};

// The names of SchedulerLimits::separate_prefill: the profile's `scheduler.prefill_passes`,
// serve's and plan's --prefill-passes and their JSON.
inline constexpr std::array<core::NamedValue<bool>, 2> kPrefillPassNames{{{false, "mixed"}, {true, "separate"}}};

// The names of SchedulerLimits::reserve_whole_request: the profile's `scheduler.admission`, serve's
// and plan's --admission and their JSON.
inline constexpr std::array<core::NamedValue<bool>, 2> kAdmissionNames{{{false, "incremental"}, {true, "whole_request"}}};

// The names of SchedulerLimits::limits_per_attention_replica: the profile's `scheduler.limits_per`.
inline constexpr std::array<core::NamedValue<bool>, 2> kLimitsPerNames{{{false, "stage"}, {true, "attention_replica"}}};

// Limits a runtime starts with on devices of at least some memory: vLLM V1 takes 1024 sequences
// and 8192 tokens per pass for `vllm serve` on a device of at least 70 GiB whose name does not
// contain "a100" (larger budgets cost A100s throughput, vLLM PR #17885), 256 and 2048 elsewhere;
// SGLang chunks prompts by 2048 tokens below 35 GiB, 8192 below 160 GiB and 16384 above.
struct DeviceTier {
    core::Bytes min_memory{0.0};  // per device, the memory it reports
    std::string excluded_name;    // a device whose id contains it does not take this tier; empty: none
    std::optional<long long> max_sequences;       // unset: the base limit
    std::optional<long long> max_batched_tokens;  // unset: the base limit
};

// The scheduler a serving runtime starts with: what `serve` and `plan` take when no flag overrides it.
struct SchedulerDefaults {
    SchedulerLimits limits;        // on a device no tier takes
    std::vector<DeviceTier> device_tiers;
    // Without chunked prefill, the budget a pass holds is raised to the model's context, so any
    // prompt the model takes fits one pass (vLLM: max_num_batched_tokens = max(max_model_len, ...)
    // when chunked prefill is off); false: the stated budget stays, and a longer prompt is refused
    // (TensorRT-LLM's max_num_tokens without chunked context).
    bool unchunked_budget_is_context = false;
    // The sequences it runs at once when it decodes speculatively and no flag says otherwise, in
    // place of any tier's (SGLang sets max_running_requests to 48 for EAGLE, EAGLE3, NEXTN and
    // STANDALONE drafting); unset: the same as without speculation.
    std::optional<long long> speculative_max_sequences;
    // Where the runtime sizes its cap on running requests from its cache (SGLang): in place of
    // `limits.max_sequences` and any tier's, unless a flag or speculation sets the cap.
    std::optional<CacheSizedSequences> sequences_from_cache;

    // The limits it starts with on a device of `memory` whose profile id is `device_id`: the tier
    // of the most memory the device has and whose name it does not carry, else the base.
    SchedulerLimits on_device(core::Bytes memory, std::string_view device_id) const {
        const DeviceTier* chosen = nullptr;
        for (const DeviceTier& tier : device_tiers) {
            if (memory.value < tier.min_memory.value) continue;
            if (!tier.excluded_name.empty() && device_id.find(tier.excluded_name) != std::string_view::npos) continue;
            if (chosen == nullptr || tier.min_memory.value > chosen->min_memory.value) chosen = &tier;
        }
        SchedulerLimits result = limits;
        result.sequences_from_cache = sequences_from_cache;
        if (chosen != nullptr) {
            result.max_sequences = chosen->max_sequences.value_or(result.max_sequences);
            result.max_batched_tokens = chosen->max_batched_tokens.value_or(result.max_batched_tokens);
        }
        return result;
    }
};

// The decode batch sizes a runtime captures as CUDA (HIP) graphs at start-up, and what it does
// with a batch between them (engine/graph_capture.hpp; docs/model.md, "Captured batch sizes").
// Where the largest captured batch depends on the device (SGLang's cuda_graph_max_bs by the GPU's
// memory and tensor-parallel size), tiers cut the list.
struct GraphSizeTier {
    core::Bytes min_memory{0.0};  // per device, the memory it reports
    int min_tensor = 1;           // at least this many devices a stage (the runtime's tensor-parallel size)
    long long max_batch = 0;      // the largest size captured there
};

struct CapturedGraphs {
    std::vector<long long> batch_sizes;  // increasing; empty: not stated (every batch replays its own graph)
    bool padding = true;                 // a batch between two sizes replays the next with dummy rows; false: no graph
    std::vector<GraphSizeTier> tiers;    // the tier of the most memory, then the highest degree, a device meets

    // The sizes captured on a device of `memory` at tensor-parallel degree `tensor`: the list, cut
    // at the largest size of the tier it takes (none: the whole list).
    std::vector<long long> on_device(core::Bytes memory, int tensor) const {
        const GraphSizeTier* chosen = nullptr;
        for (const GraphSizeTier& tier : tiers) {
            if (memory.value < tier.min_memory.value || tensor < tier.min_tensor) continue;
            if (chosen == nullptr || tier.min_memory.value > chosen->min_memory.value ||
                (tier.min_memory.value == chosen->min_memory.value && tier.min_tensor > chosen->min_tensor)) {
                chosen = &tier;
            }
        }
        if (chosen == nullptr) return batch_sizes;
        std::vector<long long> cut;
        for (long long size : batch_sizes) {
            if (size <= chosen->max_batch) cut.push_back(size);
        }
        return cut;
    }
};

// What a request costs outside the forward passes, on its way in and out of a serving runtime
// (docs/serving.md, "The time a client sees"). A client's time to first token is its send to the
// first token's arrival: `before_scheduler` plus the prompt's tokenization, the wait for and the
// passes of the scheduler, then `after_step`. The server's own figure (vLLM's
// time_to_first_token_seconds) leaves the path out. Zero: not stated, or no such path (an
// in-process harness such as MLPerf's LoadGen).
struct RequestPath {
    core::Seconds before_scheduler{0.0};  // the HTTP request, chat template and hand-off to the engine
    core::Seconds per_prompt_token{0.0};  // tokenizing the prompt, per token
    core::Seconds after_step{0.0};        // output processing, detokenizing and streaming a step's token to the client
    // The front end's own work for each token it streams (a stream's share of a pass's output
    // processing, detokenization and its SSE chunk), done by the same one process that takes
    // requests in: a pass's tokens reach their clients once the front end has worked through them,
    // after what it was given before. Zero: not stated, and a token's way out waits on nothing.
    core::Seconds per_output_token{0.0};

    core::Seconds before(double prompt_tokens) const {
        return core::Seconds(before_scheduler.value + per_prompt_token.value * prompt_tokens);
    }
};

// What a speculative round (the drafter's steps, then the verification) costs the runtime beyond
// its passes (docs/model.md, "Speculative decoding").
struct SpeculativeRounds {
    // Host work of each round on the critical path: the scheduling, the drafts' bookkeeping and the
    // verification's acceptance, where the runtime does not overlap them with the device's passes
    // (SGLang's speculation before its spec v2 runs without its overlap scheduler). 0: overlapped,
    // or not stated.
    core::Seconds host_time{0.0};
};

// One runtime build as data (runtime_profiles/*.yaml, read by profiles/runtime_profile.hpp): what
// it achieves on top of the hardware, how its kernels are built, how it sizes its cache and
// schedules. The engine reads these fields and never a runtime's name.
struct RuntimeProfile {
    std::string id;           // "llama.cpp@2024-06": name@version, or the name of a build without a version
    std::string name;         // "llama.cpp"
    std::string version;      // "2024-06", "0.6"; empty: none stated
    std::string description;
    std::string source;       // where its figures come from
    // The profile its fitted factors come from, the root of its chain of bases: the fit group that
    // `decodesim accuracy --fit` refits on the rows of every profile in it, and whose held-out
    // errors give its residual band (profiles/residual_band_table.hpp).
    std::string fit_group;
    // Whether public measurements of this build (or of its fit group, pooled) are in
    // validation/measurements.csv; false: its figures are carried over and every output says so.
    bool measured = true;
    std::string measured_note;  // with measured false: what its figures are carried over from
    bool ideal = false;         // datasheet peaks, no overheads (the roofline)
    std::array<RuntimeFactors, core::kMemoryFamilies.size()> by_family{};  // indexed by core::MemoryFamily
    // The factors a build with a base states itself, per memory family (bit i: the i-th row of
    // profiles::kRuntimeFactorFields): where it differs from its fit group, as vLLM V0's host time
    // a sequence does. A refit of the group keeps them (profiles::with_own_factors).
    std::array<std::uint32_t, core::kMemoryFamilies.size()> own_factors{};
    KvCacheSizing kv_sizing{};
    KernelGraph graph{};
    EagerPasses eager{};  // none unless the profile states them
    AttentionKernels attention = AttentionKernels::fused;  // the default of its attention (flash attention on or off)
    // Query rows one load of a key/value head serves in its prompt kernels, per core::Backend
    // (engine/attention_tile.hpp); 0: the keys and values are read once per layer.
    std::array<double, core::kBackends.size()> attention_tile_rows{};
    std::array<BlockFormatMatmul, core::kBackends.size()> block_matmul{};  // per core::Backend
    SchedulerDefaults scheduler{};
    RequestPath request_path{};
    SpeculativeRounds speculation{};
    CapturedGraphs captured_graphs{};  // its decode graphs' batch sizes; none stated unless the profile does
    // How it is launched (`launch:`); unset: decodesim knows no serving command for it.
    std::optional<LaunchTemplate> launch;
    // The spread of its fit group's held-out errors on each memory family (validation/
    // residual_bands.csv, filled in by the catalog); {1, 1}: no band (the ideal runtime).
    std::array<BandRatios, core::kMemoryFamilies.size()> decode_band{};
    std::array<BandRatios, core::kMemoryFamilies.size()> prefill_band{};

    BandRatios band(core::MemoryFamily family, PassKind kind) const {
        const auto& bands = kind == PassKind::decode ? decode_band : prefill_band;
        return bands[static_cast<std::size_t>(family)];
    }

    const RuntimeFactors& factors(core::MemoryFamily family) const {
        return by_family[static_cast<std::size_t>(family)];
    }
    double tile_rows_on(core::Backend backend) const { return attention_tile_rows[static_cast<std::size_t>(backend)]; }
    const BlockFormatMatmul& block_matmul_on(core::Backend backend) const {
        return block_matmul[static_cast<std::size_t>(backend)];
    }
};

// The factors of a runtime with no overheads: the roofline's.
inline constexpr RuntimeFactors kNoOverheads{core::Seconds(0.0), 1.0, 1.0, 1.0, 1.0, core::Seconds(0.0),
                                             {1.0, 1.0, 1.0, 1.0, 1.0, 1.0}, {1.0, 1.0, 1.0, 1.0, 1.0, 1.0},
                                             core::Seconds(0.0)};

}  // namespace decodesim::profiles
