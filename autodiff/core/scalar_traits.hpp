// What the engine needs to know about a tape scalar: its plain double value and whether it
// is exactly zero. Defined for double here; dual.hpp adds Dual<T, K>.
#pragma once

namespace ngvi::ad {

inline constexpr double value_of(double x) { return x; }
inline constexpr bool is_zero(double x) { return x == 0.0; }

}  // namespace ngvi::ad
