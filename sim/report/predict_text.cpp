#include "report/predict_text.hpp"

#include <fmt/format.h>

#include "core/units.hpp"
#include "report/text_table.hpp"

namespace decodesim::report {

using core::format_bytes;
using core::format_seconds;

namespace {

std::string rate(double tokens_per_s) { return core::format_si(tokens_per_s, "tok/s"); }
using core::format_percent;

}  // namespace

std::string prediction_to_text(const Conditions& conditions, const engine::Prediction& prediction) {
    const auto& decode = prediction.decode;
    const auto& memory = prediction.memory;
    std::string text;
    text += fmt::format("{} on {}\n", conditions.model, conditions.hardware);
    if (prediction.request) {
        text += fmt::format("  context       {:.0f} prompt + {:.0f} output tokens per stream\n",
                            prediction.request->prompt, prediction.request->output);
    } else {
        text += fmt::format("  context       {:.0f} tokens per stream\n", decode.context);
    }
    if (conditions.workload && conditions.workload->shared_prefix > 0.0) {
        text += fmt::format("  prefix cache  the first {:.0f} prompt tokens shared by every stream, cached\n",
                            conditions.workload->shared_prefix);
    }
    if (conditions.workload && conditions.workload->images > 0.0) {
        const engine::Workload& workload = *conditions.workload;
        const std::string where = workload.image_states > 0.0
                                      ? fmt::format("{:.0f} states each, read by the cross-attention layers", workload.image_states)
                                      : std::string("their tokens counted in it");
        text += fmt::format("  images        {:.0f} of {:.0f} px in each prompt ({}); the vision encoder takes {} of "
                            "the TTFT\n",
                            workload.images, workload.image_size, where, core::format_seconds(prediction.vision_encoder.value));
    }
    const std::string parallel = parallelism_text(conditions.parallelism);
    text += fmt::format("  concurrency   {:.0f} stream{}{}\n", prediction.batch, prediction.batch == 1.0 ? "" : "s",
                        parallel.empty() ? std::string{} : ", " + parallel);
    if (conditions.speculation.enabled()) {
        text += fmt::format("  speculation   draft {}, {} tokens per step, acceptance {}\n", conditions.draft,
                            conditions.speculation.length, core::format_significant(conditions.speculation.acceptance));
    }
    text += fmt::format("  quantization  weights {}, KV cache {}, activations {}\n", conditions.weights, conditions.kv,
                        conditions.activation);
    text += fmt::format("  runtime       {} ({} kernels{}{}{})\n", conditions.runtime, conditions.backend,
                        conditions.attention == "unfused" ? ", attention unfused" : "",
                        conditions.eager_op_time_s > 0.0
                            ? fmt::format(", {} eager at {} an op", conditions.every_pass_eager ? "every pass" : "prompt passes",
                                          core::format_seconds(conditions.eager_op_time_s))
                            : "",
                        conditions.runtime_measured ? "" : "; no measurements of this build: figures carried over");
    if (conditions.scenario) {
        text += fmt::format("  scenario      {}: {} (prompt {}, output {})\n", conditions.scenario->name,
                            conditions.scenario->purpose, workload::describe(conditions.scenario->prompt),
                            workload::describe(conditions.scenario->output));
    }
    text += fmt::format("  clocks        {}{}\n\n", conditions.clocks,
                        conditions.compute_share < 1.0 || conditions.memory_share < 1.0
                            ? fmt::format(" (compute at {:.0f}% of the listed peak{})", conditions.compute_share * 100.0,
                                          conditions.memory_share < 1.0
                                              ? fmt::format(", memory bandwidth at {:.0f}%", conditions.memory_share * 100.0)
                                              : std::string{})
                            : std::string{});

    // A point that does not fit leads with that, above the figures, which then describe a device
    // with enough memory: a headline tokens/s would read as what this one does.
    const bool fits = prediction.memory.fits;
    if (!fits) {
        text += fmt::format("DOES NOT FIT: {}.\n\n",
                            engine::memory_problem(prediction.memory, prediction.batch).value_or("the workload exceeds memory"));
    }
    TextTable speed({"", fits ? "predicted" : "if it fit", "roofline bound"});
    speed.add_row({"tokens/s per stream", rate(decode.tokens_per_s_per_stream), rate(decode.roofline_tokens_per_s_per_stream)});
    speed.add_row({"tokens/s total", rate(decode.tokens_per_s_total), rate(decode.roofline_tokens_per_s_total)});
    speed.add_row({"decode step", core::format(decode.step_time), core::format(decode.roofline_step_time)});
    speed.add_row({"TTFT (one request, idle)", core::format(prediction.ttft), core::format(prediction.prefill.roofline_time)});
    if (prediction.batch > 1.0) {
        speed.add_row({fmt::format("prefill of all {:.0f} at once", prediction.batch),
                       core::format(prediction.batch_prefill.time), core::format(prediction.batch_prefill.roofline_time)});
    }
    if (prediction.request) {
        speed.add_row({"time to last token", core::format(prediction.request->end_to_end),
                       core::format(prediction.request->roofline_end_to_end)});
    }
    text += speed.render();
    if (prediction.speculative) {
        const auto& spec = *prediction.speculative;
        text += fmt::format(
            "\nwith speculation: {} per stream ({} total), x{} over plain decoding; roofline {}\n"
            "  {} tokens per verification step; {} drafting + {} verifying ({}-bound, {:.3g} FLOP/byte){}\n",
            rate(spec.tokens_per_s_per_stream), rate(spec.tokens_per_s_total), core::format_significant(spec.speedup),
            rate(spec.roofline_tokens_per_s_per_stream), core::format_significant(spec.tokens_per_step),
            core::format(spec.draft_time), core::format(spec.verify_time), engine::bound_name(spec.verify_bound),
            spec.verify_arithmetic_intensity,
            spec.host_time.value > 0.0 ? fmt::format(" + {} of the runtime's host work", core::format(spec.host_time))
                                       : std::string());
    }

    text += fmt::format(
        "\ndecode is {}-bound: memory {}, compute {}, fixed overhead {}, communication {} of the step\n"
        "  {} and {} per step: {:.3g} FLOP/byte against a machine balance of {:.3g} FLOP/byte\n",
        engine::bound_name(decode.bound), format_percent(decode.memory_fraction), format_percent(decode.compute_fraction),
        format_percent(decode.overhead_fraction), format_percent(decode.communication_fraction), core::format(decode.bytes_per_step),
        core::format(decode.flops_per_step),
        decode.arithmetic_intensity, prediction.machine_balance);

    text += fmt::format("\nmemory ({} usable of {}, {} reserved)\n", memory.usable, memory.capacity, memory.reserve);
    text += fmt::format("  weights            {}\n", memory.weights);
    // Windows and compressed rows keep less than a token writes: both, where they differ.
    const bool keeps_less = memory.kv_growth_per_token.value < 0.99 * memory.kv_per_token.value;
    text += keeps_less ? fmt::format("  KV cache           {} ({} written a token, {} kept)\n", memory.kv,
                                     memory.kv_per_token, memory.kv_growth_per_token)
                       : fmt::format("  KV cache           {} ({} per token)\n", memory.kv, memory.kv_per_token);
    if (memory.spilled.value > 0.0) text += fmt::format("  spilled to host    {} (KV offload)\n", memory.spilled);
    text += fmt::format("  fits               {}\n", memory.fits ? "yes" : "NO");
    text += fmt::format("  largest batch      {} streams at this context\n", memory.max_batch);

    TextTable operators({"operator", "FLOPs", "bytes", "time", "bound"});
    for (const auto& op : decode.operators) {
        operators.add_row({std::string(engine::operator_name(op.kind)), core::format(op.flops), core::format(op.bytes),
                           core::format(op.time), engine::bound_name(op.bound)});
    }
    text += "\n";
    text += operators.render();
    return text;
}

std::string band_to_text(const engine::Prediction& low, const engine::Prediction& high) {
    return fmt::format(
        "\nband (each efficiency at the ends of its measured range):\n"
        "  tokens/s per stream  {:.4g} to {:.4g}\n  tokens/s total       {:.4g} to {:.4g}\n  TTFT                 {} to {}\n",
        low.decode.tokens_per_s_per_stream, high.decode.tokens_per_s_per_stream, low.decode.tokens_per_s_total,
        high.decode.tokens_per_s_total, high.ttft, low.ttft);
}

}  // namespace decodesim::report
