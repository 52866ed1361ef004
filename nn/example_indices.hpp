// ExampleIndices: a minibatch, named by the indices of its examples in the model's data.
//
// Stochastic natural-gradient methods (VOGN, noisy Adam, noisy K-FAC) need per-example
// gradients and curvature of a new minibatch at every step. Every per-example and curvature
// driver of nn therefore has an overload taking `ExampleIndices idx` right after θ: it works on
// the examples idx[0], idx[1], … in that order (row k of a per-example result is example
// idx[k]; sums run over idx) and reads their rows of the model's data in place, so a step
// neither copies a Dataset nor builds a sub-model. Indices may repeat and need not be sorted;
// a repeated index counts as often as it appears. Anything random is drawn from the stream of
// the GLOBAL index idx[k], so a result does not depend on where an example sits in the batch.
// check_example_indices is the single validation every overload runs first.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Core>

namespace ngvi::nn {

using ExampleIndices = std::span<const Eigen::Index>;

// Throws std::invalid_argument if idx is empty and std::out_of_range if an entry is outside
// 0..n−1, naming `who` (the public function, e.g. "ggn"), the position and the value.
// Cost: O(|idx|).
inline void check_example_indices(ExampleIndices idx, Eigen::Index n, const std::string& who) {
  if (idx.empty())
    throw std::invalid_argument(
        "ngvi::nn::" + who + ": idx is empty, expected at least one example index (the model has " +
        std::to_string(n) + " examples)");
  for (std::size_t k = 0; k < idx.size(); ++k)
    if (idx[k] < 0 || idx[k] >= n)
      throw std::out_of_range("ngvi::nn::" + who + ": idx[" + std::to_string(k) + "] = " +
                              std::to_string(idx[k]) + " is outside 0.." + std::to_string(n - 1) +
                              " (the model has " + std::to_string(n) + " examples)");
}

// 0, 1, …, n−1: the index list behind every all-examples overload. Cost: O(n).
inline std::vector<Eigen::Index> all_examples(Eigen::Index n) {
  std::vector<Eigen::Index> idx(static_cast<std::size_t>(std::max<Eigen::Index>(n, 0)));
  std::iota(idx.begin(), idx.end(), Eigen::Index{0});
  return idx;
}

// True if idx is idx[0], idx[0]+1, …: such a batch is a contiguous block of rows and is read
// with middleRows instead of a gather. Cost: O(|idx|).
inline bool is_consecutive(ExampleIndices idx) {
  for (std::size_t k = 1; k < idx.size(); ++k)
    if (idx[k] != idx[0] + static_cast<Eigen::Index>(k)) return false;
  return true;
}

// The rows idx[0] − first, idx[1] − first, … of M (|idx|×M.cols()): example i is row i − first
// of M, which holds the examples first, first + 1, … (first = 0 when M holds them all; a model
// holding a window of the data passes the window's first row). A view of M when the rows are
// consecutive, else gathered into `buffer`, which the caller keeps alive (and may reuse) while
// the result is in use. The caller has checked that the rows are in M. Cost: O(1) for
// consecutive rows, else O(|idx|·M.cols()) copies.
inline Eigen::Ref<const Eigen::MatrixXd> example_rows(const Eigen::MatrixXd& M, ExampleIndices idx,
                                                      Eigen::MatrixXd& buffer,
                                                      Eigen::Index first = 0) {
  if (idx.empty()) return M.topRows(0);
  const auto rows = static_cast<Eigen::Index>(idx.size());
  if (is_consecutive(idx)) return M.middleRows(idx[0] - first, rows);
  if (first == 0) {
    buffer = M(idx, Eigen::all);
    return buffer;
  }
  buffer.resize(rows, M.cols());
  for (Eigen::Index k = 0; k < rows; ++k)
    buffer.row(k) = M.row(idx[static_cast<std::size_t>(k)] - first);
  return buffer;
}

// The rows a model's examples idx read (as example_rows gives them): its own input_rows and
// target_rows where it has them (Supervised, which may hold a window of the rows), else the rows
// idx of data().X and data().Y.
template <class M>
concept HasExampleRows = requires(const M& m, ExampleIndices idx, Eigen::MatrixXd& buffer) {
  { m.input_rows(idx, buffer) } -> std::convertible_to<Eigen::Ref<const Eigen::MatrixXd>>;
  { m.target_rows(idx, buffer) } -> std::convertible_to<Eigen::Ref<const Eigen::MatrixXd>>;
};
template <class M>
concept HasDataRows = requires(const M& m) {
  { m.data().X } -> std::convertible_to<const Eigen::MatrixXd&>;
  { m.data().Y } -> std::convertible_to<const Eigen::MatrixXd&>;
};
template <class M>
Eigen::Ref<const Eigen::MatrixXd> input_rows_of(const M& m, ExampleIndices idx,
                                                Eigen::MatrixXd& buffer) {
  if constexpr (HasExampleRows<M>)
    return m.input_rows(idx, buffer);
  else
    return example_rows(m.data().X, idx, buffer);
}
template <class M>
Eigen::Ref<const Eigen::MatrixXd> target_rows_of(const M& m, ExampleIndices idx,
                                                 Eigen::MatrixXd& buffer) {
  if constexpr (HasExampleRows<M>)
    return m.target_rows(idx, buffer);
  else
    return example_rows(m.data().Y, idx, buffer);
}

}  // namespace ngvi::nn
