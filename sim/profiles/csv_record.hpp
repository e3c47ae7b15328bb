#pragma once
// One CSV record split into fields: RFC 4180 quoting ("" inside quotes is a quote), no newlines
// inside fields, a trailing carriage return dropped. Shared by the measurements table and the
// benchmark files `decodesim calibrate` reads.

#include <initializer_list>
#include <string>
#include <vector>

namespace decodesim::profiles {

// `well_formed` is false when a quote is left open at the end of the line.
std::vector<std::string> split_csv_record(const std::string& line, bool& well_formed);
// The same with the spaces around each field dropped (traces and price lists, written by hand or
// by a spreadsheet, pad their fields).
std::vector<std::string> split_trimmed_csv_record(const std::string& line, bool& well_formed);

// A header line's fields as indexes into `known`, in the file's order. Throws core::InputError at
// line 1 of `path`: at an unknown field's column ("unknown column; expected " + `expected`), or
// naming the first of `required` (indexes into `known`) that the header lacks ("missing column").
std::vector<int> header_columns(const std::vector<std::string>& fields, const std::vector<std::string>& known,
                                std::initializer_list<int> required, const std::string& path, const std::string& expected);

}  // namespace decodesim::profiles
