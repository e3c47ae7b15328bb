#pragma once
// Every result file decodesim writes (-o, --svg, report -o, --requests-csv) goes through here, so one
// set of rules holds for all of them (docs/robustness.md, "Output files"):
//  - only a writable regular file or a new name is ever replaced; a folder, a device, a FIFO, a
//    socket or a read-only file is refused, naming the path; so is "-" (not standard output here);
//  - a symbolic link is written through: its target is replaced and the link kept (a dangling link
//    creates its target, as the shell's `>` does); a loop of links is refused;
//  - the result is written to a temporary file created exclusively, under a unique name, in the
//    target's folder, then renamed into place, so readers see the old file or the whole new one and
//    two concurrent writers never interleave;
//  - a replaced file keeps its permission bits; a new one gets 0666 less the umask;
//  - the temporary file is removed on failure, on destruction, and on SIGINT/SIGTERM.

#include <memory>
#include <ostream>
#include <string>

#include "cli/descriptor_stream.hpp"

namespace decodesim::cli {

class AtomicFile {
public:
    // Throws core::InputError naming the path when it cannot be written.
    explicit AtomicFile(std::string path);
    ~AtomicFile();  // removes the temporary file unless committed
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    std::ostream& stream() { return stream_; }
    // Flushes, checks every write succeeded, and renames the file into place; throws InputError otherwise.
    void commit();
    // The file that is replaced: `path` itself, or the end of the chain of links it names.
    const std::string& target() const { return target_; }

private:
    [[noreturn]] void fail(const std::string& why);
    void discard();

    std::string path_;
    std::string target_;
    std::string temporary_;
    int fd_ = -1;
    int slot_ = -1;  // where the temporary is registered for removal on a signal
    std::unique_ptr<DescriptorBuffer> buffer_;
    std::ostream stream_{nullptr};
    bool committed_ = false;
};

void write_file_atomically(const std::string& path, const std::string& contents);

}  // namespace decodesim::cli
