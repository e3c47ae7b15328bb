#include "report/text_table.hpp"

#include <algorithm>
#include <string_view>

#include "core/text_escape.hpp"

namespace decodesim::report {

TextTable::TextTable(std::vector<std::string> header) { rows_.push_back(std::move(header)); }

// Cells are made printable on the way in: a name holding a newline or a terminal escape would break the table.
void TextTable::add_row(std::vector<std::string> row) {
    for (auto& cell : row) cell = core::printable(cell);
    rows_.push_back(std::move(row));
}

namespace {

constexpr std::size_t kGap = 2;  // spaces between columns
constexpr std::string_view kCut = "...";
constexpr std::size_t kNarrowest = 8;  // a column is never cut below this

// The widths that fit `limit`: the widest column loses a character at a time, so long names
// are cut before any figure is.
std::vector<std::size_t> fitted_widths(std::vector<std::size_t> widths, std::size_t limit) {
    auto total = [&] {
        std::size_t sum = 0;
        for (std::size_t width : widths) sum += width + kGap;
        return sum - kGap;
    };
    while (!widths.empty() && total() > limit) {
        auto widest = std::max_element(widths.begin(), widths.end());
        if (*widest <= kNarrowest) break;  // nothing left to cut without losing figures
        --*widest;
    }
    return widths;
}

std::string cut(const std::string& cell, std::size_t width) {
    if (cell.size() <= width) return cell;
    std::size_t end = width - kCut.size();
    // Never inside a UTF-8 sequence: back off over continuation bytes (10xxxxxx).
    while (end > 0 && (static_cast<unsigned char>(cell[end]) & 0xC0) == 0x80) --end;
    return cell.substr(0, end) + std::string(kCut);
}

}  // namespace

std::string TextTable::render() const {
    std::vector<std::size_t> widths;
    for (const auto& row : rows_) {
        widths.resize(std::max(widths.size(), row.size()), 0);
        for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
    }
    widths = fitted_widths(widths, kMaxWidth);
    std::string text;
    for (std::size_t r = 0; r < rows_.size(); ++r) {
        const auto& row = rows_[r];
        for (std::size_t i = 0; i < row.size(); ++i) {
            const std::string cell = cut(row[i], widths[i]);
            const std::string padding(widths[i] - cell.size(), ' ');
            if (i > 0) text += std::string(kGap, ' ');
            text += i == 0 ? cell + padding : padding + cell;
        }
        while (!text.empty() && text.back() == ' ') text.pop_back();
        text += "\n";
        if (r == 0) {
            std::size_t total = 0;
            for (std::size_t w : widths) total += w + 2;
            text += std::string(total >= 2 ? total - 2 : 0, '-') + "\n";
        }
    }
    return text;
}

}  // namespace decodesim::report
