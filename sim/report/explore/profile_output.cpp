#include "report/explore/profile_output.hpp"

#include <fmt/format.h>

#include <cmath>

#include "report/text_table.hpp"

namespace decodesim::report {

namespace {

// A peak the device lists, or "-": the list shows what the datasheet states.
std::string peak_or_dash(core::FlopRate peak) { return peak.value > 0.0 ? core::format(peak) : "-"; }

}  // namespace

std::string hardware_list_to_text(const std::vector<HardwareEntry>& entries) {
    TextTable table({"id", "name", "memory", "bandwidth", "bf16/fp16", "fp8", "fp4"});
    for (const auto& [hardware, summary] : entries) {
        table.add_row({hardware.id, hardware.name, fmt::format("{} {}", hardware.memory_capacity, hardware.memory_type),
                       core::format(hardware.memory_bandwidth), peak_or_dash(summary.bf16_peak),
                       peak_or_dash(hardware.listed_peak(core::Datatype::fp8)),
                       peak_or_dash(hardware.listed_peak(core::Datatype::fp4))});
    }
    return table.render();
}

std::string model_list_to_text(const std::vector<ModelEntry>& entries) {
    TextTable table({"id", "name", "parameters", "layers", "attention", "mlp", "KV/token (16-bit)"});
    for (const auto& [model, summary] : entries) {
        table.add_row({model.id, model.name, core::format_count(summary.parameters.total),
                       std::to_string(model.num_hidden_layers), summary.attention, summary.mlp,
                       core::format(summary.kv_bytes_per_token_bf16)});
    }
    return table.render();
}

std::string hardware_to_text(const profiles::HardwareProfile& hardware, const explore::HardwareSummary& summary,
                             const std::string& path) {
    std::string text = fmt::format("{} ({})\n  file      {}\n  source    {}\n", hardware.name, hardware.id, path,
                                   hardware.source);
    text += fmt::format("  memory    {} {}, {}\n", hardware.memory_capacity, hardware.memory_type,
                        hardware.memory_bandwidth);
    text += "  compute   dense peaks:";
    for (core::Datatype datatype : core::kAllDatatypes) {
        if (hardware.listed_peak(datatype).value > 0.0) {
            text += fmt::format(" {} {}", core::datatype_name(datatype), hardware.listed_peak(datatype));
        }
    }
    text += "\n";
    if (hardware.dies > 1) {
        text += fmt::format("  dies      {}, joined by a bridge every kernel spans (docs/model.md, \"Multi-die packages\")\n",
                            hardware.dies);
    }
    if (hardware.interconnect) {
        text += fmt::format("  link      {} per direction, {} latency\n", hardware.interconnect->bandwidth,
                            hardware.interconnect->latency);
    }
    if (hardware.power) text += fmt::format("  power     {:g} W\n", hardware.power->value);
    if (hardware.price_per_hour) text += fmt::format("  price     {:g} USD per hour\n", *hardware.price_per_hour);
    text += fmt::format("  balance   {:.4g} FLOP/byte at bf16\n", summary.machine_balance_bf16);
    text += fmt::format("  efficiency (defaults, docs/model.md): bandwidth {:.2f}, compute {:.2f}, kernel overhead {}\n",
                        summary.efficiency.memory_bandwidth, summary.efficiency.compute,
                        summary.efficiency.kernel_overhead);
    return text;
}

std::string model_to_text(const profiles::ModelProfile& model, const explore::ModelSummary& summary,
                          const std::string& path) {
    const engine::ParameterCount& count = summary.parameters;
    std::string text =
        fmt::format("{} ({})\n  file        {}\n  source      {}\n", model.name, model.id, path, model.source);
    text += fmt::format("  shape       {} layers, hidden {}, {} heads x {} dims, {}\n", model.num_hidden_layers,
                        model.hidden_size, model.num_attention_heads, model.head_dim, summary.attention);
    text += fmt::format("  mlp         {}, intermediate {}{}\n", summary.mlp, model.intermediate_size,
                        model.moe ? fmt::format(", expert {}", model.moe->moe_intermediate_size) : "");
    text += fmt::format("  vocabulary  {} ({})\n", model.vocab_size,
                        model.tie_word_embeddings ? "tied embeddings" : "separate lm_head");
    text += fmt::format("  parameters  {} derived from the shape ({} active per token){}\n",
                        core::format_count(count.total), core::format_count(count.active),
                        model.parameters ? fmt::format("; {} stated", core::format_count(*model.parameters)) : "");
    text += fmt::format("  KV cache    {} per token at 16-bit", summary.kv_bytes_per_token_bf16);
    // Windows, compressed rows and recurrent states keep less than a token writes.
    const double kept = summary.kv_growth_per_token_bf16.value, written = summary.kv_bytes_per_token_bf16.value;
    if (std::abs(kept - written) > 0.01 * written) {
        text += fmt::format(", {} of it kept once the context is past every window", summary.kv_growth_per_token_bf16);
    }
    text += "\n";
    if (model.max_position_embeddings) text += fmt::format("  max context {}\n", *model.max_position_embeddings);
    text += fmt::format("  weights     {} at bf16\n", summary.weights_bf16);
    return text;
}

}  // namespace decodesim::report
