// decodesim's entry point: the process's streams are set up here; everything else happens in run_cli.

#include <iostream>
#include <string>
#include <vector>

#include "cli/app.hpp"
#include "cli/standard_output.hpp"

int main(int argc, char** argv) {
    decodesim::cli::StandardOutput standard_output;
    const std::vector<std::string> args(argv + 1, argv + argc);
    const int exit_code = decodesim::cli::run_cli(args, {standard_output.out(), std::cerr});
    return standard_output.finish(exit_code, std::cerr);
}
