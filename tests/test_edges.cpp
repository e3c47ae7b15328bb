// The robustness classes of docs/robustness.md, each exercised through the rule that closes it:
// input paths, output files, standard output, nothing computed, numbers at the edge, and configs
// that omit keys their class defaults.

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "report/text_wrap.hpp"
#include "cli/descriptor_stream.hpp"
#include "core/units.hpp"
#include "engine/model_shape.hpp"
#include "profiles/hf_config.hpp"
#include "cli_runner.hpp"
#include "test_support.hpp"

namespace decodesim {
namespace {

namespace fs = std::filesystem;

std::string scratch(const std::string& name) {
    const fs::path folder = fs::path(DECODESIM_BINARY_DIR) / "edges" / name;
    fs::remove_all(folder);
    fs::create_directories(folder);
    return folder.string();
}

std::string slurp(const std::string& path) {
    std::ifstream stream(path, std::ios::binary);
    std::stringstream text;
    text << stream.rdbuf();
    return text.str();
}

int entries_in(const std::string& folder) {
    int count = 0;
    for ([[maybe_unused]] const auto& entry : fs::directory_iterator(folder)) ++count;
    return count;
}

// Runs the built binary through the shell; returns its exit status and what it wrote on stderr.
testing::CliResult shell(const std::string& arguments_and_redirections) {
    const std::string err_file = std::string(DECODESIM_BINARY_DIR) + "/edges/shell.err";
    const std::string command = std::string("'") + DECODESIM_BINARY + "' --profiles-dir '" + DECODESIM_ROOT + "' " +
                                arguments_and_redirections + " 2>'" + err_file + "'";
    const int status = std::system(("sh -c \"" + command + "\"").c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, "", slurp(err_file)};
}

const std::vector<std::string> kPredict{"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b"};

std::vector<std::string> with(std::vector<std::string> base, const std::vector<std::string>& more) {
    base.insert(base.end(), more.begin(), more.end());
    return base;
}

}  // namespace

TEST_CASE("input paths: loops, FIFOs, devices, folders and over-long names get one line naming the path") {
    const std::string folder = scratch("inputs");
    fs::create_symlink(folder + "/b.yaml", folder + "/a.yaml");
    fs::create_symlink(folder + "/a.yaml", folder + "/b.yaml");
    REQUIRE(::mkfifo((folder + "/fifo.yaml").c_str(), 0600) == 0);
    const std::string long_name = folder + "/" + std::string(300, 'x') + ".yaml";
    struct Case {
        std::string path;
        std::string message;
    };
    for (const Case& c : {Case{folder + "/a.yaml", "a loop of symbolic links; it never reaches a file"},
                          Case{folder + "/fifo.yaml", "a FIFO (named pipe); expected a regular file"},  // and it did not block
                          Case{"/dev/zero", "a device; expected a regular file"},
                          Case{long_name, "the name is longer than the file system allows"},
                          Case{folder + "/missing.yaml", "no such file"}}) {
        const auto result = testing::run({"predict", "--hardware", "h100-sxm", "--model", c.path});
        CAPTURE(c.path);
        CHECK(result.exit_code == 1);
        CHECK(result.err == c.path + ": error: " + c.message + "\n");
    }
    // The same rule for a hardware profile, a measurement file and a profile to validate.
    CHECK(testing::run({"predict", "--hardware", folder + "/fifo.yaml", "--model", "llama-3.1-8b"}).err.find("a FIFO") !=
          std::string::npos);
    CHECK(testing::run({"accuracy", folder + "/fifo.yaml"}).err.find("a FIFO") != std::string::npos);
    CHECK(testing::run({"accuracy", folder}).err.find("a folder; expected a regular file") != std::string::npos);
}

TEST_CASE("--profiles-dir must be a folder, and an empty one computes nothing") {
    const std::string folder = scratch("profiles-dir");
    std::ofstream(folder + "/file") << "x";
    auto run_with_root = [](const std::string& root, std::vector<std::string> args) {
        std::ostringstream out, err;
        args.insert(args.begin(), {"--profiles-dir", root});
        return testing::CliResult{cli::run_cli(args, {out, err}), out.str(), err.str()};
    };
    const auto missing = run_with_root(folder + "/nope", kPredict);
    CHECK(missing.exit_code == 1);
    CHECK(missing.err == folder + "/nope: error: the profiles folder: no such folder\n");
    const auto file = run_with_root(folder + "/file", kPredict);
    CHECK(file.exit_code == 1);
    CHECK(file.err == folder + "/file: error: the profiles folder: a file; expected a folder\n");
    const auto empty_list = run_with_root(folder, {"profiles", "list", "hardware"});
    CHECK(empty_list.exit_code == cli::kNothingComputed);
    CHECK(empty_list.err.find("holds no profiles") != std::string::npos);
    const auto empty_predict = run_with_root(folder, kPredict);
    CHECK(empty_predict.exit_code == 1);
    CHECK(empty_predict.err.find("holds no profiles (is --profiles-dir right?)") != std::string::npos);
}

TEST_CASE("output files: only regular files are replaced, links are written through, modes are kept") {
    const std::string folder = scratch("outputs");
    const auto curve_to = [](const std::string& path) {
        return testing::run({"curve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--svg", path});
    };
    // Not a regular file: refused, nothing left behind.
    const auto device = curve_to("/dev/null");
    CHECK(device.exit_code == 1);
    CHECK(device.err == "/dev/null: error: a device; decodesim replaces only regular files\n");
    const auto into_folder = curve_to(folder);
    CHECK(into_folder.exit_code == 1);
    CHECK(into_folder.err == folder + ": error: a folder; give a file name\n");
    CHECK(entries_in(folder) == 0);

    // A link is written through: the target holds the chart, the link stays a link.
    std::ofstream(folder + "/target.svg") << "old";
    ::chmod((folder + "/target.svg").c_str(), 0640);
    fs::create_symlink("target.svg", folder + "/link.svg");
    CHECK(curve_to(folder + "/link.svg").exit_code == 0);
    CHECK(fs::is_symlink(folder + "/link.svg"));
    CHECK(slurp(folder + "/target.svg").starts_with("<svg"));
    struct stat status {};
    REQUIRE(::stat((folder + "/target.svg").c_str(), &status) == 0);
    CHECK((status.st_mode & 07777) == 0640);  // the replaced file keeps its mode

    // A dangling link creates its target, as the shell's `>` does; a loop is refused.
    fs::create_symlink("created.svg", folder + "/dangling.svg");
    CHECK(curve_to(folder + "/dangling.svg").exit_code == 0);
    CHECK(slurp(folder + "/created.svg").starts_with("<svg"));
    fs::create_symlink("loop2.svg", folder + "/loop1.svg");
    fs::create_symlink("loop1.svg", folder + "/loop2.svg");
    CHECK(curve_to(folder + "/loop1.svg").err.find("a loop of symbolic links") != std::string::npos);
    CHECK(entries_in(folder) == 6);  // target, link, dangling, created, loop1, loop2: no temporary left

    // A read-only file is not replaced (even by root, whom the folder would let); "-" is not stdout here.
    std::ofstream(folder + "/kept.svg") << "kept";
    ::chmod((folder + "/kept.svg").c_str(), 0444);
    const auto read_only = curve_to(folder + "/kept.svg");
    CHECK(read_only.exit_code == 1);
    CHECK(read_only.err == folder + "/kept.svg: error: the file is read-only; decodesim does not replace it\n");
    CHECK(slurp(folder + "/kept.svg") == "kept");
    const auto dash = curve_to("-");
    CHECK(dash.exit_code == 1);
    CHECK(dash.err.find("'-' would be a file named '-'") != std::string::npos);
    CHECK(!fs::exists("-"));
}

TEST_CASE("output files: concurrent writers to one path leave one whole file") {
    const std::string folder = scratch("concurrent");
    const std::string path = folder + "/sweep.csv";
    // Two sweeps of different sizes; whichever renames last wins, and the file is exactly one of them.
    const std::vector<std::string> small{"sweep", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--batch", "1:64:+1", "-o", path};
    const std::vector<std::string> large{"sweep", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--batch", "1:256:+1",
                                         "--context", "1024,2048,4096", "-o", path};
    std::thread first([&] { testing::run(small); });
    std::thread second([&] { testing::run(large); });
    first.join();
    second.join();
    const std::string text = slurp(path);
    const auto lines = std::count(text.begin(), text.end(), '\n');
    CHECK((lines == 1 + 64 || lines == 1 + 256 * 3));  // a header and every row of one sweep
    CHECK(entries_in(folder) == 1);
}

TEST_CASE("standard output: a failed write is an error, a reader that left is not") {
    scratch("stdout");
    const std::string predict = "predict --hardware h100-sxm --model llama-3.1-8b";
    const auto full = shell(predict + " >/dev/full");
    CHECK(full.exit_code == 1);
    CHECK(full.err == "decodesim: error: cannot write the results to standard output: the disk is full\n");
    const auto closed = shell(predict + " >&-");
    CHECK(closed.exit_code == 1);
    CHECK(closed.err == "decodesim: error: cannot write the results to standard output: standard output is closed\n");
    // `| head -c 1` closes the pipe after one byte of a sweep of several MB: quiet, and the command's code stands.
    const auto piped = shell("sweep --hardware h100-sxm --model llama-3.1-8b --batch 1:256:+1 --context 1:65536:+1024 | head -c 1 >/dev/null");
    CHECK(piped.err.empty());

    // The buffer behind it remembers the first error (SIGPIPE ignored, as main does).
    const auto previous = std::signal(SIGPIPE, SIG_IGN);
    int ends[2];
    REQUIRE(::pipe(ends) == 0);
    ::close(ends[0]);
    {
        cli::DescriptorBuffer buffer(ends[1]);
        std::ostream stream(&buffer);
        stream << std::string(200000, 'x') << std::flush;
        CHECK(buffer.first_error() == EPIPE);
        CHECK(!stream);
    }
    ::close(ends[1]);
    std::signal(SIGPIPE, previous);
}

TEST_CASE("nothing computed exits 6 with the reason") {
    const auto sweep = testing::run({"sweep", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--tp", "7"});
    CHECK(sweep.exit_code == cli::kNothingComputed);
    CHECK(sweep.err.find("tensor parallelism 7 does not divide the 32 attention heads") != std::string::npos);
    CHECK(sweep.err.find("decodesim: error: nothing computed: every deployment of the sweep was skipped") != std::string::npos);
    // Llama 3.1 405B in bf16 is 810 GB of weights: no 24 GB card holds it.
    const auto compare = testing::run({"compare", "--hardware", "rtx-4090,rtx-3090", "--model", "llama-3.1-405b"});
    CHECK(compare.exit_code == cli::kNothingComputed);
    CHECK(compare.err.find("no device in the comparison can run") != std::string::npos);
    const std::string folder = scratch("nothing");
    std::ofstream(folder + "/header-only.csv")
        << "id,hardware,model,weights,kv,engine,runtime,batch,prompt,output,context,metric,value,source,conditions,notes\n";
    // plan: no candidate serves Llama 3.1 405B (810 GB in bf16) from one 24 GB card, at any tp the card allows.
    const auto plan = testing::run({"plan", "--model", "llama-3.1-405b", "--hardware", "rtx-4090", "--rate", "1", "--tp", "1"});
    CHECK(plan.exit_code == cli::kNothingComputed);
    CHECK(plan.err.find("no candidate device can serve this workload") != std::string::npos);
    // A sweep whose rows do not fit still writes them, and says how many.
    const auto sweep_rows = testing::run({"sweep", "--hardware", "rtx-4090", "--model", "llama-3.1-70b", "--batch", "1,2"});
    CHECK(sweep_rows.exit_code == 0);
    CHECK(sweep_rows.err.find("2 of 2 points do not fit in memory") != std::string::npos);
    const auto accuracy = testing::run({"accuracy", folder + "/header-only.csv"});
    CHECK(accuracy.exit_code == cli::kNothingComputed);
    CHECK(accuracy.err.find("no usable row") != std::string::npos);
}

TEST_CASE("one number grammar: decimal everywhere, exact whole numbers, no hex, NaN or infinity") {
    std::int64_t whole = 0;
    CHECK((core::parse_whole_number("010", whole) && whole == 10));  // decimal, never octal
    CHECK((core::parse_whole_number(" +8 ", whole) && whole == 8));
    CHECK((core::parse_whole_number("9007199254740992", whole) && whole == 9007199254740992));  // 2^53 exactly
    CHECK_FALSE(core::parse_whole_number("9007199254740993", whole));  // 2^53 + 1 would round in a double
    CHECK_FALSE(core::parse_whole_number("0x10", whole));
    CHECK_FALSE(core::parse_whole_number("1e3", whole));
    CHECK_FALSE(core::parse_whole_number("1.5", whole));
    CHECK_FALSE(core::parse_whole_number("", whole));
    double number = 1.0;
    CHECK((core::parse_number("-0", number) && number == 0.0 && !std::signbit(number)));
    CHECK((core::parse_number("010.5", number) && number == 10.5));
    for (const char* bad : {"nan", "inf", "-inf", "infinity", "0x1p3", "1e400", "", "1,5"}) {
        CAPTURE(bad);
        CHECK_FALSE(core::parse_number(bad, number));
    }

    // "010" is ten in every command: predict and sweep agree with "10".
    const auto json_of = [](const std::vector<std::string>& args) { return nlohmann::json::parse(testing::run(args).out); };
    CHECK(json_of(with(kPredict, {"--batch", "010", "--json"})) == json_of(with(kPredict, {"--batch", "10", "--json"})));
    const std::vector<std::string> sweep{"sweep", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--context", "1024"};
    CHECK(testing::run(with(sweep, {"--batch", "010"})).out == testing::run(with(sweep, {"--batch", "10"})).out);
    for (const char* bad : {"0x10", "1.5", "1e3", "9007199254740993", "nan"}) {
        CAPTURE(bad);
        CHECK(testing::run(with(kPredict, {"--batch", bad})).exit_code == 2);
        CHECK(testing::run(with(sweep, {"--batch", bad})).exit_code == 2);
        CHECK(testing::run(with(kPredict, {"--context", bad})).exit_code == 2);
    }
}

TEST_CASE("config.json sizes get the ranges of YAML profiles: 2^32 + 32 heads is refused, not read as 32") {
    const std::string folder = scratch("config-sizes");
    std::ofstream(folder + "/config.json") << R"({"model_type": "llama", "num_hidden_layers": 32, "hidden_size": 4096,
"intermediate_size": 14336, "num_attention_heads": 4294967328, "num_key_value_heads": 8, "vocab_size": 128256})";
    const auto messages = testing::error_messages([&] { profiles::load_hf_config(folder + "/config.json"); });
    REQUIRE(messages.size() == 1);
    CHECK(messages[0].find("num_attention_heads: expected a whole number from 1 to 16777216, found '4294967328'") !=
          std::string::npos);
    std::ofstream(folder + "/duplicate.json") << R"({"model_type": "llama", "num_hidden_layers": 32, "hidden_size": 4096,
"intermediate_size": 14336, "num_attention_heads": 32, "num_attention_heads": 64, "vocab_size": 128256})";
    const auto duplicate = testing::error_messages([&] { profiles::load_hf_config(folder + "/duplicate.json"); });
    REQUIRE(duplicate.size() == 1);
    CHECK(duplicate[0].find("num_attention_heads: duplicate key (first '32', then '64')") != std::string::npos);
}

TEST_CASE("a Gemma 3 config that omits heads, KV heads, head_dim and vocabulary reads them as transformers does") {
    // google/gemma-3-4b-it's config.json as published: its text_config gives only the hidden and
    // intermediate sizes, the layer count and the window. Gemma3TextConfig's defaults fill the rest:
    // 8 heads, 4 KV heads, head_dim 256 (not 2560 / 8 = 320), vocabulary 262,208.
    const auto model = profiles::load_hf_config(testing::test_data("hf_configs/gemma-3-4b.json"));
    CHECK(model.num_attention_heads == 8);
    CHECK(model.num_key_value_heads == 4);
    CHECK(model.head_dim == 256);
    CHECK(model.vocab_size == 262208);
    // Parameters by hand: embeddings 262,208 x 2,560 = 671.2 M (tied); per layer: attention
    // q 2560x2048 + k,v 2x 2560x1024 + o 2048x2560 = 15.73 M, MLP 3 x 2560 x 10240 = 78.64 M,
    // so 34 x 94.37 M = 3,208.6 M; total 3.880 B (Google: "4B", of which 3.88 B language model).
    CHECK(engine::count_parameters(model).total == doctest::Approx(3.880e9).epsilon(0.003).scale(0.0));
}

}  // namespace decodesim

namespace decodesim {
namespace {

// A copy of the shipped H100 SXM profile with one line replaced.
std::string h100_with(const std::string& folder, const std::string& from, const std::string& to) {
    std::string text = slurp(std::string(DECODESIM_ROOT) + "/hardware_profiles/h100-sxm.yaml");
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
    const std::string path = folder + "/h100-edited.yaml";
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

}  // namespace

TEST_CASE("profiles: absurd values are refused with the plausible range, and unit hints name the real slip") {
    const std::string folder = scratch("plausibility");
    struct Case {
        std::string from, to, message;
    };
    for (const Case& c : {
             Case{"bandwidth: 3.35 TB/s", "bandwidth: 5000 TB/s",
                  "memory.bandwidth: '5000 TB/s' is outside the plausible range for a bandwidth of one device, 100 MB/s to 1 PB/s"},
             Case{"bandwidth: 3.35 TB/s", "bandwidth: 3 B/s", "outside the plausible range for a bandwidth"},
             Case{"capacity: 80 GiB", "capacity: 2000 TB", "memory.capacity: '2000 TB' is outside the plausible range"},
             Case{"power: 700 W", "power: 0.000000000001 W", "power: '0.000000000001 W' is outside the plausible range for a power"},
             Case{"fp32: 66.9 TFLOPS", "fp32: 66.9 tflops", "compute.fp32: unknown unit 'tflops': units are case-sensitive; write 'TFLOPS'"},
             Case{"capacity: 80 GiB", "capacity: 80 Gb", "'Gb' is ambiguous: units are case-sensitive and a lower-case 'b' means bits"},
             Case{"price_per_hour: 2.49", "price_per_hour: 1e9", "price_per_hour: expected a number greater than 0 and at most 10000"},
         }) {
        CAPTURE(c.to);
        const auto result = testing::run({"predict", "--hardware", h100_with(folder, c.from, c.to), "--model", "llama-3.1-8b"});
        CHECK(result.exit_code == 1);
        CHECK(result.err.find(c.message) != std::string::npos);
    }
    // The command line has the same price cap as a profile.
    const auto price = testing::run({"compare", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--price", "h100-sxm=1e9"});
    CHECK(price.exit_code == 2);
    CHECK(price.err.find("outside [0.001, 10000]") != std::string::npos);
}

TEST_CASE("profiles: UTF-16 files and tab indentation get their own message") {
    const std::string folder = scratch("encodings");
    std::ofstream(folder + "/utf16.yaml", std::ios::binary) << std::string("\xFF\xFE" "n\0a\0m\0e\0:\0 \0x\0\n\0", 18);
    const auto utf16 = testing::run({"predict", "--hardware", folder + "/utf16.yaml", "--model", "llama-3.1-8b"});
    CHECK(utf16.err == folder + "/utf16.yaml:1:1: error: the file is encoded as UTF-16; save it as UTF-8\n");
    const auto tabs = testing::run({"predict", "--hardware", h100_with(folder, "  capacity", "\tcapacity"), "--model", "llama-3.1-8b"});
    CHECK(tabs.exit_code == 1);
    CHECK(tabs.err.find("YAML indents with spaces only; replace the tab") != std::string::npos);
    // A UTF-8 byte-order mark is accepted.
    const std::string bom = folder + "/bom.yaml";
    std::ofstream(bom, std::ios::binary) << "\xEF\xBB\xBF" << slurp(std::string(DECODESIM_ROOT) + "/hardware_profiles/h100-sxm.yaml");
    CHECK(testing::run({"predict", "--hardware", bom, "--model", "llama-3.1-8b"}).exit_code == 0);
}

TEST_CASE("escaping: a file name with a quote, a newline and bytes that are not UTF-8 keeps every format valid") {
    const std::string folder = scratch("escaping");
    const std::string model = folder + "/\xFF\xFE\nq\",<b>.yaml";
    std::ofstream(model, std::ios::binary) << slurp(std::string(DECODESIM_ROOT) + "/model_profiles/llama-3.1-8b.yaml");
    const std::vector<std::string> base{"--hardware", "h100-sxm", "--model", model};
    // JSON: parses, and the invalid bytes became U+FFFD.
    const auto predict = testing::run(with({"predict"}, with(base, {"--json"})));
    REQUIRE(predict.exit_code == 0);
    CHECK(nlohmann::json::parse(predict.out).is_object());  // throws, and fails, if it does not parse
    // sweep takes lists, so its model's file name has no comma.
    const std::string listed = folder + "/\xFF\xFE\nq\"<b>.yaml";
    std::ofstream(listed, std::ios::binary) << slurp(std::string(DECODESIM_ROOT) + "/model_profiles/llama-3.1-8b.yaml");
    const std::vector<std::string> sweep{"sweep", "--hardware", "h100-sxm", "--model", listed};
    // JSONL: every line parses.
    const auto jsonl = testing::run(with(sweep, {"--batch", "1,2", "--format", "jsonl"}));
    std::istringstream lines(jsonl.out);
    int parsed = 0;
    for (std::string line; std::getline(lines, line); ++parsed) CHECK(nlohmann::json::parse(line).is_object());
    CHECK(parsed == 2);
    // CSV: the name is one quoted field, so the row has as many fields as the header.
    const std::string csv = testing::run(with(sweep, {"--batch", "1"})).out;
    CHECK(csv.find(",\"\xEF\xBF\xBD\xEF\xBF\xBD\\nq\"\"<b>\",") != std::string::npos);
    // SVG: no raw '<b>' and no control character.
    const std::string svg = folder + "/chart.svg";
    CHECK(testing::run(with({"curve"}, with(base, {"--svg", svg}))).exit_code == 0);
    const std::string chart = slurp(svg);
    CHECK(chart.find("<b>") == std::string::npos);
    CHECK(chart.find("&lt;b&gt;") != std::string::npos);
    CHECK(std::none_of(chart.begin(), chart.end(), [](char c) { return c >= 0 && c < 0x20 && c != '\n' && c != '\t'; }));
}

TEST_CASE("memory warnings name the actual cause") {
    // Llama 3.1 8B in bf16 on a 24 GiB RTX 4090 (0.9 x 25.77e9 = 23.19 GB usable): 16.06 GB of
    // weights fit, but one stream at 131,072 tokens holds 32 layers x 8 KV heads x 128 x 2 (K, V) x
    // 2 bytes = 131,072 B per token, 17.18 GB: 33.24 GB > 23.19 GB.
    const auto result = testing::run({"curve", "--hardware", "rtx-4090", "--model", "llama-3.1-8b", "--context", "131072"});
    CHECK(result.exit_code == 0);
    CHECK(result.err.find("one stream's KV cache (17.2 GB) does not fit beside the weights") != std::string::npos);
    CHECK(result.err.find("weights alone") == std::string::npos);
}

TEST_CASE("a context beyond the model's maximum is warned about in every command") {
    const std::string warning = "context of 200000 tokens exceeds the model's max_position_embeddings of 131072";
    const std::vector<std::string> model{"--hardware", "h100-sxm", "--model", "llama-3.1-8b"};
    for (const auto& line : std::vector<std::vector<std::string>>{
             with({"predict"}, with(model, {"--context", "200000"})),
             with({"why"}, with(model, {"--context", "200000"})),
             with({"curve"}, with(model, {"--context", "200000", "--max-batch", "2"})),
             with({"compare"}, with(model, {"--context", "200000"})),
             with({"sweep"}, with(model, {"--context", "200000"})),
             with({"versus"}, with(model, {"--context", "200000"})),
             with({"check-claim"}, with(model, {"--context", "200000", "--per", "stream", "--tokens-per-s", "50"})),
             with({"serve"}, with(model, {"--rate", "0.1", "--prompt", "199000", "--output", "1000", "--requests", "20"})),
             with({"plan"}, with(model, {"--rate", "0.1", "--prompt", "199000", "--output", "1000"})),
         }) {
        CAPTURE(line[0]);
        const auto result = testing::run(line);
        CHECK(result.err.find(warning) != std::string::npos);
        // Given once, however many paths reach it.
        CHECK(result.err.find(warning) == result.err.rfind(warning));
    }
}

TEST_CASE("the same caps hold in predict and in sweep") {
    const std::vector<std::string> model{"--hardware", "h100-sxm", "--model", "llama-3.1-8b"};
    for (const auto& [flag, value] : std::vector<std::pair<std::string, std::string>>{
             {"--batch", "1000000001"}, {"--context", "1000000001"}, {"--tp", "4097"}}) {
        const std::string& named = flag;  // clang 14 cannot capture a structured binding (CAPTURE is a lambda)
        CAPTURE(named);
        CHECK(testing::run(with({"predict"}, with(model, {flag, value}))).exit_code == 2);
        CHECK(testing::run(with({"sweep"}, with(model, {flag, value}))).exit_code == 2);
    }
}

}  // namespace decodesim

namespace decodesim {

TEST_CASE("second battery: empty values, token counts in serve, tiny shares and prices, control characters in names") {
    const std::string folder = scratch("second-battery");
    // An empty value is refused by every flag (sweep had read --context '' as "not given").
    CHECK(testing::run({"sweep", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--context", ""}).exit_code == 2);
    CHECK(testing::run({"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--runtime", ""}).exit_code == 2);
    // serve's fixed token counts follow predict's grammar and cap.
    const std::vector<std::string> serve{"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--requests", "5"};
    CHECK(testing::run(with(serve, {"--prompt", "1e3", "--output", "150"})).exit_code == 2);
    const auto huge = testing::run(with(serve, {"--prompt", "4294967328", "--output", "150"}));
    CHECK(huge.exit_code == 2);
    CHECK(huge.err.find("is not in range 1 to 1000000000") != std::string::npos);
    // A share below 1% and a price below a tenth of a cent are typos.
    const auto share = testing::run({"predict", "--hardware",
                                     h100_with(folder, "power: 700 W", "power: 700 W\nefficiency:\n  compute: 1e-300"),
                                     "--model", "llama-3.1-8b"});
    CHECK(share.exit_code == 1);
    CHECK(share.err.find("efficiency.compute: expected a fraction in [0.01, 1], found '1e-300'") != std::string::npos);
    const auto price = testing::run({"predict", "--hardware", h100_with(folder, "price_per_hour: 2.49", "price_per_hour: 1e-300"),
                                     "--model", "llama-3.1-8b"});
    CHECK(price.exit_code == 1);
    CHECK(price.err.find("price_per_hour: expected USD per device-hour from 0.001 to 10000") != std::string::npos);
    CHECK(testing::run({"compare", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--price", "h100-sxm=1e-300"}).exit_code == 2);
    // A name with a terminal escape is shown escaped.
    const auto shown = testing::run({"profiles", "show", h100_with(folder, "name: NVIDIA H100 SXM5 80GB", "name: \"red\\x1b[31m\"")});
    CHECK(shown.exit_code == 0);
    CHECK(shown.out.find('\x1b') == std::string::npos);
    CHECK(shown.out.find("red\\x1b[31m") != std::string::npos);
}

TEST_CASE("when one stream's KV cache does not fit, every command says so, and serve computes nothing") {
    // Llama 3.1 8B bf16 on a 24 GiB L4 (23.19 GB usable): 16.06 GB of weights fit; one stream at
    // 100,000 tokens needs 100,000 x 131,072 B = 13.1 GB more, 29.17 GB > 23.19 GB.
    const std::string message = "one stream's KV cache (13.1 GB) does not fit beside the weights";
    const std::vector<std::string> model{"--hardware", "l4", "--model", "llama-3.1-8b"};
    for (const auto& line : std::vector<std::vector<std::string>>{
             with({"why"}, with(model, {"--context", "100000"})),
             with({"versus"}, with(model, {"--context", "100000"})),
             with({"check-claim"}, with(model, {"--context", "100000", "--per", "stream", "--tokens-per-s", "10"}))}) {
        CAPTURE(line[0]);
        const auto result = testing::run(line);
        CHECK(result.err.find(message) != std::string::npos);
        CHECK(result.err.find("streams do not fit") == std::string::npos);
    }
    const auto serve = testing::run(with({"serve"}, with(model, {"--prompt", "100000", "--output", "100", "--requests", "5"})));
    CHECK(serve.exit_code == cli::kNothingComputed);
    CHECK(serve.err.find("all 5 requests were rejected") != std::string::npos);
    // plan agrees with serve: a request that cannot fit whole is not served, however small the
    // share of a slot its mean footprint (the prompt and half the output) would take.
    const auto plan = testing::run(with({"plan"}, with(model, {"--prompt", "100000", "--output", "100", "--rate", "0.01",
                                                              "--tp", "1", "--pp", "1", "--formats", "bf16", "--kv", "bf16"})));
    CHECK(plan.exit_code == cli::kNothingComputed);
    CHECK(plan.err.find("l4: one device: the weights and one sequence's KV cache do not fit in memory") != std::string::npos);
}

}  // namespace decodesim

TEST_CASE("every text output fits in 100 columns: tables cut their widest column, prose wraps") {
    using decodesim::testing::run;
    // The commands whose unwrapped outputs are widest: profile lists (159 columns), compare's note,
    // why's verdict (561), plan's reasons, serve's summary, accuracy's worst rows.
    const std::vector<std::vector<std::string>> commands = {
        {"profiles", "list", "hardware"},
        {"profiles", "list", "models"},
        {"compare", "--hardware", "h100-sxm,mi300x,rtx-4090:2", "--model", "llama-3.1-8b", "--by", "cost"},
        {"why", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--batch", "64"},
        {"plan", "--model", "llama-3.1-70b", "--rate", "10", "--prompt", "2000", "--output", "500", "--ttft-p99", "2",
         "--tpot-p99", "0.05", "--hardware", "h100-sxm,h200-sxm,mi300x", "--verify-requests", "200"},
        {"serve", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--rate", "5", "--prompt", "1000", "--output",
         "200", "--requests", "300", "--seed", "1"},
        {"check-claim", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--tokens-per-s", "500", "--per", "stream"},
        {"predict", "--hardware", "h100-sxm", "--model", "llama-3.1-8b", "--batch", "32", "--band"},
        // Help, whose option descriptions CLI11 prints on one line (261 columns for serve's --runtime).
        {"--help"},
        {"serve", "--help"},
        {"calibrate", "--help"},
        {"plan", "--help"},
        // Every fifth row of validation/measurements.csv and every row with an id of 40 characters or
        // more (the widest cells), without the replayed serving runs (seconds each under the sanitizers).
        {"accuracy", decodesim::testing::measurement_subset("decodesim_width_rows.csv",
                                                            [row = 0](const std::string& line) mutable {
                                                                const bool replayed = line.find("qps=") != std::string::npos ||
                                                                                      line.find("arrivals=closed") != std::string::npos;
                                                                return !replayed && (++row % 5 == 0 || line.find(',') >= 40);
                                                            })},
    };
    for (const auto& args : commands) {
        const auto result = run(args);
        INFO(args[0]);
        std::size_t widest = 0;
        std::size_t start = 0;
        while (start < result.out.size()) {
            const std::size_t end = std::min(result.out.find('\n', start), result.out.size());
            widest = std::max(widest, end - start);
            start = end + 1;
        }
        CHECK(!result.out.empty());
        CHECK(widest <= 100);
    }
}

TEST_CASE("wrap_text breaks at the last space that fits and indents the continuation") {
    using decodesim::report::wrap_text;
    // 10 columns: "  aaa bbb ccc" (13) breaks after "bbb" (col 9); the rest is indented 2 + 2.
    CHECK(wrap_text("  aaa bbb ccc\n", 10) == "  aaa bbb\n    ccc\n");
    CHECK(wrap_text("short\n", 10) == "short\n");
    CHECK(wrap_text("abcdefghijklmno pq", 10) == "abcdefghijklmno\n  pq");  // a long word stays whole
    CHECK(wrap_text("", 10).empty());
}

TEST_CASE("a sweep with stderr redirected to a file draws no progress bar") {
    // Past the one second after which a bar is drawn on a terminal: 1,024 batches x 2,048
    // contexts, about two million points, take a few seconds in the release build; under the
    // sanitizers, about ten times slower a point, a tenth of the contexts does. stderr here is a
    // file (shell() redirects it).
    const std::string contexts = decodesim::testing::kSanitized ? "1:131072:+640" : "1:131072:+64";
    const auto result = decodesim::shell("sweep --hardware h100-sxm --model llama-3.1-8b --batch 1:1024:+1 --context " +
                                         contexts + " --max-points 1e7 >/dev/null");
    CHECK(result.exit_code == 0);
    CHECK(result.err.find('\r') == std::string::npos);
    CHECK(result.err.find("points/s") == std::string::npos);
}
