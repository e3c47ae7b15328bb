#include "core/text_escape.hpp"

#include <fmt/format.h>

namespace decodesim::core {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the valid UTF-8 sequence starting at text[i], or 0 when it is not one (overlong forms,
// surrogates and code points above U+10FFFF are invalid, as RFC 3629 says).
std::size_t sequence_length(std::string_view text, std::size_t i) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char lead = byte(i);
    if (lead < 0x80) return 1;
    std::size_t length = 0;
    unsigned char low = 0x80, high = 0xBF;  // allowed range of the second byte
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        if (lead == 0xE0) low = 0xA0;
        if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        if (lead == 0xF0) low = 0x90;
        if (lead == 0xF4) high = 0x8F;
    } else {
        return 0;
    }
    if (i + length > text.size()) return 0;
    if (byte(i + 1) < low || byte(i + 1) > high) return 0;
    for (std::size_t k = 2; k < length; ++k) {
        if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
    }
    return length;
}

// Calls `ascii(c)` for each byte below 0x80 and `other(sequence)` for each valid multi-byte
// sequence (U+FFFD in place of each invalid byte).
template <typename Ascii>
std::string transform(std::string_view text, Ascii ascii) {
    std::string result;
    result.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t length = sequence_length(text, i);
        if (length == 0) {
            result += kReplacement;
            ++i;
        } else if (length == 1) {
            ascii(result, text[i]);
            ++i;
        } else {
            result.append(text.substr(i, length));
            i += length;
        }
    }
    return result;
}

bool is_control(char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7F; }

}  // namespace

std::string valid_utf8(std::string_view text) {
    return transform(text, [](std::string& out, char c) { out += c; });
}

std::string json_string(std::string_view text) {
    std::string body = transform(text, [](std::string& out, char c) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (is_control(c)) {
                    out += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
                } else {
                    out += c;
                }
        }
    });
    return "\"" + body + "\"";
}

std::string csv_field(std::string_view text) {
    bool needs_quotes = false;
    std::string body = transform(text, [&](std::string& out, char c) {
        if (c == '"') {
            out += "\"\"";
            needs_quotes = true;
        } else if (c == ',' || c == '\n' || c == '\r') {
            out += c;
            needs_quotes = true;
        } else {
            out += is_control(c) ? ' ' : c;
        }
    });
    return needs_quotes ? "\"" + body + "\"" : body;
}

std::string xml_text(std::string_view text) {
    return transform(text, [](std::string& out, char c) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default: out += (is_control(c) && c != '\t' && c != '\n' && c != '\r') ? ' ' : c;
        }
    });
}

std::string printable(std::string_view text) {
    return transform(text, [](std::string& out, char c) {
        switch (c) {
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            case '\r': out += "\\r"; break;
            default:
                if (is_control(c)) {
                    out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
                } else {
                    out += c;
                }
        }
    });
}

}  // namespace decodesim::core
