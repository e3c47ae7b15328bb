#pragma once
// A strict view over one YAML mapping: every key read is marked, duplicates and unknown keys
// are reported with a suggestion, and every value is checked for its type, unit and range.
// Problems are collected (not thrown) so that one load reports all of them.

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/units.hpp"
#include "profiles/input_file.hpp"

namespace decodesim::profiles {

enum class Presence { required, optional };

class StrictMap {
public:
    // `node` must be a map; when it is not, one diagnostic is recorded and every read finds nothing.
    StrictMap(const YAML::Node& node, std::string file, std::string key_prefix,
              std::vector<core::Diagnostic>& diagnostics);

    bool has(const std::string& key) const;
    // Marks a key as known without reading it (keys a caller inspects itself).
    void accept(const std::string& key);

    std::optional<std::string> string(const std::string& key, Presence presence);
    // A text of several lines (a YAML block scalar): its line breaks kept, each line as string() reads it.
    std::optional<std::string> text_block(const std::string& key, Presence presence);
    std::optional<double> quantity(const std::string& key, core::Dimension dimension, Presence presence);
    // A positive integer no larger than `maximum`.
    std::optional<std::int64_t> positive_integer(const std::string& key, Presence presence,
                                                 std::int64_t maximum = std::int64_t{1} << 40);
    // An integer >= 0 (for counts where zero means "none").
    std::optional<std::int64_t> non_negative_integer(const std::string& key, Presence presence,
                                                     std::int64_t maximum = std::int64_t{1} << 40);
    // A positive finite number, optionally capped.
    std::optional<double> positive_number(const std::string& key, Presence presence, double maximum = 1e300);
    // A finite number from 0 to `maximum`.
    std::optional<double> non_negative_number(const std::string& key, Presence presence, double maximum);
    // A fraction in [0.01, 1] (smaller shares are typos).
    std::optional<double> fraction(const std::string& key, Presence presence);
    std::optional<bool> boolean(const std::string& key, Presence presence);
    std::optional<StrictMap> map(const std::string& key, Presence presence);
    // A non-empty list of positive integers, each at most `maximum`, in increasing order.
    std::optional<std::vector<std::int64_t>> increasing_integers(const std::string& key, Presence presence,
                                                                 std::int64_t maximum);
    // A non-empty list of whole numbers, each from `minimum` to `maximum`, in any order.
    std::optional<std::vector<std::int64_t>> integers(const std::string& key, Presence presence, std::int64_t minimum,
                                                      std::int64_t maximum);
    // A non-empty list of non-empty strings.
    std::optional<std::vector<std::string>> strings(const std::string& key, Presence presence);
    // A list of mappings, each a StrictMap whose messages name "key[i]".
    std::vector<StrictMap> list_of_maps(const std::string& key, Presence presence);

    // Records an error for every key that was never read, with "did you mean".
    void reject_unknown_keys(const std::vector<std::string>& known_keys);

    core::SourceLocation location_of(const std::string& key) const;  // the value's position
    core::SourceLocation location() const;                           // the map's position
    std::string path_of(const std::string& key) const;
    void error(const std::string& key, const std::string& message);

private:
    std::optional<YAML::Node> scalar(const std::string& key, Presence presence, const char* expected);
    // A text value as written, or an error when it is empty.
    std::optional<std::string> nonempty_text(const std::string& key, Presence presence);
    // The key's value when it is a non-empty list; an error ("expected a non-empty list of `what`")
    // when it is there but is not one, "missing required list" when a required one is absent.
    std::optional<YAML::Node> nonempty_list(const std::string& key, Presence presence, const char* what);
    // An error at one item of the list under `key`, named "key[index]".
    void item_error(const std::string& key, std::size_t index, const YAML::Node& item, const std::string& message);
    std::optional<std::vector<std::int64_t>> whole_number_list(const std::string& key, Presence presence,
                                                               std::int64_t minimum, std::int64_t maximum,
                                                               bool increasing);

    YAML::Node node_;
    std::string file_;
    std::string prefix_;
    std::vector<core::Diagnostic>* diagnostics_;
    std::set<std::string> read_keys_;
    bool valid_ = false;
};

core::SourceLocation location_of_node(const std::string& file, const YAML::Node& node);

// Parses one YAML (or JSON) document; `name` is the file name for messages. A parse error, an
// empty document, NUL bytes or nesting deeper than yaml-cpp's guard become an InputError.
YAML::Node parse_document(const std::string& text, const std::string& name);

// read_input_file + parse_document.
YAML::Node load_document(const std::string& path);

}  // namespace decodesim::profiles
