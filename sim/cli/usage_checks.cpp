#include "cli/usage_checks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/suggest.hpp"

namespace decodesim::cli {

namespace {

// The options run_cli gives the top level, with whether each takes a value.
struct GlobalOption {
    std::string_view name;
    bool takes_value;
};
constexpr GlobalOption kGlobalOptions[] = {{"-v", false},        {"--verbose", false}, {"--profiles-dir", true},
                                           {"--version", false}, {"-h", false},        {"--help", false},
                                           {"--help-all", false}};

const GlobalOption* global_option(std::string_view word) {
    const std::string_view name = word.substr(0, word.find('='));
    for (const auto& option : kGlobalOptions) {
        if (option.name == name) return &option;
    }
    return nullptr;
}

// The long flags of a command and of every command nested in it (`profiles list ...`).
void add_long_names(const CLI::App& command, std::vector<std::string>& names) {
    for (const CLI::Option* option : command.get_options()) {
        for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
    }
    for (const CLI::App* nested : command.get_subcommands({})) add_long_names(*nested, names);
}

std::vector<std::string> long_names(const CLI::App& command) {
    std::vector<std::string> names;
    add_long_names(command, names);
    for (const auto& option : kGlobalOptions) {
        if (option.name.starts_with("--")) names.emplace_back(option.name);
    }
    return names;
}

// The long flags of `command` (and of the commands nested in it) that take a floating-point value:
// CLI11's range validators let NaN through (every comparison with it is false).
void add_float_flags(const CLI::App& command, std::vector<std::string>& names) {
    for (const CLI::Option* option : command.get_options()) {
        if (!option->get_type_name().starts_with("FLOAT")) continue;
        for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
    }
    for (const CLI::App* nested : command.get_subcommands({})) add_float_flags(*nested, names);
}

bool is_non_finite(const std::string& text) {
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    return end != text.c_str() && *end == '\0' && !std::isfinite(value);
}

}  // namespace

CommandLineShape command_line_shape(const std::vector<std::string>& args) {
    CommandLineShape shape;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& word = args[i];
        if (const GlobalOption* option = global_option(word)) {
            if (option->name == "--version" || option->name == "-h" || option->name == "--help" ||
                option->name == "--help-all") {
                shape.asks_for_help_or_version = true;
            }
            if (option->takes_value && word.find('=') == std::string::npos) ++i;
            continue;
        }
        shape.command = word;
        shape.command_position = i;
        break;
    }
    return shape;
}

std::optional<std::string> unknown_word(const CLI::App& app, const std::vector<std::string>& args,
                                        const CommandLineShape& shape) {
    if (!shape.command) return std::nullopt;
    std::vector<std::string> commands;
    for (const CLI::App* command : app.get_subcommands({})) commands.push_back(command->get_name());
    commands.emplace_back("help");
    const std::string& word = *shape.command;
    const CLI::App* command = nullptr;
    for (const CLI::App* candidate : app.get_subcommands({})) {
        if (candidate->get_name() == word) command = candidate;
    }
    if (command == nullptr) {
        if (word == "help") return std::nullopt;
        if (word.starts_with("-")) {
            return fmt::format("unknown option '{}'{}", word, core::suggestion_note(word, long_names(app)));
        }
        return fmt::format("unknown command '{}'{}", word, core::suggestion_note(word, commands));
    }
    const std::vector<std::string> names = long_names(*command);
    std::vector<std::string> float_flags;
    add_float_flags(*command, float_flags);
    for (std::size_t i = shape.command_position + 1; i < args.size(); ++i) {
        const std::string& flag = args[i];
        if (flag == "--") break;  // the rest are values
        if (!flag.starts_with("--")) continue;
        const auto equals = flag.find('=');
        const std::string name = flag.substr(0, equals);
        bool known = false;
        for (const auto& candidate : names) known = known || candidate == name;
        if (!known) {
            return fmt::format("{}: unknown flag '{}'{}", word, name, core::suggestion_note(name, names));
        }
        // Numbers: NaN and infinities are refused here, for every floating-point flag at once.
        if (std::find(float_flags.begin(), float_flags.end(), name) == float_flags.end()) continue;
        const std::string value = equals != std::string::npos ? flag.substr(equals + 1) : i + 1 < args.size() ? args[i + 1] : "";
        if (is_non_finite(value)) return fmt::format("{}: '{}' is not a finite number", name, value);
    }
    return std::nullopt;
}

std::string help_pointer(const std::optional<std::string>& command) {
    if (command && !command->starts_with("-")) return fmt::format("Run 'decodesim {} --help' for its flags.", *command);
    return "Run 'decodesim --help' for the commands.";
}

}  // namespace decodesim::cli
