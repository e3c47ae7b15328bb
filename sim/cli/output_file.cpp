#include "cli/output_file.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>

#include "core/error.hpp"

namespace decodesim::cli {

namespace fs = std::filesystem;

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
    const fs::path target(path_);
    temporary_ = (target.parent_path() / fmt::format(".{}.tmp-{}", target.filename().string(), ::getpid())).string();
    stream_.open(temporary_, std::ios::binary | std::ios::trunc);
    if (!stream_) fail("cannot write here (is the folder there and writable?)");
}

AtomicFile::~AtomicFile() {
    if (committed_) return;
    std::error_code ignored;
    fs::remove(temporary_, ignored);
}

void AtomicFile::fail(const std::string& why) {
    std::error_code ignored;
    stream_.close();
    fs::remove(temporary_, ignored);
    throw core::InputError(core::Diagnostic{{path_, 0, 0}, "", why});
}

void AtomicFile::commit() {
    stream_.flush();
    if (!stream_) fail("writing failed (disk full?)");
    stream_.close();
    std::error_code error;
    fs::rename(temporary_, path_, error);
    if (error) fail(fmt::format("cannot replace the file: {}", error.message()));
    committed_ = true;
}

void write_file_atomically(const std::string& path, const std::string& contents) {
    AtomicFile file(path);
    file.stream().write(contents.data(), static_cast<std::streamsize>(contents.size()));
    file.commit();
}

}  // namespace decodesim::cli
