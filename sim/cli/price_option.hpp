#pragma once
// What `--price ID=USD_PER_HOUR,...` gives: a price per device-hour that replaces the profile's,
// the same flag in compare, plan and serve (docs/cli.md, "Prices").

#include <map>
#include <string>
#include <vector>

#include "profiles/catalog.hpp"
#include "profiles/hardware_profile.hpp"

namespace decodesim::cli {

// The prices `text` names, by hardware id; empty for an empty text. A malformed item or a price
// outside the range profiles accept (profiles::kMinPricePerHour to kMaxPricePerHour) is a usage
// error naming the item.
std::map<std::string, double> parse_prices(const std::string& text);

// Sets each named price on every device of that id; a price for a device that is not among `devices`
// is a usage error (a typo would otherwise leave the profile's price in place, unnoticed).
void apply_prices(const std::map<std::string, double>& prices, std::vector<profiles::HardwareProfile>& devices);

// The prices a command was given: a price list file (`--prices FILE`, profiles/price_list.hpp) and
// `--price` items, which win over the file's row of the same id. A file's rows for devices the
// command does not consider are left aside (a price sheet lists more than one plan weighs); its
// ids must still be hardware ids of `catalog` (listed only when a file is given). Returns the
// prices set, by id.
std::map<std::string, double> apply_given_prices(const std::string& price_flag, const std::string& price_file,
                                                 const profiles::Catalog& catalog,
                                                 std::vector<profiles::HardwareProfile>& devices);

}  // namespace decodesim::cli
