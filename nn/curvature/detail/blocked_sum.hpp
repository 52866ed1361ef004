// blocked_sum: a deterministic parallel sum over examples (see CurvatureOptions).
//
// body(i, acc) adds example i's contribution to acc (a zero-initialised rows×cols matrix).
// Examples are cut into fixed blocks, each block summed in order by one task, and the block
// sums added in block order, so the result does not depend on the thread count.
#pragma once

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <autodiff/functional/per_example.hpp>
#include <nn/curvature/options.hpp>
#include <nn/parallel.hpp>

namespace ngvi::nn::detail {

template <class Body>
Eigen::MatrixXd blocked_sum(Eigen::Index n, Eigen::Index rows, Eigen::Index cols,
                            const CurvatureOptions& options, Body&& body) {
  if (options.reduction_blocks < 1)
    throw std::invalid_argument("ngvi::nn::CurvatureOptions: reduction_blocks = " +
                                std::to_string(options.reduction_blocks) + ", expected >= 1");
  Eigen::MatrixXd total = Eigen::MatrixXd::Zero(rows, cols);
  if (n <= 0) return total;
  ad::ParallelOptions par = options.parallel;
  const Eigen::Index min_grain = (n + options.reduction_blocks - 1) / options.reduction_blocks;
  par.grain = std::max({par.grain, min_grain, Eigen::Index{1}});
  const Eigen::Index blocks = (n + par.grain - 1) / par.grain;
  std::vector<Eigen::MatrixXd> partial(static_cast<std::size_t>(blocks));
  nn::parallel_blocks(n, par, [&](Eigen::Index begin, Eigen::Index end) {
    Eigen::MatrixXd& acc = partial[static_cast<std::size_t>(begin / par.grain)];
    acc.setZero(rows, cols);
    for (Eigen::Index i = begin; i < end; ++i) body(i, acc);
  });
  for (const Eigen::MatrixXd& p : partial) total += p;
  return total;
}

// (M + Mᵀ)/2: sums of Jᵀ(H J) are symmetric only up to rounding; curvature matrices are
// returned exactly symmetric, as the eigensolvers and Cholesky factorisations downstream assume.
inline Eigen::MatrixXd symmetrised(const Eigen::MatrixXd& m) {
  return (0.5 * (m + m.transpose())).eval();
}

}  // namespace ngvi::nn::detail
