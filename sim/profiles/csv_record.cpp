#include "profiles/csv_record.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/text_escape.hpp"

namespace decodesim::profiles {

std::vector<std::string> split_csv_record(const std::string& line, bool& well_formed) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    well_formed = true;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                fields.back() += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                fields.back() += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            fields.emplace_back();
        } else if (c != '\r') {
            fields.back() += c;
        }
    }
    well_formed = !quoted;
    return fields;
}

std::vector<std::string> split_trimmed_csv_record(const std::string& line, bool& well_formed) {
    auto fields = split_csv_record(line, well_formed);
    for (auto& field : fields) {
        const auto first = field.find_first_not_of(' ');
        field = first == std::string::npos ? std::string() : field.substr(first, field.find_last_not_of(' ') - first + 1);
    }
    return fields;
}

std::vector<int> header_columns(const std::vector<std::string>& fields, const std::vector<std::string>& known,
                                std::initializer_list<int> required, const std::string& path, const std::string& expected) {
    std::vector<int> columns;
    for (std::size_t i = 0; i < fields.size(); ++i) {
        const auto found = std::find(known.begin(), known.end(), fields[i]);
        if (found == known.end()) {
            throw core::InputError(core::Diagnostic{{path, 1, static_cast<int>(i) + 1}, core::printable(fields[i]),
                                                    "unknown column; expected " + expected});
        }
        columns.push_back(static_cast<int>(found - known.begin()));
    }
    for (int column : required) {
        if (std::find(columns.begin(), columns.end(), column) == columns.end()) {
            throw core::InputError(core::Diagnostic{{path, 1, 1}, known[static_cast<std::size_t>(column)], "missing column"});
        }
    }
    return columns;
}

}  // namespace decodesim::profiles
