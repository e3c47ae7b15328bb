#include "cli/flag_use.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace decodesim::cli {

void refuse_flags_without_effect(std::initializer_list<FlagUse> uses) {
    for (const FlagUse& use : uses) {
        if (use.given && !use.acts) {
            throw core::UsageError(fmt::format("{} has no effect here: it acts only {}", use.flag, use.acts_when));
        }
    }
}

}  // namespace decodesim::cli
