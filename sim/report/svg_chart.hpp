#pragma once
// One small SVG plotting module, shared by `curve --svg`, `versus --svg` and the HTML report: line
// and scatter series, shaded bands, marked points and vertical markers on linear or logarithmic
// axes; a stacked bar; horizontal bars. Labels are placed so that they never overprint one another
// (place_labels); what cannot be placed goes into the legend below the plot.

#include <optional>
#include <utility>
#include <string>
#include <string_view>
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

// A shaded area between two curves over the same x (an uncertainty band): one polygon, drawn under
// the lines, with `opacity` as its fill-opacity.
struct Band {
    std::string label;
    std::vector<double> x;
    std::vector<double> low;
    std::vector<double> high;
    std::string color = "#1f77b4";
    double opacity = 0.18;
};

Band band_series(std::string label, std::vector<double> x, std::vector<double> low, std::vector<double> high,
                 std::string color);

// A vertical line across the plot (the knee, the memory wall). It is drawn only when the data's x
// range reaches it; otherwise the legend says it lies outside the chart.
struct VerticalMarker {
    double x = 0.0;
    std::string label;
    std::string color = "#555555";
};

// One point called out on the plot (the operating point asked about): a ring and a label. Outside
// the x range it is named in the legend instead.
struct PointMarker {
    double x = 0.0;
    double y = 0.0;
    std::string label;
    std::string color = "#000000";
};

// Ticks on a logarithmic axis: powers of ten (with 2 and 5 between on short ranges), or powers of
// two (batches, where 1, 2, 4 ... 64 is how people count streams).
enum class LogBase { ten, two };

struct Axis {
    std::string label;  // with its unit, e.g. "tokens/s"
    bool logarithmic = false;
    std::optional<double> minimum;  // override the range the data gives
    std::optional<double> maximum;
    LogBase base = LogBase::ten;
};

struct Chart {
    std::string title;
    Axis x;
    Axis y;
    std::vector<Series> series;
    std::vector<Band> bands;
    std::vector<VerticalMarker> markers;
    std::vector<PointMarker> points;
    int width = 760;
    int height = 420;  // the plot and its axes; the legend below adds rows
};

// A standalone <svg> element. Points that cannot be drawn (non-finite, or <= 0 on a log axis)
// are left out. The axis range comes from the series and bands alone, padded to nice numbers;
// markers never stretch it.
std::string render_chart(const Chart& chart);

// The same, with the height it was drawn at: the chart's own plus the legend's rows, for stacking
// charts in one document.
struct RenderedChart {
    std::string svg;
    double height = 0.0;
};
RenderedChart render_chart_sized(const Chart& chart);

// The range an axis of the chart spans: the data drawn on it (series and bands), widened to nice
// numbers (multiples of the tick step on a linear axis, 1-2-5 x 10^k or powers of two on a log
// axis), or the axis's own minimum and maximum where set. A linear y axis starts at zero.
std::pair<double, double> axis_range(const Chart& chart, bool x_axis);

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
// the right (a ladder of conditions, a waterfall read downwards). The label column is as wide as
// the longest label, and the picture widens so that the longest value text fits.
struct Bar {
    std::string label;
    double value = 0.0;
    std::string value_label;
    std::string color = "#1f77b4";
    // The uncertainty band around `value`, shaded over the bar's end; absent for a plain figure.
    std::optional<std::pair<double, double>> band;
};
std::string render_bars(const std::string& title, const std::vector<Bar>& bars, const std::string& note, int width = 900);

// Tick positions for an axis over [low, high]: "nice" steps (1, 2, 5 x 10^k) on a linear axis; on a
// log axis of base ten, powers of ten (with 2 and 5 between when the range spans at most two
// decades, and a 1-2-5 end of the range when it is at least half a decade from the nearest power);
// on a log axis of base two, powers of two (every second or more when there would be over 12).
std::vector<double> axis_ticks(double low, double high, bool logarithmic, LogBase base = LogBase::ten);

// "1.5k", "20M", "3T", "1.5P", "2E": short tick labels with SI prefixes (at most six significant
// digits).
std::string short_number(double value);

// A tick label on a base-two axis: powers of two from 1024 up in binary thousands, as context
// lengths and batch sizes are spoken of ("8k" for 8192, "1M" for 1048576); other values as
// short_number.
std::string binary_short_number(double value);

// Escapes &, <, >, " for XML text and attributes.
std::string xml_escape(const std::string& text);

// --- Label layout ---------------------------------------------------------------------------

struct Box {
    double left = 0.0, top = 0.0, right = 0.0, bottom = 0.0;  // pixels, y down
};

// True when the boxes share area (touching edges do not count).
bool boxes_overlap(const Box& a, const Box& b);

// An estimate of a text's width: 0.6 x font size per character (UTF-8 code points), a generous
// average for sans-serif, so estimated boxes are rather too wide than too narrow.
double text_width(std::string_view text, double font_size);

// A label that belongs to an anchor pixel (a dot, the top of a marker line). Its preferred box
// starts `offset_x` right of the anchor with its top at anchor_y + offset_y; the mirror image left
// of the anchor is the second choice.
struct LabelRequest {
    double anchor_x = 0.0;
    double anchor_y = 0.0;
    std::string text;
    double font_size = 10.0;
    double offset_x = 6.0;
    double offset_y = -14.0;  // above the anchor, for a 10 px font
};

struct LabelPlacement {
    bool placed = false;  // false: no free spot nearby; list the label below the plot instead
    Box box;              // the text's box (text starts at box.left, baseline near box.bottom)
    bool leader = false;  // moved up or down from its preferred spot: join it to the anchor by a line
};

// Box height of a label: 1.2 x its font size.
double label_height(double font_size);

// Greedy, deterministic placement, in the order given (earlier labels keep their preferred spot):
// each label tries its preferred box, then the box left of the anchor, then both shifted up and
// down by one box height plus 2 px at a time, up to `max_steps` steps each way, and takes the
// first that lies inside `area` and overlaps no label placed before it.
std::vector<LabelPlacement> place_labels(const std::vector<LabelRequest>& labels, const Box& area, int max_steps = 6);

}  // namespace decodesim::report
