// The UCI folder: the standard UCI regression splits in the format of data/uci/ (data.txt,
// index_features.txt, index_target.txt, index_train_<k>.txt, index_test_<k>.txt; see
// data/uci/SOURCE.md), read into Datasets.
//
// load_uci_split reads split k and rejects a split whose training and test rows overlap (or that
// lists a row twice); load_uci_rows reads every row, for a protocol that draws its own split;
// uci_hidden_units and uci_split_count read the folder's n_hidden.txt and
// n_splits.txt; uci_regression_problem reads a split into the benchmark problem of
// inference/problems/uci_regression.hpp. The files are numeric tables (io/numeric_table.hpp), and
// every problem with them is a DataError naming the file, the line and the field.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>
#include <io/data_error.hpp>
#include <io/numeric_table.hpp>

#include <inference/problems/uci_regression.hpp>
#include <nn/dataset.hpp>

namespace ngvi::io {

struct UciSplit {
  nn::Dataset train;
  nn::Dataset test;
  std::vector<Eigen::Index> feature_columns;
  Eigen::Index target_column = 0;
};

// Every row of a UCI folder (no split): data.txt's inputs and target.
struct UciRows {
  nn::Dataset all;
  std::vector<Eigen::Index> feature_columns;
  Eigen::Index target_column = 0;
};

// Every row of a UCI folder's data.txt, as inputs (index_features.txt's columns) and target
// (index_target.txt's one column): what a protocol that draws its own splits starts from (the
// active-learning protocol, app/active). Throws DataError for missing or malformed files and for
// a target file that does not name exactly one column. Cost: O(size of the files).
inline UciRows load_uci_rows(const std::filesystem::path& dir) {
  const Eigen::MatrixXd table = load_matrix(dir / "data.txt");
  UciRows s;
  s.feature_columns = load_indices(dir / "index_features.txt");
  const auto target = load_indices(dir / "index_target.txt");
  if (target.size() != 1)
    throw DataError(dir / "index_target.txt", 0, 0, "exactly one target column",
                    std::to_string(target.size()));
  s.target_column = target[0];
  s.all = select_columns(table, s.feature_columns, {s.target_column}, dir / "data.txt");
  return s;
}

// Split k of a UCI folder in the format of data/uci/ (see data/uci/SOURCE.md).
// Throws DataError for missing or malformed files, for indices outside data.txt, for a row
// listed twice in one index file and for a row in both the training and the test split (test
// figures computed on training rows would be silently optimistic). Cost: O(size of the files).
inline UciSplit load_uci_split(const std::filesystem::path& dir, int split) {
  if (split < 0)
    throw DataError(dir, 0, 0, "a split number of at least 0", "split " + std::to_string(split));
  const UciRows data = load_uci_rows(dir);
  const nn::Dataset& all = data.all;
  UciSplit s;
  s.feature_columns = data.feature_columns;
  s.target_column = data.target_column;
  // owner[r] names the index file that listed data row r first (empty: none yet).
  std::vector<std::string> owner(static_cast<std::size_t>(all.size()));
  auto rows = [&](const std::string& name) {
    const std::filesystem::path f = dir / name;
    const auto idx = load_indices(f);
    for (std::size_t k = 0; k < idx.size(); ++k) {
      if (idx[k] >= all.size())
        throw DataError(f, 0, 0,
                        "row indices below " + std::to_string(all.size()) + " (rows of data.txt)",
                        std::to_string(idx[k]) + " in entry " + std::to_string(k + 1));
      std::string& first = owner[static_cast<std::size_t>(idx[k])];
      if (!first.empty())
        throw DataError(
            f, 0, 0,
            first == name ? "each row at most once" : "no row in both " + first + " and " + name,
            "row " + std::to_string(idx[k]) + " again in entry " + std::to_string(k + 1));
      first = name;
    }
    return idx;
  };
  s.train = all.subset(rows("index_train_" + std::to_string(split) + ".txt"));
  s.test = all.subset(rows("index_test_" + std::to_string(split) + ".txt"));
  return s;
}

namespace detail {

// The single positive integer in `file`, at most `largest`. Throws DataError otherwise.
inline int load_positive_count(const std::filesystem::path& file, int largest) {
  const std::vector<Eigen::Index> v = load_indices(file);
  if (v.size() != 1 || v[0] < 1 || v[0] > largest)
    throw DataError(file, 0, 0, "one integer in 1.." + std::to_string(largest),
                    v.size() == 1 ? std::to_string(v[0]) : std::to_string(v.size()) + " values");
  return static_cast<int>(v[0]);
}

}  // namespace detail

// The hidden-layer width of a UCI folder's protocol: n_hidden.txt if present, else `fallback`
// (the published protocol's 50). Throws DataError for a malformed n_hidden.txt. Cost: O(1).
inline int uci_hidden_units(const std::filesystem::path& dir, int fallback = 50) {
  const std::filesystem::path f = dir / "n_hidden.txt";
  return std::filesystem::exists(f) ? detail::load_positive_count(f, 1 << 20) : fallback;
}

// The number of splits of a UCI folder: n_splits.txt if present, else the number of
// consecutive index_train_<k>.txt files from k = 0. Throws DataError for a malformed
// n_splits.txt or a folder without any split. Cost: O(number of splits).
inline int uci_split_count(const std::filesystem::path& dir) {
  const std::filesystem::path f = dir / "n_splits.txt";
  if (std::filesystem::exists(f)) return detail::load_positive_count(f, 1 << 20);
  int k = 0;
  while (std::filesystem::exists(dir / ("index_train_" + std::to_string(k) + ".txt"))) ++k;
  if (k == 0) throw DataError(dir, 0, 0, "index_train_0.txt or n_splits.txt", "neither");
  return k;
}

struct UciProblemOptions {
  // The data set's folder (data.txt, index_*.txt), e.g. data/uci/bostonHousing.
  // Required: there is no default location.
  std::filesystem::path folder;
  // Which of the folder's splits (0-based; Boston has 20).
  int split = 0;
  // The network and likelihood (hidden units, activation, noise precision).
  vi::problems::UciRegressionOptions problem;
};

// Split `o.split` of the folder `o.folder` as the UCI regression problem
// (vi::problems::make_uci_regression), described by the folder's name. The options are checked
// before any file is read. Throws std::invalid_argument for an empty folder or out-of-range
// options and DataError for missing or malformed files (naming file, line and field).
// Cost: reading the folder's files, O(N·D).
inline vi::problems::UciRegression uci_regression_problem(const UciProblemOptions& o) {
  if (o.folder.empty())
    throw std::invalid_argument(
        "ngvi::io::uci_regression_problem: folder is empty; give the data set's folder");
  vi::problems::check_uci_regression_options(o.problem);
  UciSplit split = load_uci_split(o.folder, o.split);
  return vi::problems::make_uci_regression(
      {.train = std::move(split.train),
       .test = std::move(split.test),
       .name = (o.folder / "").parent_path().filename().string(),
       .split = o.split},
      o.problem);
}

}  // namespace ngvi::io
