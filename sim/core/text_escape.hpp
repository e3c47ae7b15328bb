#pragma once
// Every name that reaches an output (ids from file names, model names from config.json, labels)
// is escaped here for the format it lands in, so a quote, a comma, a newline, a control character
// or a byte that is not UTF-8 can never break a CSV row, a JSON document or an SVG/HTML page
// (docs/robustness.md, "Escaping"). Invalid UTF-8 becomes U+FFFD in every format.

#include <string>
#include <string_view>

namespace decodesim::core {

// The text with each byte sequence that is not valid UTF-8 replaced by U+FFFD.
std::string valid_utf8(std::string_view text);

// A JSON string literal, quotes included: ", \ and control characters escaped.
std::string json_string(std::string_view text);

// A CSV field (RFC 4180): quoted, with quotes doubled, when it holds a comma, a quote, CR or LF;
// other control characters are replaced by a space.
std::string csv_field(std::string_view text);

// Text for XML, SVG and HTML content or attributes: & < > " ' escaped, and the control characters
// XML 1.0 forbids (all below U+0020 but tab, LF and CR) replaced by a space.
std::string xml_text(std::string_view text);

// Text for a one-line terminal message: control characters shown as \n, \t, \xNN.
std::string printable(std::string_view text);

}  // namespace decodesim::core
