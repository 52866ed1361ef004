// Checks of numeric option fields, with one message shape for all:
// "<who>: <field> must be <requirement>, got <value>".
//
// Every method's Options::validate(who), the natural-gradient driver and the problem generators
// check their fields against the same few ranges (positive and finite, >= 0 and finite, [0, 1),
// an integer lower bound); each check and its message is written once here, so that a bad option
// is named the same way wherever it is given.
#pragma once

#include <cmath>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ngvi::vi::detail {

[[noreturn]] inline void throw_bad_option(const std::string& who, std::string_view field,
                                          std::string_view requirement, const std::string& value) {
  throw std::invalid_argument(who + ": " + std::string(field) + " must be " +
                              std::string(requirement) + ", got " + value);
}

inline void check_positive_finite(const std::string& who, std::string_view field, double v) {
  if (!(v > 0.0) || !std::isfinite(v))
    throw_bad_option(who, field, "positive and finite", std::to_string(v));
}
// `note` follows the requirement in the message (e.g. " (0: N)", what the edge value means).
inline void check_nonnegative_finite(const std::string& who, std::string_view field, double v,
                                     std::string_view note = {}) {
  if (!(v >= 0.0) || !std::isfinite(v))
    throw_bad_option(who, field, std::string(">= 0 and finite") + std::string(note),
                     std::to_string(v));
}
// v in [0, 1): a moving-average weight or a floor below 1.
inline void check_unit_interval(const std::string& who, std::string_view field, double v) {
  if (!(v >= 0.0 && v < 1.0)) throw_bad_option(who, field, "in [0, 1)", std::to_string(v));
}
inline void check_at_least(const std::string& who, std::string_view field, long long v,
                           long long min) {
  if (v < min) throw_bad_option(who, field, ">= " + std::to_string(min), std::to_string(v));
}

}  // namespace ngvi::vi::detail
