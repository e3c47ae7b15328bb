#pragma once
// What a runtime factor holds, as a runtime profile spells it: the table of factors
// (profiles/runtime_fields.hpp) and the profile reader (profiles/runtime_loader.hpp) both name it.

namespace decodesim::core {

// A time with a unit ("5 us", at least 0), a multiplier in (0, maximum], or a count of rows in
// [0, maximum].
enum class FactorUnit { multiplier, duration, rows };

}  // namespace decodesim::core
