#include "cli/price_option.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/units.hpp"
#include "core/value_range.hpp"
#include "profiles/price_list.hpp"

namespace decodesim::cli {

std::map<std::string, double> parse_prices(const std::string& text) {
    std::map<std::string, double> prices;
    if (text.empty()) return prices;
    for (const auto& item : core::parse_name_list(text, "--price")) {
        const auto equals = item.find('=');
        double price = 0.0;
        if (equals == std::string::npos || !core::parse_number(item.substr(equals + 1), price)) {
            throw core::UsageError(fmt::format("--price: '{}' should be ID=USD_PER_HOUR, e.g. h100-sxm=2.49", item));
        }
        if (price < profiles::kMinPricePerHour || price > profiles::kMaxPricePerHour) {  // the range of price_per_hour in profiles
            throw core::UsageError(fmt::format("--price: {} USD per device-hour in '{}' is outside [{:g}, {:g}]", price, item,
                                               profiles::kMinPricePerHour, profiles::kMaxPricePerHour));
        }
        // parse_name_list refuses an item given twice whole; one id at two prices would keep the last silently.
        if (!prices.emplace(item.substr(0, equals), price).second) {
            throw core::UsageError(fmt::format("--price: '{}' is listed twice in '{}'", item.substr(0, equals), text));
        }
    }
    return prices;
}

void apply_prices(const std::map<std::string, double>& prices, std::vector<profiles::HardwareProfile>& devices) {
    for (const auto& [id, price] : prices) {
        bool named = false;
        for (profiles::HardwareProfile& device : devices) {
            if (device.id != id) continue;
            device.price_per_hour = price;
            device.price_basis = profiles::PriceBasis::unstated;  // the user's own price
            named = true;
        }
        if (!named) throw core::UsageError(fmt::format("--price: '{}' is not among the --hardware ids", id));
    }
}

std::map<std::string, double> apply_given_prices(const std::string& price_flag, const std::string& price_file,
                                                 const profiles::Catalog& catalog,
                                                 std::vector<profiles::HardwareProfile>& devices) {
    std::map<std::string, double> applied;
    if (!price_file.empty()) {
        for (const auto& row : profiles::load_price_list(price_file, catalog.hardware_ids())) {
            for (profiles::HardwareProfile& device : devices) {
                if (device.id != row.hardware) continue;
                device.price_per_hour = row.usd_per_hour;
                device.price_basis = profiles::PriceBasis::unstated;  // the list's basis column is free text
                applied[row.hardware] = row.usd_per_hour;
            }
        }
    }
    const auto listed = parse_prices(price_flag);
    apply_prices(listed, devices);
    for (const auto& [id, price] : listed) applied[id] = price;
    return applied;
}

}  // namespace decodesim::cli
