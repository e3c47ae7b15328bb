#pragma once
// Writes a result file whole or not at all: a temporary file in the same folder, renamed into
// place, so an interrupted run never leaves a truncated file or clobbers a good one. The one
// implementation of output files; every command that writes one uses it.

#include <fstream>
#include <string>

namespace decodesim::cli {

class AtomicFile {
public:
    // Throws core::InputError naming the path when the folder is not writable.
    explicit AtomicFile(std::string path);
    ~AtomicFile();  // removes the temporary file unless committed
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    std::ostream& stream() { return stream_; }
    // Flushes, checks every write succeeded, and renames the file into place; throws InputError otherwise.
    void commit();

private:
    [[noreturn]] void fail(const std::string& why);

    std::string path_;
    std::string temporary_;
    std::ofstream stream_;
    bool committed_ = false;
};

void write_file_atomically(const std::string& path, const std::string& contents);

}  // namespace decodesim::cli
