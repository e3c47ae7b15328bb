#pragma once
// A request trace: when each request arrived and how long it was. Four layouts, told apart by
// their first line:
//   decodesim's CSV   arrival_s,prompt_tokens,output_tokens[,prefix_id[,prefix_tokens]]
//   Azure LLM inference traces (2023, 2024)   TIMESTAMP,ContextTokens,GeneratedTokens
//   BurstGPT   Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type
//   Mooncake JSONL   one {"timestamp": ms, "input_length", "output_length", "hash_ids": [...]} a line
// Rows need not be sorted; arrival times are seconds from any origin (the first request's, for
// Azure's dates).

#include <string>
#include <vector>

namespace decodesim::profiles {

// Tokens a Mooncake hash id stands for: the trace's block size (Mooncake's FAST'25 paper and its
// traces' README: "block size 512").
inline constexpr long long kMooncakeBlockTokens = 512;

struct TraceRow {
    double arrival_s = 0.0;
    long long prompt_tokens = 1;
    long long output_tokens = 1;
    long long prefix_id = -1;    // -1: no shared prefix
    long long prefix_tokens = 0;
    // Mooncake: the prompt's blocks of block_tokens tokens, each id standing for the prompt up to
    // and including that block.
    std::vector<long long> block_ids;
    long long block_tokens = 0;
};

struct Trace {
    std::string layout;             // "decodesim", "Azure", "BurstGPT" or "Mooncake"
    std::vector<TraceRow> rows;
    // Rows of requests that failed in the traced service (BurstGPT's and Azure's zero-token
    // responses): left out, and counted so the caller can say so.
    long long failed_rows = 0;
};

// Throws core::InputError naming the file, line and column of every bad field (at most the first
// 20), or of a header of no known layout.
Trace load_trace(const std::string& path);

}  // namespace decodesim::profiles
