#include "report/svg_chart.hpp"

#include "core/text_escape.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace decodesim::report {

namespace {

constexpr double kLeft = 78.0, kRight = 24.0, kTop = 40.0, kBottom = 58.0;

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

// The data range of one axis, padded so nothing sits on the frame.
std::pair<double, double> range_of(const Chart& chart, bool x_axis) {
    const Axis& axis = x_axis ? chart.x : chart.y;
    double low = std::numeric_limits<double>::infinity(), high = -low;
    for (const auto& series : chart.series) {
        for (double value : x_axis ? series.x : series.y) {
            if (!drawable(value, axis.logarithmic)) continue;
            low = std::min(low, value);
            high = std::max(high, value);
        }
    }
    if (x_axis) {
        for (const auto& marker : chart.markers) {
            if (!drawable(marker.x, axis.logarithmic)) continue;
            low = std::min(low, marker.x);
            high = std::max(high, marker.x);
        }
    }
    if (!std::isfinite(low)) {
        low = axis.logarithmic ? 1.0 : 0.0;
        high = axis.logarithmic ? 10.0 : 1.0;
    }
    if (axis.logarithmic) {
        low = std::pow(10.0, std::floor(std::log10(low)));
        high = std::pow(10.0, std::ceil(std::log10(high)));
        if (high <= low) high = low * 10.0;
    } else {
        if (!x_axis) low = std::min(low, 0.0);
        if (high <= low) high = low + 1.0;
        const auto ticks = axis_ticks(low, high, false);
        high = std::max(high, ticks.empty() ? high : ticks.back());
    }
    if (axis.minimum) low = *axis.minimum;
    if (axis.maximum) high = *axis.maximum;
    return {low, high};
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

std::string xml_escape(const std::string& text) { return core::xml_text(text); }

std::string short_number(double value) {
    const double magnitude = std::fabs(value);
    if (magnitude >= 1e12) return fmt::format("{:g}T", value / 1e12);
    if (magnitude >= 1e9) return fmt::format("{:g}G", value / 1e9);
    if (magnitude >= 1e6) return fmt::format("{:g}M", value / 1e6);
    if (magnitude >= 1e3) return fmt::format("{:g}k", value / 1e3);
    return fmt::format("{:g}", value);
}

std::vector<double> axis_ticks(double low, double high, bool logarithmic) {
    std::vector<double> ticks;
    if (!(high > low)) return ticks;
    if (logarithmic) {
        const int first = static_cast<int>(std::floor(std::log10(low)));
        const int last = static_cast<int>(std::ceil(std::log10(high)));
        const bool dense = last - first <= 2;
        for (int exponent = first; exponent <= last; ++exponent) {
            for (double mantissa : dense ? std::vector<double>{1, 2, 5} : std::vector<double>{1}) {
                const double tick = mantissa * std::pow(10.0, exponent);
                if (tick >= low * (1 - 1e-9) && tick <= high * (1 + 1e-9)) ticks.push_back(tick);
            }
        }
        return ticks;
    }
    const double raw_step = (high - low) / 6.0;
    const double power = std::pow(10.0, std::floor(std::log10(raw_step)));
    double step = power;
    for (double candidate : {1.0, 2.0, 5.0, 10.0}) {
        if (candidate * power >= raw_step) {
            step = candidate * power;
            break;
        }
    }
    for (double tick = std::ceil(low / step) * step; tick <= high + step * 1e-9; tick += step) {
        ticks.push_back(std::fabs(tick) < step * 1e-9 ? 0.0 : tick);
    }
    return ticks;
}

std::string render_chart(const Chart& chart) {
    const double width = chart.width, height = chart.height;
    const auto [x_low, x_high] = range_of(chart, true);
    const auto [y_low, y_high] = range_of(chart, false);
    const Scale x{x_low, x_high, chart.x.logarithmic, kLeft, width - kRight};
    const Scale y{y_low, y_high, chart.y.logarithmic, height - kBottom, kTop};

    std::string svg = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
        "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"{0}\" height=\"{1}\" fill=\"white\"/>\n",
        chart.width, chart.height);
    svg += fmt::format("<text x=\"{}\" y=\"22\" font-size=\"15\" font-weight=\"bold\">{}</text>\n", kLeft,
                       xml_escape(chart.title));

    // Grid, ticks and tick labels.
    for (double tick : axis_ticks(x_low, x_high, chart.x.logarithmic)) {
        const double px = x(tick);
        svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#e5e5e5\"/>\n", px, kTop,
                           height - kBottom);
        svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", px, height - kBottom + 16,
                           short_number(tick));
    }
    for (double tick : axis_ticks(y_low, y_high, chart.y.logarithmic)) {
        const double py = y(tick);
        svg += fmt::format("<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#e5e5e5\"/>\n", kLeft, py,
                           width - kRight);
        svg += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", kLeft - 6, py + 4,
                           short_number(tick));
    }
    svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#333\"/>\n", kLeft, kTop,
                       width - kLeft - kRight, height - kTop - kBottom);
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", (kLeft + width - kRight) / 2,
                       height - 14, xml_escape(chart.x.label));
    svg += fmt::format("<text transform=\"translate(16 {:.1f}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n",
                       (kTop + height - kBottom) / 2, xml_escape(chart.y.label));

    // Marker labels are staggered so neighbours do not overlap, and turn left near the right edge.
    double marker_label_y = kTop + 14;
    for (const auto& marker : chart.markers) {
        if (!drawable(marker.x, chart.x.logarithmic) || marker.x < x_low || marker.x > x_high) continue;
        const double px = x(marker.x);
        const bool near_right = px > width - kRight - 140;
        svg += fmt::format(
            "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"{3}\" stroke-dasharray=\"5 4\"/>\n"
            "<text x=\"{4:.1f}\" y=\"{5}\" fill=\"{3}\" text-anchor=\"{6}\">{7}</text>\n",
            px, kTop, height - kBottom, marker.color, near_right ? px - 4 : px + 4, marker_label_y,
            near_right ? "end" : "start", xml_escape(marker.label));
        marker_label_y += 14;
    }

    // The legend sits in the lower left corner of the plot.
    std::size_t labelled = 0;
    for (const auto& series : chart.series) labelled += series.label.empty() ? 0 : 1;
    double legend_y = height - kBottom - 10 - 16.0 * static_cast<double>(labelled > 0 ? labelled - 1 : 0);
    for (const auto& series : chart.series) {
        std::string path;
        for (std::size_t i = 0; i < std::min(series.x.size(), series.y.size()); ++i) {
            if (!drawable(series.x[i], chart.x.logarithmic) || !drawable(series.y[i], chart.y.logarithmic)) continue;
            const double px = x(series.x[i]), py = y(series.y[i]);
            if (series.line) path += fmt::format("{}{:.1f},{:.1f}", path.empty() ? "M" : " L", px, py);
            if (series.points) {
                svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"{}\"/>\n", px, py, series.color);
            }
            if (series.label_points && i < series.point_labels.size()) {
                svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\" fill=\"#333\">{}</text>\n", px + 6,
                                   py - 4, xml_escape(series.point_labels[i]));
            }
        }
        if (!path.empty()) {
            svg += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{}/>\n", path, series.color,
                               series.dashed ? " stroke-dasharray=\"6 4\"" : "");
        }
        if (!series.label.empty()) {
            svg += fmt::format(
                "<rect x=\"{0}\" y=\"{1:.1f}\" width=\"12\" height=\"3\" fill=\"{2}\"/>"
                "<text x=\"{3}\" y=\"{4:.1f}\">{5}</text>\n",
                kLeft + 10, legend_y - 4, series.color, kLeft + 28, legend_y,
                xml_escape(series.label));
            legend_y += 16;
        }
    }
    svg += "</svg>\n";
    return svg;
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
    constexpr double kLabelWidth = 250.0;  // the row labels, left of the bars
    constexpr double kCharacterWidth = 6.8;  // a generous average at 12 px sans-serif
    constexpr double kRowHeight = 34.0;
    constexpr double kTop = 44.0;
    // The longest value text must still fit right of the longest bar.
    std::size_t longest_text = 0;
    for (const auto& bar : bars) longest_text = std::max(longest_text, bar.value_label.size());
    const double bar_space =
        std::max(80.0, width - kLabelWidth - kCharacterWidth * static_cast<double>(longest_text) - 20.0);
    double largest = 0.0;
    for (const auto& bar : bars) {
        if (std::isfinite(bar.value)) largest = std::max(largest, bar.value);
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
        svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", kLabelWidth - 8.0,
                           y + kRowHeight / 2.0 + 4.0, xml_escape(bar.label));
        svg += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\"/>\n", kLabelWidth,
                           y + 5.0, length, kRowHeight - 10.0, bar.color);
        svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", kLabelWidth + length + 6.0,
                           y + kRowHeight / 2.0 + 4.0, xml_escape(bar.value_label));
    }
    svg += fmt::format("<text x=\"10\" y=\"{:.1f}\" fill=\"#555\">{}</text>\n", height - 14.0, xml_escape(note));
    svg += "</svg>\n";
    return svg;
}

}  // namespace decodesim::report
