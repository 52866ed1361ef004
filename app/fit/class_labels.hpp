// The class labels of a classification target: each an integer 0..C−1, and C itself, either
// stated (`ngvi fit --classes K`) or inferred as the largest label + 1.
//
// Inferring C from the largest label trusts one cell with the size of the whole network: a
// mistyped 1000000 among labels 0 and 1 made a million classes (4 GB, or a 539 MB posterior
// file; issue 22). So an inferred C must be plausible for the data:
//   largest label + 1 ≤ min(rows, max(2·d, d + 10)),  d = the number of distinct labels seen,
// i.e. no more classes than rows, and at most twice (or ten more than) the classes that occur.
// Labels that skip a few classes pass (0, 1, 5 is fine); a label far beyond the others does not.
// A data set with more classes than that rule allows states them with --classes. Every problem
// is an io::DataError naming the file, the line, the column and the label.
//
// The other way round, a target fitted as a regression may be class labels that lack `--task
// classification`: label_like_values flags one with at most label_like_max_distinct = 10
// distinct values, each an integer of magnitude at most label_like_max_magnitude = 100, for
// `ngvi fit` to warn about (a warning, not an error: counts and ratings are regressions too).
#pragma once

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <string>

#include <Eigen/Core>
#include <fmt/format.h>
#include <io/csv_table.hpp>
#include <io/data_error.hpp>

namespace ngvi::app {

// The largest number of classes a target may have, stated or inferred.
inline constexpr int max_classes = 1 << 20;

// Throws io::DataError if a class label is not an integer in 0..classes−1 (line and column named).
// Cost: O(rows).
inline void check_class_labels(const io::CsvTable& table, Eigen::Index column, int classes) {
  for (Eigen::Index r = 0; r < table.values.rows(); ++r) {
    const double v = table.values(r, column);
    if (!(v >= 0.0 && v < classes && std::floor(v) == v))
      throw io::DataError(table.file, table.lines[static_cast<std::size_t>(r)],
                          static_cast<std::size_t>(column + 1),
                          "a class label 0.." + std::to_string(classes - 1) + " in " +
                              table.describe_column(column),
                          fmt::format("{}", v));
  }
}

// C for the labels in `column`, none stated: the largest label + 1 (at least 2), if the rule at
// the top of the file allows it. Throws io::DataError naming the line of the first cell holding
// the largest label otherwise, or for a label that is not an integer 0..max_classes−1.
// Cost: O(rows · log(distinct labels)).
inline int infer_class_count(const io::CsvTable& table, Eigen::Index column) {
  check_class_labels(table, column, max_classes);
  const Eigen::Index rows = table.values.rows();
  std::set<double> distinct;
  Eigen::Index largest = 0;  // the row of the first cell holding the largest label
  for (Eigen::Index r = 0; r < rows; ++r) {
    distinct.insert(table.values(r, column));
    if (table.values(r, column) > table.values(largest, column)) largest = r;
  }
  const auto d = static_cast<Eigen::Index>(distinct.size());
  const Eigen::Index limit = std::min(rows, std::max(2 * d, d + 10));
  const double label = table.values(largest, column);
  if (label + 1.0 > static_cast<double>(limit))
    throw io::DataError(
        table.file, table.lines[static_cast<std::size_t>(largest)],
        static_cast<std::size_t>(column + 1),
        fmt::format("a class label below {} in {}: {} distinct labels in {} rows allow at most "
                    "min(rows, max(2 * distinct, distinct + 10)) = {} classes (a mistyped label?); "
                    "state the number of classes with --classes K if there are more",
                    limit, table.describe_column(column), d, rows, limit),
        fmt::format("the label {}", label));
  return std::max(static_cast<int>(label) + 1, 2);
}

// The rule of label_like_values (see the top of the file).
inline constexpr std::size_t label_like_max_distinct = 10;
inline constexpr double label_like_max_magnitude = 100.0;

// The distinct values of `y` in increasing order if they look like class labels (the rule at
// the top of the file), else nothing. Cost: O(rows · log(distinct values)), no copy of y.
inline std::optional<std::set<double>> label_like_values(
    const Eigen::Ref<const Eigen::VectorXd>& y) {
  std::set<double> distinct;
  for (Eigen::Index r = 0; r < y.size(); ++r) {
    const double v = y(r);
    if (!(std::abs(v) <= label_like_max_magnitude && std::floor(v) == v)) return std::nullopt;
    distinct.insert(v);
    if (distinct.size() > label_like_max_distinct) return std::nullopt;
  }
  return distinct;
}

}  // namespace ngvi::app
