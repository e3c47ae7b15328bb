#include "profiles/strict_map.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/suggest.hpp"
#include "profiles/long_lists.hpp"
#include "core/text_escape.hpp"

namespace decodesim::profiles {

core::SourceLocation location_of_node(const std::string& file, const YAML::Node& node) {
    const YAML::Mark mark = node.Mark();
    if (mark.is_null()) return {file, 0, 0};
    return {file, mark.line + 1, mark.column + 1};
}

YAML::Node parse_document(const std::string& text, const std::string& name) {
    if (text.size() > kMaxInputBytes) {
        throw core::InputError(core::Diagnostic{{name, 0, 0}, "", "the input is larger than 16 MiB"});
    }
    // The encoding rule every input follows (texts given in memory, as the Python module's, too).
    std::string utf8 = text;
    require_utf8_text(utf8, name);
    try {
        YAML::Node document = YAML::Load(elide_long_scalar_lists(utf8));
        if (!document || document.IsNull()) {
            throw core::InputError(core::Diagnostic{{name, 1, 1}, "", "the file is empty; expected a mapping of keys"});
        }
        return document;
    } catch (const YAML::Exception& error) {
        const int line = error.mark.is_null() ? 0 : error.mark.line + 1;
        const int column = error.mark.is_null() ? 0 : error.mark.column + 1;
        std::string message = "not valid YAML/JSON: " + error.msg;
        if (error.msg.find("tab") != std::string::npos) message += " (YAML indents with spaces only; replace the tab)";
        throw core::InputError(core::Diagnostic{{name, line, column}, "", message});
    }
}

YAML::Node load_document(const std::string& path) { return parse_document(read_input_file(path), path); }

StrictMap::StrictMap(const YAML::Node& node, std::string file, std::string key_prefix,
                     std::vector<core::Diagnostic>& diagnostics)
    : node_(node), file_(std::move(file)), prefix_(std::move(key_prefix)), diagnostics_(&diagnostics) {
    if (!node_.IsMap()) {
        const std::string what = node_.IsSequence() ? "a list" : node_.IsScalar() ? "a single value" : "nothing";
        diagnostics_->push_back({location_of_node(file_, node_), prefix_,
                                 "expected a mapping of keys, found " + what});
        return;
    }
    valid_ = true;
    std::set<std::string> seen;
    for (const auto& entry : node_) {
        const std::string key = entry.first.Scalar();
        if (!seen.insert(key).second) {
            diagnostics_->push_back({location_of_node(file_, entry.first), path_of(key),
                                     "duplicate key; each key may appear once"});
        }
    }
}

std::string StrictMap::path_of(const std::string& key) const { return prefix_.empty() ? key : prefix_ + "." + key; }

core::SourceLocation StrictMap::location() const { return location_of_node(file_, node_); }

core::SourceLocation StrictMap::location_of(const std::string& key) const {
    if (valid_) {
        for (const auto& entry : node_) {
            if (entry.first.Scalar() == key) return location_of_node(file_, entry.second);
        }
    }
    return location();
}

void StrictMap::error(const std::string& key, const std::string& message) {
    diagnostics_->push_back({location_of(key), path_of(key), message});
}

bool StrictMap::has(const std::string& key) const {
    if (!valid_) return false;
    for (const auto& entry : node_) {
        if (entry.first.Scalar() == key) return !entry.second.IsNull();
    }
    return false;
}

void StrictMap::accept(const std::string& key) { read_keys_.insert(key); }

std::optional<YAML::Node> StrictMap::scalar(const std::string& key, Presence presence, const char* expected) {
    read_keys_.insert(key);
    if (!valid_) return std::nullopt;
    for (const auto& entry : node_) {
        if (entry.first.Scalar() != key) continue;
        if (entry.second.IsNull()) break;
        if (!entry.second.IsScalar()) {
            error(key, fmt::format("expected {}, found {}", expected, entry.second.IsMap() ? "a mapping" : "a list"));
            return std::nullopt;
        }
        return entry.second;
    }
    if (presence == Presence::required) {
        diagnostics_->push_back({location(), path_of(key), fmt::format("missing required key; expected {}", expected)});
    }
    return std::nullopt;
}

std::optional<std::string> StrictMap::nonempty_text(const std::string& key, Presence presence) {
    const auto node = scalar(key, presence, "a text value");
    if (!node) return std::nullopt;
    std::string text = node->Scalar();
    if (text.empty()) {
        error(key, "expected a non-empty text value");
        return std::nullopt;
    }
    return text;
}

std::optional<std::string> StrictMap::string(const std::string& key, Presence presence) {
    const auto text = nonempty_text(key, presence);
    if (!text) return std::nullopt;
    return core::printable(*text);  // names reach terminals and every output: no control characters
}

std::optional<std::string> StrictMap::text_block(const std::string& key, Presence presence) {
    const auto text = nonempty_text(key, presence);
    if (!text) return std::nullopt;
    std::string kept;
    for (std::size_t from = 0; from <= text->size();) {
        const std::size_t end = std::min(text->find('\n', from), text->size());
        if (from > 0) kept += '\n';
        kept += core::printable(text->substr(from, end - from));
        from = end + 1;
    }
    return kept;
}

std::optional<double> StrictMap::quantity(const std::string& key, core::Dimension dimension, Presence presence) {
    const auto node = scalar(key, presence, "a value with a unit");
    if (!node) return std::nullopt;
    try {
        return core::parse_quantity(node->Scalar(), dimension);
    } catch (const core::UnitError& problem) {
        error(key, problem.what());
        return std::nullopt;
    }
}

std::optional<double> StrictMap::positive_number(const std::string& key, Presence presence, double maximum) {
    const auto node = scalar(key, presence, "a number");
    if (!node) return std::nullopt;
    double value = 0.0;
    if (!core::parse_number(node->Scalar(), value)) {
        error(key, fmt::format("expected a finite number, found '{}'", node->Scalar()));
        return std::nullopt;
    }
    if (value <= 0.0 || value > maximum) {
        error(key, fmt::format("expected a number greater than 0 and at most {:g}, found '{}'", maximum, node->Scalar()));
        return std::nullopt;
    }
    return value;
}

std::optional<double> StrictMap::non_negative_number(const std::string& key, Presence presence, double maximum) {
    const auto node = scalar(key, presence, "a number");
    if (!node) return std::nullopt;
    double value = 0.0;
    if (!core::parse_number(node->Scalar(), value) || value < 0.0 || value > maximum) {
        error(key, fmt::format("expected a number from 0 to {:g}, found '{}'", maximum, node->Scalar()));
        return std::nullopt;
    }
    return value;
}

std::optional<double> StrictMap::fraction(const std::string& key, Presence presence) {
    const auto node = scalar(key, presence, "a fraction in [0.01, 1]");
    if (!node) return std::nullopt;
    double value = 0.0;
    // Below 1%, an efficiency or a power mode's share is a typo, and would turn times absurd (1e-300 gave 1e297 s).
    if (!core::parse_number(node->Scalar(), value) || value < 0.01 || value > 1.0) {
        error(key, fmt::format("expected a fraction in [0.01, 1], found '{}'", node->Scalar()));
        return std::nullopt;
    }
    return value;
}

namespace {
std::optional<std::int64_t> parse_integer(const std::string& text) {
    std::int64_t value = 0;
    if (!core::parse_whole_number(text, value)) return std::nullopt;
    return value;
}
}  // namespace

std::optional<std::int64_t> StrictMap::positive_integer(const std::string& key, Presence presence,
                                                        std::int64_t maximum) {
    const auto node = scalar(key, presence, "a positive integer");
    if (!node) return std::nullopt;
    const auto value = parse_integer(node->Scalar());
    if (!value || *value <= 0 || *value > maximum) {
        error(key, fmt::format("expected a whole number from 1 to {}, found '{}'", maximum, node->Scalar()));
        return std::nullopt;
    }
    return value;
}

std::optional<std::int64_t> StrictMap::non_negative_integer(const std::string& key, Presence presence,
                                                            std::int64_t maximum) {
    const auto node = scalar(key, presence, "a whole number");
    if (!node) return std::nullopt;
    const auto value = parse_integer(node->Scalar());
    if (!value || *value < 0 || *value > maximum) {
        error(key, fmt::format("expected a whole number from 0 to {}, found '{}'", maximum, node->Scalar()));
        return std::nullopt;
    }
    return value;
}

std::optional<bool> StrictMap::boolean(const std::string& key, Presence presence) {
    const auto node = scalar(key, presence, "true or false");
    if (!node) return std::nullopt;
    const std::string& text = node->Scalar();
    if (text == "true") return true;
    if (text == "false") return false;
    error(key, fmt::format("expected true or false, found '{}'", text));
    return std::nullopt;
}

std::optional<StrictMap> StrictMap::map(const std::string& key, Presence presence) {
    read_keys_.insert(key);
    if (!valid_) return std::nullopt;
    for (const auto& entry : node_) {
        if (entry.first.Scalar() != key) continue;
        if (!entry.second.IsMap()) {
            error(key, "expected a mapping of keys");
            return std::nullopt;
        }
        return StrictMap(entry.second, file_, path_of(key), *diagnostics_);
    }
    if (presence == Presence::required) {
        diagnostics_->push_back({location(), path_of(key), "missing required section"});
    }
    return std::nullopt;
}

std::optional<std::vector<std::int64_t>> StrictMap::increasing_integers(const std::string& key, Presence presence,
                                                                         std::int64_t maximum) {
    return whole_number_list(key, presence, 1, maximum, true);
}

std::optional<std::vector<std::int64_t>> StrictMap::integers(const std::string& key, Presence presence,
                                                             std::int64_t minimum, std::int64_t maximum) {
    return whole_number_list(key, presence, minimum, maximum, false);
}

std::optional<YAML::Node> StrictMap::nonempty_list(const std::string& key, Presence presence, const char* what) {
    read_keys_.insert(key);
    if (!valid_) return std::nullopt;
    for (const auto& entry : node_) {
        if (entry.first.Scalar() != key) continue;
        if (!entry.second.IsSequence() || entry.second.size() == 0) {
            error(key, fmt::format("expected a non-empty list of {}", what));
            return std::nullopt;
        }
        return entry.second;
    }
    if (presence == Presence::required) {
        diagnostics_->push_back({location(), path_of(key), "missing required list"});
    }
    return std::nullopt;
}

void StrictMap::item_error(const std::string& key, std::size_t index, const YAML::Node& item, const std::string& message) {
    diagnostics_->push_back({location_of_node(file_, item), fmt::format("{}[{}]", path_of(key), index), message});
}

std::optional<std::vector<std::string>> StrictMap::strings(const std::string& key, Presence presence) {
    const auto list = nonempty_list(key, presence, "names");
    if (!list) return std::nullopt;
    std::vector<std::string> values;
    for (std::size_t i = 0; i < list->size(); ++i) {
        const YAML::Node item = (*list)[i];
        if (!item.IsScalar() || item.Scalar().empty()) {
            item_error(key, i, item, "expected a name");
            return std::nullopt;
        }
        values.push_back(core::printable(item.Scalar()));  // names reach terminals: no control characters
    }
    return values;
}

std::optional<std::vector<std::int64_t>> StrictMap::whole_number_list(const std::string& key, Presence presence,
                                                                      std::int64_t minimum, std::int64_t maximum,
                                                                      bool increasing) {
    const auto list = nonempty_list(key, presence, "whole numbers");
    if (!list) return std::nullopt;
    std::vector<std::int64_t> values;
    for (std::size_t i = 0; i < list->size(); ++i) {
        const YAML::Node item = (*list)[i];
        double value = 0.0;
        const bool number = item.IsScalar() && core::parse_number(item.Scalar(), value);
        if (!number || value < static_cast<double>(minimum) || value > static_cast<double>(maximum) ||
            value != static_cast<double>(static_cast<std::int64_t>(value))) {
            item_error(key, i, item, fmt::format("expected a whole number from {} to {}", minimum, maximum));
            return std::nullopt;
        }
        if (increasing && !values.empty() && static_cast<std::int64_t>(value) <= values.back()) {
            item_error(key, i, item, "expected the numbers in increasing order");
            return std::nullopt;
        }
        values.push_back(static_cast<std::int64_t>(value));
    }
    return values;
}

std::vector<StrictMap> StrictMap::list_of_maps(const std::string& key, Presence presence) {
    read_keys_.insert(key);
    std::vector<StrictMap> items;
    if (!valid_) return items;
    for (const auto& entry : node_) {
        if (entry.first.Scalar() != key) continue;
        if (!entry.second.IsSequence() || entry.second.size() == 0) {
            error(key, "expected a non-empty list of mappings");
            return items;
        }
        for (std::size_t i = 0; i < entry.second.size(); ++i) {
            items.emplace_back(entry.second[i], file_, fmt::format("{}[{}]", path_of(key), i), *diagnostics_);
        }
        return items;
    }
    if (presence == Presence::required) {
        diagnostics_->push_back({location(), path_of(key), "missing required list"});
    }
    return items;
}

void StrictMap::reject_unknown_keys(const std::vector<std::string>& known_keys) {
    if (!valid_) return;
    for (const auto& entry : node_) {
        const std::string key = entry.first.Scalar();
        if (read_keys_.count(key) != 0) continue;
        diagnostics_->push_back({location_of_node(file_, entry.first), path_of(key),
                                 "unknown key" + core::did_you_mean(key, known_keys)});
    }
}

}  // namespace decodesim::profiles
