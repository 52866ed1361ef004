// BatchReducer: how a step adds up its per-example contributions over the minibatch.
//
// Every natural-gradient step is built from sums over the minibatch B: Σ_{i∈B} gᵢ, Σ_{i∈B} cᵢ
// (squared gradients, GGN or Hessian). A method writes each such sum as a function
// add(examples, parallel, acc) that adds the contributions of some examples to a vector acc of
// fixed length L (several sums packed one after the other), and asks the loop's reducer for
//   sum(B) = Σ_{i∈B} contribution(i).
// With no reducer (LoopOptions::reducer empty, the default) add runs once on the whole B, and the
// nn functions it calls sum over their own thread-independent blocks. A reducer splits B instead
// into fixed blocks,
//   B_k = B[⌊k·M/K⌋, ⌊(k+1)·M/K⌋),  k = 0..K−1,  K = min(blocks, M),
// whose boundaries depend only on M and `blocks` — never on threads or processes — forms each
// block sum S_k = add(B_k) from zero, and returns ((S_0 + S_1) + S_2) + ... in block order. That
// makes the result the same bits wherever each S_k was computed: BlockedReducer computes them
// all in this process (its blocks in parallel on oneTBB), distributed/mpi_reducer.hpp computes
// each on one MPI rank and exchanges them, and both give identical bits for any number of threads
// and ranks.
//
// A reducer may instead block the data rows (RowBlocks): block k is the rows
//   R_k = [⌊k·N/K⌋, ⌊(k+1)·N/K⌋),  K = min(blocks, N),
// and S_k adds the batch's examples that lie in R_k, in batch order. Then a process needs only
// the rows of its blocks — a model over a window of the data (nn::RowWindow) — and the fit loop
// draws minibatches stratified over the row blocks (minibatch.hpp) and sums its whole-data
// passes (the history's losses) the same way. The sums are other bits than those of blocks of
// positions, the same for any threads and ranks.
// Functions and members that would not otherwise be templates are written `template <int = 0>`
// (called as usual), so that a program compiles their Eigen code only if it calls them
// (docs/architecture.md, "Compile time").
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <numeric>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include <autodiff/functional/per_example.hpp>

namespace ngvi::vi {

// add(examples, parallel, acc): adds the contributions of `examples` (indices into the model's
// examples) to acc, running its per-example work on `parallel`'s threads.
using AddContributions = std::function<void(std::span<const Eigen::Index>,
                                            const ad::ParallelOptions&, Eigen::VectorXd&)>;

// The fixed blocks of the data rows 0..N−1: K = min(blocks, N), block k is the rows
// [begin(k), begin(k + 1)) with begin(k) = ⌊k·N/K⌋. A run over R processes gives process r the
// blocks [⌊r·K/R⌋, ⌊(r+1)·K/R⌋), a contiguous run of rows (rows_of).
class RowBlocks {
 public:
  // Throws std::invalid_argument for rows < 1 or blocks < 1.
  RowBlocks(Eigen::Index rows, Eigen::Index blocks) : n_(rows) {
    if (rows < 1)
      throw std::invalid_argument("ngvi::vi::RowBlocks: rows = " + std::to_string(rows) +
                                  ", expected >= 1");
    if (blocks < 1)
      throw std::invalid_argument("ngvi::vi::RowBlocks: blocks = " + std::to_string(blocks) +
                                  ", expected >= 1");
    k_ = std::min(blocks, rows);
  }
  Eigen::Index rows() const { return n_; }
  Eigen::Index count() const { return k_; }
  Eigen::Index begin(Eigen::Index k) const { return k * n_ / k_; }
  Eigen::Index size(Eigen::Index k) const { return begin(k + 1) - begin(k); }
  // The block holding `row` (0 ≤ row < N). Cost: O(1).
  Eigen::Index block_of(Eigen::Index row) const {
    Eigen::Index k = std::min(row * k_ / n_, k_ - 1);
    while (begin(k + 1) <= row) ++k;
    while (begin(k) > row) --k;
    return k;
  }
  // The first block of process `rank` of `ranks` (rank = ranks gives K).
  Eigen::Index first_block(int rank, int ranks) const {
    return static_cast<Eigen::Index>(rank) * k_ / static_cast<Eigen::Index>(ranks);
  }
  // The rows [first, last) of process `rank` of `ranks`: those its model must hold.
  std::pair<Eigen::Index, Eigen::Index> rows_of(int rank, int ranks) const {
    return {begin(first_block(rank, ranks)), begin(first_block(rank + 1, ranks))};
  }
  // The entries of `batch` in each block, in batch order. Throws std::out_of_range for an
  // entry outside 0..N−1. Cost: O(|batch|).
  std::vector<std::vector<Eigen::Index>> split(std::span<const Eigen::Index> batch) const {
    std::vector<std::vector<Eigen::Index>> parts(static_cast<std::size_t>(k_));
    for (const Eigen::Index i : batch) {
      if (i < 0 || i >= n_)
        throw std::out_of_range("ngvi::vi::RowBlocks::split: example " + std::to_string(i) +
                                " is outside 0.." + std::to_string(n_ - 1));
      parts[static_cast<std::size_t>(block_of(i))].push_back(i);
    }
    return parts;
  }

 private:
  Eigen::Index n_ = 0;
  Eigen::Index k_ = 0;
};

class BatchReducer {
 public:
  virtual ~BatchReducer() = default;
  // Σ_{i∈batch} of what add adds, a vector of `length` entries (see the header comment).
  virtual Eigen::VectorXd sum(std::span<const Eigen::Index> batch, Eigen::Index length,
                              const ad::ParallelOptions& parallel,
                              const AddContributions& add) const = 0;
  // Σ over every example 0..n−1 of what add adds: sum() of the batch 0, 1, …, n−1, which a
  // reducer by data rows forms without listing the n indices (each block lists its own rows,
  // one block at a time). Cost: that of sum() over the n examples.
  virtual Eigen::VectorXd sum_all(Eigen::Index n, Eigen::Index length,
                                  const ad::ParallelOptions& parallel,
                                  const AddContributions& add) const {
    std::vector<Eigen::Index> all(static_cast<std::size_t>(n));
    std::iota(all.begin(), all.end(), Eigen::Index{0});
    return sum(all, length, parallel, add);
  }
  // The row blocks when the reducer blocks data rows (a process may then hold only its
  // rows), null when it blocks minibatch positions.
  virtual const RowBlocks* row_blocks() const { return nullptr; }
};

// The sum through `reducer`, or add(batch) from zero when there is none. Cost: that of add over
// the batch, plus the reducer's.
template <int = 0>
Eigen::VectorXd sum_over_batch(const BatchReducer* reducer, std::span<const Eigen::Index> batch,
                               Eigen::Index length, const ad::ParallelOptions& parallel,
                               const AddContributions& add) {
  if (reducer != nullptr) return reducer->sum(batch, length, parallel, add);
  Eigen::VectorXd acc = Eigen::VectorXd::Zero(length);
  add(batch, parallel, acc);
  return acc;
}

// The fixed blocks of a minibatch of M examples: K = min(blocks, M), block k is
// [begin(k), begin(k + 1)) with begin(k) = ⌊k·M/K⌋.
class BatchBlocks {
 public:
  // Throws std::invalid_argument for blocks < 1.
  BatchBlocks(std::size_t batch_size, Eigen::Index blocks)
      : m_(batch_size), k_(std::min(static_cast<std::size_t>(checked(blocks)), batch_size)) {}
  // blocks, or std::invalid_argument if it is below 1.
  static Eigen::Index checked(Eigen::Index blocks) {
    if (blocks < 1)
      throw std::invalid_argument("ngvi::vi::BatchBlocks: blocks = " + std::to_string(blocks) +
                                  ", expected >= 1");
    return blocks;
  }
  std::size_t count() const { return k_; }
  std::size_t begin(std::size_t k) const { return k_ == 0 ? 0 : k * m_ / k_; }
  std::span<const Eigen::Index> block(std::span<const Eigen::Index> batch, std::size_t k) const {
    return batch.subspan(begin(k), begin(k + 1) - begin(k));
  }

 private:
  std::size_t m_ = 0;
  std::size_t k_ = 0;
};

// The block sums S_first, ..., S_{last−1} as the columns of a length × (last − first) matrix,
// S_k = add(part(k)) from zero (zero for an empty part), the blocks in parallel on `parallel`'s
// threads (each block's own work on one thread). Rethrows the first exception of a block.
// Cost: add over those blocks.
template <class Part>
Eigen::MatrixXd sums_of_parts(const Part& part, std::size_t first, std::size_t last,
                              Eigen::Index length, const ad::ParallelOptions& parallel,
                              const AddContributions& add) {
  Eigen::MatrixXd sums = Eigen::MatrixXd::Zero(length, static_cast<Eigen::Index>(last - first));
  ad::ParallelOptions serial = parallel;
  serial.threads = 1;
  auto one = [&](std::size_t k) {
    decltype(auto) owner = part(k);  // a span, or a list made for this block
    const std::span<const Eigen::Index> examples(owner);
    if (examples.empty()) return;
    Eigen::VectorXd acc = Eigen::VectorXd::Zero(length);
    add(examples, serial, acc);
    sums.col(static_cast<Eigen::Index>(k - first)) = acc;
  };
  ad::ParallelOptions per_block = parallel;
  per_block.grain = 1;
  ad::parallel_blocks(static_cast<Eigen::Index>(last - first), per_block,
                      [&](Eigen::Index begin, Eigen::Index end) {
                        for (Eigen::Index k = begin; k < end; ++k)
                          one(first + static_cast<std::size_t>(k));
                      });
  return sums;
}

// The block sums of `batch` over its blocks of positions first..last−1 (sums_of_parts).
template <int = 0>
Eigen::MatrixXd block_sums(std::span<const Eigen::Index> batch, const BatchBlocks& blocks,
                           std::size_t first, std::size_t last, Eigen::Index length,
                           const ad::ParallelOptions& parallel, const AddContributions& add) {
  return sums_of_parts([&](std::size_t k) { return blocks.block(batch, k); }, first, last, length,
                       parallel, add);
}

// The block sums of `batch` over its row blocks first..last−1 (sums_of_parts). A batch whose
// entries' blocks never decrease (a minibatch stratified over the blocks, minibatch.hpp) is cut
// into sub-spans of itself, as a reducer by positions passes them (a method may locate a part in
// its batch, e.g. SLANG); any other is split into lists. Cost: add over the batch's examples in
// those blocks, plus O(|batch| + K) to cut or split it.
template <int = 0>
Eigen::MatrixXd row_block_sums(std::span<const Eigen::Index> batch, const RowBlocks& blocks,
                               std::size_t first, std::size_t last, Eigen::Index length,
                               const ad::ParallelOptions& parallel, const AddContributions& add) {
  const auto block = [&](std::size_t j) {
    const Eigen::Index i = batch[j];
    return i >= 0 && i < blocks.rows() ? blocks.block_of(i) : Eigen::Index{-1};
  };
  bool in_order = true;
  for (std::size_t j = 0; j < batch.size() && in_order; ++j)
    in_order = block(j) >= 0 && (j == 0 || block(j) >= block(j - 1));
  if (in_order) {
    std::vector<std::size_t> cuts;  // cuts[k]: the position of the first entry of a block ≥ k
    for (std::size_t k = 0, j = 0; k <= static_cast<std::size_t>(blocks.count()); ++k) {
      while (j < batch.size() && static_cast<std::size_t>(block(j)) < k) ++j;
      cuts.push_back(j);
    }
    return sums_of_parts(
        [&](std::size_t k) { return batch.subspan(cuts[k], cuts[k + 1] - cuts[k]); }, first, last,
        length, parallel, add);
  }
  const std::vector<std::vector<Eigen::Index>> parts = blocks.split(batch);
  return sums_of_parts([&](std::size_t k) { return std::span<const Eigen::Index>(parts[k]); },
                       first, last, length, parallel, add);
}

// The block sums over every row 0..N−1 of the row blocks first..last−1, each block listing its
// own rows when its turn comes (sums_of_parts). Cost: add over those blocks' rows.
template <int = 0>
Eigen::MatrixXd all_rows_block_sums(const RowBlocks& blocks, std::size_t first, std::size_t last,
                                    Eigen::Index length, const ad::ParallelOptions& parallel,
                                    const AddContributions& add) {
  return sums_of_parts(
      [&](std::size_t k) {
        const auto b = static_cast<Eigen::Index>(k);
        std::vector<Eigen::Index> rows(static_cast<std::size_t>(blocks.size(b)));
        std::iota(rows.begin(), rows.end(), blocks.begin(b));
        return rows;
      },
      first, last, length, parallel, add);
}

// Throws std::invalid_argument unless `n`, the examples of a sum over all of them, is the
// number of rows `blocks` cover; `who` names the caller.
inline void check_all_rows(const RowBlocks& blocks, Eigen::Index n, const char* who) {
  if (n != blocks.rows())
    throw std::invalid_argument(std::string(who) + ": a sum over all " + std::to_string(n) +
                                " examples, but the row blocks cover " +
                                std::to_string(blocks.rows()));
}

// Σ of the columns in order: ((S_0 + S_1) + S_2) + ... Cost: O(length · columns).
template <int = 0>
Eigen::VectorXd sum_in_block_order(const Eigen::MatrixXd& sums) {
  Eigen::VectorXd total = Eigen::VectorXd::Zero(sums.rows());
  for (Eigen::Index k = 0; k < sums.cols(); ++k) total += sums.col(k);
  return total;
}

// Every block in this process (the reference that a distributed reducer must reproduce bit for
// bit): blocks of positions (K of the header comment), or the row blocks of `rows`.
// Cost: add over the batch, block by block.
class BlockedReducer final : public BatchReducer {
 public:
  // Throws std::invalid_argument for blocks < 1.
  explicit BlockedReducer(Eigen::Index blocks = 16) : blocks_(BatchBlocks::checked(blocks)) {}
  explicit BlockedReducer(const RowBlocks& rows) : blocks_(rows.count()), rows_(rows) {}
  Eigen::VectorXd sum(std::span<const Eigen::Index> batch, Eigen::Index length,
                      const ad::ParallelOptions& parallel,
                      const AddContributions& add) const override {
    if (rows_)
      return sum_in_block_order(row_block_sums(
          batch, *rows_, 0, static_cast<std::size_t>(rows_->count()), length, parallel, add));
    const BatchBlocks b(batch.size(), blocks_);
    return sum_in_block_order(block_sums(batch, b, 0, b.count(), length, parallel, add));
  }
  Eigen::VectorXd sum_all(Eigen::Index n, Eigen::Index length, const ad::ParallelOptions& parallel,
                          const AddContributions& add) const override {
    if (!rows_) return BatchReducer::sum_all(n, length, parallel, add);
    check_all_rows(*rows_, n, "ngvi::vi::BlockedReducer::sum_all");
    return sum_in_block_order(all_rows_block_sums(
        *rows_, 0, static_cast<std::size_t>(rows_->count()), length, parallel, add));
  }
  const RowBlocks* row_blocks() const override { return rows_ ? &*rows_ : nullptr; }
  Eigen::Index blocks() const { return blocks_; }

 private:
  Eigen::Index blocks_;
  std::optional<RowBlocks> rows_;
};

}  // namespace ngvi::vi
