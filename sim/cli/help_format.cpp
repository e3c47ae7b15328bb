#include "cli/help_format.hpp"

#include <sstream>

#include "report/text_table.hpp"
#include "report/text_wrap.hpp"

namespace decodesim::cli {

namespace {

class WrappingFormatter : public CLI::Formatter {
public:
    std::string make_option_desc(const CLI::Option* option) const override {
        return wrapped(CLI::Formatter::make_option_desc(option), report::TextTable::kMaxWidth - get_column_width());
    }
    std::string make_subcommand(const CLI::App* command) const override {
        std::stringstream out;
        CLI::detail::format_help(out, command->get_display_name(true),
                                 wrapped(command->get_description(), report::TextTable::kMaxWidth - get_column_width()),
                                 get_column_width());
        return out.str();
    }
    std::string make_description(const CLI::App* app) const override {
        return wrapped(CLI::Formatter::make_description(app), report::TextTable::kMaxWidth);
    }

private:
    // wrap_text keeps a trailing newline; CLI11 adds its own after a description.
    static std::string wrapped(const std::string& text, std::size_t width) {
        std::string result = report::wrap_text(text, width);
        if (!text.empty() && text.back() != '\n' && !result.empty() && result.back() == '\n') result.pop_back();
        return result;
    }
};

}  // namespace

std::shared_ptr<CLI::Formatter> wrapping_help_formatter() { return std::make_shared<WrappingFormatter>(); }

}  // namespace decodesim::cli
