#pragma once
// A flag given where it changes nothing is refused, not ignored: whoever passes --burstiness with
// Poisson arrivals, or --requests beside a trace, believes the run used it. Each command lists,
// per flag, whether the flag acts on the command line at hand and when it would; one check turns
// the first flag given that does not act into a usage error (exit 2). docs/cli.md ("Flags that act
// only with another") lists the conditions per flag.

#include <initializer_list>
#include <string_view>

namespace decodesim::cli {

struct FlagUse {
    std::string_view flag;       // as typed: "--burstiness"
    bool given = false;          // on this command line
    bool acts = true;            // whether it changes anything on this command line
    std::string_view acts_when;  // completes "it acts only ...": "with gamma arrivals (--arrivals gamma)"
};

// Throws core::UsageError "--burstiness has no effect here: it acts only with gamma arrivals ..."
// for the first use given that does not act.
void refuse_flags_without_effect(std::initializer_list<FlagUse> uses);

}  // namespace decodesim::cli
