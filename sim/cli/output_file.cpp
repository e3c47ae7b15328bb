#include "cli/output_file.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"

namespace decodesim::cli {

void write_file_atomically(const std::string& path, const std::string& contents) {
    namespace fs = std::filesystem;
    const fs::path target(path);
    const fs::path temporary = target.parent_path() / fmt::format(".{}.tmp-{}", target.filename().string(), ::getpid());
    auto fail = [&](const std::string& why) {
        std::error_code ignored;
        fs::remove(temporary, ignored);
        throw core::InputError(core::Diagnostic{{path, 0, 0}, "", why});
    };
    {
        std::ofstream stream(temporary, std::ios::binary | std::ios::trunc);
        if (!stream) fail("cannot write here (is the folder there and writable?)");
        stream.write(contents.data(), static_cast<std::streamsize>(contents.size()));
        stream.flush();
        if (!stream) fail("writing failed (disk full?)");
    }
    std::error_code error;
    fs::rename(temporary, target, error);
    if (error) fail(fmt::format("cannot replace the file: {}", error.message()));
}

}  // namespace decodesim::cli
