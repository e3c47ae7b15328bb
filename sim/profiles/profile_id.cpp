#include "profiles/profile_id.hpp"

#include <filesystem>

#include "core/text_escape.hpp"

namespace decodesim::profiles {

// Made printable (control characters escaped, invalid UTF-8 replaced): an id is shown on terminals
// and in every output format, and a file name may hold anything but '/' and NUL.
std::string id_from_path(const std::string& path) { return core::printable(std::filesystem::path(path).stem().string()); }

}  // namespace decodesim::profiles
