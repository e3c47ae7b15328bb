#pragma once
// `decodesim profiles list|show|validate`.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/io.hpp"
#include "profiles/catalog.hpp"

namespace decodesim::cli {

struct ProfilesOptions {
    std::string list_kind;               // "hardware" or "models"
    std::string show_id;
    std::vector<std::string> validate_files;
    bool json = false;
};

struct ProfilesCommands {
    CLI::App* list = nullptr;
    CLI::App* show = nullptr;
    CLI::App* validate = nullptr;
};

ProfilesCommands add_profiles_command(CLI::App& app, ProfilesOptions& options);
int run_profiles_list(const ProfilesOptions& options, const profiles::Catalog& catalog, Io io);
int run_profiles_show(const ProfilesOptions& options, const profiles::Catalog& catalog, Io io);
int run_profiles_validate(const ProfilesOptions& options, Io io);

}  // namespace decodesim::cli
