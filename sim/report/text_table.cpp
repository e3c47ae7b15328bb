#include "report/text_table.hpp"

#include <algorithm>

#include "core/text_escape.hpp"

namespace decodesim::report {

TextTable::TextTable(std::vector<std::string> header) { rows_.push_back(std::move(header)); }

// Cells are made printable on the way in: a name holding a newline or a terminal escape would break the table.
void TextTable::add_row(std::vector<std::string> row) {
    for (auto& cell : row) cell = core::printable(cell);
    rows_.push_back(std::move(row));
}

std::string TextTable::render() const {
    std::vector<std::size_t> widths;
    for (const auto& row : rows_) {
        widths.resize(std::max(widths.size(), row.size()), 0);
        for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
    }
    std::string text;
    for (std::size_t r = 0; r < rows_.size(); ++r) {
        const auto& row = rows_[r];
        for (std::size_t i = 0; i < row.size(); ++i) {
            const std::string padding(widths[i] - row[i].size(), ' ');
            if (i > 0) text += "  ";
            text += i == 0 ? row[i] + padding : padding + row[i];
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
