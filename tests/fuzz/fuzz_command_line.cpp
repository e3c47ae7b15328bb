// libFuzzer target: whole argument vectors through the command line, in process. The input is
// split into arguments at newlines. Aborts on an internal error (an exception the CLI did not
// turn into a message), and on "nan" or "inf" in any output. Commands that write files or run
// for long by design (serve, plan, sweep, accuracy, report, and any output file flag) are left
// to their own tests, so that a run's time stays bounded.

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "cli/app.hpp"

namespace {

bool contains_word(const std::string& text, const std::string& word) {
    for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
        const bool start = at == 0 || !std::isalnum(static_cast<unsigned char>(text[at - 1]));
        const bool end = at + word.size() == text.size() || !std::isalnum(static_cast<unsigned char>(text[at + word.size()]));
        if (start && end) return true;
    }
    return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > 2048) return 0;
    std::vector<std::string> args{"--profiles-dir", DECODESIM_FUZZ_ROOT};
    std::string current;
    for (std::size_t i = 0; i < size; ++i) {
        const char c = static_cast<char>(data[i]);
        if (c == '\n') {
            args.push_back(current);
            current.clear();
        } else {
            current += c;
        }
    }
    args.push_back(current);
    for (const auto& arg : args) {
        for (const char* slow : {"serve", "plan", "sweep", "accuracy", "report", "-o", "--svg", "--output-file",
                                 "--requests-csv", "--max-batch", "--profiles-dir="}) {
            if (arg == slow) return 0;
        }
        if (arg.starts_with("--profiles-dir") && &arg != &args[0]) return 0;
    }
    std::ostringstream out, err;
    const int code = decodesim::cli::run_cli(args, {out, err});
    if (code == decodesim::cli::kInternalError) std::abort();
    const std::string text = out.str();
    if (contains_word(text, "nan") || contains_word(text, "inf") || contains_word(text, "NaN")) std::abort();
    return 0;
}
