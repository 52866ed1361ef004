// Parameters: one flat vector θ with named blocks, views into it, and initialisers.
//
// Every model in ngvi keeps its parameters in a single Eigen column vector θ, because the
// inference algorithms (VON, VOGN, Laplace) work on that vector: a posterior mean, a diagonal
// or a full precision are all indexed like θ. A ParameterLayout records, for each named block
// (a weight matrix, a bias, a noise parameter), its shape and where it starts in θ, so users
// read results back by name. view(theta, block) maps a block as a row-major rows×cols matrix
// of θ's own scalar type, so the same model code runs on double, on Var<double> and on
// Var<Dual<double, K>>. Initialisers take the caller's RNG explicitly (no hidden global state)
// and draw with Boost.Random's distributions, whose output is the same on every platform,
// unlike std::normal_distribution's.
#pragma once

#include <cmath>
#include <concepts>
#include <cstddef>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>
#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>

namespace ngvi::nn {

using Eigen::Index;

// A named rows×cols block of θ starting at `offset`, stored row-major.
struct Block {
  std::string name;
  Index rows = 0;
  Index cols = 0;
  Index offset = 0;
  Index size() const { return rows * cols; }
  // One past the last entry of the block in θ.
  Index end() const { return offset + size(); }
};

// The named blocks of θ, in the order they occupy it (no gaps, no overlap).
class ParameterLayout {
 public:
  // Appends a block after the existing ones and returns (a copy of) it — a copy, because a
  // reference into the layout would dangle after the next add; `const Block& b = add(...)`
  // is still safe (the temporary's lifetime is extended). Throws std::invalid_argument for an
  // empty or duplicate name or a negative shape. Cost: O(number of blocks).
  Block add(std::string name, Index rows, Index cols) {
    if (name.empty())
      throw std::invalid_argument("ngvi::nn::ParameterLayout::add: empty block name");
    if (rows < 0 || cols < 0)
      throw std::invalid_argument("ngvi::nn::ParameterLayout::add: block '" + name +
                                  "' has shape " + std::to_string(rows) + "x" +
                                  std::to_string(cols));
    if (find(name) != nullptr)
      throw std::invalid_argument("ngvi::nn::ParameterLayout::add: a block named '" + name +
                                  "' already exists");
    blocks_.push_back(Block{std::move(name), rows, cols, size_});
    size_ += rows * cols;
    return blocks_.back();
  }

  // Appends every block of `other`, in order, with names prefixed by `prefix`.
  void append(const ParameterLayout& other, const std::string& prefix = "") {
    for (const Block& b : other.blocks()) add(prefix + b.name, b.rows, b.cols);
  }

  // The block called `name` (the reference is valid until the next add); throws
  // std::out_of_range naming it and listing the known ones. Cost: O(number of blocks).
  const Block& block(std::string_view name) const {
    if (const Block* b = find(name)) return *b;
    std::string known;
    for (const Block& b : blocks_) known += (known.empty() ? "" : ", ") + b.name;
    throw std::out_of_range("ngvi::nn::ParameterLayout: no parameter block named '" +
                            std::string(name) +
                            "'; known blocks: " + (known.empty() ? std::string("(none)") : known));
  }
  bool contains(std::string_view name) const { return find(name) != nullptr; }

  // Total number of parameters (the length of θ).
  Index size() const { return size_; }
  const std::vector<Block>& blocks() const { return blocks_; }

  // The block holding θ entry p, for messages and reports ("dense0.weight(3, 7)").
  // Throws std::out_of_range if p is outside θ. Cost: O(number of blocks).
  std::string describe(Index p) const {
    for (const Block& b : blocks_) {
      if (p >= b.offset && p < b.end()) {
        const Index k = p - b.offset;
        return b.name + "(" + std::to_string(k / b.cols) + ", " + std::to_string(k % b.cols) + ")";
      }
    }
    throw std::out_of_range("ngvi::nn::ParameterLayout::describe: index " + std::to_string(p) +
                            " is outside θ (size " + std::to_string(size_) + ")");
  }

 private:
  const Block* find(std::string_view name) const {
    for (const Block& b : blocks_)
      if (b.name == name) return &b;
    return nullptr;
  }

  std::vector<Block> blocks_;
  Index size_ = 0;
};

template <class T>
using RowMajorMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

namespace detail {
inline void check_in_range(Index theta_size, const Block& b) {
  if (b.offset < 0 || b.end() > theta_size)
    throw std::out_of_range("ngvi::nn::view: block '" + b.name + "' spans [" +
                            std::to_string(b.offset) + ", " + std::to_string(b.end()) +
                            ") but θ has only " + std::to_string(theta_size) + " entries");
}
}  // namespace detail

// Block b of θ as a row-major rows×cols matrix of θ's scalar (writable). Cost: O(1), no copy.
template <class T>
Eigen::Map<RowMajorMatrix<T>> view(Eigen::Matrix<T, Eigen::Dynamic, 1>& theta, const Block& b) {
  detail::check_in_range(theta.size(), b);
  return Eigen::Map<RowMajorMatrix<T>>(theta.data() + b.offset, b.rows, b.cols);
}
// Block b of θ as a read-only row-major rows×cols matrix. Cost: O(1), no copy.
template <class T>
Eigen::Map<const RowMajorMatrix<T>> view(const Eigen::Matrix<T, Eigen::Dynamic, 1>& theta,
                                         const Block& b) {
  detail::check_in_range(theta.size(), b);
  return Eigen::Map<const RowMajorMatrix<T>>(theta.data() + b.offset, b.rows, b.cols);
}
// Block b of θ as a column vector of length rows·cols (row-major order). Cost: O(1).
template <class T>
Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>> vector_view(
    Eigen::Matrix<T, Eigen::Dynamic, 1>& theta, const Block& b) {
  detail::check_in_range(theta.size(), b);
  return Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>>(theta.data() + b.offset, b.size());
}
template <class T>
Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, 1>> vector_view(
    const Eigen::Matrix<T, Eigen::Dynamic, 1>& theta, const Block& b) {
  detail::check_in_range(theta.size(), b);
  return Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, 1>>(theta.data() + b.offset, b.size());
}

// ---- initialisers ---------------------------------------------------------------------------
// Each fills one block of a double θ from the caller's RNG. Fan-in is the number of columns of
// the block and fan-out the number of rows, matching a weight W (out×in) used as y = W x.
// Cost: O(block size).

inline void init_zeros(Eigen::VectorXd& theta, const Block& b) { vector_view(theta, b).setZero(); }

// N(mean, stddev²) entries.
inline void init_normal(Eigen::VectorXd& theta, const Block& b, std::mt19937_64& rng, double stddev,
                        double mean = 0.0) {
  if (!(stddev >= 0.0))
    throw std::invalid_argument("ngvi::nn::init_normal: stddev must be >= 0, got " +
                                std::to_string(stddev));
  auto v = vector_view(theta, b);
  boost::random::normal_distribution<double> dist(mean, stddev);
  for (Index k = 0; k < v.size(); ++k) v(k) = stddev == 0.0 ? mean : dist(rng);
}

// U(−limit, limit) entries.
inline void init_uniform(Eigen::VectorXd& theta, const Block& b, std::mt19937_64& rng,
                         double limit) {
  if (!(limit >= 0.0))
    throw std::invalid_argument("ngvi::nn::init_uniform: limit must be >= 0, got " +
                                std::to_string(limit));
  auto v = vector_view(theta, b);
  boost::random::uniform_real_distribution<double> dist(-limit, limit);
  for (Index k = 0; k < v.size(); ++k) v(k) = limit == 0.0 ? 0.0 : dist(rng);
}

// Glorot/Xavier uniform: U(±sqrt(6 / (fan_in + fan_out))), for tanh/sigmoid/linear layers.
inline void init_glorot_uniform(Eigen::VectorXd& theta, const Block& b, std::mt19937_64& rng) {
  const double fans = static_cast<double>(b.rows + b.cols);
  init_uniform(theta, b, rng, fans > 0 ? std::sqrt(6.0 / fans) : 0.0);
}
// Glorot/Xavier normal: N(0, 2 / (fan_in + fan_out)).
inline void init_glorot_normal(Eigen::VectorXd& theta, const Block& b, std::mt19937_64& rng) {
  const double fans = static_cast<double>(b.rows + b.cols);
  init_normal(theta, b, rng, fans > 0 ? std::sqrt(2.0 / fans) : 0.0);
}
// He/Kaiming normal: N(0, 2 / fan_in), for ReLU layers.
inline void init_he_normal(Eigen::VectorXd& theta, const Block& b, std::mt19937_64& rng) {
  init_normal(theta, b, rng, b.cols > 0 ? std::sqrt(2.0 / static_cast<double>(b.cols)) : 0.0);
}
// He/Kaiming uniform: U(±sqrt(6 / fan_in)).
inline void init_he_uniform(Eigen::VectorXd& theta, const Block& b, std::mt19937_64& rng) {
  init_uniform(theta, b, rng, b.cols > 0 ? std::sqrt(6.0 / static_cast<double>(b.cols)) : 0.0);
}

// Fan-in uniform: U(±1/sqrt(fan_in)) entries, PyTorch nn.Linear's default for the weight AND the
// bias of a layer (kaiming_uniform with a = √5, whose bound √(6/((1 + a²)·fan_in)) is
// 1/√fan_in; the bias uses the weight's fan-in, which is why it is an argument here: a bias
// block has one column). The PyTorch natural-gradient references (bench/README.md) start
// from it, and on Boston it is what their VOGN quality depends on: its weights are ~2.4×
// smaller than He normal's and its biases non-zero (docs/uci.md). Generic in θ's
// floating-point scalar; for a given seed, the draws of a float θ are those of a double θ
// rounded. Throws std::invalid_argument unless fan_in >= 1. Cost: O(block size).
template <std::floating_point Scalar>
void init_fan_in_uniform(Eigen::Matrix<Scalar, Eigen::Dynamic, 1>& theta, const Block& b,
                         std::mt19937_64& rng, Index fan_in) {
  if (fan_in < 1)
    throw std::invalid_argument("ngvi::nn::init_fan_in_uniform: fan_in must be >= 1 for block '" +
                                b.name + "', got " + std::to_string(fan_in));
  const double limit = 1.0 / std::sqrt(static_cast<double>(fan_in));
  auto v = vector_view(theta, b);
  boost::random::uniform_real_distribution<double> dist(-limit, limit);
  for (Index k = 0; k < v.size(); ++k) v(k) = static_cast<Scalar>(dist(rng));
}

}  // namespace ngvi::nn
