// The shared SVG plotting module and the HTML report's structure (the rendered page is checked
// in headless Chromium by tests/report_check.sh).

#include <doctest/doctest.h>

#include "report/svg_chart.hpp"
#include "test_support.hpp"

using namespace decodesim::report;

TEST_CASE("axis ticks are nice numbers on linear axes and powers of ten on log axes") {
    CHECK(axis_ticks(0, 100, false) == std::vector<double>{0, 20, 40, 60, 80, 100});
    CHECK(axis_ticks(1, 1000, true) == std::vector<double>{1, 10, 100, 1000});
    CHECK(axis_ticks(1, 10, true) == std::vector<double>{1, 2, 5, 10});
    CHECK(short_number(1500) == "1.5k");
    CHECK(short_number(2e13) == "20T");
}

TEST_CASE("a chart is a standalone SVG with its title, axis labels, markers and escaped text") {
    Chart chart;
    chart.title = "tokens <per> second";
    chart.x = {"batch", true, std::nullopt, std::nullopt};
    chart.y = {"tokens/s", false, std::nullopt, std::nullopt};
    chart.series = {line_series("total", {1, 2, 4}, {10, 20, 40}, "#123456")};
    chart.markers = {{2, "knee", "#00ff00"}};
    const std::string svg = render_chart(chart);
    CHECK(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    CHECK(svg.find("tokens &lt;per&gt; second") != std::string::npos);
    CHECK(svg.find(">batch<") != std::string::npos);
    CHECK(svg.find(">tokens/s<") != std::string::npos);
    CHECK(svg.find(">knee<") != std::string::npos);
    CHECK(svg.find("stroke=\"#123456\"") != std::string::npos);
    CHECK(svg.find("nan") == std::string::npos);
}

TEST_CASE("points that cannot be drawn are left out rather than written as NaN") {
    Chart chart;
    chart.x = {"x", true, std::nullopt, std::nullopt};
    chart.y = {"y", true, std::nullopt, std::nullopt};
    chart.series = {line_series("s", {0, 1, 10}, {5, std::nan(""), 50}, "#000")};
    const std::string svg = render_chart(chart);
    CHECK(svg.find("nan") == std::string::npos);
    CHECK(svg.find("inf") == std::string::npos);
}

TEST_CASE("curve --svg and report write their files") {
    const std::string svg_path = std::string(DECODESIM_BINARY_DIR) + "/curve_test.svg";
    const auto curve = decodesim::testing::run({"curve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--context",
                                                "8192", "--svg", svg_path, "--json"});
    REQUIRE(curve.exit_code == 0);
    const auto json = nlohmann::json::parse(curve.out);
    CHECK(json["max_batch"] == 52);
    CHECK(json["points"].size() == 52);
    CHECK(json["points"][0].contains("tokens_per_s_per_stream"));
    std::ifstream svg(svg_path);
    std::stringstream text;
    text << svg.rdbuf();
    CHECK(text.str().find("memory wall 52") != std::string::npos);
    CHECK(text.str().find("concurrent streams (batch)") != std::string::npos);

    const std::string html_path = std::string(DECODESIM_BINARY_DIR) + "/report_test.html";
    const auto report = decodesim::testing::run({"report", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "-o", html_path});
    REQUIRE(report.exit_code == 0);
    std::ifstream html(html_path);
    std::stringstream page;
    page << html.rdbuf();
    CHECK(page.str().starts_with("<!DOCTYPE html>"));
    CHECK(page.str().find("Will more FLOPS help?") != std::string::npos);
    CHECK(page.str().find("http") == page.str().find("http://www.w3.org/2000/svg"));  // no network references
}
