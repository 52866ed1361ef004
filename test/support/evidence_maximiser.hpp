// The maximiser of the exact evidence of a linear-Gaussian regression over per-block prior
// precisions and the noise precision, written independently of the library's evidence code: the
// reference for the hyperparameters learned from the evidence (evidence_map) and by variational
// EM (fit_with_empirical_bayes).
//
// y = Φθ + ε with θ ~ N(0, D⁻¹), D = diag(δ_b on block b), ε ~ N(0, τ⁻¹I) has the evidence
// log N(y; 0, τ⁻¹I + ΦD⁻¹Φᵀ), computed in data space (an N×N LLT; the library works in parameter
// space), and maximised by coordinate ascent in (log δ_b, log τ) with a Brent search per
// coordinate.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <boost/math/tools/minima.hpp>
#include <boost/test/unit_test.hpp>

#include <inference/evidence_hyperparameters.hpp>
#include <nn/parameters.hpp>

namespace ngvi::test {

// The argmin of f on [lo, hi] by Brent's method to half the double's bits (≈1.5e-8 relative).
template <class F>
double brent_argmin(F f, double lo, double hi) {
  return boost::math::tools::brent_find_minima(f, lo, hi, std::numeric_limits<double>::digits / 2)
      .first;
}

// log N(y; 0, τ⁻¹I + Φ diag(d)⁻¹Φᵀ): the exact evidence of y = Φθ + ε with θ ~ N(0, diag(d)⁻¹),
// ε ~ N(0, τ⁻¹I), in data space.
inline double exact_log_evidence(const Eigen::MatrixXd& Phi, const Eigen::VectorXd& y,
                                 const Eigen::VectorXd& d, double tau) {
  const Eigen::Index n = Phi.rows();
  const Eigen::MatrixXd C =
      Eigen::MatrixXd::Identity(n, n) / tau + Phi * d.cwiseInverse().asDiagonal() * Phi.transpose();
  const Eigen::LLT<Eigen::MatrixXd> llt(C);
  const double logdet = 2.0 * Eigen::MatrixXd(llt.matrixL()).diagonal().array().log().sum();
  return -0.5 *
         (y.dot(llt.solve(y)) + logdet + static_cast<double>(n) * std::log(2.0 * std::numbers::pi));
}

// The (δ_b, τ) maximising the exact evidence: coordinate ascent in (log δ_b, log τ), each
// coordinate by a Brent search on [−12, 12], sweeps until no coordinate moves by 1e-7 (Brent's own
// tolerance is ≈3e-8 here).
inline vi::EvidenceHyperparameters exact_maximiser(const Eigen::MatrixXd& Phi,
                                                   const Eigen::VectorXd& y,
                                                   const std::vector<nn::Block>& blocks) {
  const auto B = static_cast<Eigen::Index>(blocks.size());
  Eigen::VectorXd x = Eigen::VectorXd::Zero(B + 1);
  const auto evidence = [&](const Eigen::VectorXd& v) {
    const Eigen::VectorXd d =
        vi::per_parameter_precisions(blocks, v.head(B).array().exp().matrix());
    return exact_log_evidence(Phi, y, d, std::exp(v(B)));
  };
  int sweep = 0;
  for (; sweep < 500; ++sweep) {
    double moved = 0.0;
    for (Eigen::Index c = 0; c <= B; ++c) {
      const double before = x(c);
      x(c) = brent_argmin(
          [&](double t) {
            Eigen::VectorXd v = x;
            v(c) = t;
            return -evidence(v);
          },
          -12.0, 12.0);
      moved = std::max(moved, std::abs(x(c) - before));
    }
    if (moved < 1e-7) break;
  }
  BOOST_TEST_MESSAGE("coordinate ascent: " << sweep + 1 << " sweeps");
  BOOST_TEST(sweep < 500);
  return {x.head(B).array().exp(), std::exp(x(B))};
}

}  // namespace ngvi::test
