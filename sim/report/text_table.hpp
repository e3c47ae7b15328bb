#pragma once
// A plain aligned text table for humans: first column left-aligned, the rest right-aligned, and
// no wider than kMaxWidth columns: long names and prose are cut with "..." first; a table still
// too wide is split into several, each led by the first column, so no figure is ever cut.

#include <cstddef>
#include <string>
#include <vector>

namespace decodesim::report {

class TextTable {
public:
    static constexpr std::size_t kMaxWidth = 100;

    explicit TextTable(std::vector<std::string> header);
    void add_row(std::vector<std::string> row);
    std::string render() const;

private:
    std::vector<std::vector<std::string>> rows_;
};

}  // namespace decodesim::report
