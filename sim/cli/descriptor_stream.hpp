#pragma once
// An output stream over a file descriptor that remembers why the first write failed (errno), so the
// CLI can tell a reader that went away (EPIPE: `decodesim sweep ... | head`) from a real failure (a
// full disk, a closed descriptor). Used for standard output and for result files alike.

#include <array>
#include <ostream>
#include <streambuf>

namespace decodesim::cli {

class DescriptorBuffer : public std::streambuf {
public:
    // Does not own `fd`; `first_error` may be preset (EBADF for a descriptor found closed at start).
    explicit DescriptorBuffer(int fd, int first_error = 0);
    ~DescriptorBuffer() override;

    // errno of the first failed write, 0 while every write has succeeded.
    int first_error() const { return first_error_; }

protected:
    int_type overflow(int_type character) override;
    int sync() override;
    std::streamsize xsputn(const char* data, std::streamsize size) override;

private:
    bool drain();  // writes the buffer out; false (and first_error set) on failure
    bool write_all(const char* data, std::size_t size);

    int fd_;
    int first_error_;
    std::array<char, 1 << 16> buffer_{};
};

}  // namespace decodesim::cli
