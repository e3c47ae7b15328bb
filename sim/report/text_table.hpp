#pragma once
// A plain aligned text table for humans: first column left-aligned, the rest right-aligned.

#include <string>
#include <vector>

namespace decodesim::report {

class TextTable {
public:
    explicit TextTable(std::vector<std::string> header);
    void add_row(std::vector<std::string> row);
    std::string render() const;

private:
    std::vector<std::vector<std::string>> rows_;
};

}  // namespace decodesim::report
