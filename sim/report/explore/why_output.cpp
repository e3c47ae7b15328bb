#include "report/explore/why_output.hpp"

#include <fmt/format.h>

#include "core/units.hpp"
#include "report/text_table.hpp"

namespace decodesim::report {

namespace {

std::string change(double ratio) { return fmt::format("{:+.1f}%", (ratio - 1.0) * 100.0); }

}  // namespace

std::string why_verdict(const explore::Explanation& explanation) {
    const auto& what_if = explanation.what_if;
    const auto& decode = explanation.prediction.decode;
    // Decode tokens/s, and the prompt's time to first token (a time: negative is faster).
    const auto& prefill = explanation.prediction.prefill;
    std::string text = fmt::format(
        "Doubling FLOPS changes decode throughput by {} and the time to first token by {}; doubling bandwidth by {} "
        "and {}",
        change(what_if.flops_x2), change(what_if.flops_x2_ttft), change(what_if.bandwidth_x2),
        change(what_if.bandwidth_x2_ttft));
    if (explanation.capped_by_memory) {
        text += fmt::format("; doubling memory capacity by {} (memory caps the batch at {:.0f} of the {:.0f} streams asked)",
                            change(what_if.capacity_x2), explanation.effective_batch, explanation.requested_batch);
    }
    if (what_if.interconnect_x2 != 1.0) text += fmt::format("; doubling the interconnect by {}", change(what_if.interconnect_x2));
    text += ". ";
    if (decode.bound == engine::Bound::compute) {
        text += "Decode is compute-bound here: more FLOPS is what helps.";
    } else if (explanation.compute_bound_batch) {
        text += fmt::format("Decode stays bandwidth-bound until about {} concurrent streams.", *explanation.compute_bound_batch);
    } else if (explanation.matmul_compute_bound_batch) {
        text += fmt::format(
            "The weight matrix products turn compute-bound at about {} concurrent streams, but at this context the "
            "KV-cache reads, which grow with the batch, keep the step bandwidth-bound at any batch.",
            *explanation.matmul_compute_bound_batch);
    } else {
        text += "Decode stays bandwidth-bound at any batch at this context.";
    }
    // The prompt's own bound: a long prompt's prefill is compute-bound even where decode is not.
    text += fmt::format(" The {:.0f}-token prompt's prefill is {}-bound ({} FLOP/byte){}.", prefill.prompt_tokens,
                        engine::bound_name(prefill.bound),
                        core::format_significant(prefill.bytes.value > 0.0 ? prefill.flops.value / prefill.bytes.value : 0.0),
                        prefill.bound == engine::Bound::compute && decode.bound != engine::Bound::compute
                            ? ": more FLOPS shortens the wait for the first token, not the tokens after it"
                            : "");
    if (decode.bound == engine::Bound::overhead) {
        text += " Fixed per-kernel overhead dominates: a faster runtime (fused kernels, CUDA graphs) helps more than hardware.";
    }
    if (explanation.kv_outweighs_weights_context) {
        text += fmt::format(" At this batch the KV cache outweighs the weights beyond {:.0f} tokens of context.",
                            *explanation.kv_outweighs_weights_context);
    }
    if (what_if.compute_clock_share < 1.0) {
        text += fmt::format(
            " Under long load this device holds {:.0f}% of its peak compute clock: peak clocks would change decode by {} "
            "and the time to first token by {}; prefill and large batches, which are compute-bound, feel clocks most.",
            100.0 * what_if.compute_clock_share, change(what_if.peak_clocks), change(what_if.peak_clocks_ttft));
    }
    if (const auto& spec = explanation.prediction.speculative) {
        // Verification multiplies the work per byte read by the positions checked per stream.
        const bool compute = spec->verify_bound == engine::Bound::compute;
        text += fmt::format(
            " With speculative decoding each verification pass checks {} positions per stream ({:.3g} FLOP/byte; "
            "the peak machine balance is {:.3g}) and is {}-bound at the rates this deployment achieves, so more "
            "FLOPS {}.",
            spec->length + 1, spec->verify_arithmetic_intensity, explanation.prediction.machine_balance,
            engine::bound_name(spec->verify_bound),
            compute ? "now speed up speculation directly" : "still help it little; bandwidth and the acceptance rate set its pace");
    }
    return text;
}

std::string why_to_text(const Conditions& conditions, const explore::Explanation& explanation) {
    const auto& decode = explanation.prediction.decode;
    std::string text = fmt::format("{} on {}: batch {:.0f}, context {:.0f}, weights {}, KV {}\n\n", conditions.model,
                                   conditions.hardware, explanation.effective_batch, decode.context, conditions.weights,
                                   conditions.kv);
    text += why_verdict(explanation) + "\n\n";
    TextTable table({"", "value"});
    table.add_row({"tokens/s total (predicted)", core::format_si(decode.tokens_per_s_total)});
    table.add_row({"time bound by memory bandwidth", core::format_percent(decode.memory_fraction)});
    table.add_row({"time bound by compute", core::format_percent(decode.compute_fraction)});
    table.add_row({"time in fixed overheads", core::format_percent(decode.overhead_fraction)});
    table.add_row({"time in communication", core::format_percent(decode.communication_fraction)});
    const auto& what_if = explanation.what_if;
    const bool request = explanation.prediction.request.has_value();
    // Decode throughput (higher is better), and TTFT and a whole request's time (lower is better).
    const auto three = [&](double decode_ratio, double ttft_ratio, double request_ratio) {
        return fmt::format("{} / {}{}", change(decode_ratio), change(ttft_ratio),
                           request ? " / " + change(request_ratio) : std::string());
    };
    const std::string columns = request ? " (decode / TTFT / request)" : " (decode / TTFT)";
    table.add_row({"2x bandwidth" + columns, three(what_if.bandwidth_x2, what_if.bandwidth_x2_ttft, what_if.bandwidth_x2_request)});
    table.add_row({"2x FLOPS" + columns, three(what_if.flops_x2, what_if.flops_x2_ttft, what_if.flops_x2_request)});
    table.add_row({"2x capacity", change(what_if.capacity_x2)});
    table.add_row({"2x interconnect" + columns,
                   three(what_if.interconnect_x2, what_if.interconnect_x2_ttft, what_if.interconnect_x2_request)});
    table.add_row({"prefill bound", std::string(engine::bound_name(explanation.prediction.prefill.bound))});
    table.add_row({"peak clocks (decode / TTFT)",
                   fmt::format("{} / {}", change(explanation.what_if.peak_clocks), change(explanation.what_if.peak_clocks_ttft))});
    table.add_row({"machine balance", core::format_significant(explanation.prediction.machine_balance) + " FLOP/byte"});
    table.add_row({"step arithmetic intensity", core::format_significant(decode.arithmetic_intensity) + " FLOP/byte"});
    table.add_row({"compute-bound from batch",
                   explanation.compute_bound_batch ? std::to_string(*explanation.compute_bound_batch) : "never"});
    table.add_row({"matrix products compute-bound from batch",
                   explanation.matmul_compute_bound_batch ? std::to_string(*explanation.matmul_compute_bound_batch)
                                                          : "never"});
    table.add_row({"KV outweighs weights from context",
                   explanation.kv_outweighs_weights_context
                       ? fmt::format("{:.0f} tokens", *explanation.kv_outweighs_weights_context)
                       : "never"});
    table.add_row({"largest batch that fits", std::to_string(explanation.prediction.memory.max_batch)});
    text += table.render();
    return text;
}

nlohmann::json why_to_json(const Conditions& conditions, const explore::Explanation& explanation) {
    const auto& decode = explanation.prediction.decode;
    nlohmann::json document = document_for(conditions);
    // The conditions are the point asked about; memory may cap the batch it is evaluated at.
    document["evaluated_batch"] = explanation.effective_batch;
    document["decode_context_tokens"] = decode.context;
    document["verdict"] = why_verdict(explanation);
    document["tokens_per_s_per_stream"] = decode.tokens_per_s_per_stream;
    document["tokens_per_s_total"] = decode.tokens_per_s_total;
    document["ttft_s"] = explanation.prediction.ttft;
    document["prefill_bound"] = engine::bound_name(explanation.prediction.prefill.bound);
    document["what_if"] = {{"bandwidth_x2", explanation.what_if.bandwidth_x2},
                           {"flops_x2", explanation.what_if.flops_x2},
                           {"capacity_x2", explanation.what_if.capacity_x2},
                           {"interconnect_x2", explanation.what_if.interconnect_x2},
                           {"bandwidth_x2_ttft", explanation.what_if.bandwidth_x2_ttft},
                           {"flops_x2_ttft", explanation.what_if.flops_x2_ttft},
                           {"interconnect_x2_ttft", explanation.what_if.interconnect_x2_ttft},
                           {"bandwidth_x2_request", explanation.what_if.bandwidth_x2_request},
                           {"flops_x2_request", explanation.what_if.flops_x2_request},
                           {"interconnect_x2_request", explanation.what_if.interconnect_x2_request},
                           {"peak_clocks", explanation.what_if.peak_clocks},
                           {"peak_clocks_ttft", explanation.what_if.peak_clocks_ttft},
                           {"compute_clock_share", explanation.what_if.compute_clock_share}};
    document["time_fraction"] = {{"memory", decode.memory_fraction},
                                 {"compute", decode.compute_fraction},
                                 {"overhead", decode.overhead_fraction},
                                 {"communication", decode.communication_fraction}};
    document["machine_balance_flop_per_byte"] = explanation.prediction.machine_balance;
    document["arithmetic_intensity_flop_per_byte"] = decode.arithmetic_intensity;
    document["compute_bound_batch"] =
        explanation.compute_bound_batch ? nlohmann::json(*explanation.compute_bound_batch) : nlohmann::json(nullptr);
    document["matmul_compute_bound_batch"] = explanation.matmul_compute_bound_batch
                                                 ? nlohmann::json(*explanation.matmul_compute_bound_batch)
                                                 : nlohmann::json(nullptr);
    document["kv_outweighs_weights_context_tokens"] = explanation.kv_outweighs_weights_context
                                                          ? nlohmann::json(*explanation.kv_outweighs_weights_context)
                                                          : nlohmann::json(nullptr);
    document["capped_by_memory"] = explanation.capped_by_memory;
    document["max_batch"] = explanation.prediction.memory.max_batch;
    return document;
}

}  // namespace decodesim::report
