// The engine and scenario layers stay pure: no YAML, no logging, no streams (style.md).

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

TEST_CASE("engine/ and scenarios/ include no YAML, logging or stream headers") {
    namespace fs = std::filesystem;
    const fs::path root = fs::path(DECODESIM_ROOT) / "sim";
    int files = 0;
    for (const char* layer : {"engine", "scenarios"}) {
        if (!fs::exists(root / layer)) continue;
        for (const auto& entry : fs::recursive_directory_iterator(root / layer)) {
            if (!entry.is_regular_file()) continue;
            std::ifstream file(entry.path());
            std::stringstream text;
            text << file.rdbuf();
            const std::string source = text.str();
            ++files;
            CAPTURE(entry.path().string());
            for (const char* forbidden : {"yaml-cpp", "spdlog", "<iostream>", "<fstream>", "<sstream>", "nlohmann",
                                          "profiles/catalog", "loader.hpp", "CLI/"}) {
                CAPTURE(forbidden);
                CHECK(source.find(forbidden) == std::string::npos);
            }
        }
    }
    CHECK(files > 10);
}

TEST_CASE("test names carry no semicolon, which would split them in CTest and run nothing") {
    namespace fs = std::filesystem;
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
