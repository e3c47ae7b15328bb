// decodesim's entry point: everything happens in run_cli.

#include <iostream>
#include <string>
#include <vector>

#include "cli/app.hpp"

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    return decodesim::cli::run_cli(args, {std::cout, std::cerr});
}
