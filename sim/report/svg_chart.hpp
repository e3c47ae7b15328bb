#pragma once
// One small SVG plotting module, shared by `curve --svg` and the HTML report: line and scatter
// series on linear or logarithmic axes, vertical markers, and a stacked bar.

#include <optional>
#include <string>
#include <vector>

namespace decodesim::report {

struct Series {
    std::string label;
    std::vector<double> x;
    std::vector<double> y;
    std::string color = "#1f77b4";
    bool line = true;       // join the points
    bool points = false;    // draw a dot at each point
    bool label_points = false;  // write `point_labels` beside the dots
    std::vector<std::string> point_labels;
    bool dashed = false;
};

// A plain line series.
Series line_series(std::string label, std::vector<double> x, std::vector<double> y, std::string color);

struct VerticalMarker {
    double x = 0.0;
    std::string label;
    std::string color = "#555555";
};

struct Axis {
    std::string label;  // with its unit, e.g. "tokens/s"
    bool logarithmic = false;
    std::optional<double> minimum;
    std::optional<double> maximum;
};

struct Chart {
    std::string title;
    Axis x;
    Axis y;
    std::vector<Series> series;
    std::vector<VerticalMarker> markers;
    int width = 760;
    int height = 420;
};

// A standalone <svg> element. Points that cannot be drawn (non-finite, or <= 0 on a log axis)
// are left out.
std::string render_chart(const Chart& chart);

struct BarSegment {
    std::string label;
    double value = 0.0;
    std::string color;
};

// One horizontal bar of segments against a total (e.g. memory use against capacity); values in
// `unit_label` are formatted by the caller into the labels.
std::string render_stacked_bar(const std::string& title, const std::vector<BarSegment>& segments, double total,
                               const std::string& total_label, int width = 760);

// Horizontal bars, one per row, top to bottom, each labelled on the left and with its value text on
// the right (a ladder of conditions, a waterfall read downwards).
struct Bar {
    std::string label;
    double value = 0.0;
    std::string value_label;
    std::string color = "#1f77b4";
};
std::string render_bars(const std::string& title, const std::vector<Bar>& bars, const std::string& note, int width = 900);

// Tick positions for an axis over [low, high]: "nice" steps (1, 2, 5 x 10^k) on a linear axis,
// powers of ten (with 2 and 5 between when the range is short) on a log axis.
std::vector<double> axis_ticks(double low, double high, bool logarithmic);

// "1.5k", "20M", "3T": short tick labels.
std::string short_number(double value);

// Escapes &, <, >, " for XML text and attributes.
std::string xml_escape(const std::string& text);

}  // namespace decodesim::report
