// short_number: how the problems write numbers into their one-line descriptions.
//
// The descriptions go into tables and JSON next to the results (the study, the CLI tool), so
// they print a number as a person would write it ("0.15", "25", "1e-06") rather than
// std::to_string's fixed six decimals. Cost: O(1).
#pragma once

#include <cstdio>
#include <string>

namespace ngvi::vi::problems {

// x with up to 6 significant digits, as printf's %g.
inline std::string short_number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

}  // namespace ngvi::vi::problems
