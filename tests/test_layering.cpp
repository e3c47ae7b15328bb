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
                                                 "profiles/runtime_fields.hpp",   "profiles/residual_band_table.hpp",
                                                 "profiles/load_curve.hpp"};

// What each layer or room may include, mirroring target_link_libraries in sim/CMakeLists.txt. A
// room of report/ or cli/ (report/serving) sees its own room below it (serving) and the layer's
// common files, not the other rooms: a serving report cannot reach into the fit code.
const std::map<std::string, std::set<std::string>> kAllowedLayers{
    {"core", {"core"}},
    {"profiles", {"core", "profiles"}},
    {"engine", {"core", "engine"}},
    {"workload", {"core", "workload"}},
    {"explore", {"core", "engine", "workload", "explore"}},
    {"serving", {"core", "engine", "workload", "serving"}},
    {"fit", {"core", "engine", "workload", "serving", "fit"}},
    {"report", {"core", "engine", "workload", "report"}},
    {"report/explore", {"core", "engine", "workload", "explore", "report", "report/explore"}},
    {"report/serving", {"core", "engine", "workload", "serving", "report", "report/serving"}},
    {"report/fit", {"core", "engine", "workload", "serving", "fit", "report", "report/fit"}},
    {"cli", {"core", "profiles", "engine", "workload", "report", "cli"}},
    {"cli/explore", {"core", "profiles", "engine", "workload", "explore", "report", "report/explore", "cli", "cli/explore"}},
    {"cli/serving", {"core", "profiles", "engine", "workload", "serving", "report", "report/serving", "cli", "cli/serving"}},
    {"cli/fit", {"core", "profiles", "engine", "workload", "serving", "fit", "report", "report/fit", "cli", "cli/fit"}},
};

// The layer or room a path under sim/ belongs to: "engine", "report/serving".
std::string room_of(const std::string& relative) {
    const auto first = relative.find('/');
    const std::string layer = relative.substr(0, first);
    const auto second = relative.find('/', first + 1);
    if (second != std::string::npos) {
        const std::string room = relative.substr(0, second);
        if (kAllowedLayers.count(room) == 1) return room;
    }
    return layer;
}

}  // namespace

TEST_CASE("every layer includes only the layers below it, each room only its own, and profiles only through their plain-data headers") {
    const fs::path root = fs::path(DECODESIM_ROOT) / "sim";
    int files = 0;
    std::set<std::string> rooms_seen;
    for (const char* layer : {"core", "profiles", "engine", "workload", "explore", "serving", "fit", "report", "cli"}) {
        REQUIRE(fs::is_directory(root / layer));
        for (const auto& entry : fs::recursive_directory_iterator(root / layer)) {
            if (!entry.is_regular_file()) continue;
            ++files;
            const std::string room = room_of(fs::relative(entry.path(), root).generic_string());
            rooms_seen.insert(room);
            const std::set<std::string>& allowed = kAllowedLayers.at(room);
            CAPTURE(entry.path().string());
            for (const auto& header : project_includes(read(entry.path()))) {
                CAPTURE(header);
                CHECK((allowed.count(room_of(header)) == 1 || kPlainProfileHeaders.count(header) == 1));
                if (header.ends_with(".hpp")) CHECK(fs::exists(root / header));  // commands.inc is generated
            }
        }
    }
    CHECK(files > 80);
    CHECK(rooms_seen.size() == kAllowedLayers.size());  // every room has files, so every rule is exercised
}

TEST_CASE("engine/, workload/, explore/, serving/ and fit/ include no YAML, JSON, logging, stream or command-line headers") {
    const fs::path root = fs::path(DECODESIM_ROOT) / "sim";
    int files = 0;
    for (const char* layer : {"engine", "workload", "explore", "serving", "fit"}) {
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

TEST_CASE("a relative tolerance is relative: every Approx with an epsilon of 1e-4 or more sets its scale") {
    // doctest's Approx passes |a - b| < epsilon x (scale + max(|a|, |b|)) with a scale of 1 by
    // default: on a time of milliseconds an epsilon of 0.01 is then 10 ms, a check no prediction
    // could fail. Every such Approx states .scale(0.0) (relative) or its own scale.
    const std::regex epsilon(R"(\.epsilon\(([^()]*(\([^()]*\))?[^()]*)\))");
    int checked = 0;
    for (const auto& entry : fs::directory_iterator(fs::path(DECODESIM_ROOT) / "tests")) {
        if (entry.path().extension() != ".cpp") continue;
        std::ifstream file(entry.path());
        std::string line;
        int number = 0;
        while (std::getline(file, line)) {
            ++number;
            for (std::sregex_iterator it(line.begin(), line.end(), epsilon), end; it != end; ++it) {
                const std::string argument = (*it)[1].str();
                char* parsed_end = nullptr;
                const double value = std::strtod(argument.c_str(), &parsed_end);
                const bool literal = parsed_end != argument.c_str() && *parsed_end == '\0';
                if (literal && value < 1e-4) continue;
                ++checked;
                CAPTURE(entry.path().filename().string());
                CAPTURE(number);
                CHECK(line.compare(static_cast<std::size_t>(it->position() + it->length()), 7, ".scale(") == 0);
            }
        }
    }
    CHECK(checked > 50);
}

TEST_CASE("no range-for walks into a JSON document parsed in its own header, which is freed before the loop") {
    // `for (x : json::parse(text)["key"])` binds the loop to a member of a temporary document that
    // dies before the first iteration (C++20 keeps only the outermost temporary alive): the
    // sanitized build caught two such loops in tests. Parse into a variable first.
    const std::regex loop(R"(for\s*\([^:;]*:\s*nlohmann::json::parse\()");
    int files = 0;
    for (const auto& entry : fs::directory_iterator(fs::path(DECODESIM_ROOT) / "tests")) {
        if (entry.path().extension() != ".cpp") continue;
        ++files;
        std::ifstream file(entry.path());
        std::string line;
        int number = 0;
        while (std::getline(file, line)) {
            ++number;
            CAPTURE(entry.path().filename().string());
            CAPTURE(number);
            CHECK_FALSE(std::regex_search(line, loop));
        }
    }
    CHECK(files > 20);
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
