// MinibatchSampler: which examples each iteration of the fit loop sees.
//
// Epochs of shuffled, non-overlapping minibatches (sampling without replacement): at the start of
// each epoch the indices 0..N−1 are permuted by a Fisher–Yates shuffle driven by the caller's
// generator, then cut into ⌈N/M⌉ consecutive batches, the last one smaller when M does not divide
// N. M ≥ N (or M = 0) means full batch: no shuffle and one batch per epoch, the examples in order.
// The sampler's whole state (permutation and position) is plain data, so a checkpoint restores it
// and a resumed run sees the same batches; restore() accepts only a true permutation (an order of
// all zeros would make every later minibatch example 0, a silently wrong fit).
#pragma once

#include <algorithm>
#include <numeric>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include <inference/random.hpp>

namespace ngvi::vi {

// The position of the first entry of `order` that keeps it from being a permutation of 0..N−1
// (N = order.size()): one out of that range or equal to an earlier one; nullopt if it is a
// permutation. Cost: O(N) time and N bits.
inline std::optional<std::size_t> first_non_permutation_entry(
    const std::vector<Eigen::Index>& order) {
  const auto n = static_cast<Eigen::Index>(order.size());
  std::vector<bool> seen(order.size(), false);
  for (std::size_t k = 0; k < order.size(); ++k) {
    const Eigen::Index i = order[k];
    if (i < 0 || i >= n || seen[static_cast<std::size_t>(i)]) return k;
    seen[static_cast<std::size_t>(i)] = true;
  }
  return std::nullopt;
}

class MinibatchSampler {
 public:
  // Throws std::invalid_argument for an empty data set or a negative batch size.
  MinibatchSampler(Eigen::Index num_examples, Eigen::Index minibatch) : n_(num_examples) {
    if (num_examples <= 0)
      throw std::invalid_argument("ngvi::vi::MinibatchSampler: the data set is empty (N = " +
                                  std::to_string(num_examples) + ")");
    if (minibatch < 0)
      throw std::invalid_argument("ngvi::vi::MinibatchSampler: minibatch size " +
                                  std::to_string(minibatch) + " is negative");
    m_ = (minibatch == 0 || minibatch >= n_) ? n_ : minibatch;
    order_.resize(static_cast<std::size_t>(n_));
    std::iota(order_.begin(), order_.end(), Eigen::Index{0});
    pos_ = n_;  // the first next() starts an epoch
  }

  Eigen::Index num_examples() const { return n_; }
  Eigen::Index batch_size() const { return m_; }
  bool full_batch() const { return m_ == n_; }
  Eigen::Index batches_per_epoch() const { return (n_ + m_ - 1) / m_; }

  // The next minibatch (a view valid until the next call); reshuffles at each epoch start.
  // Cost: O(M), plus an O(N) shuffle (N uniform draws) once per epoch when not full batch.
  std::span<const Eigen::Index> next(Rng& rng) {
    if (pos_ >= n_) {
      if (!full_batch()) shuffle(rng);
      pos_ = 0;
    }
    const Eigen::Index len = std::min(m_, n_ - pos_);
    std::span<const Eigen::Index> batch(order_.data() + pos_, static_cast<std::size_t>(len));
    pos_ += len;
    return batch;
  }
  // True when the last batch returned closed an epoch.
  bool epoch_finished() const { return pos_ >= n_; }

  // State for checkpoints: the current permutation and the position in it.
  const std::vector<Eigen::Index>& order() const { return order_; }
  Eigen::Index position() const { return pos_; }
  // Throws std::invalid_argument if the state does not belong to a sampler of this size, or
  // the order is not a permutation of 0..N−1 (naming the first entry that breaks it).
  void restore(std::vector<Eigen::Index> order, Eigen::Index position) {
    if (static_cast<Eigen::Index>(order.size()) != n_ || position < 0 || position > n_)
      throw std::invalid_argument("ngvi::vi::MinibatchSampler::restore: the saved state is for " +
                                  std::to_string(order.size()) + " examples at position " +
                                  std::to_string(position) + ", this data set has " +
                                  std::to_string(n_));
    if (const auto k = first_non_permutation_entry(order))
      throw std::invalid_argument(
          "ngvi::vi::MinibatchSampler::restore: the saved order is not a permutation of 0.." +
          std::to_string(n_ - 1) + ": entry " + std::to_string(*k) + " is " +
          std::to_string(order[*k]) +
          (order[*k] >= 0 && order[*k] < n_ ? ", which an earlier entry holds" : ""));
    order_ = std::move(order);
    pos_ = position;
  }

 private:
  void shuffle(Rng& rng) {
    for (Eigen::Index i = n_ - 1; i > 0; --i) {
      const auto j =
          static_cast<Eigen::Index>(uniform_index(rng, static_cast<std::uint64_t>(i + 1)));
      std::swap(order_[static_cast<std::size_t>(i)], order_[static_cast<std::size_t>(j)]);
    }
  }

  Eigen::Index n_ = 0;
  Eigen::Index m_ = 0;
  std::vector<Eigen::Index> order_;
  Eigen::Index pos_ = 0;
};

}  // namespace ngvi::vi
