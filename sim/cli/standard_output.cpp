#include "cli/standard_output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "cli/app.hpp"

namespace decodesim::cli {

namespace {

// Opens /dev/null on each of 0-2 that is closed; returns EBADF when standard output was closed.
int reserve_closed_descriptors() {
    int stdout_error = 0;
    for (int fd = 0; fd <= 2; ++fd) {
        if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
        if (fd == 1) stdout_error = EBADF;
        // open() returns the lowest free descriptor, which is `fd` itself.
        const int reserved = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
        if (reserved >= 0 && reserved != fd) ::close(reserved);
    }
    return stdout_error;
}

}  // namespace

StandardOutput::StandardOutput() : buffer_(1, reserve_closed_descriptors()), out_(&buffer_) {
    std::signal(SIGPIPE, SIG_IGN);
}

int StandardOutput::finish(int exit_code, std::ostream& err) {
    out_.flush();
    const int error = buffer_.first_error();
    if (error == 0 || error == EPIPE) return exit_code;
    const char* why = error == EBADF    ? "standard output is closed"
                      : error == ENOSPC ? "the disk is full"
                                        : std::strerror(error);
    err << "decodesim: error: cannot write the results to standard output: " << why << "\n";
    return exit_code == kSuccess ? kBadInput : exit_code;
}

}  // namespace decodesim::cli
