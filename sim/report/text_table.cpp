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
// Columns wider than this hold names and prose, which may be cut; narrower ones hold figures and
// short labels, which are never cut: a table too wide without them is split instead.
constexpr std::size_t kLongestUncut = 24;

std::size_t total_width(const std::vector<std::size_t>& widths, const std::vector<std::size_t>& columns) {
    std::size_t sum = 0;
    for (std::size_t column : columns) sum += widths[column] + kGap;
    return sum == 0 ? 0 : sum - kGap;
}

// Cuts the long columns, the widest first a character at a time, until `columns` fit `limit` or
// none is left wider than kLongestUncut.
void cut_long_columns(std::vector<std::size_t>& widths, const std::vector<std::size_t>& columns, std::size_t limit) {
    while (total_width(widths, columns) > limit) {
        std::size_t* widest = nullptr;
        for (std::size_t column : columns) {
            if (widest == nullptr || widths[column] > *widest) widest = &widths[column];
        }
        if (widest == nullptr || *widest <= kLongestUncut) return;
        --*widest;
    }
}

// Groups of columns that each fit `limit`, every group led by the first column (the row's name).
std::vector<std::vector<std::size_t>> column_groups(const std::vector<std::size_t>& widths, std::size_t limit) {
    std::vector<std::vector<std::size_t>> groups{{0}};
    for (std::size_t column = 1; column < widths.size(); ++column) {
        std::vector<std::size_t> wider = groups.back();
        wider.push_back(column);
        if (total_width(widths, wider) <= limit || groups.back().size() == 1) {
            groups.back() = std::move(wider);
        } else {
            groups.push_back({0, column});
        }
    }
    return groups;
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
    std::vector<std::size_t> all(widths.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    cut_long_columns(widths, all, kMaxWidth);
    std::string text;
    for (const auto& columns : column_groups(widths, kMaxWidth)) {
        if (!text.empty()) text += "\n";
        for (std::size_t r = 0; r < rows_.size(); ++r) {
            const auto& row = rows_[r];
            std::string line;
            for (std::size_t column : columns) {
                const std::string cell = cut(column < row.size() ? row[column] : std::string(), widths[column]);
                const std::string padding(widths[column] - cell.size(), ' ');
                if (column > 0) line += std::string(kGap, ' ');
                line += column == 0 ? cell + padding : padding + cell;
            }
            while (!line.empty() && line.back() == ' ') line.pop_back();
            text += line + "\n";
            if (r == 0) text += std::string(total_width(widths, columns), '-') + "\n";
        }
    }
    return text;
}

}  // namespace decodesim::report
