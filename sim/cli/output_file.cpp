#include "cli/output_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <random>

#include "core/error.hpp"
#include "profiles/input_file.hpp"

namespace decodesim::cli {

namespace fs = std::filesystem;

namespace {

// Temporary files to remove if the process is interrupted. A signal handler can only reach state
// that lives outside any object, so this is the one process-wide table in decodesim; it holds
// fixed buffers because a handler may not allocate. More than kSlots files at once are still
// removed on every other path out, only not on a signal.
constexpr int kSlots = 8;
constexpr std::size_t kPathBytes = 4096;
std::array<std::array<char, kPathBytes>, kSlots> pending_paths{};
std::array<std::atomic<bool>, kSlots> pending_used{};

extern "C" void remove_pending_and_reraise(int signal_number) {
    for (int slot = 0; slot < kSlots; ++slot) {
        if (pending_used[slot].load()) ::unlink(pending_paths[slot].data());
    }
    std::signal(signal_number, SIG_DFL);
    std::raise(signal_number);
}

// The handlers are in place only while a file is pending, and the caller's own are put back after:
// decodesim also runs inside other programs (the Python module), whose handlers (Python's
// KeyboardInterrupt) must outlive the call.
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
std::mutex handlers_mutex;
int files_pending = 0;
std::array<struct sigaction, std::size(kSignals)> saved_actions{};
std::array<bool, std::size(kSignals)> replaced{};

void install_handlers() {
    for (std::size_t i = 0; i < std::size(kSignals); ++i) {
        struct sigaction action {};
        action.sa_handler = remove_pending_and_reraise;
        sigemptyset(&action.sa_mask);
        // Keep an ignored signal ignored (nohup, a shell's background job).
        replaced[i] = ::sigaction(kSignals[i], nullptr, &saved_actions[i]) == 0 && saved_actions[i].sa_handler != SIG_IGN &&
                      ::sigaction(kSignals[i], &action, nullptr) == 0;
    }
}

void restore_handlers() {
    for (std::size_t i = 0; i < std::size(kSignals); ++i) {
        if (replaced[i]) ::sigaction(kSignals[i], &saved_actions[i], nullptr);
        replaced[i] = false;
    }
}

int register_pending(const std::string& path) {
    if (path.size() >= kPathBytes) return -1;
    const std::lock_guard<std::mutex> lock(handlers_mutex);
    for (int slot = 0; slot < kSlots; ++slot) {
        if (pending_used[slot].load()) continue;
        std::memcpy(pending_paths[slot].data(), path.c_str(), path.size() + 1);
        pending_used[slot].store(true);
        if (files_pending++ == 0) install_handlers();
        return slot;
    }
    return -1;
}

void unregister_pending(int slot) {
    if (slot < 0) return;
    const std::lock_guard<std::mutex> lock(handlers_mutex);
    pending_used[slot].store(false);
    if (--files_pending == 0) restore_handlers();
}

[[noreturn]] void refuse(const std::string& path, std::string why) {
    throw core::InputError(core::Diagnostic{{path, 0, 0}, "", std::move(why)});
}

std::string kind_of(mode_t mode) {
    if (S_ISDIR(mode)) return "a folder; give a file name";
    return profiles::file_kind(mode) + "; decodesim replaces only regular files";
}

// Follows `path` through symbolic links to the name that will be replaced. Sets `existing` to the
// mode of what is there, or leaves it at 0 for a new name.
std::string resolve_target(const std::string& path, mode_t& existing) {
    if (path.empty()) refuse(path, "an empty file name");
    // "-" means standard output to many tools; here it would silently become a file named "-".
    if (path == "-") refuse(path, "'-' would be a file named '-'; omit the flag to print to standard output, or write ./-");
    fs::path current(path);
    for (int hops = 0; hops <= 40; ++hops) {
        struct stat status {};
        if (::lstat(current.c_str(), &status) != 0) {
            const int error = errno;
            if (error == ENOENT) return current.string();  // a new file (its folder is checked on creation)
            if (error == ENAMETOOLONG) refuse(path, "the name is longer than the file system allows");
            if (error == ENOTDIR) refuse(path, "a part of the path is not a folder");
            if (error == ELOOP) refuse(path, "a loop of symbolic links; it never reaches a file");
            refuse(path, fmt::format("cannot write here: {}", std::strerror(error)));
        }
        if (S_ISLNK(status.st_mode)) {
            std::error_code error;
            const fs::path link = fs::read_symlink(current, error);
            if (error) refuse(path, fmt::format("cannot read the symbolic link: {}", error.message()));
            current = link.is_absolute() ? link : current.parent_path() / link;
            continue;
        }
        if (!S_ISREG(status.st_mode)) refuse(path, kind_of(status.st_mode));
        // A read-only file is not replaced behind its owner's back, though the folder would allow it.
        // (No write bit at all counts too: root's access() says yes to everything.)
        if ((status.st_mode & 0222) == 0 || ::access(current.c_str(), W_OK) != 0) {
            refuse(path, "the file is read-only; decodesim does not replace it");
        }
        existing = status.st_mode;
        return current.string();
    }
    refuse(path, "a loop of symbolic links; it never reaches a file");
}

std::string creation_failure(int error) {
    switch (error) {
        case ENOENT: return "the folder does not exist";
        case ENOTDIR: return "a part of the path is not a folder";
        case EACCES:
        case EPERM: return "the folder is not writable";
        case EROFS: return "the file system is read-only";
        case ENOSPC: return "the disk is full";
        case ENAMETOOLONG: return "the name is longer than the file system allows";
        default: return fmt::format("cannot write here: {}", std::strerror(error));
    }
}

}  // namespace

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
    mode_t existing = 0;
    target_ = resolve_target(path_, existing);
    const fs::path target(target_);
    const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::random_device entropy;
    for (int attempt = 0; attempt < 100 && fd_ < 0; ++attempt) {
        // The name is short whatever the target's length, so a name near the file system's limit
        // still gets a temporary beside it.
        temporary_ = (folder / fmt::format(".decodesim-{}-{:08x}.tmp", ::getpid(), entropy())).string();
        fd_ = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0666);
        if (fd_ < 0 && errno != EEXIST) refuse(path_, creation_failure(errno));
    }
    if (fd_ < 0) refuse(path_, "cannot create a unique temporary file beside it");
    slot_ = register_pending(temporary_);
    if (existing != 0 && ::fchmod(fd_, existing & 07777) != 0) {
        // Not fatal: a file owned by someone else in a shared folder; the result keeps our default mode.
    }
    buffer_ = std::make_unique<DescriptorBuffer>(fd_);
    stream_.rdbuf(buffer_.get());
}

AtomicFile::~AtomicFile() {
    if (!committed_) discard();
}

void AtomicFile::discard() {
    buffer_.reset();  // drops what is buffered: the file is going anyway
    stream_.rdbuf(nullptr);
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    if (!temporary_.empty()) ::unlink(temporary_.c_str());
    unregister_pending(slot_);
    slot_ = -1;
}

void AtomicFile::fail(const std::string& why) {
    discard();
    refuse(path_, why);
}

void AtomicFile::commit() {
    stream_.flush();
    const int write_error = buffer_ ? buffer_->first_error() : EBADF;
    if (!stream_ || write_error != 0) {
        fail(write_error == ENOSPC ? "writing failed: the disk is full"
                                   : fmt::format("writing failed: {}", std::strerror(write_error ? write_error : EIO)));
    }
    if (::close(fd_) != 0) {
        fd_ = -1;
        fail(fmt::format("writing failed: {}", std::strerror(errno)));
    }
    fd_ = -1;
    if (::rename(temporary_.c_str(), target_.c_str()) != 0) fail(fmt::format("cannot replace the file: {}", std::strerror(errno)));
    unregister_pending(slot_);
    slot_ = -1;
    committed_ = true;
}

void write_file_atomically(const std::string& path, const std::string& contents) {
    AtomicFile file(path);
    file.stream().write(contents.data(), static_cast<std::streamsize>(contents.size()));
    file.commit();
}

}  // namespace decodesim::cli
