#include "report/runtime_output.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/backend.hpp"
#include "core/memory_family.hpp"
#include "profiles/runtime_fields.hpp"
#include "report/text_table.hpp"

namespace decodesim::report {

namespace {

std::string measured_text(const engine::RuntimeProfile& runtime) {
    if (runtime.ideal) return "bound";
    return runtime.measured ? "yes" : "no";
}

std::string factor_text(const profiles::RuntimeFactorField& field, const engine::RuntimeFactors& factors) {
    const double value = field.get(factors);
    switch (field.unit) {
        case core::FactorUnit::duration: return fmt::format("{:g} us", value * 1e6);
        case core::FactorUnit::multiplier:
        case core::FactorUnit::rows: return fmt::format("{:g}", value);
    }
    return fmt::format("{:g}", value);
}

}  // namespace

std::string runtime_list_to_text(const std::vector<engine::RuntimeProfile>& runtimes) {
    TextTable table({"runtime", "measured", "factors fitted on", "source"});
    for (const engine::RuntimeProfile& runtime : runtimes) {
        table.add_row({runtime.id, measured_text(runtime), runtime.ideal ? "none (datasheet)" : runtime.fit_group + " rows",
                       runtime.source});
    }
    return table.render() +
           "\nmeasured: public measurements of the build are in validation/measurements.csv; no: its figures are "
           "carried over. Factors are fitted by decodesim accuracy --fit on the rows of the named fit group. "
           "profiles show RUNTIME prints a build whole.\n";
}

std::string runtime_to_text(const engine::RuntimeProfile& runtime, const std::string& path) {
    std::string text = fmt::format("{}: {}\n  file: {}\n  source: {}\n", runtime.id, runtime.description, path,
                                   runtime.source);
    text += fmt::format("  measured: {} ({})\n", measured_text(runtime), runtime.measured_note);
    if (runtime.ideal) return text + "  the datasheet's peaks, no overheads: the roofline bound\n";
    text += fmt::format("  factors from: {} (decodesim accuracy --fit)\n", runtime.fit_group);
    const engine::KernelGraph& graph = runtime.graph;
    if (graph.attention_block > 0.0 || graph.dense_mlp_block > 0.0 || graph.moe_mlp_block > 0.0) {
        text += fmt::format("  kernel graph: {:g} kernels an attention block, {:g} a dense MLP, {:g} an MoE block",
                            graph.attention_block, graph.dense_mlp_block, graph.moe_mlp_block);
        if (graph.latent_attention_block > 0.0) {
            text += fmt::format(", {:g} a latent (MLA) attention block", graph.latent_attention_block);
        }
        if (graph.sparse_attention_block > 0.0) {
            text += fmt::format(", {:g} a sparse (DSA) attention block", graph.sparse_attention_block);
        }
        if (graph.shared_expert_block) {
            text += fmt::format(", {:g} a layer's shared experts", *graph.shared_expert_block);
        }
        if (!graph.families.empty()) text += fmt::format("; on {}", fmt::join(graph.families, ", "));
        if (!graph.moe_formats.empty()) {
            text += fmt::format("; MoE counts for {} experts", fmt::join(graph.moe_formats, ", "));
        }
        if (graph.launch_time) text += fmt::format("; {} a launch", core::format_seconds(graph.launch_time->value));
        for (const engine::KernelGraph& other : graph.other_families) {
            std::vector<std::string_view> memory;
            for (const core::MemoryFamily family : other.memory) memory.push_back(core::memory_family_name(family));
            text += fmt::format("; on {}{}: {:g}, {:g}, {:g}", fmt::join(other.families, ", "),
                                memory.empty() ? std::string() : fmt::format(" ({})", fmt::join(memory, ", ")),
                                other.attention_block, other.dense_mlp_block, other.moe_mlp_block);
            if (other.latent_attention_block > 0.0) text += fmt::format(", MLA {:g}", other.latent_attention_block);
            if (other.sparse_attention_block > 0.0) text += fmt::format(", DSA {:g}", other.sparse_attention_block);
            if (other.shared_expert_block) text += fmt::format(", shared experts {:g}", *other.shared_expert_block);
            if (other.launch_time) text += fmt::format(", {} a launch", core::format_seconds(other.launch_time->value));
        }
        if (!graph.families.empty() || !graph.moe_formats.empty()) text += " (elsewhere the structural kernels)";
        text += "\n";
    } else {
        text += "  kernel graph: fused (the structural kernels)\n";
    }
    std::vector<std::string> tiles;
    std::vector<std::string> paths;
    for (const core::BackendInfo& info : core::kBackends) {
        tiles.push_back(fmt::format("{} {:g}", info.name, runtime.tile_rows_on(info.backend)));
        const engine::BlockFormatMatmul& path_on = runtime.block_matmul_on(info.backend);
        if (path_on.issue_bound || path_on.dequantized_above_tokens > 0.0) {
            paths.push_back(fmt::format("{}: {}{}", info.name, path_on.issue_bound ? "issue-bound MMQ" : "as stored",
                                        path_on.dequantized_above_tokens > 0.0
                                            ? fmt::format(", 16-bit copies above {:g} tokens", path_on.dequantized_above_tokens)
                                            : ""));
        }
    }
    text += fmt::format("  attention: {}; tile rows {}\n",
                        runtime.attention == engine::AttentionKernels::fused ? "fused" : "unfused", fmt::join(tiles, ", "));
    text += fmt::format("  block-format matmuls: {}\n", paths.empty() ? "the listed peak" : fmt::format("{}", fmt::join(paths, "; ")));
    const engine::KvCacheSizing& kv = runtime.kv_sizing;
    text += fmt::format("  KV cache: {:g} of the capacity, {:.3g} GiB workspace, {:g} of what is free\n", kv.capacity_share,
                        kv.workspace.value / 1073741824.0, kv.free_share);
    const engine::SchedulerLimits& scheduler = runtime.scheduler.limits;
    text += fmt::format("  scheduler: {} sequences, {} tokens a step, {}-token blocks, chunked prefill {}, prefix caching {}, "
                        "prefill passes {}, admission {}{}\n",
                        scheduler.max_sequences, scheduler.max_batched_tokens, scheduler.block_tokens,
                        scheduler.chunked_prefill ? "on" : "off", scheduler.prefix_caching ? "on" : "off",
                        core::name_of(profiles::kPrefillPassNames, scheduler.separate_prefill),
                        scheduler.reserve_whole_request
                            ? "whole_request (each request's prompt and whole output reserved; none preempted)"
                            : "incremental",
                        scheduler.limits_per_attention_replica ? ", each data-parallel rank's" : "");
    for (const engine::DeviceTier& tier : runtime.scheduler.device_tiers) {
        text += fmt::format("    on devices of {:g} GiB and more{}: {} sequences, {} tokens a step\n",
                            tier.min_memory.value / 1073741824.0,
                            tier.excluded_name.empty() ? "" : fmt::format(" (not '{}')", tier.excluded_name),
                            tier.max_sequences.value_or(scheduler.max_sequences),
                            tier.max_batched_tokens.value_or(scheduler.max_batched_tokens));
    }
    if (const auto& rule = runtime.scheduler.sequences_from_cache) {
        text += fmt::format("    sequences sized from each deployment's cache, in place of the above: {:g} a context length of "
                            "cached tokens, {} to {}, at most {:g} of the tokens\n",
                            rule->per_context, rule->at_least, rule->at_most, rule->cache_share);
    }
    if (runtime.scheduler.speculative_max_sequences) {
        text += fmt::format("    decoding speculatively: {} sequences\n", *runtime.scheduler.speculative_max_sequences);
    }
    if (runtime.speculation.host_time.value > 0.0) {
        text += fmt::format("  speculative rounds: {} of host work each, not overlapped with the passes\n",
                            core::format_seconds(runtime.speculation.host_time.value));
    }
    const profiles::CapturedGraphs& graphs = runtime.captured_graphs;
    if (!graphs.batch_sizes.empty()) {
        text += fmt::format("  CUDA graphs: decode batch sizes {}; a batch between two {}\n", fmt::join(graphs.batch_sizes, ", "),
                            graphs.padding ? "replays the next, padded" : "runs without a graph");
        for (const profiles::GraphSizeTier& tier : graphs.tiers) {
            text += fmt::format("    on devices of {:g} GiB and more{}: up to batch {}\n", tier.min_memory.value / 1073741824.0,
                                tier.min_tensor > 1 ? fmt::format(" at tensor parallel {} and more", tier.min_tensor) : "",
                                tier.max_batch);
        }
    }
    const profiles::EagerPasses& eager = runtime.eager;
    if (eager.op_time.value > 0.0) {
        const char* passes = eager.decode ? "prompt and decode passes" : eager.prefill ? "prompt passes" : "passes only with graphs off";
        text += fmt::format("  eager {}: {:g} us an op; ops a block: attention {:g}, MLA {:g}, dense MLP {:g}, MoE {:g}",
                            passes, eager.op_time.value * 1e6, eager.attention_block, eager.latent_attention_block,
                            eager.dense_mlp_block, eager.moe_mlp_block);
        if (eager.sparse_attention_block > 0.0) text += fmt::format(", DSA {:g}", eager.sparse_attention_block);
        if (eager.delta_net_block > 0.0) text += fmt::format(", Gated DeltaNet {:g}", eager.delta_net_block);
        text += "\n";
    }
    // The launch command as the profile states it, placeholders unfilled (plan fills them).
    if (runtime.launch) {
        std::string command = runtime.launch->serve;
        for (const profiles::LaunchPiece& flag : runtime.launch->flags) {
            const std::string_view when = core::name_of(profiles::kLaunchConditionNames, flag.when);
            command += when == "always" ? " " + flag.text : fmt::format(" [{}: {}]", when, flag.text);
        }
        text += fmt::format("  launch: {}\n  check: {}\n", command, runtime.launch->verify);
        for (const profiles::Orchestrator& under : runtime.launch->orchestrators) {
            text += fmt::format("  under {} (plan --emit {}): front end {}; each worker {} and the flags above\n",
                                under.name, under.name, under.router, under.serve);
        }
    } else {
        text += "  launch: none stated (plan prints no command for it)\n";
    }
    std::vector<std::string> columns{"factor"};
    for (core::MemoryFamily family : core::kMemoryFamilies) columns.emplace_back(core::memory_family_name(family));
    TextTable factors(columns);
    for (const profiles::RuntimeFactorField& field : profiles::kRuntimeFactorFields) {
        std::vector<std::string> row{std::string(field.key)};
        for (core::MemoryFamily family : core::kMemoryFamilies) row.push_back(factor_text(field, runtime.factors(family)));
        factors.add_row(std::move(row));
    }
    return text + "\n" + factors.render();
}

}  // namespace decodesim::report
