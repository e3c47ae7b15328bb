#pragma once
// Every file decodesim reads goes through here, so one set of rules holds for all of them: the path
// must name a regular file (not a folder, a FIFO, a device or a socket), opening never blocks, a
// symbolic-link loop or an over-long name is named as such, and the size is capped before the
// contents are read. Each refusal is an InputError naming the path.

#include <cstddef>
#include <string>
#include <string_view>

namespace decodesim::profiles {

// Profiles and config.json files are a few kB; request traces hold millions of rows.
inline constexpr std::size_t kMaxInputBytes = 16u << 20;

// Reads a whole input file, refusing files over `max_bytes`, with `expected` saying what size is normal.
// Every input is text: the encoding rule (require_utf8_text) is applied and a UTF-8 byte-order mark
// is dropped, so every reader, YAML, JSON and CSV alike, sees the same text.
std::string read_input_file(const std::string& path, std::size_t max_bytes = kMaxInputBytes,
                            std::string_view expected = "a profile or config.json is a few kB");

// The one encoding rule for every text decodesim reads, from a file or from memory: UTF-16 and
// UTF-32 (what some Windows editors save) are named as such, NUL bytes are "not a text file"; a
// UTF-8 byte-order mark is removed from the front of `text`. `name` is the file the message names.
void require_utf8_text(std::string& text, const std::string& name);

// What a file-type mode (stat's st_mode) is, in words: "a folder", "a FIFO (named pipe)", "a device",
// "a socket", "a file". Shared by the input and the output rules so both name things alike.
std::string file_kind(unsigned mode);

// What stands at `path`, for callers that accept either a file or a folder (a model folder).
enum class PathKind { missing, regular_file, folder, other };
PathKind path_kind(const std::string& path);

// Throws an InputError naming `path` unless it is a folder that can be listed; `what` says what
// the folder is for ("--profiles-dir").
void require_folder(const std::string& path, std::string_view what);

}  // namespace decodesim::profiles
