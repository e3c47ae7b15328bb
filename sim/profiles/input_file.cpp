#include "profiles/input_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/error.hpp"

namespace decodesim::profiles {

namespace {

// Why an open() or stat() of an input failed, in the user's words.
std::string open_failure(int error) {
    switch (error) {
        case ENOENT: return "no such file";
        case ENOTDIR: return "no such file (a part of the path is not a folder)";
        case ELOOP: return "a loop of symbolic links; it never reaches a file";
        case ENAMETOOLONG: return "the name is longer than the file system allows";
        case EACCES: return "permission denied";
        default: return fmt::format("cannot open the file: {}", std::strerror(error));
    }
}

// Closes the descriptor on every path out of read_input_file.
struct Descriptor {
    int fd;
    ~Descriptor() {
        if (fd >= 0) ::close(fd);
    }
};

}  // namespace

std::string file_kind(unsigned mode) {
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISREG(mode)) return "a file";
    return "not a regular file";
}

std::string read_input_file(const std::string& path, std::size_t max_bytes, std::string_view expected) {
    if (path.empty()) core::refuse_file(path, "", "an empty file name");
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
    const Descriptor file{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
    if (file.fd < 0) core::refuse_file(path, "", open_failure(errno));
    struct stat status {};
    if (::fstat(file.fd, &status) != 0) core::refuse_file(path, "", open_failure(errno));
    if (!S_ISREG(status.st_mode)) core::refuse_file(path, "", fmt::format("{}; expected a regular file", file_kind(status.st_mode)));
    const auto too_large = [&] {
        core::refuse_file(path, "", fmt::format("the file is larger than {} MiB; {}", max_bytes >> 20, expected));
    };
    if (static_cast<std::size_t>(status.st_size) > max_bytes) too_large();
    std::string text;
    char chunk[65536];
    for (;;) {
        const ssize_t got = ::read(file.fd, chunk, sizeof chunk);
        if (got < 0) {
            if (errno == EINTR) continue;
            core::refuse_file(path, "", fmt::format("reading failed: {}", std::strerror(errno)));
        }
        if (got == 0) break;
        text.append(chunk, static_cast<std::size_t>(got));
        if (text.size() > max_bytes) too_large();  // a file that grew while read
    }
    require_utf8_text(text, path);
    return text;
}

void require_utf8_text(std::string& text, const std::string& name) {
    const auto starts_with = [&](std::string_view prefix) { return std::string_view(text).starts_with(prefix); };
    const bool utf32 = starts_with(std::string_view("\xFF\xFE\0\0", 4)) || starts_with(std::string_view("\0\0\xFE\xFF", 4));
    // Without a mark, UTF-16 shows as text whose first two bytes hold exactly one NUL.
    const bool utf16 = !utf32 && (starts_with("\xFF\xFE") || starts_with("\xFE\xFF") ||
                                  (text.size() >= 2 && (text[0] == '\0') != (text[1] == '\0')));
    if (utf16 || utf32) {
        throw core::InputError(core::Diagnostic{
            {name, 1, 1}, "", fmt::format("the file is encoded as {}; save it as UTF-8", utf32 ? "UTF-32" : "UTF-16")});
    }
    if (starts_with("\xEF\xBB\xBF")) text.erase(0, 3);
    if (const auto nul = text.find('\0'); nul != std::string::npos) {
        // Named where the first one stands.
        const auto before = text.begin() + static_cast<std::ptrdiff_t>(nul);
        const int line = 1 + static_cast<int>(std::count(text.begin(), before, '\n'));
        const auto line_start = text.rfind('\n', nul);
        const int column = 1 + static_cast<int>(line_start == std::string::npos ? nul : nul - line_start - 1);
        throw core::InputError(core::Diagnostic{{name, line, column}, "", "not a text file (it contains NUL bytes)"});
    }
}

PathKind path_kind(const std::string& path) {
    struct stat status {};
    if (path.empty() || ::stat(path.c_str(), &status) != 0) return PathKind::missing;
    if (S_ISREG(status.st_mode)) return PathKind::regular_file;
    if (S_ISDIR(status.st_mode)) return PathKind::folder;
    return PathKind::other;
}

void require_folder(const std::string& path, std::string_view what) {
    struct stat status {};
    if (path.empty()) core::refuse_file(path, "", fmt::format("{}: an empty folder name", what));
    if (::stat(path.c_str(), &status) != 0) {
        const int error = errno;
        core::refuse_file(path, "", fmt::format("{}: {}", what, error == ENOENT ? "no such folder" : open_failure(error)));
    }
    if (!S_ISDIR(status.st_mode)) {
        core::refuse_file(path, "", fmt::format("{}: {}; expected a folder", what, file_kind(status.st_mode)));
    }
    if (::access(path.c_str(), R_OK | X_OK) != 0) core::refuse_file(path, "", fmt::format("{}: the folder cannot be read", what));
}

}  // namespace decodesim::profiles
