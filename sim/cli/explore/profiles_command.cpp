// `decodesim profiles list|show|validate`.

#include <fmt/format.h>

#include <algorithm>

#include "cli/command.hpp"
#include "report/text_wrap.hpp"
#include "cli/point_options.hpp"
#include "core/error.hpp"
#include "core/suggest.hpp"
#include "engine/prediction.hpp"
#include "profiles/hardware_loader.hpp"
#include "profiles/hf_config.hpp"
#include "profiles/input_file.hpp"
#include "profiles/model_loader.hpp"
#include "report/explore/profile_output.hpp"
#include "report/runtime_output.hpp"
#include "cli/runtime_option.hpp"
#include "profiles/runtime_loader.hpp"
#include "explore/profile_summary.hpp"

namespace decodesim::cli {

namespace {

struct ProfilesOptions {
    std::string list_kind;  // "hardware", "models" or "runtimes"
    bool ids_only = false;  // one id a line, for shell completion
    std::string show_id;
    std::vector<std::string> validate_files;
};

void show_hardware(const profiles::Catalog& catalog, const profiles::HardwareProfile& hardware, const std::string& path,
                   Io io) {
    const auto runtime = catalog.runtime(default_runtime_name(hardware));
    io.out << report::wrap_text(report::hardware_to_text(hardware, explore::summarize_hardware(hardware, *runtime), path));
}

// The model's warnings (a stated parameter count the shape contradicts) go to stderr, after it.
void show_model(const profiles::ModelProfile& model, const std::string& path, Io io) {
    io.out << report::wrap_text(report::model_to_text(model, explore::summarize_model(model), path));
    for (const auto& warning : engine::model_warnings(model)) warn(io, warning);
}

int run_profiles_list(const ProfilesOptions& options, const profiles::Catalog& catalog, Io io) {
    const auto ids = options.list_kind == "hardware"   ? catalog.hardware_ids()
                     : options.list_kind == "runtimes" ? catalog.runtime_ids()
                                                       : catalog.model_ids();
    if (ids.empty()) {
        throw core::NothingComputed(fmt::format("the folder {}/{}_profiles holds no profiles (is --profiles-dir right?)",
                                                catalog.root(),
                                                options.list_kind == "hardware"   ? "hardware"
                                                : options.list_kind == "runtimes" ? "runtime"
                                                                                  : "model"));
    }
    // Ids alone load no profile, so completing `--hardware h1<TAB>` stays instant.
    if (options.ids_only) {
        for (const auto& id : ids) io.out << id << "\n";
        return 0;
    }
    if (options.list_kind == "runtimes") {
        std::vector<engine::RuntimeProfile> runtimes;
        for (const auto& id : ids) runtimes.push_back(*catalog.runtime(id));
        io.out << report::runtime_list_to_text(runtimes);
        return 0;
    }
    if (options.list_kind == "hardware") {
        std::vector<report::HardwareEntry> entries;
        for (const auto& id : catalog.hardware_ids()) {
            auto hardware = catalog.hardware(id);
            const auto summary = explore::summarize_hardware(hardware, *catalog.runtime(default_runtime_name(hardware)));
            entries.push_back({std::move(hardware), summary});
        }
        io.out << report::wrap_text(report::hardware_list_to_text(entries));
        return 0;
    }
    std::vector<report::ModelEntry> entries;
    for (const auto& id : catalog.model_ids()) {
        auto model = catalog.model(id);
        auto summary = explore::summarize_model(model);
        entries.push_back({std::move(model), std::move(summary)});
    }
    io.out << report::wrap_text(report::model_list_to_text(entries));
    return 0;
}

int run_profiles_show(const ProfilesOptions& options, const profiles::Catalog& catalog, Io io) {
    const std::string& id = options.show_id;
    const auto hardware_ids = catalog.hardware_ids();
    const auto model_ids = catalog.model_ids();
    // Anything that exists at `id` is read as a path, so a FIFO or an unreadable file gets its own message.
    const profiles::PathKind kind = profiles::path_kind(id);
    if (kind == profiles::PathKind::folder) {
        show_model(catalog.model(id), id, io);
        return 0;
    }
    if (kind != profiles::PathKind::missing) {
        const std::string path = id;
        const profiles::ProfileKind file_kind = profiles::detect_profile_kind(path);
        if (file_kind == profiles::ProfileKind::hardware) {
            show_hardware(catalog, profiles::load_hardware_profile(path), path, io);
        } else if (file_kind == profiles::ProfileKind::runtime) {
            io.out << report::wrap_text(report::runtime_to_text(*catalog.runtime(path), path));
        } else {
            show_model(catalog.model(path), path, io);
        }
        return 0;
    }
    if (std::find(hardware_ids.begin(), hardware_ids.end(), id) != hardware_ids.end()) {
        show_hardware(catalog, catalog.hardware(id), catalog.hardware_path(id), io);
        return 0;
    }
    if (std::find(model_ids.begin(), model_ids.end(), id) != model_ids.end()) {
        show_model(catalog.model(id), catalog.model_path(id), io);
        return 0;
    }
    const auto runtime_ids = catalog.runtime_ids();
    const bool runtime_name = std::any_of(runtime_ids.begin(), runtime_ids.end(), [&](const std::string& runtime) {
        return runtime == id || runtime.substr(0, runtime.find('@')) == id.substr(0, id.find('@'));
    });
    if (runtime_name) {
        io.out << report::wrap_text(report::runtime_to_text(*catalog.runtime(id), catalog.runtime_path(id)));
        return 0;
    }
    std::vector<std::string> all = hardware_ids;
    all.insert(all.end(), model_ids.begin(), model_ids.end());
    all.insert(all.end(), runtime_ids.begin(), runtime_ids.end());
    throw core::InputError(core::unlocated("", "unknown profile '" + id + "'" + core::did_you_mean(id, all)));
}

int run_profiles_validate(const ProfilesOptions& options, const profiles::Catalog& catalog, Io io) {
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
                case profiles::ProfileKind::runtime: catalog.runtime(path); break;
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
    CLI::App* profiles = app.add_subcommand("profiles", "List, show and validate hardware, model and runtime profiles");
    profiles->require_subcommand(1);
    CLI::App* list = profiles->add_subcommand("list", "List the shipped profiles with their key figures");
    list->add_option("kind", options->list_kind, "hardware, models or runtimes")
        ->required()
        ->check(CLI::IsMember({"hardware", "models", "runtimes"}));
    // Hidden (empty group): the completion scripts' source of ids, not a documented output.
    list->add_flag("--ids", options->ids_only, "Print the ids alone, one a line")->group("");
    run_when_parsed(list, run, options, &run_profiles_list);
    CLI::App* show = profiles->add_subcommand("show", "Show one profile resolved, with derived figures");
    show->add_option("id", options->show_id, "Hardware, model or runtime id, or a path")->required();
    run_when_parsed(show, run, options, &run_profiles_show);
    CLI::App* validate = profiles->add_subcommand("validate", "Load profile files and report every problem");
    validate->add_option("files", options->validate_files, "Profile YAML or config.json files")->required();
    validate->callback([options, &run] {
        run = [options](const profiles::Catalog& catalog, Io io) { return run_profiles_validate(*options, catalog, io); };
    });
}

}  // namespace decodesim::cli
