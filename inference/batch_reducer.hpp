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
// Functions and members that would not otherwise be templates are written `template <int = 0>`
// (called as usual), so that a program compiles their Eigen code only if it calls them
// (docs/architecture.md, "Compile time").
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>

#include <Eigen/Core>

#include <autodiff/functional/per_example.hpp>

namespace ngvi::vi {

// add(examples, parallel, acc): adds the contributions of `examples` (indices into the model's
// examples) to acc, running its per-example work on `parallel`'s threads.
using AddContributions = std::function<void(std::span<const Eigen::Index>,
                                            const ad::ParallelOptions&, Eigen::VectorXd&)>;

class BatchReducer {
 public:
  virtual ~BatchReducer() = default;
  // Σ_{i∈batch} of what add adds, a vector of `length` entries (see the header comment).
  virtual Eigen::VectorXd sum(std::span<const Eigen::Index> batch, Eigen::Index length,
                              const ad::ParallelOptions& parallel,
                              const AddContributions& add) const = 0;
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

// The block sums S_first, ..., S_{last−1} of `batch` as the columns of a length × (last − first)
// matrix, each from zero, the blocks in parallel on `parallel`'s threads (each block's own work
// on one thread). Rethrows the first exception of a block. Cost: add over those blocks.
template <int = 0>
Eigen::MatrixXd block_sums(std::span<const Eigen::Index> batch, const BatchBlocks& blocks,
                           std::size_t first, std::size_t last, Eigen::Index length,
                           const ad::ParallelOptions& parallel, const AddContributions& add) {
  Eigen::MatrixXd sums = Eigen::MatrixXd::Zero(length, static_cast<Eigen::Index>(last - first));
  ad::ParallelOptions serial = parallel;
  serial.threads = 1;
  auto one = [&](std::size_t k) {
    Eigen::VectorXd acc = Eigen::VectorXd::Zero(length);
    add(blocks.block(batch, k), serial, acc);
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

// Σ of the columns in order: ((S_0 + S_1) + S_2) + ... Cost: O(length · columns).
template <int = 0>
Eigen::VectorXd sum_in_block_order(const Eigen::MatrixXd& sums) {
  Eigen::VectorXd total = Eigen::VectorXd::Zero(sums.rows());
  for (Eigen::Index k = 0; k < sums.cols(); ++k) total += sums.col(k);
  return total;
}

// Every block in this process (the reference that a distributed reducer must reproduce bit for
// bit). blocks: K of the header comment. Cost: add over the batch, block by block.
class BlockedReducer final : public BatchReducer {
 public:
  // Throws std::invalid_argument for blocks < 1.
  explicit BlockedReducer(Eigen::Index blocks = 16) : blocks_(BatchBlocks::checked(blocks)) {}
  Eigen::VectorXd sum(std::span<const Eigen::Index> batch, Eigen::Index length,
                      const ad::ParallelOptions& parallel,
                      const AddContributions& add) const override {
    const BatchBlocks b(batch.size(), blocks_);
    return sum_in_block_order(block_sums(batch, b, 0, b.count(), length, parallel, add));
  }
  Eigen::Index blocks() const { return blocks_; }

 private:
  Eigen::Index blocks_;
};

}  // namespace ngvi::vi
