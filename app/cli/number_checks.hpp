// CLI11 validators for the tool's numeric options: read exactly, never clamped.
//
// CLI11 (2.1) converts an integer option with strtoll/strtoull and does not look at the overflow,
// so "99999999999999999999" reads as the largest value, "-1" for an unsigned option as 2⁶⁴ − 1,
// and "1e23" as an integer through a double; its PositiveNumber and NonNegativeNumber let NaN
// through (a comparison with NaN is false). These validators check the text before CLI11
// converts it: an integer must be decimal digits (an optional sign) whose value lies in the
// stated range, a real number must parse completely, be finite and lie in its range. A value
// that fails is a CLI::ValidationError, which names the option ("--seed: ..."), so the tool
// exits with 2 (app/cli/exit_codes.hpp). Each message names the value and the accepted range,
// which --help shows after the type ("UINT:in [0, 18446744073709551615]", "FLOAT:finite > 0").
#pragma once

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <system_error>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

namespace ngvi::app {

// An integer of type T in [min, max], in decimal ("+5" and "5" alike). Cost: O(length).
template <class T>
CLI::Validator integer_in(T min, T max) {
  const std::string range = fmt::format("an integer in [{}, {}]", min, max);
  return CLI::Validator(
      [min, max, range](std::string& text) -> std::string {
        const char* first = text.data();
        const char* last = text.data() + text.size();
        if (first != last && *first == '+') ++first;
        T value{};
        const auto [end, error] = std::from_chars(first, last, value);
        if (error == std::errc::result_out_of_range ||
            (error == std::errc() && end == last && (value < min || value > max)))
          return "the value " + text + " is out of range: it must be " + range;
        if (error != std::errc() || end != last || first == last)
          return "the value '" + text + "' is not " + range;
        return std::string();
      },
      fmt::format("in [{}, {}]", min, max), "INTEGER_IN");
}

// A real number, finite, with `lowest` < value (strict) or `lowest` <= value, and value <= max.
// `requirement` says it in words for the message ("positive", ">= 0").
inline CLI::Validator finite_number(double lowest, bool strict, double max,
                                    const std::string& requirement) {
  const std::string what =
      "a finite number " + requirement +
      (max < std::numeric_limits<double>::max() ? fmt::format(" and <= {}", max) : std::string());
  return CLI::Validator(
      [lowest, strict, max, what](std::string& text) -> std::string {
        char* end = nullptr;
        errno = 0;
        const double value = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size())
          return "the value '" + text + "' is not a number; it must be " + what;
        const bool underflow = errno == ERANGE && std::abs(value) < 1.0;
        if (!std::isfinite(value) || (errno == ERANGE && !underflow) ||
            (strict ? !(value > lowest) : !(value >= lowest)) || !(value <= max))
          return "the value " + text + " is out of range: it must be " + what;
        return std::string();
      },
      "finite " + requirement +
          (max < std::numeric_limits<double>::max() ? fmt::format(", <= {}", max) : std::string()),
      "FINITE_NUMBER");
}

// > 0 and finite (a precision, a step size, a scale).
inline CLI::Validator positive_finite() {
  return finite_number(0.0, true, std::numeric_limits<double>::max(), "> 0");
}
// >= 0 and finite (0 standing for a default, as --learning-rate's).
inline CLI::Validator nonnegative_finite() {
  return finite_number(0.0, false, std::numeric_limits<double>::max(), ">= 0");
}

}  // namespace ngvi::app
