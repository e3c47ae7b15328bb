#include "profiles/price_list.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "core/suggest.hpp"
#include "core/text_escape.hpp"
#include "core/units.hpp"
#include "profiles/csv_record.hpp"
#include "profiles/hardware_profile.hpp"
#include "profiles/input_file.hpp"

namespace decodesim::profiles {

namespace {

constexpr const char* kPriceColumns[] = {"hardware", "usd_per_hour", "basis", "date", "source"};
constexpr std::size_t kMaxPriceProblems = 20;

}  // namespace

std::vector<ListedPrice> load_price_list(const std::string& path, const std::vector<std::string>& known_ids) {
    std::istringstream stream(read_input_file(path, std::size_t{16} << 20, "a price list is a few kB"));
    std::vector<core::Diagnostic> problems;
    std::vector<ListedPrice> prices;
    std::vector<int> column_of;  // header position -> index into kPriceColumns
    std::set<std::string> seen;
    std::string line;
    int number = 0;
    while (std::getline(stream, line) && problems.size() < kMaxPriceProblems) {
        ++number;
        bool well_formed = true;
        const auto fields = split_trimmed_csv_record(line, well_formed);
        if (!well_formed) {
            problems.push_back({{path, number, 1}, "", "a quote is left open"});
            continue;
        }
        if (number == 1) {
            column_of = header_columns(fields, {std::begin(kPriceColumns), std::end(kPriceColumns)}, {0, 1}, path,
                                       "hardware,usd_per_hour and optionally basis, date, source");
            continue;
        }
        if (line.find_first_not_of(" \r") == std::string::npos) continue;
        if (fields.size() != column_of.size()) {
            problems.push_back({{path, number, 1}, "", fmt::format("expected {} fields, found {}", column_of.size(), fields.size())});
            continue;
        }
        ListedPrice price;
        bool good = true;
        for (std::size_t i = 0; i < fields.size(); ++i) {
            const auto refuse = [&](std::string message) {
                problems.push_back({{path, number, static_cast<int>(i) + 1}, kPriceColumns[column_of[i]], std::move(message)});
                good = false;
            };
            switch (column_of[i]) {
                case 0:
                    price.hardware = fields[i];
                    if (std::find(known_ids.begin(), known_ids.end(), fields[i]) == known_ids.end()) {
                        refuse(fmt::format("'{}' is no hardware id{} (list them with: decodesim profiles list hardware)",
                                           core::printable(fields[i]), core::did_you_mean(fields[i], known_ids)));
                    } else if (!seen.insert(fields[i]).second) {
                        refuse(fmt::format("'{}' is listed twice", fields[i]));
                    }
                    break;
                case 1:
                    if (!core::parse_number(fields[i], price.usd_per_hour) || price.usd_per_hour < kMinPricePerHour ||
                        price.usd_per_hour > kMaxPricePerHour) {
                        refuse(fmt::format("'{}' is not a price from {:g} to {:g} USD per device-hour", core::printable(fields[i]),
                                           kMinPricePerHour, kMaxPricePerHour));
                    }
                    break;
                case 2: price.basis = core::printable(fields[i]); break;
                case 3: price.date = core::printable(fields[i]); break;
                default: price.source = core::printable(fields[i]); break;
            }
        }
        if (good) prices.push_back(std::move(price));
    }
    if (!problems.empty()) throw core::InputError(std::move(problems));
    if (prices.empty()) throw core::InputError(core::Diagnostic{{path, 0, 0}, "", "the price list names no device"});
    return prices;
}

}  // namespace decodesim::profiles
