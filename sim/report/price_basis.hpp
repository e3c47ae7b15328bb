#pragma once
// How a table marks a price by its basis (profiles::PriceBasis), the same in plan and compare:
// nothing for a cloud rate or a price the user gave, "p" for an amortized purchase price, "~" for
// another device's price standing in; and the note under the table that says so.

#include <optional>
#include <string>

#include "profiles/hardware_profile.hpp"

namespace decodesim::report {

inline std::string price_mark(profiles::PriceBasis basis) {
    switch (basis) {
        case profiles::PriceBasis::purchase: return "p";
        case profiles::PriceBasis::proxy: return "~";
        default: return "";
    }
}

// The note for the marks a table of `rows` used, `priced(row)` giving a row's basis when it shows a
// price (nullopt when it shows none); empty when it used no mark.
template <typename Rows, typename Priced>
std::string price_marks_note(const std::string& column, const Rows& rows, Priced priced) {
    bool purchase = false, proxy = false;
    for (const auto& row : rows) {
        const std::optional<profiles::PriceBasis> basis = priced(row);
        purchase = purchase || basis == profiles::PriceBasis::purchase;
        proxy = proxy || basis == profiles::PriceBasis::proxy;
    }
    if (!purchase && !proxy) return "";
    std::string text = column + ": from a cloud rate unless marked";
    if (purchase) text += "; p: a purchase price amortized over three years with board power, not a rental";
    if (proxy) text += "; ~: another device's price stands in, none was found for this one";
    return text + "\n";
}

}  // namespace decodesim::report
