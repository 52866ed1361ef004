// randomized_top_eigenpairs: the L leading eigenpairs of a P×P positive semi-definite matrix given
// as T = WWᵀ (W of P×K, never forming T), by the randomized range finder with subspace iteration
// and the Rayleigh-Ritz step (Halko, Martinsson & Tropp 2011, "Finding Structure with Randomness:
// Probabilistic Algorithms for Constructing Approximate Matrix Decompositions", Algorithms 4.4
// and 5.3), as SLANG's fast_eig (slang.hpp) uses it:
//   k = min(L + oversampling, P),  Ω ~ N(0, 1)^{P×k} from Rng(seed)
//   Q ← orth(TΩ),  then power_iterations times Q ← orth(TQ)       (Householder QR each time)
//   C = WᵀQ,  B = CᵀC = QᵀTQ (k×k, exactly symmetric),  B = ZΝZᵀ
//   the L largest ν with the vectors QZ, in decreasing order.
// When rank T ≤ k (in particular L = P), range(TΩ) = range(T) and the pairs are exact to
// rounding; otherwise their error falls with the gap ν_{k+1}/ν_L raised to the number of
// iterations (Halko et al. §10). Ω comes from the seed alone, so the result is a function of
// (W, L, options, seed): the same bits for any thread count (Eigen runs single-threaded here).
// Cost: (power_iterations + 2) products with W and Wᵀ, O(P·K·k) each, a thin QR of P×k per
// iteration, O(P·k²), and one k×k symmetric eigendecomposition.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <Eigen/Core>
#include <Eigen/Eigenvalues>
#include <Eigen/QR>

#include <inference/random.hpp>

namespace ngvi::vi {

struct RandomizedEigenOptions {
  // Extra columns of Ω beyond the L wanted (2, fbpca's default l = k + 2).
  Eigen::Index oversampling = 2;
  // Subspace iterations Q ← orth(TQ) (4, fbpca's default n_iter).
  int power_iterations = 4;
};

// The leading eigenvalues (decreasing) and their orthonormal eigenvectors (columns).
struct Eigenpairs {
  Eigen::VectorXd values;
  Eigen::MatrixXd vectors;
};

// The `rank` leading eigenpairs of WWᵀ (see the header comment). Throws std::invalid_argument if
// rank is negative or exceeds P = W.rows(), or an option is negative. Cost: see the header.
template <int = 0>
Eigenpairs randomized_top_eigenpairs(const Eigen::MatrixXd& w, Eigen::Index rank,
                                     const RandomizedEigenOptions& options, std::uint64_t seed) {
  const std::string who = "ngvi::vi::randomized_top_eigenpairs";
  const Eigen::Index p = w.rows();
  if (rank < 0 || rank > p)
    throw std::invalid_argument(who + ": rank must be in [0, P = " + std::to_string(p) + "], got " +
                                std::to_string(rank));
  if (options.oversampling < 0 || options.power_iterations < 0)
    throw std::invalid_argument(who + ": oversampling and power_iterations must be >= 0, got " +
                                std::to_string(options.oversampling) + " and " +
                                std::to_string(options.power_iterations));
  if (rank == 0) return {Eigen::VectorXd(0), Eigen::MatrixXd(p, 0)};
  const Eigen::Index k = std::min(rank + options.oversampling, p);
  const auto orth = [&](const Eigen::MatrixXd& y) -> Eigen::MatrixXd {
    return Eigen::HouseholderQR<Eigen::MatrixXd>(y).householderQ() *
           Eigen::MatrixXd::Identity(p, k);
  };
  Rng rng(seed);
  Eigen::MatrixXd q = orth(w * (w.transpose() * standard_normal(rng, p, k)));
  for (int it = 0; it < options.power_iterations; ++it) q = orth(w * (w.transpose() * q));
  const Eigen::MatrixXd c = w.transpose() * q;
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> b(c.transpose() * c);
  // Eigen's eigenvalues increase: the leading `rank` are the last columns, reversed.
  return {b.eigenvalues().tail(rank).reverse(),
          q * b.eigenvectors().rightCols(rank).rowwise().reverse()};
}

}  // namespace ngvi::vi
