#pragma once
// A request trace (CSV): when each request arrived and how long it was. Header:
//   arrival_s,prompt_tokens,output_tokens[,prefix_id[,prefix_tokens]]
// Rows need not be sorted; arrival times are seconds from any origin.

#include <string>
#include <vector>

namespace decodesim::profiles {

struct TraceRow {
    double arrival_s = 0.0;
    long long prompt_tokens = 1;
    long long output_tokens = 1;
    long long prefix_id = -1;    // -1: no shared prefix
    long long prefix_tokens = 0;
};

// Throws core::InputError naming the file, line and column of every bad field (at most the first
// 20), or of a wrong header.
std::vector<TraceRow> load_trace(const std::string& path);

}  // namespace decodesim::profiles
