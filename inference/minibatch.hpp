// MinibatchSampler: which examples each iteration of the fit loop sees.
//
// Epochs of shuffled, non-overlapping minibatches (sampling without replacement): at the start of
// each epoch the indices 0..N−1 are permuted by a Fisher–Yates shuffle driven by the caller's
// generator, then cut into ⌈N/M⌉ consecutive batches, the last one smaller when M does not divide
// N. M ≥ N (or M = 0) means full batch: no shuffle and one batch per epoch, the examples in order.
// The sampler's whole state (permutation and position) is plain data, so a checkpoint restores it
// and a resumed run sees the same batches; restore() accepts only a true permutation (an order of
// all zeros would make every later minibatch example 0, a silently wrong fit).
//
// Built over row blocks (batch_reducer.hpp: RowBlocks, the blocks of a reducer by data rows),
// the sampler draws each minibatch stratified over the blocks instead, so that each block's
// share is computed by the process holding its rows: at the start of an epoch one 64-bit key is
// drawn from the caller's generator, block b's rows are put in the order π_b of a keyed
// permutation of its n_b rows (KeyedPermutation), and minibatch t = 0..T−1 (T = ⌈N/M⌉) takes the
// positions [c_b(t), c_b(t+1)) of that order from every block b in turn,
//   c_b(t) = ⌊(t·n_b + s_b) / T⌋,  s_b = ⌊b·T/K⌋,
// so each epoch sees every row once and each minibatch about M rows, n_b/T of them from block b
// (the offsets s_b spread the blocks' rounding over the batches). No order of N entries is held:
// the state is the key and t, the same on every process, and any process can list a whole
// minibatch in O(M). M must be at least the number of blocks (or full batch), so that no
// minibatch is empty.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include <inference/batch_reducer.hpp>
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

// A pseudo-random bijection of 0..n−1 chosen by `key`, evaluated one position at a time: a
// four-round Feistel network on the smallest domain of 2^{2h} ≥ n values, walked along its cycle
// back into 0..n−1 (Black & Rogaway 2002, "Ciphers with arbitrary finite domains"), with
// SplitMix64 (Steele, Lea & Flood 2014) as round function. Integer arithmetic only, so the same
// bits on every machine. Cost: O(1) memory; a position costs four rounds per step of the walk,
// fewer than four steps on average.
class KeyedPermutation {
 public:
  KeyedPermutation(std::uint64_t n, std::uint64_t key) : n_(n), key_(key) {
    while ((std::uint64_t{1} << (2 * half_)) < n_) ++half_;
    mask_ = (std::uint64_t{1} << half_) - 1;
  }
  // π(j), 0 ≤ j < n.
  std::uint64_t operator()(std::uint64_t j) const {
    std::uint64_t x = j;
    do x = round_trip(x);
    while (x >= n_);
    return x;
  }

 private:
  static std::uint64_t splitmix64(std::uint64_t z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::uint64_t round_trip(std::uint64_t x) const {
    std::uint64_t left = x >> half_, right = x & mask_;
    for (std::uint64_t r = 0; r < 4; ++r) {
      const std::uint64_t f = splitmix64(key_ ^ splitmix64(r + 1) ^ right) & mask_;
      const std::uint64_t next = left ^ f;
      left = right;
      right = next;
    }
    return (left << half_) | right;
  }

  std::uint64_t n_;
  std::uint64_t key_;
  int half_ = 0;
  std::uint64_t mask_ = 0;
};

class MinibatchSampler {
 public:
  // Throws std::invalid_argument for an empty data set or a negative batch size.
  MinibatchSampler(Eigen::Index num_examples, Eigen::Index minibatch)
      : MinibatchSampler(num_examples, minibatch, nullptr) {}

  // Stratified over `blocks` (header comment). Throws std::invalid_argument for a negative
  // minibatch size, or one below the number of blocks (other than full batch).
  MinibatchSampler(const RowBlocks& blocks, Eigen::Index minibatch)
      : MinibatchSampler(blocks.rows(), minibatch, &blocks) {}

  Eigen::Index num_examples() const { return n_; }
  Eigen::Index batch_size() const { return m_; }
  bool full_batch() const { return m_ == n_; }
  Eigen::Index batches_per_epoch() const { return (n_ + m_ - 1) / m_; }

  // The next minibatch (a view valid until the next call); reshuffles at each epoch start.
  // Cost: O(M), plus an O(N) shuffle (N uniform draws) once per epoch when not full batch.
  std::span<const Eigen::Index> next(Rng& rng) {
    if (blocks_) return next_stratified(rng);
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

  // State for checkpoints: the current permutation and the position in it; stratified, no
  // permutation, the position is t (batches drawn this epoch) and the epoch's key is key().
  const std::vector<Eigen::Index>& order() const { return order_; }
  Eigen::Index position() const { return blocks_ ? t_ : pos_; }
  bool stratified() const { return blocks_.has_value(); }
  std::uint64_t key() const { return key_; }
  // Throws std::invalid_argument unless the sampler is stratified and 0 ≤ t ≤ T.
  void restore_stratified(std::uint64_t key, Eigen::Index t) {
    if (!blocks_ || t < 0 || t > batches_per_epoch())
      throw std::invalid_argument(
          "ngvi::vi::MinibatchSampler::restore_stratified: " +
          (blocks_ ? "batch " + std::to_string(t) + " is outside 0.." +
                         std::to_string(batches_per_epoch()) + " of an epoch"
                   : std::string("the sampler is not stratified over row blocks")));
    key_ = key;
    t_ = t;
    pos_ = 0;
    for (Eigen::Index b = 0; b < blocks_->count(); ++b) pos_ += cut(b, t);
  }
  // Throws std::invalid_argument if the state does not belong to a sampler of this size, or
  // the order is not a permutation of 0..N−1 (naming the first entry that breaks it).
  void restore(std::vector<Eigen::Index> order, Eigen::Index position) {
    if (blocks_)
      throw std::invalid_argument(
          "ngvi::vi::MinibatchSampler::restore: the saved state is a permutation of " +
          std::to_string(order.size()) +
          " examples, but this sampler is stratified over row blocks (a checkpoint of a run "
          "whose reducer blocks minibatch positions, resumed with one by data rows?)");
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
  // Over a permutation of all N examples (blocks null), or stratified over *blocks, holding no
  // permutation (order_ stays empty).
  MinibatchSampler(Eigen::Index num_examples, Eigen::Index minibatch, const RowBlocks* blocks)
      : n_(num_examples) {
    if (num_examples <= 0)
      throw std::invalid_argument("ngvi::vi::MinibatchSampler: the data set is empty (N = " +
                                  std::to_string(num_examples) + ")");
    if (minibatch < 0)
      throw std::invalid_argument("ngvi::vi::MinibatchSampler: minibatch size " +
                                  std::to_string(minibatch) + " is negative");
    m_ = (minibatch == 0 || minibatch >= n_) ? n_ : minibatch;
    pos_ = n_;  // the first next() starts an epoch
    if (blocks == nullptr) {
      order_.resize(static_cast<std::size_t>(n_));
      std::iota(order_.begin(), order_.end(), Eigen::Index{0});
      return;
    }
    if (!full_batch() && m_ < blocks->count())
      throw std::invalid_argument(
          "ngvi::vi::MinibatchSampler: minibatch size " + std::to_string(m_) + " is below the " +
          std::to_string(blocks->count()) +
          " row blocks it is stratified over (use at least one example per block, or full "
          "batch)");
    blocks_ = *blocks;
  }
  // c_b(t) of the header comment.
  Eigen::Index cut(Eigen::Index b, Eigen::Index t) const {
    const Eigen::Index batches = batches_per_epoch();
    const Eigen::Index offset = b * batches / blocks_->count();
    return (t * blocks_->size(b) + offset) / batches;
  }
  std::span<const Eigen::Index> next_stratified(Rng& rng) {
    if (pos_ >= n_) {
      if (!full_batch()) key_ = rng();
      pos_ = 0;
      t_ = 0;
    }
    batch_.clear();
    for (Eigen::Index b = 0; b < blocks_->count(); ++b) {
      const Eigen::Index first = blocks_->begin(b), lo = cut(b, t_), hi = cut(b, t_ + 1);
      if (full_batch()) {
        for (Eigen::Index j = lo; j < hi; ++j) batch_.push_back(first + j);
        continue;
      }
      const KeyedPermutation pi(static_cast<std::uint64_t>(blocks_->size(b)),
                                key_ ^ (0x632be59bd9b4e019ULL * static_cast<std::uint64_t>(b + 1)));
      for (Eigen::Index j = lo; j < hi; ++j)
        batch_.push_back(first + static_cast<Eigen::Index>(pi(static_cast<std::uint64_t>(j))));
    }
    ++t_;
    pos_ += static_cast<Eigen::Index>(batch_.size());
    return batch_;
  }

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
  // Stratified over row blocks: the blocks, the epoch's key, the batch t, its examples.
  std::optional<RowBlocks> blocks_;
  std::uint64_t key_ = 0;
  Eigen::Index t_ = 0;
  std::vector<Eigen::Index> batch_;
};

}  // namespace ngvi::vi
