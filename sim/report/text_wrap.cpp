#include "report/text_wrap.hpp"

namespace decodesim::report {

namespace {

void wrap_line(const std::string& line, std::size_t width, std::string& out) {
    const std::size_t indent_end = line.find_first_not_of(' ');
    const std::size_t indent = indent_end == std::string::npos ? 0 : indent_end;
    const std::string continuation(indent + 2, ' ');
    std::string rest = line;
    bool first = true;
    while (rest.size() > width) {
        // The last space within the width, past the indent (breaking inside it would loop).
        const std::size_t floor = first ? indent : continuation.size();
        std::size_t cut = rest.rfind(' ', width);
        if (cut == std::string::npos || cut <= floor) {
            cut = rest.find(' ', width);  // a word longer than the line: break after it
            if (cut == std::string::npos) break;
        }
        std::size_t end = cut;
        while (end > floor && rest[end - 1] == ' ') --end;
        out += rest.substr(0, end);
        out += '\n';
        std::size_t next = cut;
        while (next < rest.size() && rest[next] == ' ') ++next;
        rest = continuation + rest.substr(next);
        first = false;
    }
    out += rest;
}

}  // namespace

std::string wrap_text(const std::string& text, std::size_t width) {
    std::string out;
    out.reserve(text.size() + text.size() / 16);
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        const bool newline = end != std::string::npos;
        if (!newline) end = text.size();
        wrap_line(text.substr(start, end - start), width, out);
        if (newline) out += '\n';
        start = end + 1;
    }
    return out;
}

}  // namespace decodesim::report
