#include "profiles/profile_id.hpp"

#include <filesystem>

namespace decodesim::profiles {

std::string id_from_path(const std::string& path) { return std::filesystem::path(path).stem().string(); }

}  // namespace decodesim::profiles
