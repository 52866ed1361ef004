// KroneckerGaussian: the per-layer matrix-variate Gaussian posterior of noisy K-FAC (Zhang, Sun,
// Duvenaud & Grosse 2018, "Noisy Natural Gradient as Variational Inference", §3.4).
//
// θ is split into blocks, one per dense layer, independent of each other. Block b holds the
// layer's augmented weights W̃ = [W | b] (s×a: s = out rows, a = in + 1 columns, the bias last —
// nn/curvature/kfac.hpp's homogeneous-coordinate convention), listed row by row: entry u = r·a + c
// of the block is θ index `index[u]`. Its precision is a scaled Kronecker product
//
//   Λ_b = c·(S ⊗ A)   (S s×s, A a×a symmetric positive definite, c > 0),
//
// i.e. W̃ ~ MN(M, (cS)⁻¹, A⁻¹) — rows covary through S⁻¹, columns through A⁻¹; noisy K-FAC has
// c = N/λ, S and A its π-damped factors (the paper's Eqn. 12; their order there, A ⊗ S, is for the
// column-major vec of an in×out W, the same matrix as S ⊗ A for our row-major out×in W̃). With
// A = L_A L_Aᵀ and S = L_S L_Sᵀ (Cholesky), everything is a small-matrix identity:
//   sample        W̃ = M + c^{-1/2} L_S⁻ᵀ E L_A⁻¹, E an s×a matrix of N(0, 1): two triangular solves
//                 (Cov vec W̃ = c⁻¹ S⁻¹ ⊗ A⁻¹);
//   log det Λ_b   = s·a·log c + a·log det S + s·log det A;
//   quadratic     vec(D)ᵀ Λ_b vec(D) = c‖L_Sᵀ D L_A‖²_F;
//   tr Λ_b⁻¹      = tr(S⁻¹)·tr(A⁻¹)/c;   diag Λ_b⁻¹ at (r, c') = (S⁻¹)_rr (A⁻¹)_c'c' / c;
// so log density, entropy and KL to N(0, δ⁻¹I) are closed forms costing O(s³ + a³) per block,
// never (s·a)³. The blocks must cover θ exactly once (checked).
// Functions and members that would not otherwise be templates are written `template <int = 0>`
// (called as usual), so that a program compiles their Eigen code only if it calls them
// (docs/architecture.md, "Compile time").
#pragma once

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include <inference/option_checks.hpp>
#include <inference/random.hpp>
#include <nn/model_concept.hpp>

namespace ngvi::vi {

// One layer's block: W̃ ~ MN with precision scale·(S ⊗ A) over θ[index[r·a + c]].
struct KroneckerBlock {
  std::vector<Eigen::Index> index;  // θ index of entry (r, c) at position r·a + c (size s·a)
  Eigen::MatrixXd A;                // a×a, the column (input, bias last) factor
  Eigen::MatrixXd S;                // s×s, the row (output) factor
  double scale = 1.0;               // c
};

class KroneckerGaussian {
 public:
  KroneckerGaussian() = default;
  // Throws std::invalid_argument if a block's sizes do not match, a factor is not symmetric
  // positive definite (its Cholesky fails), a scale is not positive, or the blocks do not cover
  // every θ index exactly once. Cost: one Cholesky of each factor, O(Σ s³ + a³).
  template <int = 0>
  KroneckerGaussian(Eigen::VectorXd mean, std::vector<KroneckerBlock> blocks)
      : mean_(std::move(mean)), blocks_(std::move(blocks)) {
    const std::string who = "ngvi::vi::KroneckerGaussian: ";
    std::vector<int> seen(static_cast<std::size_t>(mean_.size()), 0);
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
      const KroneckerBlock& k = blocks_[b];
      const std::string which = who + "block " + std::to_string(b);
      if (k.A.rows() != k.A.cols() || k.S.rows() != k.S.cols() ||
          static_cast<Eigen::Index>(k.index.size()) != k.A.rows() * k.S.rows())
        throw std::invalid_argument(
            which + " has A " + std::to_string(k.A.rows()) + "×" + std::to_string(k.A.cols()) +
            ", S " + std::to_string(k.S.rows()) + "×" + std::to_string(k.S.cols()) + " and " +
            std::to_string(k.index.size()) +
            " indices (expected square factors and rows(S)·rows(A) indices)");
      detail::check_positive_finite(which, "scale", k.scale);
      for (const Eigen::Index i : k.index) {
        if (i < 0 || i >= mean_.size())
          throw std::invalid_argument(which + ": θ index " + std::to_string(i) + " is outside 0.." +
                                      std::to_string(mean_.size() - 1));
        ++seen[static_cast<std::size_t>(i)];
      }
      Factors f{Eigen::LLT<Eigen::MatrixXd>(k.A), Eigen::LLT<Eigen::MatrixXd>(k.S)};
      if (!k.A.allFinite() || !k.S.allFinite() || f.A.info() != Eigen::Success ||
          f.S.info() != Eigen::Success)
        throw std::invalid_argument(
            which + ": a Kronecker factor is not finite, symmetric positive definite");
      factors_.push_back(std::move(f));
    }
    for (std::size_t i = 0; i < seen.size(); ++i)
      if (seen[i] != 1)
        throw std::invalid_argument(who + "θ index " + std::to_string(i) + " belongs to " +
                                    std::to_string(seen[i]) + " blocks, expected exactly one");
  }

  Eigen::Index dim() const { return mean_.size(); }
  const Eigen::VectorXd& mean() const { return mean_; }
  const std::vector<KroneckerBlock>& blocks() const { return blocks_; }

  // θ = μ + (per block) c^{-1/2} L_S⁻ᵀ E L_A⁻¹ with E read from ε in θ order. Cost: P normal
  // draws and two triangular solves per block, O(Σ s·a·(s + a)).
  template <int = 0>
  Eigen::VectorXd sample(Rng& rng) const {
    return sample_from(standard_normal(rng, dim()));
  }
  template <int = 0>
  Eigen::VectorXd sample_from(const Eigen::VectorXd& eps) const {
    Eigen::VectorXd theta = mean_;
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
      const KroneckerBlock& k = blocks_[b];
      Eigen::MatrixXd E = gather(k, eps);
      factors_[b].S.matrixU().solveInPlace(E);                     // L_S⁻ᵀ E
      factors_[b].A.matrixL().solveInPlace<Eigen::OnTheRight>(E);  // · L_A⁻¹
      scatter_add(k, E / std::sqrt(k.scale), theta);
    }
    return theta;
  }

  // log det Λ = Σ_b (s·a log c + a log det S + s log det A). Cost: O(Σ s + a).
  template <int = 0>
  double log_det_precision() const {
    double ld = 0.0;
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
      const double s = static_cast<double>(blocks_[b].S.rows()),
                   a = static_cast<double>(blocks_[b].A.rows());
      ld += s * a * std::log(blocks_[b].scale) + a * log_det(factors_[b].S) +
            s * log_det(factors_[b].A);
    }
    return ld;
  }
  // log q(θ) = −½ (Σ_b c‖L_Sᵀ D_b L_A‖²_F − log det Λ + P log 2π), D_b = W̃_b(θ) − M_b.
  // Cost: O(Σ s·a·(s + a)).
  template <int = 0>
  double log_density(const Eigen::VectorXd& theta) const {
    nn::check_theta_size(theta.size(), dim(), "ngvi::vi::KroneckerGaussian::log_density");
    const Eigen::VectorXd d = theta - mean_;
    double quad = 0.0;
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
      const Eigen::MatrixXd D = gather(blocks_[b], d);
      const Eigen::MatrixXd Z =
          Eigen::MatrixXd(factors_[b].S.matrixU()) * D * Eigen::MatrixXd(factors_[b].A.matrixL());
      quad += blocks_[b].scale * Z.squaredNorm();
    }
    return -0.5 * (quad - log_det_precision() +
                   static_cast<double>(dim()) * std::log(2.0 * std::numbers::pi));
  }
  // H[q] = ½ (P (1 + log 2π) − log det Λ).
  template <int = 0>
  double entropy() const {
    return 0.5 * (static_cast<double>(dim()) * (1.0 + std::log(2.0 * std::numbers::pi)) -
                  log_det_precision());
  }
  // KL(q ‖ N(0, δ⁻¹I)) = ½ (δ Σ_b tr(S⁻¹)tr(A⁻¹)/c + δ‖μ‖² − P − P log δ + log det Λ).
  // Cost: O(Σ s³ + a³) (the inverses' traces).
  template <int = 0>
  double kl_to_prior(double prior_precision) const {
    const double delta = prior_precision, p = static_cast<double>(dim());
    double trace = 0.0;
    for (std::size_t b = 0; b < blocks_.size(); ++b)
      trace += inverse_diagonal(factors_[b].S).sum() * inverse_diagonal(factors_[b].A).sum() /
               blocks_[b].scale;
    return 0.5 * (delta * trace + delta * mean_.squaredNorm() - p - p * std::log(delta) +
                  log_det_precision());
  }
  // diag Λ⁻¹: (S⁻¹)_rr (A⁻¹)_cc / c at θ index[r·a + c]. Cost: O(Σ s³ + a³).
  template <int = 0>
  Eigen::VectorXd marginal_variances() const {
    Eigen::VectorXd v(dim());
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
      const Eigen::VectorXd ds = inverse_diagonal(factors_[b].S),
                            da = inverse_diagonal(factors_[b].A);
      scatter_set(blocks_[b], ds * da.transpose() / blocks_[b].scale, v);
    }
    return v;
  }
  template <int = 0>
  Eigen::VectorXd marginal_stddevs() const {
    return marginal_variances().cwiseSqrt();
  }
  // The dense P×P precision and covariance (block diagonal over layers), for tests and small
  // models. Cost: O(P²) memory, O(Σ (s·a)²) writes (+ factor inverses for the covariance).
  template <int = 0>
  Eigen::MatrixXd precision() const {
    return dense([](const KroneckerBlock& k, const Factors&) {
      return std::pair<Eigen::MatrixXd, Eigen::MatrixXd>{k.scale * k.S, k.A};
    });
  }
  template <int = 0>
  Eigen::MatrixXd covariance() const {
    return dense([](const KroneckerBlock& k, const Factors& f) {
      const Eigen::MatrixXd Si = f.S.solve(Eigen::MatrixXd::Identity(k.S.rows(), k.S.rows()));
      const Eigen::MatrixXd Ai = f.A.solve(Eigen::MatrixXd::Identity(k.A.rows(), k.A.rows()));
      return std::pair<Eigen::MatrixXd, Eigen::MatrixXd>{Si / k.scale, Ai};
    });
  }

 private:
  struct Factors {
    Eigen::LLT<Eigen::MatrixXd> A, S;
  };

  // The s×a matrix of v's entries at the block's indices (row-major positions).
  template <int = 0>
  static Eigen::MatrixXd gather(const KroneckerBlock& k, const Eigen::VectorXd& v) {
    const Eigen::Index s = k.S.rows(), a = k.A.rows();
    Eigen::MatrixXd X(s, a);
    for (Eigen::Index r = 0; r < s; ++r)
      for (Eigen::Index c = 0; c < a; ++c)
        X(r, c) = v(k.index[static_cast<std::size_t>(r * a + c)]);
    return X;
  }
  template <int = 0>
  static void scatter_add(const KroneckerBlock& k, const Eigen::MatrixXd& X, Eigen::VectorXd& v) {
    for (Eigen::Index r = 0; r < X.rows(); ++r)
      for (Eigen::Index c = 0; c < X.cols(); ++c)
        v(k.index[static_cast<std::size_t>(r * X.cols() + c)]) += X(r, c);
  }
  template <int = 0>
  static void scatter_set(const KroneckerBlock& k, const Eigen::MatrixXd& X, Eigen::VectorXd& v) {
    for (Eigen::Index r = 0; r < X.rows(); ++r)
      for (Eigen::Index c = 0; c < X.cols(); ++c)
        v(k.index[static_cast<std::size_t>(r * X.cols() + c)]) = X(r, c);
  }
  template <int = 0>
  static double log_det(const Eigen::LLT<Eigen::MatrixXd>& llt) {
    return 2.0 * llt.matrixLLT().diagonal().array().log().sum();
  }
  // diag of the factor's inverse: squared column norms of L⁻¹.
  template <int = 0>
  static Eigen::VectorXd inverse_diagonal(const Eigen::LLT<Eigen::MatrixXd>& llt) {
    const Eigen::Index n = llt.matrixLLT().rows();
    const Eigen::MatrixXd Li = llt.matrixL().solve(Eigen::MatrixXd::Identity(n, n));
    return Li.colwise().squaredNorm().transpose();
  }
  // The dense matrix whose block b is R ⊗ C for (R, C) = parts(block, factors), placed at θ's
  // indices.
  template <class Parts>
  Eigen::MatrixXd dense(Parts parts) const {
    Eigen::MatrixXd out = Eigen::MatrixXd::Zero(dim(), dim());
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
      const KroneckerBlock& k = blocks_[b];
      const auto [R, C] = parts(k, factors_[b]);
      const Eigen::Index s = R.rows(), a = C.rows();
      for (Eigen::Index r = 0; r < s; ++r)
        for (Eigen::Index c = 0; c < a; ++c)
          for (Eigen::Index r2 = 0; r2 < s; ++r2)
            for (Eigen::Index c2 = 0; c2 < a; ++c2)
              out(k.index[static_cast<std::size_t>(r * a + c)],
                  k.index[static_cast<std::size_t>(r2 * a + c2)]) = R(r, r2) * C(c, c2);
    }
    return out;
  }

  Eigen::VectorXd mean_;
  std::vector<KroneckerBlock> blocks_;
  std::vector<Factors> factors_;
};

}  // namespace ngvi::vi
