#pragma once
// A plain aligned text table for humans: first column left-aligned, the rest right-aligned, and
// no wider than a terminal of kMaxWidth columns: the widest columns are cut, with "...", until it fits.

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
