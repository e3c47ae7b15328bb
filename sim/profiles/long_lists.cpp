#include "profiles/long_lists.hpp"

#include <fmt/format.h>

#include <vector>

namespace decodesim::profiles {

namespace {

// One open flow list: where its '[' stands, its entries so far, whether one is an object or list.
struct OpenList {
    std::size_t start = 0;
    std::size_t entries = 0;
    bool nested = false;
    bool has_value = false;  // something other than whitespace since '[' or the last ','
};

}  // namespace

std::string elide_long_scalar_lists(const std::string& text) {
    // Cheap exit: a text with fewer commas than the limit cannot hold such a list.
    std::size_t commas = 0;
    for (char c : text) commas += c == ',' ? 1 : 0;
    if (commas < kMaxScalarListEntries) return text;

    struct LongList {
        std::size_t start, end, entries;  // '[' and ']' positions; a list of scalars holds no other
    };
    std::vector<LongList> long_lists;
    std::vector<OpenList> open;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '"') {  // a JSON string: skip to its closing quote, past escapes
            for (++i; i < text.size() && text[i] != '"'; ++i) {
                if (text[i] == '\\') ++i;
            }
            if (!open.empty()) open.back().has_value = true;
            continue;
        }
        if (c == '[') {
            if (!open.empty()) open.back().nested = true;
            open.push_back({i, 0, false, false});
        } else if (c == '{') {
            if (!open.empty()) open.back().nested = true;
        } else if (c == ',' && !open.empty()) {
            ++open.back().entries;
            open.back().has_value = false;
        } else if (c == ']' && !open.empty()) {
            const OpenList list = open.back();
            open.pop_back();
            const std::size_t entries = list.entries + (list.has_value ? 1 : 0);
            if (!list.nested && entries > kMaxScalarListEntries) long_lists.push_back({list.start, i, entries});
            if (!open.empty()) open.back().has_value = true;
        } else if (c != ' ' && c != '\n' && c != '\r' && c != '\t' && !open.empty()) {
            open.back().has_value = true;
        }
    }
    if (long_lists.empty()) return text;

    std::string result;
    result.reserve(text.size());
    std::size_t copied = 0;
    for (const auto& [start, end, entries] : long_lists) {
        std::size_t newlines = 0;
        for (std::size_t i = start; i <= end; ++i) newlines += text[i] == '\n' ? 1 : 0;
        result.append(text, copied, start - copied);
        result += fmt::format("\"<a list of {} entries, not read>\"", entries);
        result.append(newlines, '\n');
        copied = end + 1;
    }
    result.append(text, copied, std::string::npos);
    return result;
}

}  // namespace decodesim::profiles
