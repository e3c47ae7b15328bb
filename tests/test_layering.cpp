// The layers of sim/ depend only downward, as sim/CMakeLists.txt links them, and the pure layers
// stay pure (style.md): this test reads every include and holds each layer to its list.

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& path) {
    std::ifstream file(path);
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
}

// The project headers a file includes ("layer/name.hpp").
std::vector<std::string> project_includes(const std::string& source) {
    static const std::regex include(R"re(#include\s+"([a-z_]+/[A-Za-z0-9_./]+)")re");
    std::vector<std::string> found;
    for (auto it = std::sregex_iterator(source.begin(), source.end(), include); it != std::sregex_iterator(); ++it) {
        found.push_back((*it)[1]);
    }
    return found;
}

// The plain-data headers of profiles/: specs the engine reads, with no parsing in them.
const std::set<std::string> kPlainProfileHeaders{"profiles/hardware_profile.hpp", "profiles/model_profile.hpp",
                                                 "profiles/measurement.hpp",      "profiles/runtime_profile.hpp",
                                                 "profiles/runtime_fields.hpp",   "profiles/residual_band_table.hpp"};

// What each layer may include, mirroring target_link_libraries in sim/CMakeLists.txt.
const std::map<std::string, std::set<std::string>> kAllowedLayers{
    {"core", {"core"}},
    {"profiles", {"core", "profiles"}},
    {"engine", {"core", "engine"}},
    {"scenarios", {"core", "engine", "scenarios"}},
    {"report", {"core", "engine", "scenarios", "report"}},
    {"cli", {"core", "profiles", "engine", "scenarios", "report", "cli"}},
};

}  // namespace

TEST_CASE("every layer includes only the layers below it, and profiles only through their plain-data headers") {
    const fs::path root = fs::path(DECODESIM_ROOT) / "sim";
    int files = 0;
    for (const auto& [layer, allowed] : kAllowedLayers) {
        REQUIRE(fs::is_directory(root / layer));
        for (const auto& entry : fs::recursive_directory_iterator(root / layer)) {
            if (!entry.is_regular_file()) continue;
            ++files;
            CAPTURE(entry.path().string());
            for (const auto& header : project_includes(read(entry.path()))) {
                CAPTURE(header);
                const std::string target = header.substr(0, header.find('/'));
                CHECK((allowed.count(target) == 1 || kPlainProfileHeaders.count(header) == 1));
                if (header.ends_with(".hpp")) CHECK(fs::exists(root / header));  // commands.inc is generated
            }
        }
    }
    CHECK(files > 80);
}

TEST_CASE("engine/ and scenarios/ include no YAML, JSON, logging, stream or command-line headers") {
    const fs::path root = fs::path(DECODESIM_ROOT) / "sim";
    int files = 0;
    for (const char* layer : {"engine", "scenarios"}) {
        for (const auto& entry : fs::recursive_directory_iterator(root / layer)) {
            if (!entry.is_regular_file()) continue;
            const std::string source = read(entry.path());
            ++files;
            CAPTURE(entry.path().string());
            for (const char* forbidden : {"yaml-cpp", "spdlog", "<iostream>", "<fstream>", "<sstream>", "nlohmann",
                                          "CLI/"}) {
                CAPTURE(forbidden);
                CHECK(source.find(forbidden) == std::string::npos);
            }
        }
    }
    CHECK(files > 30);
}

TEST_CASE("every file a comment cites in sim/ and tests/ exists") {
    // "docs/model.md", "sim/engine/roofline.cpp", "validation/bandwidth.csv": a reader follows these.
    static const std::regex cited(
        R"re(\b((?:docs|sim|tests|bench|validation|scripts|hardware_profiles|model_profiles)/[A-Za-z0-9_./-]+\.(?:md|cpp|hpp|csv|yaml|json|sh)))re");
    const fs::path project(DECODESIM_ROOT);
    int citations = 0;
    for (const char* folder : {"sim", "tests"}) {
        for (const auto& entry : fs::recursive_directory_iterator(project / folder)) {
            if (!entry.is_regular_file() || (entry.path().extension() != ".cpp" && entry.path().extension() != ".hpp")) {
                continue;
            }
            const std::string source = read(entry.path());
            for (auto it = std::sregex_iterator(source.begin(), source.end(), cited); it != std::sregex_iterator(); ++it) {
                const std::string path = (*it)[1];
                if (path.find("/data/") != std::string::npos && !fs::exists(project / path)) continue;
                ++citations;
                CAPTURE(entry.path().string());
                CAPTURE(path);
                CHECK(fs::exists(project / path));
            }
        }
    }
    CHECK(citations > 20);
}

TEST_CASE("test names carry no semicolon, which would split them in CTest and run nothing") {
    int names = 0;
    for (const auto& entry : fs::directory_iterator(fs::path(DECODESIM_ROOT) / "tests")) {
        if (entry.path().extension() != ".cpp") continue;
        std::ifstream file(entry.path());
        std::string line;
        while (std::getline(file, line)) {
            const auto at = line.find("TEST_CASE(\"");
            if (at == std::string::npos) continue;
            ++names;
            const std::string name = line.substr(at + 11, line.find("\")", at) - at - 11);
            CAPTURE(name);
            CHECK(name.find(';') == std::string::npos);
        }
    }
    CHECK(names > 50);
}
