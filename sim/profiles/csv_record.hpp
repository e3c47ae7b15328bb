#pragma once
// One CSV record split into fields: RFC 4180 quoting ("" inside quotes is a quote), no newlines
// inside fields, a trailing carriage return dropped. Shared by the measurements table and the
// benchmark files `decodesim calibrate` reads.

#include <string>
#include <vector>

namespace decodesim::profiles {

// `well_formed` is false when a quote is left open at the end of the line.
std::vector<std::string> split_csv_record(const std::string& line, bool& well_formed);
// The same with the spaces around each field dropped (traces and price lists, written by hand or
// by a spreadsheet, pad their fields).
std::vector<std::string> split_trimmed_csv_record(const std::string& line, bool& well_formed);

}  // namespace decodesim::profiles
