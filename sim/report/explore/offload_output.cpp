#include "report/explore/offload_output.hpp"

#include <fmt/format.h>

#include "report/json_units.hpp"

namespace decodesim::report {
namespace {

std::string placement_text(const engine::LayerPlacement& placement) {
    const std::string output = placement.output_on_gpu ? "the output layer on the GPU too" : "the output layer in host memory";
    return fmt::format("{} of {} layers on the GPU, {}; the input embeddings in host memory", placement.gpu_layers,
                       placement.layers, output);
}

}  // namespace

std::string offload_to_text(const OffloadReport& report) {
    const engine::PartialOffload& o = report.offload;
    const engine::HostMemory& host = report.host;
    const Conditions& c = report.conditions;
    std::string text = fmt::format("{} on {}, partial offload (llama.cpp -ngl {}{})\n", c.model, c.hardware,
                                   o.placement.ngl(), report.automatic ? ", chosen by --gpu-layers auto" : "");
    text += fmt::format("  quantization  weights {}, KV cache {}, activations {}; runtime {}\n", c.weights, c.kv,
                        c.activation, c.runtime);
    text += fmt::format("  layers        {}\n", placement_text(o.placement));
    text += fmt::format("  host memory   {}: {} peak ({} channels of {}-{}), {} at {:.0f}% (docs/model.md, \"Partial "
                        "offload\")\n",
                        host.name, core::format(host.peak_bandwidth()), host.channels, host.generation,
                        static_cast<long long>(host.megatransfers), core::format(host.achieved_bandwidth()),
                        host.efficiency * 100.0);
    text += fmt::format("  weights       GPU {}, host {}; a token reads {} from host memory, {:.1f}% of what it reads\n",
                        core::format(o.gpu_weights), core::format(o.host_weights), core::format(o.host_weights_read),
                        o.offloaded_share * 100.0);
    text += fmt::format("  KV cache      GPU {}, host {} at {:.0f} tokens\n", core::format(o.gpu_kv),
                        core::format(o.host_kv), report.context);
    text += fmt::format("  fits          GPU {} ({} usable beside the runtime's reserve), host {}\n\n",
                        o.fits_gpu ? "yes" : "NO", core::format(o.gpu_usable),
                        host.capacity ? (o.fits_host ? fmt::format("yes ({} installed)", core::format(*host.capacity))
                                                     : fmt::format("NO ({} installed)", core::format(*host.capacity)))
                                      : "not checked (no capacity in --host)");
    if (!o.fits_gpu) {
        text += "DOES NOT FIT on the GPU: fewer layers there (--gpu-layers auto finds the most); the figures assume "
                "they did.\n\n";
    }
    text += fmt::format("decode          {:.3g} tokens/s per stream: a step of {} = GPU {} + host {}\n",
                        o.tokens_per_s, core::format(o.step), core::format(o.gpu_step), core::format(o.host_step));
    text += fmt::format("TTFT            {} for a {:.0f}-token prompt", core::format(o.prefill), report.prompt);
    if (o.prefill_transfer.value > 0.0) {
        text += fmt::format(" ({} of it the host layers' weights over {}, {:.0f} pass{} of up to {:.0f} tokens)",
                            core::format(o.prefill_transfer), report.host_link, o.physical_batches,
                            o.physical_batches == 1.0 ? "" : "es", engine::kPhysicalBatchTokens);
    }
    text += "\n";
    text += fmt::format("all on the GPU  {:.3g} tokens/s per stream, if it fit (decode step {})\n",
                        o.all_on_gpu_step.value > 0.0 ? 1.0 / o.all_on_gpu_step.value : 0.0,
                        core::format(o.all_on_gpu_step));
    return text;
}

nlohmann::json offload_to_json(const OffloadReport& report) {
    const engine::PartialOffload& o = report.offload;
    const engine::HostMemory& host = report.host;
    nlohmann::json host_json = {{"name", host.name},
                                {"generation", host.generation},
                                {"megatransfers_per_s", host.megatransfers},
                                {"channels", host.channels},
                                {"peak_bandwidth_bytes_per_s", host.peak_bandwidth()},
                                {"efficiency", host.efficiency},
                                {"achieved_bandwidth_bytes_per_s", host.achieved_bandwidth()}};
    if (host.capacity) host_json["capacity_bytes"] = *host.capacity;
    nlohmann::json document = {
        {"schema_version", 1},
        {"conditions", conditions_to_json(report.conditions)},
        {"host", host_json},
        {"placement",
         {{"ngl", o.placement.ngl()},
          {"gpu_layers", o.placement.gpu_layers},
          {"layers", o.placement.layers},
          {"output_on_gpu", o.placement.output_on_gpu},
          {"automatic", report.automatic}}},
        {"memory",
         {{"gpu_weights_bytes", o.gpu_weights},
          {"host_weights_bytes", o.host_weights},
          {"gpu_kv_bytes", o.gpu_kv},
          {"host_kv_bytes", o.host_kv},
          {"gpu_usable_bytes", o.gpu_usable},
          {"fits_gpu", o.fits_gpu},
          {"fits_host", o.fits_host}}},
        {"decode",
         {{"tokens_per_s_per_stream", o.tokens_per_s},
          {"step_time_s", o.step},
          {"gpu_time_s", o.gpu_step},
          {"host_time_s", o.host_step},
          {"host_bytes_per_token", o.host_weights_read},
          {"offloaded_share", o.offloaded_share},
          {"context_tokens", report.context}}},
        {"prefill",
         {{"prompt_tokens", report.prompt},
          {"ttft_s", o.prefill},
          {"host_weight_transfer_s", o.prefill_transfer},
          {"physical_batches", o.physical_batches}}},
        {"all_on_gpu", {{"step_time_s", o.all_on_gpu_step}}},
    };
    write_whole_numbers_as_integers(document);
    return document;
}

}  // namespace decodesim::report
