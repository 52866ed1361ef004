// blocked_sum: a deterministic parallel sum over examples (see CurvatureOptions).
//
// Examples are cut into fixed blocks whose boundaries depend only on n and the options (never on
// the thread count), each block is summed by one task into its own zero-initialised rows×cols
// matrix, and the block sums are added in block order, so the result does not depend on the
// thread count. blocked_range_sum hands the task the whole block [begin, end) (for routes that
// work on a block at once: one batched pass, one matrix product); blocked_sum calls
// body(i, acc) for each example of the block in order.
#pragma once

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <autodiff/functional/parallel.hpp>
#include <nn/curvature/options.hpp>

namespace ngvi::nn::detail {

// body(begin, end, acc) adds the contribution of examples begin..end−1 to acc.
// Cost: that of the body calls + (blocks − 1)·rows·cols additions.
template <class Body>
Eigen::MatrixXd blocked_range_sum(Eigen::Index n, Eigen::Index rows, Eigen::Index cols,
                                  const CurvatureOptions& options, Body&& body) {
  if (options.reduction_blocks < 1)
    throw std::invalid_argument("ngvi::nn::CurvatureOptions: reduction_blocks = " +
                                std::to_string(options.reduction_blocks) + ", expected >= 1");
  Eigen::MatrixXd total = Eigen::MatrixXd::Zero(rows, cols);
  if (n <= 0) return total;
  ad::ParallelOptions par = ad::parallel_options(options);
  const Eigen::Index min_grain = (n + options.reduction_blocks - 1) / options.reduction_blocks;
  par.grain = std::max({par.grain, min_grain, Eigen::Index{1}});
  const Eigen::Index blocks = (n + par.grain - 1) / par.grain;
  std::vector<Eigen::MatrixXd> partial(static_cast<std::size_t>(blocks));
  ad::parallel_blocks(n, par, [&](Eigen::Index begin, Eigen::Index end) {
    Eigen::MatrixXd& acc = partial[static_cast<std::size_t>(begin / par.grain)];
    acc.setZero(rows, cols);
    body(begin, end, acc);
  });
  for (const Eigen::MatrixXd& p : partial) total += p;
  return total;
}

// body(i, acc) adds example i's contribution to acc. Cost: as blocked_range_sum.
template <class Body>
Eigen::MatrixXd blocked_sum(Eigen::Index n, Eigen::Index rows, Eigen::Index cols,
                            const CurvatureOptions& options, Body&& body) {
  return blocked_range_sum(n, rows, cols, options,
                           [&](Eigen::Index begin, Eigen::Index end, Eigen::MatrixXd& acc) {
                             for (Eigen::Index i = begin; i < end; ++i) body(i, acc);
                           });
}

// (M + Mᵀ)/2: sums of Jᵀ(H J) are symmetric only up to rounding; curvature matrices are
// returned exactly symmetric, as the eigensolvers and Cholesky factorisations downstream assume.
inline Eigen::MatrixXd symmetrised(const Eigen::MatrixXd& m) {
  return (0.5 * (m + m.transpose())).eval();
}

}  // namespace ngvi::nn::detail
