// `decodesim profiles list|show|validate`.

#include <fmt/format.h>

#include <filesystem>

#include "cli/command.hpp"
#include "cli/point_options.hpp"
#include "core/registry.hpp"
#include "core/error.hpp"
#include "core/quantization.hpp"
#include "core/suggest.hpp"
#include "engine/cost_model.hpp"
#include "engine/model_shape.hpp"
#include "engine/prediction.hpp"
#include "profiles/hardware_loader.hpp"
#include "profiles/hf_config.hpp"
#include "profiles/model_loader.hpp"
#include "report/text_table.hpp"

namespace decodesim::cli {

using core::format_bandwidth;
using core::format_bytes;
using core::format_throughput;

namespace {

struct ProfilesOptions {
    std::string list_kind;  // "hardware" or "models"
    std::string show_id;
    std::vector<std::string> validate_files;
};

std::string peak_or_dash(const profiles::HardwareProfile& hardware, core::Datatype datatype) {
    const core::FlopRate peak = hardware.listed_peak(datatype);
    return peak.value > 0.0 ? core::format(peak) : "-";
}

std::string attention_kind(const profiles::ModelProfile& model) {
    std::string kind;
    if (model.mla) {
        kind = "MLA";
    } else if (model.num_key_value_heads == model.num_attention_heads) {
        kind = "MHA";
    } else if (model.num_key_value_heads == 1) {
        kind = "MQA";
    } else {
        kind = fmt::format("GQA {}:{}", model.num_attention_heads, model.num_key_value_heads);
    }
    if (model.sliding_window) {
        kind += fmt::format(", window {}{}", model.sliding_window->window,
                            model.sliding_window->pattern > 0 ? fmt::format(" ({}:1)", model.sliding_window->pattern - 1)
                                                              : std::string(" (all)"));
    }
    return kind;
}

// KV bytes per token at 16-bit, on one device: a shape fact independent of any hardware.
double kv_bytes_per_token_bf16(const profiles::ModelProfile& model) {
    engine::Deployment deployment;
    deployment.weights = core::find_named(core::weight_formats(), "bf16");
    deployment.kv = core::find_named(core::kv_formats(), "bf16");
    const engine::CostModel cost = engine::build_cost_model(model, deployment);
    return (cost.kv_bytes_per_token_per_layer * cost.layers).value;
}

std::string moe_summary(const profiles::ModelProfile& model) {
    if (!model.moe) return "dense";
    return fmt::format("MoE {}x{}{}", model.moe->n_routed_experts, model.moe->num_experts_per_tok,
                       model.moe->n_shared_experts > 0 ? fmt::format("+{}", model.moe->n_shared_experts) : "");
}

void show_hardware(const profiles::HardwareProfile& hardware, const std::string& path, Io io) {
    const engine::Efficiency efficiency = engine::default_efficiency(hardware);
    io.out << fmt::format("{} ({})\n  file      {}\n  source    {}\n", hardware.name, hardware.id, path, hardware.source);
    io.out << fmt::format("  memory    {} {}, {}\n", format_bytes(hardware.memory_capacity.value), hardware.memory_type,
                          format_bandwidth(hardware.memory_bandwidth.value));
    io.out << "  compute   dense peaks:";
    for (core::Datatype datatype : core::kAllDatatypes) {
        if (hardware.listed_peak(datatype).value > 0.0) {
            io.out << fmt::format(" {} {}", core::datatype_name(datatype), hardware.listed_peak(datatype));
        }
    }
    io.out << "\n";
    if (hardware.interconnect) {
        io.out << fmt::format("  link      {} per direction, {} latency\n",
                              format_bandwidth(hardware.interconnect->bandwidth.value),
                              core::format_seconds(hardware.interconnect->latency.value));
    }
    if (hardware.power) io.out << fmt::format("  power     {:g} W\n", hardware.power->value);
    if (hardware.price_per_hour) io.out << fmt::format("  price     {:g} USD per hour\n", *hardware.price_per_hour);
    const double balance = engine::machine_balance(
        engine::device_rates(hardware, core::Datatype::bf16, core::Datatype::bf16, 1, engine::ideal_efficiency()));
    io.out << fmt::format("  balance   {:.4g} FLOP/byte at bf16\n", balance);
    io.out << fmt::format("  efficiency (defaults, docs/model.md): bandwidth {:.2f}, compute {:.2f}, kernel overhead {}\n",
                          efficiency.memory_bandwidth, efficiency.compute,
                          efficiency.kernel_overhead);
}

void show_model(const profiles::ModelProfile& model, const std::string& path, Io io) {
    const engine::ParameterCount count = engine::count_parameters(model);
    io.out << fmt::format("{} ({})\n  file        {}\n  source      {}\n", model.name, model.id, path, model.source);
    io.out << fmt::format("  shape       {} layers, hidden {}, {} heads x {} dims, {}\n", model.num_hidden_layers,
                          model.hidden_size, model.num_attention_heads, model.head_dim, attention_kind(model));
    io.out << fmt::format("  mlp         {}, intermediate {}{}\n", moe_summary(model), model.intermediate_size,
                          model.moe ? fmt::format(", expert {}", model.moe->moe_intermediate_size) : "");
    io.out << fmt::format("  vocabulary  {} ({})\n", model.vocab_size,
                          model.tie_word_embeddings ? "tied embeddings" : "separate lm_head");
    io.out << fmt::format("  parameters  {} derived from the shape ({} active per token){}\n",
                          core::format_count(count.total), core::format_count(count.active),
                          model.parameters ? fmt::format("; {} stated", core::format_count(*model.parameters)) : "");
    io.out << fmt::format("  KV cache    {} per token at 16-bit\n", format_bytes(kv_bytes_per_token_bf16(model)));
    if (model.max_position_embeddings) io.out << fmt::format("  max context {}\n", *model.max_position_embeddings);
    io.out << fmt::format("  weights     {} at bf16\n", format_bytes(count.total * 2.0));
}

int run_profiles_list(const ProfilesOptions& options, const profiles::Catalog& catalog, Io io) {
    if (options.list_kind == "hardware") {
        report::TextTable table({"id", "name", "memory", "bandwidth", "bf16/fp16", "fp8", "fp4"});
        for (const auto& id : catalog.hardware_ids()) {
            const auto hardware = catalog.hardware(id);
            const core::FlopRate half = engine::effective_peak(hardware, core::Datatype::bf16);
            table.add_row({id, hardware.name, format_bytes(hardware.memory_capacity.value) + " " + hardware.memory_type,
                           format_bandwidth(hardware.memory_bandwidth.value), half.value > 0 ? core::format(half) : "-",
                           peak_or_dash(hardware, core::Datatype::fp8), peak_or_dash(hardware, core::Datatype::fp4)});
        }
        io.out << table.render();
        return 0;
    }
    report::TextTable table({"id", "name", "parameters", "layers", "attention", "mlp", "KV/token (16-bit)"});
    for (const auto& id : catalog.model_ids()) {
        const auto model = catalog.model(id);
        table.add_row({id, model.name, core::format_count(engine::count_parameters(model).total),
                       std::to_string(model.num_hidden_layers), attention_kind(model), moe_summary(model),
                       format_bytes(kv_bytes_per_token_bf16(model))});
    }
    io.out << table.render();
    return 0;
}

int run_profiles_show(const ProfilesOptions& options, const profiles::Catalog& catalog, Io io) {
    const std::string& id = options.show_id;
    const auto hardware_ids = catalog.hardware_ids();
    const auto model_ids = catalog.model_ids();
    const bool is_path = std::filesystem::is_regular_file(id);
    if (is_path) {
        const std::string path = id;
        if (profiles::detect_profile_kind(path) == profiles::ProfileKind::hardware) {
            show_hardware(profiles::load_hardware_profile(path), path, io);
        } else {
            const auto model = catalog.model(path);
            show_model(model, path, io);
            for (const auto& warning : engine::model_warnings(model)) warn(io, warning);
        }
        return 0;
    }
    if (std::find(hardware_ids.begin(), hardware_ids.end(), id) != hardware_ids.end()) {
        show_hardware(catalog.hardware(id), catalog.hardware_path(id), io);
        return 0;
    }
    if (std::find(model_ids.begin(), model_ids.end(), id) != model_ids.end()) {
        const auto model = catalog.model(id);
        show_model(model, catalog.model_path(id), io);
        for (const auto& warning : engine::model_warnings(model)) warn(io, warning);
        return 0;
    }
    std::vector<std::string> all = hardware_ids;
    all.insert(all.end(), model_ids.begin(), model_ids.end());
    throw core::InputError(core::unlocated("", "unknown profile '" + id + "'" + core::did_you_mean(id, all)));
}

int run_profiles_validate(const ProfilesOptions& options, Io io) {
    int failures = 0;
    for (const auto& path : options.validate_files) {
        try {
            switch (profiles::detect_profile_kind(path)) {
                case profiles::ProfileKind::hardware: profiles::load_hardware_profile(path); break;
                case profiles::ProfileKind::model: {
                    const auto model = profiles::load_model_profile(path);
                    for (const auto& warning : engine::model_warnings(model)) warn(io, warning);
                    break;
                }
                case profiles::ProfileKind::hf_config: profiles::load_hf_config(path); break;
            }
            io.out << path << ": ok\n";
        } catch (const core::InputError& error) {
            ++failures;
            for (const auto& diagnostic : error.diagnostics()) io.err << diagnostic.to_string() << "\n";
        }
    }
    if (failures > 0) {
        io.err << fmt::format("{} of {} file{} failed to validate\n", failures, options.validate_files.size(),
                              options.validate_files.size() == 1 ? "" : "s");
        return 1;
    }
    return 0;
}

}  // namespace

void add_profiles_command(CLI::App& app, CommandRun& run) {
    auto options = std::make_shared<ProfilesOptions>();
    CLI::App* profiles = app.add_subcommand("profiles", "List, show and validate hardware and model profiles");
    profiles->require_subcommand(1);
    CLI::App* list = profiles->add_subcommand("list", "List the shipped profiles with their key figures");
    list->add_option("kind", options->list_kind, "hardware or models")
        ->required()
        ->check(CLI::IsMember({"hardware", "models"}));
    list->callback([options, &run] { run = [options](const profiles::Catalog& c, Io io) { return run_profiles_list(*options, c, io); }; });
    CLI::App* show = profiles->add_subcommand("show", "Show one profile resolved, with derived figures");
    show->add_option("id", options->show_id, "Hardware or model id, or a path")->required();
    show->callback([options, &run] { run = [options](const profiles::Catalog& c, Io io) { return run_profiles_show(*options, c, io); }; });
    CLI::App* validate = profiles->add_subcommand("validate", "Load profile files and report every problem");
    validate->add_option("files", options->validate_files, "Profile YAML or config.json files")->required();
    validate->callback([options, &run] { run = [options](const profiles::Catalog&, Io io) { return run_profiles_validate(*options, io); }; });
}

}  // namespace decodesim::cli
