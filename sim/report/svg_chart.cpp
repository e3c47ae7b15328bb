#include "report/svg_chart.hpp"

#include "core/text_escape.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <utility>

namespace decodesim::report {

namespace {

constexpr double kLeft = 78.0, kRight = 24.0, kTop = 40.0, kBottom = 58.0;
constexpr double kLegendRow = 18.0;   // one row of the legend below the plot
constexpr double kLegendFont = 12.0;
constexpr double kPointLabelFont = 10.0;
constexpr double kMarkerLabelFont = 12.0;

struct Scale {
    double low, high;
    bool logarithmic;
    double pixel_low, pixel_high;

    double operator()(double value) const {
        const double t = logarithmic ? (std::log10(value) - std::log10(low)) / (std::log10(high) - std::log10(low))
                                     : (value - low) / (high - low);
        return pixel_low + t * (pixel_high - pixel_low);
    }
};

bool drawable(double value, bool logarithmic) { return std::isfinite(value) && (!logarithmic || value > 0.0); }

// Relative slack for comparing values that went through pow and log.
constexpr double kSlack = 1e-9;

// The largest "nice" log-axis value at or below `value`: 1, 2 or 5 x 10^k, or a power of two.
double nice_floor(double value, LogBase base) {
    if (base == LogBase::two) return std::exp2(std::floor(std::log2(value) + kSlack));
    const double power = std::pow(10.0, std::floor(std::log10(value) + kSlack));
    for (double mantissa : {5.0, 2.0}) {
        if (mantissa * power <= value * (1 + kSlack)) return mantissa * power;
    }
    return power;
}

// The smallest nice log-axis value at or above `value`.
double nice_ceil(double value, LogBase base) {
    if (base == LogBase::two) return std::exp2(std::ceil(std::log2(value) - kSlack));
    const double power = std::pow(10.0, std::floor(std::log10(value) + kSlack));
    for (double mantissa : {1.0, 2.0, 5.0}) {
        if (mantissa * power >= value * (1 - kSlack)) return mantissa * power;
    }
    return 10.0 * power;
}

// The tick step of a linear axis over [low, high]: 1, 2 or 5 x 10^k, about six steps.
double linear_step(double low, double high) {
    const double raw_step = (high - low) / 6.0;
    const double power = std::pow(10.0, std::floor(std::log10(raw_step)));
    for (double candidate : {1.0, 2.0, 5.0}) {
        if (candidate * power >= raw_step * (1 - kSlack)) return candidate * power;
    }
    return 10.0 * power;
}

// Visits every drawable value the chart plots on one axis (series and bands; markers are not data).
template <typename Visit>
void for_each_data_value(const Chart& chart, bool x_axis, Visit visit) {
    const bool logarithmic = x_axis ? chart.x.logarithmic : chart.y.logarithmic;
    auto each = [&](const std::vector<double>& values) {
        for (double value : values) {
            if (drawable(value, logarithmic)) visit(value);
        }
    };
    for (const auto& series : chart.series) each(x_axis ? series.x : series.y);
    for (const auto& band : chart.bands) {
        if (x_axis) {
            each(band.x);
        } else {
            each(band.low);
            each(band.high);
        }
    }
}

std::string tick_label(double value, const Axis& axis) {
    return axis.logarithmic && axis.base == LogBase::two ? binary_short_number(value) : short_number(value);
}

// One entry of the legend below the plot: a swatch (line, area or none) and its text.
struct LegendEntry {
    enum class Swatch { line, dashed_line, area, none } swatch = Swatch::none;
    std::string color;
    double opacity = 1.0;
    std::string text;
};

// Lays the entries out left to right, wrapping at the chart's width; returns the SVG and the rows used.
std::pair<std::string, int> render_legend(const std::vector<LegendEntry>& entries, double top, double width) {
    std::string svg;
    double x = kLeft;
    int rows = entries.empty() ? 0 : 1;
    double baseline = top + kLegendFont;
    for (const auto& entry : entries) {
        const double swatch = entry.swatch == LegendEntry::Swatch::none ? 0.0 : 18.0;
        const double entry_width = swatch + text_width(entry.text, kLegendFont) + 18.0;
        if (x > kLeft && x + entry_width > width - kRight) {
            x = kLeft;
            baseline += kLegendRow;
            ++rows;
        }
        switch (entry.swatch) {
            case LegendEntry::Swatch::line:
            case LegendEntry::Swatch::dashed_line:
                svg += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"2\"{}/>",
                                   x, baseline - 4, x + 14, baseline - 4, entry.color,
                                   entry.swatch == LegendEntry::Swatch::dashed_line ? " stroke-dasharray=\"4 3\"" : "");
                break;
            case LegendEntry::Swatch::area:
                svg += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"14\" height=\"10\" fill=\"{}\" fill-opacity=\"{}\"/>",
                                   x, baseline - 10, entry.color, entry.opacity);
                break;
            case LegendEntry::Swatch::none: break;
        }
        svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", x + swatch, baseline, xml_escape(entry.text));
        x += entry_width;
    }
    return {svg, rows};
}

}  // namespace

Series line_series(std::string label, std::vector<double> x, std::vector<double> y, std::string color) {
    Series series;
    series.label = std::move(label);
    series.x = std::move(x);
    series.y = std::move(y);
    series.color = std::move(color);
    return series;
}

Band band_series(std::string label, std::vector<double> x, std::vector<double> low, std::vector<double> high,
                 std::string color) {
    Band band;
    band.label = std::move(label);
    band.x = std::move(x);
    band.low = std::move(low);
    band.high = std::move(high);
    band.color = std::move(color);
    return band;
}

std::string xml_escape(const std::string& text) { return core::xml_text(text); }

std::string short_number(double value) {
    static constexpr std::array<std::pair<double, const char*>, 6> kPrefixes{
        {{1e18, "E"}, {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}}};
    const double magnitude = std::fabs(value);
    for (const auto& [scale, prefix] : kPrefixes) {
        if (magnitude >= scale * (1 - kSlack)) return fmt::format("{:g}{}", value / scale, prefix);
    }
    return fmt::format("{:g}", value);
}

std::string binary_short_number(double value) {
    const double magnitude = std::fabs(value);
    // Only exact multiples: 1536 is "1.5k" either way, but 1000 must not read as "0.977k".
    if (magnitude >= 1048576.0 && std::fmod(magnitude, 1048576.0) == 0.0) return fmt::format("{:g}M", value / 1048576.0);
    if (magnitude >= 1024.0 && std::fmod(magnitude, 1024.0) == 0.0) return fmt::format("{:g}k", value / 1024.0);
    return short_number(value);
}

std::vector<double> axis_ticks(double low, double high, bool logarithmic, LogBase base) {
    std::vector<double> ticks;
    if (!(high > low)) return ticks;
    if (logarithmic && base == LogBase::two) {
        const int first = static_cast<int>(std::ceil(std::log2(low) - kSlack));
        const int last = static_cast<int>(std::floor(std::log2(high) + kSlack));
        const int stride = std::max(1, (last - first + 12) / 12);  // at most 12 labels
        for (int exponent = first; exponent <= last; exponent += stride) ticks.push_back(std::exp2(exponent));
        return ticks;
    }
    if (logarithmic) {
        const int first = static_cast<int>(std::floor(std::log10(low) + kSlack));
        const int last = static_cast<int>(std::ceil(std::log10(high) - kSlack));
        const bool dense = last - first <= 2;
        for (int exponent = first; exponent <= last; ++exponent) {
            for (double mantissa : dense ? std::vector<double>{1, 2, 5} : std::vector<double>{1}) {
                const double tick = mantissa * std::pow(10.0, exponent);
                if (tick >= low * (1 - kSlack) && tick <= high * (1 + kSlack)) ticks.push_back(tick);
            }
        }
        if (!dense) {
            // An end of the range that is 2 x 10^k (low) or 5 x 10^k (high) is 0.7 decades from the
            // nearest power inside the range: far enough to label without the labels running together.
            auto mantissa = [](double value) { return value / std::pow(10.0, std::floor(std::log10(value) + kSlack)); };
            if (std::fabs(mantissa(low) - 2.0) < 1e-6) ticks.insert(ticks.begin(), low);
            if (std::fabs(mantissa(high) - 5.0) < 1e-6) ticks.push_back(high);
        }
        return ticks;
    }
    const double step = linear_step(low, high);
    for (double tick = std::ceil(low / step - kSlack) * step; tick <= high + step * kSlack; tick += step) {
        ticks.push_back(std::fabs(tick) < step * kSlack ? 0.0 : tick);
    }
    return ticks;
}

std::pair<double, double> axis_range(const Chart& chart, bool x_axis) {
    const Axis& axis = x_axis ? chart.x : chart.y;
    double low = std::numeric_limits<double>::infinity(), high = -low;
    for_each_data_value(chart, x_axis, [&](double value) {
        low = std::min(low, value);
        high = std::max(high, value);
    });
    if (!std::isfinite(low)) {
        low = axis.logarithmic ? 1.0 : 0.0;
        high = axis.logarithmic ? 10.0 : 1.0;
    }
    if (axis.logarithmic) {
        low = nice_floor(low, axis.base);
        high = nice_ceil(high, axis.base);
        if (high <= low * (1 + kSlack)) high = nice_ceil(low * 1.5, axis.base);
    } else {
        if (!x_axis) low = std::min(low, 0.0);
        if (high <= low) high = low + 1.0;
        const double step = linear_step(low, high);
        low = std::floor(low / step + kSlack) * step;
        high = std::ceil(high / step - kSlack) * step;
    }
    if (axis.minimum) low = *axis.minimum;
    if (axis.maximum) high = *axis.maximum;
    return {low, high};
}

bool boxes_overlap(const Box& a, const Box& b) {
    return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
}

double text_width(std::string_view text, double font_size) {
    std::size_t characters = 0;
    for (char byte : text) characters += (static_cast<unsigned char>(byte) & 0xC0) != 0x80 ? 1 : 0;
    return 0.6 * font_size * static_cast<double>(characters);
}

double label_height(double font_size) { return 1.2 * font_size; }

std::vector<LabelPlacement> place_labels(const std::vector<LabelRequest>& labels, const Box& area, int max_steps) {
    std::vector<LabelPlacement> placements;
    placements.reserve(labels.size());
    std::vector<Box> taken;
    auto inside = [&](const Box& box) {
        return box.left >= area.left && box.right <= area.right && box.top >= area.top && box.bottom <= area.bottom;
    };
    auto free = [&](const Box& box) {
        return std::none_of(taken.begin(), taken.end(), [&](const Box& other) { return boxes_overlap(box, other); });
    };
    for (const auto& label : labels) {
        const double width = text_width(label.text, label.font_size);
        const double height = label_height(label.font_size);
        const double step = height + 2.0;
        LabelPlacement placement;
        // Shifts in the order 0, -1, +1, -2, +2, ...: the nearest free spot wins, up before down.
        for (int i = 0; i <= 2 * max_steps && !placement.placed; ++i) {
            const int shift = i == 0 ? 0 : (i % 2 == 1 ? -(i + 1) / 2 : i / 2);
            const double top = label.anchor_y + label.offset_y + shift * step;
            const Box right{label.anchor_x + label.offset_x, top, label.anchor_x + label.offset_x + width, top + height};
            const Box left{label.anchor_x - label.offset_x - width, top, label.anchor_x - label.offset_x, top + height};
            for (const Box& candidate : {right, left}) {
                if (inside(candidate) && free(candidate)) {
                    placement = {true, candidate, shift != 0};
                    break;
                }
            }
        }
        if (placement.placed) taken.push_back(placement.box);
        placements.push_back(placement);
    }
    return placements;
}

std::string render_chart(const Chart& chart) { return render_chart_sized(chart).svg; }

RenderedChart render_chart_sized(const Chart& chart) {
    const double width = chart.width;
    const double plot_bottom = chart.height - kBottom;
    const auto [x_low, x_high] = axis_range(chart, true);
    const auto [y_low, y_high] = axis_range(chart, false);
    const Scale x{x_low, x_high, chart.x.logarithmic, kLeft, width - kRight};
    const Scale y{y_low, y_high, chart.y.logarithmic, plot_bottom, kTop};
    auto in_x_range = [&, x_low = x_low, x_high = x_high, tolerance = (x_high - x_low) * kSlack](double value) {
        return drawable(value, chart.x.logarithmic) && value >= x_low - tolerance && value <= x_high + tolerance;
    };

    std::string body;  // everything but the opening tag, whose height depends on the legend
    body += fmt::format("<text x=\"{}\" y=\"22\" font-size=\"15\" font-weight=\"bold\">{}</text>\n", kLeft,
                        xml_escape(chart.title));

    // Grid, ticks and tick labels.
    for (double tick : axis_ticks(x_low, x_high, chart.x.logarithmic, chart.x.base)) {
        const double px = x(tick);
        body += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#e5e5e5\"/>\n", px, kTop,
                            plot_bottom);
        body += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", px, plot_bottom + 16,
                            tick_label(tick, chart.x));
    }
    for (double tick : axis_ticks(y_low, y_high, chart.y.logarithmic, chart.y.base)) {
        const double py = y(tick);
        body += fmt::format("<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#e5e5e5\"/>\n", kLeft, py,
                            width - kRight);
        body += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", kLeft - 6, py + 4,
                            tick_label(tick, chart.y));
    }
    body += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", (kLeft + width - kRight) / 2,
                        plot_bottom + 38, xml_escape(chart.x.label));
    body += fmt::format("<text transform=\"translate(16 {:.1f}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n",
                        (kTop + plot_bottom) / 2, xml_escape(chart.y.label));

    std::vector<LegendEntry> legend;
    // Bands first, so that the lines run over them.
    for (const auto& band : chart.bands) {
        std::string upper, lower;
        const std::size_t count = std::min({band.x.size(), band.low.size(), band.high.size()});
        std::vector<std::pair<double, double>> bottom_edge;
        for (std::size_t i = 0; i < count; ++i) {
            if (!drawable(band.x[i], chart.x.logarithmic) || !drawable(band.low[i], chart.y.logarithmic) ||
                !drawable(band.high[i], chart.y.logarithmic)) {
                continue;
            }
            upper += fmt::format("{}{:.1f},{:.1f}", upper.empty() ? "" : " ", x(band.x[i]), y(band.high[i]));
            bottom_edge.emplace_back(x(band.x[i]), y(band.low[i]));
        }
        if (bottom_edge.size() < 2) continue;
        for (auto it = bottom_edge.rbegin(); it != bottom_edge.rend(); ++it) lower += fmt::format(" {:.1f},{:.1f}", it->first, it->second);
        body += fmt::format("<polygon class=\"band\" points=\"{}{}\" fill=\"{}\" fill-opacity=\"{}\" stroke=\"none\"/>\n", upper,
                            lower, band.color, band.opacity);
        if (!band.label.empty()) legend.push_back({LegendEntry::Swatch::area, band.color, band.opacity, band.label});
    }

    // Labels to place: marker labels first, then marked points, then the series' point labels,
    // which are the first to give way.
    struct PendingLabel {
        LabelRequest request;
        std::string color;
        bool leader_line = false;                  // marker labels sit along their own line
        std::optional<std::pair<double, double>> at;  // data coordinates, named if listed below the plot
    };
    std::vector<PendingLabel> marker_labels, point_labels;
    for (const auto& marker : chart.markers) {
        if (!in_x_range(marker.x)) {
            legend.push_back({LegendEntry::Swatch::none, marker.color, 1.0,
                              fmt::format("{} (outside the x range)", marker.label)});
            continue;
        }
        const double px = x(marker.x);
        body += fmt::format("<line class=\"marker\" x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"{3}\" "
                            "stroke-dasharray=\"5 4\"/>\n",
                            px, kTop, plot_bottom, marker.color);
        // Built member by member: GCC 12 misreads the nested aggregate (-Wmaybe-uninitialized).
        PendingLabel label;
        label.request = LabelRequest{px, kTop, marker.label, kMarkerLabelFont, 4.0, 4.0};
        label.color = marker.color;
        marker_labels.push_back(std::move(label));
    }
    for (const auto& point : chart.points) {
        if (!in_x_range(point.x) || !drawable(point.y, chart.y.logarithmic)) {
            legend.push_back({LegendEntry::Swatch::none, point.color, 1.0,
                              fmt::format("{} (outside the x range)", point.label)});
            continue;
        }
        const double px = x(point.x), py = y(point.y);
        marker_labels.push_back({{px, py, point.label, kMarkerLabelFont, 8.0, -(label_height(kMarkerLabelFont) + 4.0)},
                                 point.color, true, std::pair{point.x, point.y}});
    }

    for (const auto& series : chart.series) {
        std::string path;
        for (std::size_t i = 0; i < std::min(series.x.size(), series.y.size()); ++i) {
            if (!drawable(series.x[i], chart.x.logarithmic) || !drawable(series.y[i], chart.y.logarithmic)) continue;
            const double px = x(series.x[i]), py = y(series.y[i]);
            if (series.line) path += fmt::format("{}{:.1f},{:.1f}", path.empty() ? "M" : " L", px, py);
            if (series.points) {
                body += fmt::format("<circle class=\"data-point\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"{}\"/>\n", px, py,
                                    series.color);
            }
            if (series.label_points && i < series.point_labels.size() && !series.point_labels[i].empty()) {
                point_labels.push_back({{px, py, series.point_labels[i], kPointLabelFont, 6.0,
                                         -(label_height(kPointLabelFont) + 2.0)},
                                        "#333",
                                        true,
                                        std::pair{series.x[i], series.y[i]}});
            }
        }
        if (!path.empty()) {
            body += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{}/>\n", path, series.color,
                                series.dashed ? " stroke-dasharray=\"6 4\"" : "");
        }
        if (!series.label.empty()) {
            legend.push_back({series.dashed ? LegendEntry::Swatch::dashed_line : LegendEntry::Swatch::line, series.color,
                              1.0, series.label});
        }
    }
    // Rings over the lines, so the marked point stays visible.
    for (const auto& point : chart.points) {
        if (!in_x_range(point.x) || !drawable(point.y, chart.y.logarithmic)) continue;
        body += fmt::format("<circle class=\"operating-point\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"6\" fill=\"white\" "
                            "fill-opacity=\"0.6\" stroke=\"{}\" stroke-width=\"2.5\"/>\n",
                            x(point.x), y(point.y), point.color);
    }

    std::vector<PendingLabel> pending = std::move(marker_labels);
    pending.insert(pending.end(), point_labels.begin(), point_labels.end());
    std::vector<LabelRequest> requests;
    for (const auto& label : pending) requests.push_back(label.request);
    const auto placements = place_labels(requests, Box{kLeft, kTop, width - kRight, plot_bottom});
    for (std::size_t i = 0; i < pending.size(); ++i) {
        const auto& [request, color, leader_line, at] = pending[i];
        const auto& placement = placements[i];
        if (!placement.placed) {
            legend.push_back({LegendEntry::Swatch::none, color, 1.0,
                              at ? fmt::format("{} (at {}, {})", request.text, tick_label(at->first, chart.x),
                                               tick_label(at->second, chart.y))
                                 : request.text});
            continue;
        }
        const Box& box = placement.box;
        if (placement.leader && leader_line) {
            const double edge_x = box.left > request.anchor_x ? box.left : box.right;
            body += fmt::format("<line class=\"leader\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#999\"/>\n",
                                request.anchor_x, request.anchor_y, edge_x, (box.top + box.bottom) / 2);
        }
        body += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"{}\" fill=\"{}\">{}</text>\n", box.left,
                            box.bottom - 0.25 * request.font_size, request.font_size, color, xml_escape(request.text));
    }

    body += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#333\"/>\n", kLeft, kTop,
                        width - kLeft - kRight, plot_bottom - kTop);
    const auto [legend_svg, legend_rows] = render_legend(legend, chart.height - 8.0, width);
    body += legend_svg;
    const double height = std::round(chart.height + kLegendRow * legend_rows);
    return {fmt::format(
                "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"{0}\" height=\"{1:.0f}\" viewBox=\"0 0 {0} "
                "{1:.0f}\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"{0}\" height=\"{1:.0f}\" fill=\"white\"/>\n",
                chart.width, height) +
                body + "</svg>\n",
            height};
}

std::string render_stacked_bar(const std::string& title, const std::vector<BarSegment>& segments, double total,
                               const std::string& total_label, int width) {
    const double bar_width = width - kLeft - kRight;
    double used = 0.0;
    for (const auto& segment : segments) used += std::max(0.0, segment.value);
    const double scale_total = std::max(total, used);
    std::string svg = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"{0}\" height=\"150\" viewBox=\"0 0 {0} 150\" "
        "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"{0}\" height=\"150\" fill=\"white\"/>\n"
        "<text x=\"{1}\" y=\"22\" font-size=\"15\" font-weight=\"bold\">{2}</text>\n",
        width, kLeft, xml_escape(title));
    double offset = kLeft;
    double legend_x = kLeft;
    for (const auto& segment : segments) {
        const double w = std::max(0.0, segment.value) / scale_total * bar_width;
        svg += fmt::format("<rect x=\"{:.1f}\" y=\"40\" width=\"{:.1f}\" height=\"36\" fill=\"{}\"/>\n", offset, w,
                           segment.color);
        svg += fmt::format("<rect x=\"{:.1f}\" y=\"96\" width=\"12\" height=\"12\" fill=\"{}\"/>"
                           "<text x=\"{:.1f}\" y=\"106\">{}</text>\n",
                           legend_x, segment.color, legend_x + 16, xml_escape(segment.label));
        offset += w;
        legend_x += 16 + 7.0 * static_cast<double>(segment.label.size()) + 18;
    }
    const double capacity_x = kLeft + total / scale_total * bar_width;
    svg += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"32\" x2=\"{0:.1f}\" y2=\"84\" stroke=\"#c00\" stroke-width=\"2\"/>"
        "<text x=\"{1:.1f}\" y=\"132\" text-anchor=\"end\" fill=\"#c00\">{2}</text>\n",
        capacity_x, std::min(capacity_x, kLeft + bar_width), xml_escape(total_label));
    svg += "</svg>\n";
    return svg;
}

std::string render_bars(const std::string& title, const std::vector<Bar>& bars, const std::string& note, int width) {
    constexpr double kFont = 12.0;
    constexpr double kRowHeight = 34.0;
    constexpr double kTop = 44.0;
    constexpr double kShortestBarSpace = 160.0;
    // The label column fits the longest label, and the longest value text must still fit right of
    // the longest bar: the picture widens rather than letting either run off its edge.
    double label_width = 120.0, value_width = 0.0;
    for (const auto& bar : bars) {
        label_width = std::max(label_width, text_width(bar.label, kFont) + 16.0);
        value_width = std::max(value_width, text_width(bar.value_label, kFont));
    }
    const double picture_width = std::max({static_cast<double>(width), label_width + kShortestBarSpace + value_width + 20.0,
                                           text_width(note, kFont) + 20.0, text_width(title, 15.0) + 20.0});
    const double bar_space = picture_width - label_width - value_width - 20.0;
    width = static_cast<int>(std::ceil(picture_width));
    double largest = 0.0;
    for (const auto& bar : bars) {
        if (std::isfinite(bar.value)) largest = std::max(largest, bar.value);
        if (bar.band && std::isfinite(bar.band->second)) largest = std::max(largest, bar.band->second);
    }
    const double height = kTop + kRowHeight * static_cast<double>(bars.size()) + 40.0;
    std::string svg = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"{0}\" height=\"{1:.0f}\" viewBox=\"0 0 {0} {1:.0f}\" "
        "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"{0}\" height=\"{1:.0f}\" fill=\"white\"/>\n"
        "<text x=\"10\" y=\"24\" font-size=\"15\" font-weight=\"bold\">{2}</text>\n",
        width, height, xml_escape(title));
    for (std::size_t i = 0; i < bars.size(); ++i) {
        const auto& bar = bars[i];
        const double y = kTop + kRowHeight * static_cast<double>(i);
        const double length = largest > 0.0 && std::isfinite(bar.value) ? std::max(0.0, bar.value) / largest * bar_space : 0.0;
        svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", label_width - 8.0,
                           y + kRowHeight / 2.0 + 4.0, xml_escape(bar.label));
        svg += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\"/>\n", label_width,
                           y + 5.0, length, kRowHeight - 10.0, bar.color);
        double text_x = label_width + length + 6.0;
        if (bar.band && largest > 0.0 && std::isfinite(bar.band->first) && std::isfinite(bar.band->second)) {
            // The band as a shaded span across the bar's end, with the bar's colour; the value text
            // starts after it so that the two never overlap.
            const double low = std::max(0.0, bar.band->first) / largest * bar_space;
            const double high = std::max(0.0, bar.band->second) / largest * bar_space;
            svg += fmt::format("<rect class=\"band\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
                               "fill=\"{}\" fill-opacity=\"0.25\" stroke=\"{}\" stroke-opacity=\"0.5\"/>\n",
                               label_width + low, y + 2.0, std::max(0.0, high - low), kRowHeight - 4.0, bar.color,
                               bar.color);
            text_x = std::max(text_x, label_width + high + 6.0);
        }
        svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", text_x, y + kRowHeight / 2.0 + 4.0,
                           xml_escape(bar.value_label));
    }
    svg += fmt::format("<text x=\"10\" y=\"{:.1f}\" fill=\"#555\">{}</text>\n", height - 14.0, xml_escape(note));
    svg += "</svg>\n";
    return svg;
}

}  // namespace decodesim::report
