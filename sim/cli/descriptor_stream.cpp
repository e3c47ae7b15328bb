#include "cli/descriptor_stream.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace decodesim::cli {

DescriptorBuffer::DescriptorBuffer(int fd, int first_error) : fd_(fd), first_error_(first_error) {
    setp(buffer_.data(), buffer_.data() + buffer_.size());
}

DescriptorBuffer::~DescriptorBuffer() { drain(); }

bool DescriptorBuffer::write_all(const char* data, std::size_t size) {
    if (first_error_ != 0) return false;  // after a failure nothing more is written
    while (size > 0) {
        const ssize_t written = ::write(fd_, data, size);
        if (written < 0) {
            if (errno == EINTR) continue;
            first_error_ = errno;
            return false;
        }
        data += written;
        size -= static_cast<std::size_t>(written);
    }
    return true;
}

bool DescriptorBuffer::drain() {
    const auto pending = static_cast<std::size_t>(pptr() - pbase());
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return pending == 0 || write_all(buffer_.data(), pending);
}

DescriptorBuffer::int_type DescriptorBuffer::overflow(int_type character) {
    if (!drain()) return traits_type::eof();
    if (traits_type::eq_int_type(character, traits_type::eof())) return traits_type::not_eof(character);
    *pptr() = traits_type::to_char_type(character);
    pbump(1);
    return character;
}

int DescriptorBuffer::sync() { return drain() ? 0 : -1; }

std::streamsize DescriptorBuffer::xsputn(const char* data, std::streamsize size) {
    const auto length = static_cast<std::size_t>(size);
    const auto room = static_cast<std::size_t>(epptr() - pptr());
    if (length <= room) {
        std::memcpy(pptr(), data, length);
        pbump(static_cast<int>(length));
        return size;
    }
    if (!drain()) return 0;
    if (length < buffer_.size()) {
        std::memcpy(pptr(), data, length);
        pbump(static_cast<int>(length));
        return size;
    }
    return write_all(data, length) ? size : 0;
}

}  // namespace decodesim::cli
