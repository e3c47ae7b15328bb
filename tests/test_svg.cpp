// The shared SVG plotting module and the HTML report's structure (the rendered page is checked
// in headless Chromium by tests/report_check.sh).

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <regex>

#include "report/explore/curve_output.hpp"
#include "report/svg_chart.hpp"
#include "explore/concurrency_curve.hpp"
#include "explore/knee.hpp"
#include "cli_runner.hpp"
#include "test_support.hpp"

using namespace decodesim::report;

namespace {

std::size_t count_of(const std::string& text, const std::string& part) {
    std::size_t count = 0;
    for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++count;
    return count;
}

std::string read_text(const std::string& path) {
    std::ifstream file(path);
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
}

}  // namespace

TEST_CASE("axis ticks are nice numbers on linear axes and powers of ten on log axes") {
    CHECK(axis_ticks(0, 100, false) == std::vector<double>{0, 20, 40, 60, 80, 100});
    CHECK(axis_ticks(1, 1000, true) == std::vector<double>{1, 10, 100, 1000});
    CHECK(axis_ticks(1, 10, true) == std::vector<double>{1, 2, 5, 10});
    CHECK(short_number(1500) == "1.5k");
    CHECK(short_number(2e13) == "20T");
}

TEST_CASE("short numbers carry SI prefixes up to exa, binary ones count in 1024s") {
    CHECK(short_number(999) == "999");
    CHECK(short_number(1000) == "1k");
    CHECK(short_number(2.5e6) == "2.5M");
    CHECK(short_number(-4e9) == "-4G");
    CHECK(short_number(1e12) == "1T");
    CHECK(short_number(1.5e15) == "1.5P");  // 1.5 x 10^15 = 1.5 peta
    CHECK(short_number(2e18) == "2E");      // 2 x 10^18 = 2 exa
    CHECK(short_number(0.25) == "0.25");
    CHECK(binary_short_number(8192) == "8k");       // 8 x 1024
    CHECK(binary_short_number(131072) == "128k");   // 128 x 1024
    CHECK(binary_short_number(1048576) == "1M");    // 1024 x 1024
    CHECK(binary_short_number(1000) == "1k");       // not a multiple of 1024: decimal
    CHECK(binary_short_number(64) == "64");
}

TEST_CASE("log axes bracket the data with powers of two or 1-2-5 steps, linear ones with whole tick steps") {
    CHECK(axis_ticks(1, 64, true, LogBase::two) == std::vector<double>{1, 2, 4, 8, 16, 32, 64});
    // 2^0 .. 2^20 is 21 powers; at most 12 labels means every second: 2^0, 2^2, ..., 2^20 (11 ticks).
    const auto wide = axis_ticks(1, 1048576, true, LogBase::two);
    CHECK(wide.size() == 11);
    CHECK(wide[1] == 4);
    CHECK(wide.back() == 1048576);
    // Four decades: powers of ten only, plus the 2 at the low end (0.7 decades below 10) and the
    // 5000 at the high end (0.7 decades above 1000).
    CHECK(axis_ticks(2, 5000, true) == std::vector<double>{2, 10, 100, 1000, 5000});

    auto chart_of = [](std::vector<double> x, std::vector<double> y, bool log_x, LogBase base) {
        Chart chart;
        chart.x = {"x", log_x, std::nullopt, std::nullopt, base};
        chart.y = {"y", false, std::nullopt, std::nullopt};
        chart.series = {line_series("s", std::move(x), std::move(y), "#000")};
        return chart;
    };
    // Batches 1..52 on a base-two axis: 52 lies between 32 and 64, so the axis ends at 64.
    Chart batches = chart_of({1, 20, 52}, {3, 50, 97}, true, LogBase::two);
    CHECK(axis_range(batches, true) == std::pair<double, double>{1, 64});
    // y 0..97 (a linear y axis starts at zero): (97 - 0) / 6 = 16.2, so the step is 20 and the top 100.
    CHECK(axis_range(batches, false) == std::pair<double, double>{0, 100});
    // A marker far right does not stretch the axis (it is named in the legend instead).
    batches.markers = {{1000, "far away", "#f00"}};
    CHECK(axis_range(batches, true) == std::pair<double, double>{1, 64});
    const std::string svg = render_chart(batches);
    CHECK(svg.find("far away (outside the x range)") != std::string::npos);
    CHECK(count_of(svg, "class=\"marker\"") == 0);
    // Linear x 13..47: (47 - 13) / 6 = 5.7, so the step is 10 and the axis runs 10..50.
    CHECK(axis_range(chart_of({13, 47}, {1, 2}, false, LogBase::ten), true) == std::pair<double, double>{10, 50});
    // Log base ten 3..700: the 1-2-5 values around them are 2 and 1000.
    CHECK(axis_range(chart_of({3, 700}, {1, 2}, true, LogBase::ten), true) == std::pair<double, double>{2, 1000});
}

TEST_CASE("labels at nearly the same spot are moved apart, and a label with no room goes to the legend") {
    CHECK(text_width("knee 41", 10) == doctest::Approx(42));  // 7 characters x 0.6 x 10 px
    CHECK(label_height(10) == doctest::Approx(12));
    const Box area{0, 0, 400, 300};
    // "knee 41" at (100, 100): its box starts 6 px right (106) and 14 px up (86), 42 x 12 px.
    // "wall 52" at (102, 101) would take (108, 87)..(150, 99), overlapping it, so it takes its second
    // choice, the mirror image left of its anchor at the same height: 102 - 6 - 42 = 54 to 96.
    const auto placed = place_labels({{100, 100, "knee 41", 10, 6, -14}, {102, 101, "wall 52", 10, 6, -14}}, area);
    REQUIRE(placed.size() == 2);
    CHECK(placed[0].placed);
    CHECK_FALSE(placed[0].leader);
    CHECK(placed[0].box.left == doctest::Approx(106));
    CHECK(placed[0].box.top == doctest::Approx(86));
    CHECK(placed[0].box.right == doctest::Approx(148));
    CHECK(placed[0].box.bottom == doctest::Approx(98));
    CHECK(placed[1].placed);
    CHECK_FALSE(placed[1].leader);
    CHECK(placed[1].box.left == doctest::Approx(54));
    CHECK(placed[1].box.right == doctest::Approx(96));
    CHECK(placed[1].box.top == doctest::Approx(87));
    CHECK(placed[1].box.bottom == doctest::Approx(99));
    CHECK_FALSE(boxes_overlap(placed[0].box, placed[1].box));

    // A 40 px tall strip, anchors at x = 5 (no room on the left): "aaaa" (24 x 12 px) fits at top 16,
    // the second one step up at top 2; the third has no free box (top 30 ends at 42 > 40, top -12 < 0).
    const std::vector<LabelRequest> crowded(3, LabelRequest{5, 30, "aaaa", 10, 6, -14});
    const auto strip = place_labels(crowded, Box{0, 0, 200, 40});
    CHECK(strip[0].placed);
    CHECK(strip[0].box.top == doctest::Approx(16));
    CHECK(strip[1].placed);
    CHECK(strip[1].leader);
    CHECK(strip[1].box.top == doctest::Approx(2));
    CHECK_FALSE(boxes_overlap(strip[0].box, strip[1].box));
    CHECK_FALSE(strip[2].placed);

    // In a chart, the label that did not fit is listed in the legend with its point.
    Chart chart;
    chart.x = {"x", true, std::nullopt, std::nullopt};
    chart.y = {"y", true, std::nullopt, std::nullopt};
    Series dots = line_series("", {10, 10.01, 10.02}, {100, 100, 100}, "#000");
    dots.line = false;
    dots.points = true;
    dots.label_points = true;
    dots.point_labels = {"first", "second", "third"};
    chart.series = {dots};
    chart.height = 120;  // a plot 22 px tall: room for one label only
    const std::string svg = render_chart(chart);
    CHECK(svg.find(">first<") != std::string::npos);
    CHECK(svg.find("second (at 10.01, 100)") != std::string::npos);
}

TEST_CASE("a band is one shaded polygon under the lines") {
    Chart chart;
    chart.x = {"x", true, std::nullopt, std::nullopt};
    chart.y = {"y", true, std::nullopt, std::nullopt};
    chart.series = {line_series("nominal", {1, 2, 4}, {1.5, 3, 4.5}, "#123456")};
    chart.bands = {band_series("low to high", {1, 2, 4}, {1, 2, 3}, {2, 4, 6}, "#123456")};
    const std::string svg = render_chart(chart);
    const auto polygon = svg.find("<polygon class=\"band\"");
    REQUIRE(polygon != std::string::npos);
    CHECK(polygon < svg.find("<path"));  // drawn first, so the line runs over it
    CHECK(svg.find("fill-opacity=\"0.18\"", polygon) != std::string::npos);
    // Three points along the top and three back along the bottom: six vertices.
    const auto points = svg.substr(polygon, svg.find('>', polygon) - polygon);
    CHECK(count_of(points, ",") == 6);
    CHECK(svg.find(">low to high<") != std::string::npos);
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
    // (0.9 x 80 GiB - vLLM's 1.48 GiB workspace (1.589e9 B) - 16.06e9 B of weights) / (8192 x 131,072 B)
    // = 59.66e9 / 1.074e9 = 55.57
    CHECK(json["max_batch"] == 55);
    CHECK(json["points"].size() == 55);
    CHECK(json["points"][0].contains("tokens_per_s_per_stream"));
    const std::string text = read_text(svg_path);
    CHECK(text.find("memory wall: 55 streams") != std::string::npos);
    CHECK(text.find("concurrent streams (batch)") != std::string::npos);

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

TEST_CASE("curve --svg marks the requested batch, the memory wall where the batches reach it, and the band") {
    const std::string svg_path = std::string(DECODESIM_BINARY_DIR) + "/curve_marks_test.svg";
    // 55 streams of 8192 tokens fit on an H100 under vLLM (above); batch 32 is on the curve.
    const auto run = decodesim::testing::run({"curve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--context",
                                              "8192", "--batch", "32", "--svg", svg_path, "--json"});
    REQUIRE(run.exit_code == 0);
    const auto json = nlohmann::json::parse(run.out);
    const double total_at_32 = json["points"][31]["tokens_per_s_total"];
    const std::string svg = read_text(svg_path);
    CHECK(count_of(svg, "class=\"operating-point\"") == 1);
    CHECK(svg.find(fmt::format("batch 32: {:.4g} tokens/s", total_at_32)) != std::string::npos);
    CHECK(svg.find("memory wall: 55 streams<") != std::string::npos);  // drawn as a label on the plot
    CHECK(count_of(svg, "<polygon class=\"band\"") == 2);             // total and per stream
    CHECK(svg.find("total: low to high estimate") != std::string::npos);

    // Up to batch 8 only: the axis ends at 8 and the wall at 55 gets no line, only a legend note.
    const auto short_run = decodesim::testing::run({"curve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b",
                                                    "--context", "8192", "--max-batch", "8", "--svg", svg_path});
    REQUIRE(short_run.exit_code == 0);
    const std::string short_svg = read_text(svg_path);
    CHECK(short_svg.find("memory wall: 55 streams<") == std::string::npos);
    CHECK(short_svg.find("memory wall: 55 streams (outside the x range") != std::string::npos);
    CHECK(short_svg.find(">16<") == std::string::npos);  // no tick past the data's 8
    CHECK(short_svg.find(">8<") != std::string::npos);
}

TEST_CASE("the knee drawn on the curve is the knee scenarios compute and `why` reports") {
    const auto s = decodesim::testing::setup("h100-sxm", "llama-3.1-8b");
    const auto point = s.point(decodesim::engine::Workload::step(1, 128));
    const decodesim::engine::Evaluator evaluator(point);
    decodesim::explore::CurveOptions options;
    options.last_batch = 1024;  // the knee near 530 (test_scenarios.cpp) lies inside
    const auto curve = decodesim::explore::concurrency_curve(evaluator, point.workload, options);
    const auto knee = decodesim::explore::compute_bound_batch(evaluator, 128.0);
    REQUIRE(knee.has_value());
    const Chart chart = curve_chart({}, curve);
    const auto marker = std::find_if(chart.markers.begin(), chart.markers.end(),
                                     [](const VerticalMarker& m) { return m.label.starts_with("knee"); });
    REQUIRE(marker != chart.markers.end());
    CHECK(marker->x == static_cast<double>(*knee));
    // Inside the drawn range (1..1024 on a base-two axis), so it is drawn as a line.
    const auto [low, high] = axis_range(chart, true);
    CHECK(low <= marker->x);
    CHECK(marker->x <= high);
    CHECK(render_chart(chart).find(fmt::format("knee: {} streams<", *knee)) != std::string::npos);

    // The CLI on the build the evaluator above uses (testing::setup's pinned vLLM).
    const std::string runtime = decodesim::testing::test_data("runtime_profiles/pinned-vllm-0.8.yaml");
    const auto why = decodesim::testing::run(
        {"why", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--context", "128", "--runtime", runtime, "--json"});
    REQUIRE(why.exit_code == 0);
    CHECK(nlohmann::json::parse(why.out)["compute_bound_batch"] == *knee);
    const auto curve_json = decodesim::testing::run(
        {"curve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--context", "128", "--max-batch", "1024",
         "--runtime", runtime, "--json"});
    REQUIRE(curve_json.exit_code == 0);
    CHECK(nlohmann::json::parse(curve_json.out)["knee_batch"] == *knee);
}

TEST_CASE("the report marks its batch, the memory walls and the band") {
    const std::string html_path = std::string(DECODESIM_BINARY_DIR) + "/report_marks_test.html";
    const auto report = decodesim::testing::run({"report", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--context",
                                                 "8192", "--batch", "16", "-o", html_path});
    REQUIRE(report.exit_code == 0);
    const std::string page = read_text(html_path);
    CHECK(page.find("batch 16: ") != std::string::npos);
    CHECK(count_of(page, "class=\"operating-point\"") == 2);  // the curve and the context chart
    CHECK(page.find("memory wall: 55 streams<") != std::string::npos);
    CHECK(page.find("memory wall: ") != page.rfind("memory wall: "));  // and along the context
    CHECK(count_of(page, "<polygon class=\"band\"") == 4);  // two lines on each of two charts
}

TEST_CASE("versus shades each bar's band, which holds the bar's own figure") {
    const std::string svg_path = std::string(DECODESIM_BINARY_DIR) + "/versus_band_test.svg";
    const auto run = decodesim::testing::run({"versus", "--hardware", "mi300x", "--model", "llama-3.1-8b",
                                              "--vendor-weights", "fp8", "--batch", "64", "--context", "4096", "--svg",
                                              svg_path, "--json"});
    REQUIRE(run.exit_code == 0);
    const auto json = nlohmann::json::parse(run.out);
    const std::string svg = read_text(svg_path);
    // One shaded span per step; the band's ends bracket the step's predicted figure (the prediction
    // uses the default efficiency, which lies inside the measured range by construction).
    CHECK(count_of(svg, "<rect class=\"band\"") == json["steps"].size());
    for (const auto& step : json["steps"]) {
        const double value = step["tokens_per_s_per_stream"];
        CHECK(step["band"]["tokens_per_s_per_stream_low"].get<double>() <= value);
        CHECK(step["band"]["tokens_per_s_per_stream_high"].get<double>() >= value);
        CHECK(step["band"]["tokens_per_s_per_stream_low"].get<double>() <
              step["band"]["tokens_per_s_per_stream_high"].get<double>());
    }
}

TEST_CASE("serve's two charts are stacked at their drawn heights, legends included") {
    // Each chart is its plot (420 px) plus a row per legend line; the second starts where the
    // first one's legend ends, and the document is as tall as both.
    const std::string path = testing::write_temp("decodesim-serve-stack.svg", "");
    const auto result = testing::run({"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--rate", "2",
                                      "--requests", "50", "--svg", path});
    REQUIRE(result.exit_code == 0);
    std::ifstream file(path);
    const std::string svg((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    const std::regex height(R"re(<svg [^>]*height="([0-9.]+)")re");
    std::vector<double> heights;
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), height); it != std::sregex_iterator(); ++it) {
        heights.push_back(std::stod((*it)[1]));
    }
    REQUIRE(heights.size() == 3);  // the document, then the two charts
    std::smatch shift;
    REQUIRE(std::regex_search(svg, shift, std::regex(R"re(translate\(0,([0-9.]+)\))re")));
    CHECK(std::stod(shift[1]) == heights[1]);
    CHECK(heights[0] == heights[1] + heights[2]);
    CHECK(heights[1] > 420.0);  // the latency chart's legend adds at least one row
}
