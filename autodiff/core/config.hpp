// Engine-wide basic types and the checked-mode switch.
//
// Every tape entry refers to variables by a 32-bit index, which keeps the operand stream at
// 12 bytes per partial for double and lets a reverse sweep stay inside the cache for the
// model sizes ngvi targets. Checked mode (NGVI_AD_CHECKED, set by the debug and sanitizer
// presets) turns misuse and domain errors into exceptions that name what went wrong;
// release builds follow the C++ standard library and return NaN on domain errors.
#pragma once

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace ngvi::ad {

using index_t = std::uint32_t;

// Index of a variable that is not on any tape (a constant).
inline constexpr index_t no_index = std::numeric_limits<index_t>::max();

#if defined(NGVI_AD_CHECKED) && NGVI_AD_CHECKED
inline constexpr bool checked_mode = true;
#else
inline constexpr bool checked_mode = false;
#endif

// Thrown for misuse of the engine: a variable from a rewound scope or another thread's tape,
// a tape that grew past 2^32 entries. (Bad arguments to a function — mismatched shapes handed
// to a fused node, a direction of the wrong length — throw std::invalid_argument instead,
// in every build.)
class usage_error : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// Thrown in checked mode when an elementary function is evaluated outside its domain.
class domain_error : public std::domain_error {
 public:
  using std::domain_error::domain_error;
};

}  // namespace ngvi::ad
