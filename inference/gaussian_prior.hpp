// GaussianPrior: the prior p₀(θ) = N(μ₀, Λ₀⁻¹) of a fit, by default the isotropic N(0, δ⁻¹I), or
// any earlier fit's Gaussian posterior — continual learning, where yesterday's posterior is
// today's prior (Nguyen, Li, Bui & Turner 2018, "Variational Continual Learning").
//
// For data D₁, D₂ independent given θ, p(θ | D₁, D₂) ∝ p(D₂|θ) p(θ|D₁): fitting D₂ with the
// posterior of D₁ as its prior gives the posterior of both. With a Gaussian approximation q₁ of
// p(θ|D₁) the second fit's ELBO is E_q[log p(D₂|θ)] − λ KL(q ‖ q₁), and everything a method needs
// of the prior is its mean μ₀ and its precision Λ₀ in one of the families of inference/posterior/:
//   isotropic   Λ₀ = δI, μ₀ = 0                    (the default; every method's prior_precision)
//   diagonal    Λ₀ = diag(d)                        (DiagonalGaussian: VOGN, IVON, noisy Adam, BBB)
//   kronecker   Λ₀ = ⊕_b c_b (S_b ⊗ A_b)            (KroneckerGaussian: noisy K-FAC)
//   low_rank    Λ₀ = UUᵀ + diag(d)                  (LowRankGaussian: SLANG)
//   full        Λ₀ a P×P matrix                     (FullGaussian: VON, full VOGN, Laplace)
// The prior keeps the posterior object itself (its mean, precision and factorisation) rather than
// a copy in new storage. What the methods use, with its cost for P parameters:
//   Λ₀v                    isotropic/diagonal O(P), kronecker O(Σ s·a·(s + a)), low rank
//                          O(P·L), full O(P²)
//   diag Λ₀                O(P), low rank O(P·L)
//   dense Λ₀               O(P²) memory (for full-covariance methods and small P)
//   log det Λ₀             O(P), full and low rank O(P + L) from their factorisations
//   ∇ −log p₀ = Λ₀(θ − μ₀) one Λ₀v
//   KL(q ‖ p₀) = ½[tr(Λ₀Σ_q) + (μ − μ₀)ᵀΛ₀(μ − μ₀) − P − log det Λ₀ + log det Λ_q]
// for every Gaussian q. tr(Λ₀Σ_q) is Σⱼ diag(Λ₀)ⱼ Var_q(θⱼ) when Λ₀ is diagonal (q's marginal
// variances); Σₖ uₖᵀΣ_q uₖ + Σⱼ dⱼ Var_q(θⱼ) for a low-rank prior and a q that solves Λ_q x = v
// (FullGaussian, LowRankGaussian: L solves) or is diagonal; (c₀/c) tr(S₀S⁻¹) tr(A₀A⁻¹) per block
// when q is Kronecker over the same blocks as the prior; and the dense Σᵢⱼ (Λ₀)ᵢⱼ (Σ_q)ᵢⱼ, P³
// flops for q's covariance, for the other pairs (small P). log det Λ_q = P(1 + log 2π) − 2H[q].
// The isotropic prior's KL is q's own kl_to_prior(δ), so a fit given GaussianPrior::isotropic(δ)
// reports the same bits as one given prior_precision = δ. A point estimate's KL is +∞.
// Functions and members that would not otherwise be templates are written `template <int = 0>`
// (called as usual), so that a program compiles their Eigen code only if it calls them
// (docs/architecture.md, "Compile time").
#pragma once

#include <cmath>
#include <concepts>
#include <limits>
#include <numbers>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include <inference/option_checks.hpp>
#include <inference/posterior/diagonal_gaussian.hpp>
#include <inference/posterior/full_gaussian.hpp>
#include <inference/posterior/kronecker_gaussian.hpp>
#include <inference/posterior/low_rank_gaussian.hpp>
#include <inference/posterior/point_estimate.hpp>

namespace ngvi::vi {

namespace detail {
// The isotropic prior's δ (μ₀ = 0).
struct IsotropicPrior {
  double delta = 1.0;
};
}  // namespace detail

class GaussianPrior {
 public:
  enum class Family { isotropic, diagonal, kronecker, low_rank, full };

  // N(0, I).
  GaussianPrior() = default;
  // N(0, δ⁻¹I). Throws std::invalid_argument unless δ is positive and finite.
  template <int = 0>
  static GaussianPrior isotropic(double delta) {
    detail::check_positive_finite("ngvi::vi::GaussianPrior::isotropic", "delta", delta);
    GaussianPrior p;
    p.q_ = Isotropic{delta};
    return p;
  }
  // The prior N(μ_q, Λ_q⁻¹) of a Gaussian q (its family, mean and precision). Cost: a copy of q.
  explicit GaussianPrior(DiagonalGaussian q) : q_(std::move(q)) {}
  explicit GaussianPrior(KroneckerGaussian q) : q_(std::move(q)) {}
  explicit GaussianPrior(LowRankGaussian q) : q_(std::move(q)) {}
  explicit GaussianPrior(FullGaussian q) : q_(std::move(q)) {}

  Family family() const { return static_cast<Family>(q_.index()); }
  // P, or 0 for the isotropic prior (which fits any P).
  Eigen::Index dim() const {
    return std::visit(
        [](const auto& q) -> Eigen::Index {
          if constexpr (std::same_as<std::decay_t<decltype(q)>, Isotropic>)
            return 0;
          else
            return q.dim();
        },
        q_);
  }
  // δ if the prior is isotropic, else nullopt.
  std::optional<double> isotropic_precision() const {
    if (const auto* i = std::get_if<Isotropic>(&q_)) return i->delta;
    return std::nullopt;
  }

  // The posterior the prior was made from if it is a Q (e.g. LowRankGaussian, whose U₀ SLANG
  // uses), else nullptr.
  template <class Q>
  const Q* family_posterior() const {
    return std::get_if<Q>(&q_);
  }

  // Throws std::invalid_argument naming `who` unless the prior fits p parameters.
  template <int = 0>
  void check_dim(Eigen::Index p, const std::string& who) const {
    if (dim() != 0 && dim() != p)
      throw std::invalid_argument(who + ": the prior has " + std::to_string(dim()) +
                                  " parameters, the model " + std::to_string(p));
  }

  // μ₀ (p entries). Cost: O(P).
  template <int = 0>
  Eigen::VectorXd mean(Eigen::Index p) const {
    check_dim(p, "ngvi::vi::GaussianPrior::mean");
    if (std::holds_alternative<Isotropic>(q_)) return Eigen::VectorXd::Zero(p);
    return std::visit(
        [](const auto& q) -> Eigen::VectorXd {
          if constexpr (std::same_as<std::decay_t<decltype(q)>, Isotropic>)
            return {};
          else
            return q.mean();
        },
        q_);
  }

  // Λ₀v. Cost: see the top of this file.
  template <int = 0>
  Eigen::VectorXd precision_times(const Eigen::VectorXd& v) const {
    check_dim(v.size(), "ngvi::vi::GaussianPrior::precision_times");
    switch (family()) {
      case Family::isotropic:
        return std::get<Isotropic>(q_).delta * v;
      case Family::diagonal:
        return std::get<DiagonalGaussian>(q_).precision().cwiseProduct(v);
      case Family::kronecker: {
        Eigen::VectorXd out(v.size());
        for (const KroneckerBlock& k : std::get<KroneckerGaussian>(q_).blocks())
          scatter(k, k.scale * k.S * gather(k, v) * k.A, out);
        return out;
      }
      case Family::low_rank: {
        const LowRankGaussian& q = std::get<LowRankGaussian>(q_);
        return q.low_rank_factor() * (q.low_rank_factor().transpose() * v) +
               q.diagonal().cwiseProduct(v);
      }
      case Family::full:
        return std::get<FullGaussian>(q_).precision() * v;
    }
    return {};
  }
  // ∇_θ(−log p₀(θ)) = Λ₀(θ − μ₀), the prior's term in every method's mean gradient. Cost: one Λ₀v.
  template <int = 0>
  Eigen::VectorXd gradient(const Eigen::VectorXd& theta) const {
    if (const auto delta = isotropic_precision()) return *delta * theta;
    return precision_times(theta - mean(theta.size()));
  }
  // (θ − μ₀)ᵀΛ₀(θ − μ₀). Cost: one Λ₀v.
  template <int = 0>
  double quadratic(const Eigen::VectorXd& theta) const {
    const Eigen::VectorXd d = theta - mean(theta.size());
    return d.dot(precision_times(d));
  }

  // diag Λ₀ (p entries). Cost: O(P), low rank O(P·L).
  template <int = 0>
  Eigen::VectorXd diagonal(Eigen::Index p) const {
    check_dim(p, "ngvi::vi::GaussianPrior::diagonal");
    switch (family()) {
      case Family::isotropic:
        return Eigen::VectorXd::Constant(p, std::get<Isotropic>(q_).delta);
      case Family::diagonal:
        return std::get<DiagonalGaussian>(q_).precision();
      case Family::kronecker: {
        Eigen::VectorXd out(p);
        for (const KroneckerBlock& k : std::get<KroneckerGaussian>(q_).blocks())
          scatter(k, k.scale * k.S.diagonal() * k.A.diagonal().transpose(), out);
        return out;
      }
      case Family::low_rank: {
        const LowRankGaussian& q = std::get<LowRankGaussian>(q_);
        return q.diagonal() + q.low_rank_factor().rowwise().squaredNorm();
      }
      case Family::full:
        return std::get<FullGaussian>(q_).precision().diagonal();
    }
    return {};
  }
  // Λ₀ as a dense p×p matrix. Cost: O(P²) memory; low rank O(P²·L).
  template <int = 0>
  Eigen::MatrixXd dense(Eigen::Index p) const {
    check_dim(p, "ngvi::vi::GaussianPrior::dense");
    switch (family()) {
      case Family::isotropic:
      case Family::diagonal:
        return diagonal(p).asDiagonal();
      case Family::kronecker:
        return std::get<KroneckerGaussian>(q_).precision();
      case Family::low_rank:
        return std::get<LowRankGaussian>(q_).precision();
      case Family::full:
        return std::get<FullGaussian>(q_).precision();
    }
    return {};
  }
  // log det Λ₀ for p parameters. Cost: O(P) (Kronecker O(Σ s + a)).
  template <int = 0>
  double log_det_precision(Eigen::Index p) const {
    check_dim(p, "ngvi::vi::GaussianPrior::log_det_precision");
    switch (family()) {
      case Family::isotropic:
        return static_cast<double>(p) * std::log(std::get<Isotropic>(q_).delta);
      case Family::diagonal:
        return std::get<DiagonalGaussian>(q_).precision().array().log().sum();
      case Family::kronecker:
        return std::get<KroneckerGaussian>(q_).log_det_precision();
      case Family::low_rank:
        return std::get<LowRankGaussian>(q_).log_det_precision();
      case Family::full:
        return std::get<FullGaussian>(q_).log_det_precision();
    }
    return 0.0;
  }
  // log p₀(θ) = ½ log det Λ₀ − (P/2) log 2π − ½(θ − μ₀)ᵀΛ₀(θ − μ₀). Cost: one Λ₀v.
  template <int = 0>
  double log_density(const Eigen::VectorXd& theta) const {
    const Eigen::Index p = theta.size();
    return 0.5 * (log_det_precision(p) - static_cast<double>(p) * std::log(2.0 * std::numbers::pi) -
                  quadratic(theta));
  }

  // KL(q ‖ p₀) (the top of this file). Throws std::invalid_argument if q's dimension is not the
  // prior's. Cost: see the top of this file.
  template <class Q>
  double kl(const Q& q) const {
    if constexpr (std::same_as<Q, PointEstimate>) {
      return std::numeric_limits<double>::infinity();
    } else {
      if (const auto delta = isotropic_precision()) return q.kl_to_prior(*delta);
      const Eigen::Index p = q.dim();
      check_dim(p, "ngvi::vi::GaussianPrior::kl");
      const auto pd = static_cast<double>(p);
      const double log_det_q = pd * (1.0 + std::log(2.0 * std::numbers::pi)) - 2.0 * q.entropy();
      return 0.5 * (trace_with_covariance(q) + quadratic(q.mean()) - pd - log_det_precision(p) +
                    log_det_q);
    }
  }

 private:
  using Isotropic = detail::IsotropicPrior;

  // tr(Λ₀Σ_q), by the cheapest route the pair allows (the top of this file).
  template <class Q>
  double trace_with_covariance(const Q& q) const {
    const Eigen::Index p = q.dim();
    if constexpr (std::same_as<Q, DiagonalGaussian>) {
      return diagonal(p).dot(q.marginal_variances());
    } else {
      if (family() == Family::diagonal) return diagonal(p).dot(q.marginal_variances());
      if constexpr (requires(const Eigen::VectorXd& v) { q.solve(v); }) {
        if (family() == Family::low_rank) {
          const LowRankGaussian& prior = std::get<LowRankGaussian>(q_);
          const Eigen::MatrixXd& u = prior.low_rank_factor();
          double t = prior.diagonal().dot(q.marginal_variances());
          for (Eigen::Index k = 0; k < u.cols(); ++k)
            t += u.col(k).dot(q.solve(Eigen::VectorXd(u.col(k))));
          return t;
        }
      }
      if constexpr (std::same_as<Q, KroneckerGaussian>)
        if (family() == Family::kronecker)
          if (const auto t = kronecker_trace(std::get<KroneckerGaussian>(q_), q)) return *t;
      return dense(p).cwiseProduct(q.covariance()).sum();
    }
  }

  // Σ_b (c₀/c) tr(S₀S⁻¹) tr(A₀A⁻¹) when q's blocks are the prior's (same θ indices), else nullopt.
  template <int = 0>
  static std::optional<double> kronecker_trace(const KroneckerGaussian& prior,
                                               const KroneckerGaussian& q) {
    if (prior.blocks().size() != q.blocks().size()) return std::nullopt;
    double t = 0.0;
    for (std::size_t b = 0; b < q.blocks().size(); ++b) {
      const KroneckerBlock &k0 = prior.blocks()[b], &k = q.blocks()[b];
      if (k0.index != k.index || k0.S.rows() != k.S.rows()) return std::nullopt;
      t += k0.scale / k.scale * Eigen::LLT<Eigen::MatrixXd>(k.S).solve(k0.S).trace() *
           Eigen::LLT<Eigen::MatrixXd>(k.A).solve(k0.A).trace();
    }
    return t;
  }

  // The s×a matrix of v's entries at the block's indices, and its inverse map.
  template <int = 0>
  static Eigen::MatrixXd gather(const KroneckerBlock& k, const Eigen::VectorXd& v) {
    const Eigen::Index s = k.S.rows(), a = k.A.rows();
    Eigen::MatrixXd x(s, a);
    for (Eigen::Index r = 0; r < s; ++r)
      for (Eigen::Index c = 0; c < a; ++c)
        x(r, c) = v(k.index[static_cast<std::size_t>(r * a + c)]);
    return x;
  }
  template <int = 0>
  static void scatter(const KroneckerBlock& k, const Eigen::MatrixXd& x, Eigen::VectorXd& v) {
    for (Eigen::Index r = 0; r < x.rows(); ++r)
      for (Eigen::Index c = 0; c < x.cols(); ++c)
        v(k.index[static_cast<std::size_t>(r * x.cols() + c)]) = x(r, c);
  }

  // The alternatives in Family's order.
  std::variant<Isotropic, DiagonalGaussian, KroneckerGaussian, LowRankGaussian, FullGaussian> q_{};
};

// The prior N(μ_q, Λ_q⁻¹) of an earlier fit's posterior q (DiagonalGaussian, KroneckerGaussian,
// LowRankGaussian or FullGaussian): the next fit's `prior` option. Cost: a copy of q.
template <class Q>
GaussianPrior prior_from(const Q& q) {
  return GaussianPrior(q);
}

}  // namespace ngvi::vi
