#pragma once
// A price list (`--prices FILE`): USD per device-hour by hardware id, with its basis, date and
// source, one device a row of a CSV:
//   hardware,usd_per_hour[,basis][,date][,source]
// The same prices as `--price ID=USD`, for a buyer's own quotes or a cloud's price sheet.

#include <string>
#include <vector>

namespace decodesim::profiles {

struct ListedPrice {
    std::string hardware;
    double usd_per_hour = 0.0;
    std::string basis;   // free text as given ("cloud on-demand", "3-year purchase"); may be empty
    std::string date;
    std::string source;
};

// Every row, in file order. Throws core::InputError naming the file, line, column and key of every
// bad field: an unknown column, a hardware id not in `known_ids`, an id listed twice, a price outside
// the range profiles accept.
std::vector<ListedPrice> load_price_list(const std::string& path, const std::vector<std::string>& known_ids);

}  // namespace decodesim::profiles
