// Noisy K-FAC (Zhang, Sun, Duvenaud & Grosse 2018, "Noisy Natural Gradient as Variational
// Inference", Algorithm 2): natural-gradient VI with a matrix-variate Gaussian posterior per dense
// layer, its covariance Kronecker-factored as K-FAC's.
//
// For each dense layer l with augmented weights W̃ = [W | b] (out×(in+1), nn/curvature/kfac.hpp's
// convention), with γ = λ/(Nη) = λδ/N (λ the KL weight, η = 1/δ the prior variance):
//
//   W̃ ~ MN(M, (λ/N)[S^γ]⁻¹, [A^γ]⁻¹),  i.e. vec W̃ ~ N(vec M, (λ/N) [S^γ]⁻¹ ⊗ [A^γ]⁻¹)
//   every T_stats steps, at the sampled W̃ with targets sampled from the model:
//     Ā ← (1−β)Ā + β·(1/M)Σᵢ ãᵢãᵢᵀ,   S̄ ← (1−β)S̄ + β·(1/M)Σᵢ δᵢδᵢᵀ   (Eqn. 11; nn::kfac_factors)
//   every T_inv steps (Eqn. 12, K-FAC's factored "π-damping" of the prior term γI):
//     A^γ = Ā + π√γ I,   S^γ = S̄ + (1/π)√γ I,   π = √((tr Ā/(in+1)) / (tr S̄/out))
//   V = −∇_W̃ ℓ̄(W) − γ W̃                                   (ℓ̄ the minibatch-mean loss)
//   M ← M + α [S^γ]⁻¹ V [A^γ]⁻¹
//
// (The paper writes A⁻¹VS⁻¹ for an in×out W; ours is out×in, hence the transposed order.) The
// posterior is KroneckerGaussian with scale N/λ and factors S^γ, A^γ. Approximations, named:
// layers are independent (block diagonal); within a layer activations and pre-activation
// gradients are independent (the Kronecker factorisation, exact for one layer with one output);
// the prior's precision γI is split over the two factors (π-damping), which adds the cross terms
// (N/λ)√γ(S̄ ⊗ πI + (1/π)I ⊗ Ā) to the precision (N/λ)(S̄ ⊗ Ā) + δI that Eqn. 8 would give.
// δᵢ = ∂ℓᵢ/∂zᵢ with targets drawn from the model (sampled_fisher, the paper's choice), or its exact
// expectation (expected_fisher, the Gauss-Newton factor; deterministic, for checks). γ_ex, the
// extrinsic damping, enlarges the damping of the mean's preconditioner only (0: Alg. 2 as written).
// With S > 1 MC samples the factors' minibatch statistics and V are averaged over S draws; S = 0
// uses W̃ = M. Alg. 2's momentum is zero, as in the paper.
//
// A general Gaussian prior N(μ₀, Λ₀⁻¹) (NoisyKfacOptions::prior, gaussian_prior.hpp; continual
// learning): V's −γW̃ becomes the whole prior gradient −(λ/N)Λ₀(W̃ − M₀), so the means' fixed point
// is the one under that prior; the π-damping, i.e. the prior's part of the preconditioner and of
// q's precision, uses per layer γ_l = (λ/N)·(the mean of diag Λ₀ over the layer's entries) in
// γ's place — an approximation that keeps only the prior's average isotropic part per layer
// (exact for N(0, δ⁻¹I), where γ_l = γ), since a Kronecker posterior cannot hold a general Λ₀.
//
// Models: nn::Supervised<Sequential, Lik> whose parameters are all dense-layer weights and biases
// (a likelihood with its own parameters, like GaussianLearnedNoise, has no Kronecker block).
#pragma once

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include <inference/fit.hpp>
#include <inference/fit_result.hpp>
#include <inference/gaussian_prior.hpp>
#include <inference/loop_options.hpp>
#include <inference/minibatch_gradient.hpp>
#include <inference/option_checks.hpp>
#include <inference/posterior/kronecker_gaussian.hpp>
#include <inference/random.hpp>
#include <inference/schedule.hpp>
#include <nn/curvature/kfac.hpp>

namespace ngvi::vi {

template <class Model>
class NoisyKfac;

struct NoisyKfacOptions {
  LoopOptions loop{};
  // δ = 1/η, the prior N(0, ηI)'s precision.
  double prior_precision = 1.0;
  // A general Gaussian prior N(μ₀, Λ₀⁻¹) (gaussian_prior.hpp; e.g. prior_from(an earlier fit's
  // posterior)). Empty (the default): N(0, ηI) above. When set it replaces that prior: exactly in
  // the means' gradient, by its per-layer mean diagonal in the damping (see the file comment).
  std::optional<GaussianPrior> prior{};
  // λ, the KL weight (1: the ELBO).
  double kl_weight = 1.0;
  // α, the step size of the means (1 would be a full natural-gradient step).
  Schedule learning_rate{0.01};
  // β, the factors' moving-average weight.
  double beta = 0.01;
  // Which pre-activation factor S̄ averages (sampled_fisher: Alg. 2's targets from the model).
  nn::KfacS s_factor = nn::KfacS::sampled_fisher;
  // Targets drawn per example for sampled_fisher (1, as K-FAC does).
  int fisher_samples = 1;
  // Split γI over the factors by the trace norms (π); false uses π = 1.
  bool pi_damping = true;
  // γ_ex, extra damping of the mean's preconditioner only (0: Algorithm 2 as written).
  double extrinsic_damping = 0.0;
  // T_stats and T_inv: update the factors / their damped inverses every this many steps.
  Eigen::Index stats_interval = 1;
  Eigen::Index inverse_interval = 1;
  // Ā and S̄ start as this multiple of the identity.
  double factor_init = 1.0;
  // S, weight samples per step (0: at the mean).
  int mc_samples = 1;

  static constexpr const char* name = "noisy_kfac";
  using posterior_type = KroneckerGaussian;
  template <class Model>
  using method = NoisyKfac<Model>;

  // Throws std::invalid_argument naming the field.
  void validate(const std::string& who) const {
    learning_rate.validate(who + ": learning_rate");
    detail::check_positive_finite(who, "kl_weight", kl_weight);
    if (!(beta > 0.0 && beta <= 1.0))
      throw std::invalid_argument(who + ": beta must be in (0, 1], got " + std::to_string(beta));
    detail::check_at_least(who, "fisher_samples", fisher_samples, 1);
    detail::check_nonnegative_finite(who, "extrinsic_damping", extrinsic_damping);
    if (stats_interval < 1 || inverse_interval < 1)
      throw std::invalid_argument(who + ": stats_interval and inverse_interval must be >= 1, got " +
                                  std::to_string(stats_interval) + " and " +
                                  std::to_string(inverse_interval));
    detail::check_positive_finite(who, "factor_init", factor_init);
    detail::check_at_least(who, "mc_samples", mc_samples, 0);
  }
};

template <class Model>
class NoisyKfac {
 public:
  using posterior_type = NoisyKfacOptions::posterior_type;

  // M from the model's initialisation, Ā = S̄ = factor_init·I. Throws std::invalid_argument for
  // bad options (naming the field), a dense layer without a bias, or a model with parameters
  // outside its dense layers.
  NoisyKfac(const Model& model, const NoisyKfacOptions& options, Rng& rng)
      : model_(model), o_(options) {
    o_.validate("ngvi::vi::NoisyKfac");
    nn::require_kfac_biases(model.net(), "ngvi::vi::NoisyKfac");
    n_ = static_cast<double>(model.num_examples());
    gamma_ = o_.kl_weight * o_.prior_precision / n_;
    mu_ = initial_mean(model, rng);
    Eigen::Index covered = 0;
    for (const nn::DenseSlot& slot : model.net().dense_layers()) {
      Layer l;
      l.slot = slot;
      l.A_bar = o_.factor_init * Eigen::MatrixXd::Identity(slot.in + 1, slot.in + 1);
      l.S_bar = o_.factor_init * Eigen::MatrixXd::Identity(slot.out, slot.out);
      layers_.push_back(std::move(l));
      covered += slot.out * (slot.in + 1);
    }
    if (covered != mu_.size())
      throw std::invalid_argument(
          "ngvi::vi::NoisyKfac: the model has " + std::to_string(mu_.size()) +
          " parameters but its dense layers hold " + std::to_string(covered) +
          "; noisy K-FAC needs every parameter in a dense layer (a likelihood with its own "
          "parameters has no Kronecker block)");
    Eigen::VectorXd prior_diagonal;
    if (o_.prior) {
      o_.prior->check_dim(mu_.size(), "ngvi::vi::NoisyKfac");
      prior_diagonal = o_.prior->diagonal(mu_.size());
    }
    for (Layer& l : layers_) {
      l.gamma = gamma_;
      if (o_.prior) l.gamma = o_.kl_weight / n_ * matrix_of(l, prior_diagonal).mean();
      damp(l);
    }
  }

  // One iteration of Algorithm 2 on the minibatch. Cost: per sample, P normal draws and two
  // triangular solves per layer, nn::kfac_factors on the minibatch (every T_stats steps) and one
  // batched gradient; Cholesky factorisations of every factor every T_inv steps.
  void step(const StepInput& in, Rng& rng, Counters& c) {
    ++k_;
    const bool stats = k_ % o_.stats_interval == 0, inverses = k_ % o_.inverse_interval == 0;
    const int samples = std::max(o_.mc_samples, 1);
    const KroneckerGaussian q = posterior();
    const auto M = static_cast<double>(in.batch.size());
    std::vector<Eigen::MatrixXd> A_batch(layers_.size()), S_batch(layers_.size());
    Eigen::VectorXd v = Eigen::VectorXd::Zero(mu_.size()), grad;
    for (int s = 0; s < samples; ++s) {
      const Eigen::VectorXd w = o_.mc_samples > 0 ? q.sample(rng) : mu_;
      if (stats) {
        nn::KfacOptions ko;
        ko.s_factor = o_.s_factor;
        ko.samples = o_.fisher_samples;
        ko.seed = rng();  // this step's targets, from the caller's stream
        ko = ad::with_parallel(ko, in.parallel);
        std::vector<nn::KfacFactors> f;
        {
          ScopedTimer t(c.seconds_curvature);
          f = nn::kfac_factors(model_, w, in.batch, ko);
        }
        for (std::size_t l = 0; l < layers_.size(); ++l) {
          A_batch[l] = s == 0 ? f[l].A : Eigen::MatrixXd(A_batch[l] + f[l].A);
          S_batch[l] = s == 0 ? f[l].S : Eigen::MatrixXd(S_batch[l] + f[l].S);
        }
      }
      {
        ScopedTimer t(c.seconds_gradients);
        minibatch_loss_and_gradient(model_, w, in.batch, grad);
      }
      // V = ∇ log p − γW (− (λ/N)Λ₀(W − M₀) for a general prior), stacked over layers in θ order
      if (o_.prior)
        v += -grad / M - (o_.kl_weight / n_) * o_.prior->gradient(w);
      else
        v += -grad / M - gamma_ * w;
    }
    v /= samples;
    ScopedTimer t(c.seconds_linear_algebra);
    for (std::size_t l = 0; l < layers_.size(); ++l) {
      Layer& L = layers_[l];
      if (stats) {
        L.A_bar = (1.0 - o_.beta) * L.A_bar + (o_.beta / samples) * A_batch[l];
        L.S_bar = (1.0 - o_.beta) * L.S_bar + (o_.beta / samples) * S_batch[l];
      }
      if (inverses) damp(L);
      // M ← M + α [S^γ]⁻¹ V [A^γ]⁻¹ with the preconditioner's factors (γ + γ_ex).
      const Eigen::MatrixXd SV = Eigen::LLT<Eigen::MatrixXd>(L.S_pre).solve(matrix_of(L, v));
      const Eigen::MatrixXd step =
          Eigen::LLT<Eigen::MatrixXd>(L.A_pre).solve(SV.transpose()).transpose();
      add_to(L, o_.learning_rate.at(k_) * step, mu_);
    }
  }

  // q: per layer MN(M, (λ/N)[S^γ]⁻¹, [A^γ]⁻¹). Cost: a Cholesky of each damped factor.
  posterior_type posterior() const {
    std::vector<KroneckerBlock> blocks;
    for (const Layer& l : layers_)
      blocks.push_back({indices(l.slot), l.A_damped, l.S_damped, n_ / o_.kl_weight});
    return {mu_, std::move(blocks)};
  }
  // Ā and S̄ of dense layer l (the running K-FAC factors, undamped).
  const Eigen::MatrixXd& activation_factor(std::size_t l) const { return layers_.at(l).A_bar; }
  const Eigen::MatrixXd& gradient_factor(std::size_t l) const { return layers_.at(l).S_bar; }
  // Every layer's Ā and S̄ as nn::KfacFactors with examples = 1, so that nn::kfac_matrix gives
  // the running per-example curvature estimate S̄ ⊗ Ā (block-diagonal), e.g. to compare with
  // the Hessian of the mean loss. Cost: a copy of the factors.
  std::vector<nn::KfacFactors> running_factors() const {
    std::vector<nn::KfacFactors> f;
    for (const Layer& l : layers_) f.push_back({l.slot, l.A_bar, l.S_bar, 1});
    return f;
  }
  // γ = λδ/N, the intrinsic damping.
  double damping() const { return gamma_; }

  NamedArrays state() const {
    Eigen::MatrixXd k(1, 1);
    k(0, 0) = static_cast<double>(k_);
    NamedArrays s{{"noisy_kfac.mu", mu_}, {"noisy_kfac.k", k}};
    for (std::size_t l = 0; l < layers_.size(); ++l) {
      const std::string p = "noisy_kfac.layer" + std::to_string(l);
      s.emplace_back(p + ".A_bar", layers_[l].A_bar);
      s.emplace_back(p + ".S_bar", layers_[l].S_bar);
      s.emplace_back(p + ".A_damped", layers_[l].A_damped);
      s.emplace_back(p + ".S_damped", layers_[l].S_damped);
      s.emplace_back(p + ".A_pre", layers_[l].A_pre);
      s.emplace_back(p + ".S_pre", layers_[l].S_pre);
    }
    return s;
  }
  void restore(const NamedArrays& s) {
    mu_ = state_array(s, "noisy_kfac.mu", mu_.size(), 1);
    k_ = static_cast<Eigen::Index>(state_array(s, "noisy_kfac.k", 1, 1)(0, 0));
    for (std::size_t l = 0; l < layers_.size(); ++l) {
      const std::string p = "noisy_kfac.layer" + std::to_string(l);
      Layer& L = layers_[l];
      const Eigen::Index a = L.slot.in + 1, o = L.slot.out;
      L.A_bar = state_array(s, p + ".A_bar", a, a);
      L.S_bar = state_array(s, p + ".S_bar", o, o);
      L.A_damped = state_array(s, p + ".A_damped", a, a);
      L.S_damped = state_array(s, p + ".S_damped", o, o);
      L.A_pre = state_array(s, p + ".A_pre", a, a);
      L.S_pre = state_array(s, p + ".S_pre", o, o);
    }
  }
  std::optional<NonFinite> first_non_finite() const {
    if (auto i = first_non_finite_entry(mu_)) return NonFinite{*i, "mean"};
    for (const Layer& l : layers_)
      if (!l.A_bar.allFinite() || !l.S_bar.allFinite())
        return NonFinite{l.slot.weight.offset, "Kronecker factors of the layer"};
    return std::nullopt;
  }

 private:
  struct Layer {
    nn::DenseSlot slot;
    Eigen::MatrixXd A_bar, S_bar;        // running factors Ā, S̄
    Eigen::MatrixXd A_damped, S_damped;  // A^γ, S^γ (the posterior's), as of the last T_inv step
    Eigen::MatrixXd A_pre, S_pre;        // the same with γ + γ_ex (the mean's preconditioner)
    double gamma = 0.0;                  // γ_l: γ, or (λ/N)·mean diag Λ₀ over the layer
  };

  // Eqn. 12: π from the trace norms, then γ split over the factors.
  void damp(Layer& l) const {
    const double pi = o_.pi_damping
                          ? std::sqrt((l.A_bar.trace() / static_cast<double>(l.A_bar.rows())) /
                                      (l.S_bar.trace() / static_cast<double>(l.S_bar.rows())))
                          : 1.0;
    auto damped = [&](double g, Eigen::MatrixXd& A, Eigen::MatrixXd& S) {
      A = l.A_bar;
      A.diagonal().array() += pi * std::sqrt(g);
      S = l.S_bar;
      S.diagonal().array() += std::sqrt(g) / pi;
    };
    damped(l.gamma, l.A_damped, l.S_damped);
    damped(l.gamma + o_.extrinsic_damping, l.A_pre, l.S_pre);
  }
  // θ index of entry (r, c) of W̃ = [W | b] at position r·(in+1) + c.
  static std::vector<Eigen::Index> indices(const nn::DenseSlot& s) {
    std::vector<Eigen::Index> idx;
    idx.reserve(static_cast<std::size_t>(s.out * (s.in + 1)));
    for (Eigen::Index r = 0; r < s.out; ++r)
      for (Eigen::Index c = 0; c <= s.in; ++c)
        idx.push_back(c < s.in ? s.weight.offset + r * s.in + c : s.bias.offset + r);
    return idx;
  }
  static Eigen::MatrixXd matrix_of(const Layer& l, const Eigen::VectorXd& v) {
    const std::vector<Eigen::Index> idx = indices(l.slot);
    Eigen::MatrixXd X(l.slot.out, l.slot.in + 1);
    for (Eigen::Index r = 0; r < X.rows(); ++r)
      for (Eigen::Index c = 0; c < X.cols(); ++c)
        X(r, c) = v(idx[static_cast<std::size_t>(r * X.cols() + c)]);
    return X;
  }
  static void add_to(const Layer& l, const Eigen::MatrixXd& X, Eigen::VectorXd& v) {
    const std::vector<Eigen::Index> idx = indices(l.slot);
    for (Eigen::Index r = 0; r < X.rows(); ++r)
      for (Eigen::Index c = 0; c < X.cols(); ++c)
        v(idx[static_cast<std::size_t>(r * X.cols() + c)]) += X(r, c);
  }

  const Model& model_;
  NoisyKfacOptions o_;
  double n_ = 0.0;
  double gamma_ = 0.0;
  Eigen::VectorXd mu_;
  std::vector<Layer> layers_;
  Eigen::Index k_ = 0;
};

}  // namespace ngvi::vi
