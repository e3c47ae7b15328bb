#include "cli/usage_checks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/suggest.hpp"
#include "core/units.hpp"

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

// The number grammar on one option: the text is read by core's parser (decimal, no hex or octal,
// no NaN or infinity, whole numbers exact) and handed to CLI11 in canonical form, so CLI11's own
// conversion (strtoll with base 0, which reads "010" as eight) never sees anything else.
void apply_grammar(CLI::Option& option, bool whole) {
    option.transform(
        [whole](std::string text) {
            if (whole) {
                std::int64_t value = 0;
                if (!core::parse_whole_number(text, value)) {
                    throw CLI::ValidationError(fmt::format("'{}' is {}", text, core::why_not_whole_number(text)));
                }
                return std::to_string(value);
            }
            double value = 0.0;
            if (!core::parse_number(text, value)) {
                throw CLI::ValidationError(fmt::format("'{}' is not a finite number (decimal digits; no hex, NaN or infinity)", text));
            }
            return fmt::format("{}", value);  // shortest text that reads back as the same double
        },
        "", "decodesim number");
}

void apply_grammar_to_all(CLI::App& command) {
    for (CLI::Option* option : command.get_options()) {
        const std::string type = option->get_type_name();
        if (type.starts_with("INT") || type.starts_with("UINT")) apply_grammar(*option, true);
        if (type.starts_with("FLOAT") || type.starts_with("NUMBER")) apply_grammar(*option, false);
        // An empty value is never meant: sweep read `--context ''` as "not given" and ran at 1024.
        if (type.starts_with("TEXT")) {
            option->transform(
                [](std::string text) {
                    if (text.empty()) throw CLI::ValidationError("an empty value; give one or leave the flag out");
                    return text;
                },
                "", "decodesim non-empty");
        }
    }
    for (CLI::App* nested : command.get_subcommands({})) apply_grammar_to_all(*nested);
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
    std::vector<std::string> commands = command_names(app);
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
    }
    return std::nullopt;
}

void apply_number_grammar(CLI::App& app) { apply_grammar_to_all(app); }

CLI::Validator number_in(double least, double most) {
    return CLI::Validator(
        [least, most](std::string& text) -> std::string {
            double value = 0.0;
            if (!core::parse_number(text, value)) return fmt::format("'{}' is not a number", text);
            if (value >= least && value <= most) return {};
            return fmt::format("{}: expected a number from {} to {}", text, least, most);
        },
        fmt::format("{} TO {}", least, most));
}

std::vector<std::string> command_names(const CLI::App& app) {
    std::vector<std::string> names;
    for (const CLI::App* command : app.get_subcommands({})) names.push_back(command->get_name());
    return names;
}

std::string help_pointer(const std::optional<std::string>& command) {
    if (command && !command->starts_with("-")) return fmt::format("Run 'decodesim {} --help' for its flags.", *command);
    return "Run 'decodesim --help' for the commands.";
}

}  // namespace decodesim::cli
