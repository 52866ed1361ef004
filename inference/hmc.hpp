// Hamiltonian Monte Carlo: asymptotically exact draws from the posterior p(θ | D) of any
// separable model, on the engine's gradients — the ground truth that the Gaussian
// approximations of this module (VON, VOGN, Laplace, ...) are judged against where no closed
// form exists (Izmailov, Vikram, Hoffman & Wilson 2021 use long HMC runs this way for networks).
// Several chains, each on its own generator stream, with Stan's diagnostics (mcmc_diagnostics.hpp).
//
// Target. The negative log joint the other methods minimise (map.hpp), as potential energy:
//   U(θ) = Σᵢ ℓᵢ(θ) + ½δ‖θ‖²  (= −log p(D|θ) − log p₀(θ) + const, p₀ = N(0, δ⁻¹I)),
//   ∇U(θ) = ∇Σᵢℓᵢ(θ) + δθ   (one reverse sweep of the model's batched total loss).
// Dynamics (Neal 2011, "MCMC using Hamiltonian dynamics"). With momentum p ~ N(0, M), M the mass
// matrix and M⁻¹ its inverse (the "inverse metric"), the Hamiltonian is
//   H(θ, p) = U(θ) + ½ pᵀM⁻¹p,
// integrated by leapfrog steps of size ε,
//   p ← p − (ε/2)∇U(θ);  θ ← θ + εM⁻¹p;  p ← p − (ε/2)∇U(θ),
// which keep volume and are reversible, so the energy error ΔH = H(θ', p') − H(θ, p) is all that
// a correction has to undo. Two ways to choose the trajectory (HmcAlgorithm):
//   static_hmc — L steps, and the end point accepted with probability α = min(1, e^{−ΔH}),
//     else the chain stays at θ (Neal 2011);
//   nuts — the No-U-Turn sampler (Hoffman & Gelman 2014) in Stan's multinomial form (Betancourt
//     2017, "A Conceptual Introduction to Hamiltonian Monte Carlo"): the trajectory is
//     doubled, forwards or backwards at random, until the generalised no-U-turn criterion
//     p♯₋ · ρ > 0 and p♯₊ · ρ > 0 (ρ the summed momenta, p♯ = M⁻¹p at the two ends) fails on the
//     whole trajectory or on any subtree, a step diverges, or max_tree_depth doublings are done;
//     the next state is drawn from the trajectory's points with weights e^{−H} (biased towards
//     the new half at each doubling), and its acceptance statistic is α = mean over the new
//     points of min(1, e^{−ΔH}), as Stan's.
// ε is jittered uniformly in [(1 − j)ε, (1 + j)ε] each iteration (as Neal 2011 recommends), which
// breaks the periodic trajectories a fixed εL can fall into. A step is DIVERGENT when its energy
// error exceeds max_energy_error or is not finite (Stan's rule): the transition is then rejected
// (static HMC) or its tree stops growing and keeps only the points before (NUTS), and it is
// counted, so a non-finite energy never reaches the draws.
//
// Adaptation during warmup (Stan's scheme, the reference design):
//   step size — dual averaging (Hoffman & Gelman 2014, "The No-U-Turn Sampler", Alg. 5, after
//     Nesterov 2009) drives the mean acceptance statistic α to target_acceptance δ_a:
//       H̄ₜ = (1 − 1/(t + t₀)) H̄ₜ₋₁ + (δ_a − αₜ)/(t + t₀),
//       log εₜ = μ − (√t/γ) H̄ₜ,   log ε̄ₜ = t^{−κ} log εₜ + (1 − t^{−κ}) log ε̄ₜ₋₁,
//     μ = log(10ε₀), sampling with ε̄ after warmup; ε₀ by their Alg. 4 (double or halve ε until
//     one leapfrog step's acceptance crosses ½);
//   mass matrix (HmcMetric; Stan's diag_e and dense_e, Stan Reference Manual, "HMC algorithm
//     parameters"; Betancourt 2017 on Euclidean-Gaussian kinetic energies, where M⁻¹ ≈ Cov[θ]
//     is the choice to aim at) — from the n draws of each slow window, regularised towards 10⁻³
//     as Stan does:
//       diagonal: M⁻¹ = diag(v), v ← (n/(n + 5))·var + 10⁻³·5/(n + 5) (per coordinate);
//       dense:    M⁻¹ = A, A ← (n/(n + 5))·Σ̂ + 10⁻³·(5/(n + 5))·I (Σ̂ the window's sample
//                 covariance), with its Cholesky factor A = LLᵀ: ½pᵀAp is the kinetic energy, Ap
//                 the velocity, and p = L⁻ᵀz, z ~ N(0, I), has covariance (LLᵀ)⁻¹ = M.
//     A dense metric also undoes linear correlations (a posterior that is an affine image of a
//     round one becomes round), at O(P²) per leapfrog step and O(P³) per window instead of O(P);
//     it cannot undo curvature that changes along the posterior (funnels, curved ridges).
//     Windows after an initial buffer of adapt_init_buffer iterations, of adapt_window
//     iterations and doubling, the last one stretched to end adapt_term_buffer iterations before
//     the end of warmup (a short warmup uses Stan's 15 % / 75 % / 10 % split instead); after
//     each window ε₀ is searched again and the dual averaging restarted. With warmup < 20 only
//     the step size is adapted.
//
// Chains and threads. Chain c's generator is Rng(rng()), the c-th draw of the caller's rng
// taken on the calling thread before any chain runs; chain c draws only from it, in a fixed order
// (its initial θ from the model's own initialisation; P momentum normals per step-size search
// trial; per iteration P momentum normals and one jitter uniform, then one acceptance uniform for
// static HMC, or for NUTS one uniform per doubling's direction and per multinomial choice). The
// chains run as independent tasks over oneTBB (ad::parallel_blocks) and each writes only its own
// outputs, so the result is bitwise the same for any number of threads.
//
// Output: every chain's post-warmup draws, per-parameter R-hat (Vehtari et al. 2021's rank-
// normalised split R-hat), bulk- and tail-ESS, the ESS of the mean with its Monte-Carlo standard
// error, per-chain acceptance, divergences, step size and inverse metric (its diagonal, and the
// whole matrix for a dense metric), and the posterior mean and covariance of the pooled draws.
// DrawsPosterior resamples the draws for the Monte-Carlo predictives of predictive.hpp.
// Functions and members that would not otherwise be templates are written `template <int = 0>`
// (called as usual), so that a program compiles their Eigen code only if it calls them
// (docs/architecture.md, "Compile time").
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include <autodiff/functional/parallel.hpp>
#include <autodiff/functional/value_and_gradient.hpp>
#include <inference/fit.hpp>
#include <inference/mcmc_diagnostics.hpp>
#include <inference/option_checks.hpp>
#include <inference/random.hpp>
#include <nn/curvature/hessian.hpp>
#include <nn/model_concept.hpp>

namespace ngvi::vi {

// How a transition chooses its trajectory (top of this file).
enum class HmcAlgorithm {
  static_hmc,  // L = leapfrog_steps steps and a Metropolis correction
  nuts,        // the No-U-Turn sampler: doubling until the trajectory turns back
};

inline const char* to_string(HmcAlgorithm a) {
  switch (a) {
    case HmcAlgorithm::static_hmc:
      return "static_hmc";
    case HmcAlgorithm::nuts:
      return "nuts";
  }
  return "unknown";
}

// The form of the mass matrix M adapted in warmup (top of this file).
enum class HmcMetric {
  diagonal,  // M⁻¹ = diag(v): O(P) per step; undoes differences of scale between coordinates
  dense,     // M⁻¹ = A, any SPD matrix: O(P²) per step; undoes linear correlations as well
};

inline const char* to_string(HmcMetric m) {
  switch (m) {
    case HmcMetric::diagonal:
      return "diagonal";
    case HmcMetric::dense:
      return "dense";
  }
  return "unknown";
}

struct HmcOptions {
  // NUTS by default (as Stan): it needs no trajectory length, which for a network's posterior,
  // with scales that differ along it, no fixed L suits.
  HmcAlgorithm algorithm = HmcAlgorithm::nuts;
  // Independent chains. 4, as Stan: enough for R-hat to see a chain that is stuck elsewhere.
  int chains = 4;
  // Warmup (adaptation) iterations per chain, discarded; and the draws kept per chain after it.
  int warmup = 1000;
  int draws = 1000;
  // Static HMC: L, the leapfrog steps per transition.
  int leapfrog_steps = 16;
  // NUTS: at most max_tree_depth doublings, 2^max_tree_depth − 1 leapfrog steps, per transition
  // (Stan: 10).
  int max_tree_depth = 10;
  // δ of the prior N(0, δ⁻¹I): the ½δ‖θ‖² of the potential U.
  double prior_precision = 1.0;
  // δ_a, the mean acceptance statistic the dual averaging aims at during warmup. 0.8, as Stan.
  double target_acceptance = 0.8;
  // ε at the start of warmup (refined at once by the doubling search); with warmup = 0, the step
  // size of every transition.
  double initial_step_size = 0.1;
  // j: each transition's ε is drawn uniformly from [(1 − j)ε, (1 + j)ε]; 0 turns jitter off.
  double step_size_jitter = 0.1;
  // Dual averaging's γ, t₀ and κ (Hoffman & Gelman 2014), Stan's defaults.
  double adapt_gamma = 0.05;
  double adapt_t0 = 10.0;
  double adapt_kappa = 0.75;
  // Adapt the mass matrix in warmup (else M = I throughout), and its form. Diagonal by default,
  // as Stan's diag_e: the cheaper one, and enough wherever the posterior's correlations are weak;
  // dense (Stan's dense_e) where they are strong, while P is small enough for O(P²) per step.
  bool adapt_mass_matrix = true;
  HmcMetric metric = HmcMetric::diagonal;
  // Stan's windows (top of this file): initial fast buffer, first slow window, final fast buffer.
  int adapt_init_buffer = 75;
  int adapt_window = 25;
  int adapt_term_buffer = 50;
  // A transition whose energy error H' − H exceeds this is divergent (Stan: 1000).
  double max_energy_error = 1000.0;
  // Where every chain starts; empty: the model's own initialisation drawn from the chain's
  // stream (nn::Supervised draws the network's weights, so chains start apart), or zeros.
  Eigen::VectorXd initial{};
  // Threads for the chains (0: oneTBB chooses, 1: the calling thread) and chains per task; the
  // draws are bitwise the same for any value of either.
  int threads = 0;
  Eigen::Index grain = 1;

  // Throws std::invalid_argument naming the field and its value.
  void validate(const std::string& who) const {
    detail::check_at_least(who, "chains", chains, 1);
    detail::check_at_least(who, "warmup", warmup, 0);
    detail::check_at_least(who, "draws", draws, 8);
    detail::check_at_least(who, "leapfrog_steps", leapfrog_steps, 1);
    detail::check_at_least(who, "max_tree_depth", max_tree_depth, 1);
    if (algorithm != HmcAlgorithm::static_hmc && algorithm != HmcAlgorithm::nuts)
      detail::throw_bad_option(who, "algorithm", "static_hmc or nuts",
                               std::to_string(static_cast<int>(algorithm)));
    if (metric != HmcMetric::diagonal && metric != HmcMetric::dense)
      detail::throw_bad_option(who, "metric", "diagonal or dense",
                               std::to_string(static_cast<int>(metric)));
    detail::check_positive_finite(who, "prior_precision", prior_precision);
    if (!(target_acceptance > 0.0 && target_acceptance < 1.0))
      detail::throw_bad_option(who, "target_acceptance", "in (0, 1)",
                               std::to_string(target_acceptance));
    detail::check_positive_finite(who, "initial_step_size", initial_step_size);
    detail::check_unit_interval(who, "step_size_jitter", step_size_jitter);
    detail::check_positive_finite(who, "adapt_gamma", adapt_gamma);
    detail::check_nonnegative_finite(who, "adapt_t0", adapt_t0);
    if (!(adapt_kappa > 0.0 && adapt_kappa <= 1.0))
      detail::throw_bad_option(who, "adapt_kappa", "in (0, 1]", std::to_string(adapt_kappa));
    detail::check_at_least(who, "adapt_init_buffer", adapt_init_buffer, 0);
    detail::check_at_least(who, "adapt_window", adapt_window, 1);
    detail::check_at_least(who, "adapt_term_buffer", adapt_term_buffer, 0);
    detail::check_positive_finite(who, "max_energy_error", max_energy_error);
    detail::check_at_least(who, "threads", threads, 0);
    detail::check_at_least(who, "grain", grain, 1);
  }
};

// What one chain did after warmup.
struct HmcChainSummary {
  double step_size = 0.0;                // ε̄, the adapted step size (before jitter)
  Eigen::VectorXd inverse_metric;        // diag(M⁻¹) after warmup (v for a diagonal metric)
  Eigen::MatrixXd dense_inverse_metric;  // dense metric: M⁻¹ after warmup (P × P); else empty
  double acceptance_rate = 0.0;          // mean acceptance statistic α over the kept draws
  Eigen::Index divergences = 0;          // divergent transitions among the kept draws
  Eigen::Index warmup_divergences = 0;
  double mean_leapfrog_steps = 0.0;      // gradients per kept draw
  double mean_tree_depth = 0.0;          // NUTS: doublings per kept draw (0 for static HMC)
  Eigen::Index max_tree_depth_hits = 0;  // NUTS: kept draws whose tree reached max_tree_depth
};

struct HmcResult {
  // draws[c] is chain c's post-warmup draws, one row per draw (draws × P).
  std::vector<Eigen::MatrixXd> draws;
  std::vector<HmcChainSummary> chains;
  // Per parameter: Vehtari et al. 2021's R-hat (converged at <= 1.01), bulk-ESS and tail-ESS,
  // the ESS of the split chains of the raw draws and the Monte-Carlo standard error of the mean,
  // sd/√ESS. NaN for a parameter whose draws are all equal (e.g. every transition diverged).
  Eigen::VectorXd rhat;
  Eigen::VectorXd ess_bulk;
  Eigen::VectorXd ess_tail;
  Eigen::VectorXd ess_mean;
  Eigen::VectorXd mc_standard_error;
  // Mean and covariance (divisor S − 1) of all S = chains × draws draws pooled.
  Eigen::VectorXd mean;
  Eigen::MatrixXd covariance;
  Eigen::Index divergences = 0;  // over all chains, kept draws only

  // Parameter j's draws as draws × chains, the layout of mcmc_diagnostics.hpp. Cost: a copy.
  Eigen::MatrixXd parameter_draws(Eigen::Index j) const {
    Eigen::MatrixXd d(draws.front().rows(), static_cast<Eigen::Index>(draws.size()));
    for (std::size_t c = 0; c < draws.size(); ++c)
      d.col(static_cast<Eigen::Index>(c)) = draws[c].col(j);
    return d;
  }
  double max_rhat() const { return rhat.maxCoeff(); }
  double min_ess_bulk() const { return ess_bulk.minCoeff(); }
  double min_ess_tail() const { return ess_tail.minCoeff(); }
};

// The pooled draws as a posterior for the Monte-Carlo predictives (predictive.hpp): sample(rng)
// returns a uniformly chosen draw (with replacement; one uniform_index per call), mean() and
// covariance() those of the pooled draws.
class DrawsPosterior {
 public:
  template <int = 0>
  explicit DrawsPosterior(const HmcResult& r) : mean_(r.mean), covariance_(r.covariance) {
    Eigen::Index rows = 0;
    for (const Eigen::MatrixXd& d : r.draws) rows += d.rows();
    draws_.resize(rows, r.mean.size());
    Eigen::Index at = 0;
    for (const Eigen::MatrixXd& d : r.draws) {
      draws_.middleRows(at, d.rows()) = d;
      at += d.rows();
    }
  }
  Eigen::Index dim() const { return draws_.cols(); }
  const Eigen::VectorXd& mean() const { return mean_; }
  const Eigen::MatrixXd& covariance() const { return covariance_; }
  Eigen::VectorXd marginal_variances() const { return covariance_.diagonal(); }
  // One of the draws, uniformly. Cost: one uniform_index and a copy of P numbers.
  template <int = 0>
  Eigen::VectorXd sample(Rng& rng) const {
    const auto i =
        static_cast<Eigen::Index>(uniform_index(rng, static_cast<std::uint64_t>(draws_.rows())));
    return draws_.row(i).transpose();
  }

 private:
  Eigen::MatrixXd draws_;  // all draws, chain after chain
  Eigen::VectorXd mean_;
  Eigen::MatrixXd covariance_;
};

namespace detail {

// A point of the chain: θ, U(θ) and ∇U(θ).
struct HmcPoint {
  Eigen::VectorXd theta;
  Eigen::VectorXd gradient;
  double potential = 0.0;
};

// U(θ) and ∇U(θ) of the top of this file. Cost: one recording of the total loss and one reverse
// sweep, O(P).
template <class Model>
void evaluate_potential(const Model& model, double prior_precision, HmcPoint& x) {
  const double loss = ad::value_and_gradient(nn::detail::total_loss(model), x.theta, x.gradient);
  x.gradient += prior_precision * x.theta;
  x.potential = loss + 0.5 * prior_precision * x.theta.squaredNorm();
}

template <int = 0>
bool finite_point(const HmcPoint& x) {
  return std::isfinite(x.potential) && x.gradient.allFinite();
}

// The inverse metric M⁻¹ (top of this file): diag(v), or a dense A with A = LLᵀ.
struct InverseMetric {
  Eigen::VectorXd v;  // diagonal: v; dense: diag(A)
  Eigen::MatrixXd a;  // dense: A; empty for a diagonal metric
  Eigen::MatrixXd l;  // dense: L, the lower Cholesky factor of A

  template <int = 0>
  static InverseMetric identity(Eigen::Index P, HmcMetric m) {
    InverseMetric im;
    im.v = Eigen::VectorXd::Ones(P);
    if (m == HmcMetric::dense) {
      im.a = Eigen::MatrixXd::Identity(P, P);
      im.l = im.a;
    }
    return im;
  }
  bool dense() const { return a.size() > 0; }
  // M⁻¹p, the velocity. Cost: O(P) diagonal, O(P²) dense.
  template <int = 0>
  Eigen::VectorXd velocity(const Eigen::VectorXd& p) const {
    return dense() ? Eigen::VectorXd(a * p) : Eigen::VectorXd(v.cwiseProduct(p));
  }
  // ½ pᵀM⁻¹p.
  template <int = 0>
  double kinetic_energy(const Eigen::VectorXd& p) const {
    if (dense()) return 0.5 * p.dot(a * p);
    return 0.5 * (p.array().square() * v.array()).sum();
  }
  // p ~ N(0, M): z/√v, or L⁻ᵀz. Cost: P normal draws, and O(P²) dense.
  template <int = 0>
  Eigen::VectorXd draw_momentum(Rng& rng) const {
    const Eigen::VectorXd z = standard_normal(rng, v.size());
    if (dense()) return l.transpose().triangularView<Eigen::Upper>().solve(z);
    return z.cwiseQuotient(v.cwiseSqrt());
  }
  // Stan's regularised estimate from a window's draws (one row each, n >= 3). Cost: O(nP) for a
  // diagonal metric; O(nP² + P³) for a dense one.
  template <int = 0>
  void estimate(const Eigen::MatrixXd& window) {
    const auto n = static_cast<double>(window.rows());
    const Eigen::RowVectorXd mean = window.colwise().mean();
    if (!dense()) {
      const Eigen::VectorXd var =
          (window.rowwise() - mean).colwise().squaredNorm().transpose() / (n - 1.0);
      v = (n / (n + 5.0)) * var.array() + 1e-3 * (5.0 / (n + 5.0));
      return;
    }
    const Eigen::MatrixXd centred = window.rowwise() - mean;
    a = (n / (n + 5.0)) * (centred.transpose() * centred) / (n - 1.0);
    a.diagonal().array() += 1e-3 * (5.0 / (n + 5.0));
    const Eigen::LLT<Eigen::MatrixXd> llt(a);
    if (llt.info() != Eigen::Success)
      throw std::domain_error(
          "ngvi::vi::hmc: the dense inverse metric of a warmup window is not positive definite "
          "(non-finite draws?)");
    l = llt.matrixL();
    v = a.diagonal();
  }
};

// L leapfrog steps of size ε from (x, p), in place; returns H at the end, or +∞ as soon as a
// potential or gradient is not finite (x is then left part-way). Cost: L gradients.
template <class Model>
double leapfrog(const Model& model, double delta, HmcPoint& x, Eigen::VectorXd& p, double eps,
                int steps, const InverseMetric& m) {
  p -= 0.5 * eps * x.gradient;
  for (int l = 0; l < steps; ++l) {
    x.theta += eps * m.velocity(p);
    evaluate_potential(model, delta, x);
    if (!finite_point(x)) return std::numeric_limits<double>::infinity();
    p -= (l + 1 < steps ? eps : 0.5 * eps) * x.gradient;
  }
  const double h = x.potential + m.kinetic_energy(p);
  return std::isfinite(h) ? h : std::numeric_limits<double>::infinity();
}

// Hoffman & Gelman 2014's Alg. 4: from ε, double (or halve) it until the acceptance probability
// of one leapfrog step crosses ½; a non-finite energy counts as acceptance 0. At most 100
// doublings or halvings. Cost: one gradient and P normal draws per trial.
template <class Model>
double find_reasonable_step_size(const Model& model, double delta, const HmcPoint& x, double eps,
                                 const InverseMetric& m, Rng& rng) {
  const auto log_accept = [&](double e) {
    HmcPoint y = x;
    Eigen::VectorXd p = m.draw_momentum(rng);
    const double h0 = x.potential + m.kinetic_energy(p);
    const double h1 = leapfrog(model, delta, y, p, e, 1, m);
    return std::isfinite(h1) ? h0 - h1 : -std::numeric_limits<double>::infinity();
  };
  const double log_half = std::log(0.5);
  const int direction = log_accept(eps) > log_half ? 1 : -1;
  for (int k = 0; k < 100; ++k) {
    const double next = direction > 0 ? 2.0 * eps : 0.5 * eps;
    const double la = log_accept(next);
    if (direction > 0 ? !(la > log_half) : la > log_half) return direction > 0 ? eps : next;
    eps = next;
  }
  return eps;
}

// Dual averaging of log ε (top of this file).
struct DualAveraging {
  double mu = 0.0, h_bar = 0.0, log_eps = 0.0, log_eps_bar = 0.0;
  double count = 0.0;

  void restart(double eps) {
    mu = std::log(10.0 * eps);
    h_bar = 0.0;
    log_eps = std::log(eps);
    log_eps_bar = 0.0;
    count = 0.0;
  }
  // One update with acceptance statistic alpha; returns the next ε.
  double update(double alpha, const HmcOptions& o) {
    count += 1.0;
    const double w = 1.0 / (count + o.adapt_t0);
    h_bar = (1.0 - w) * h_bar + w * (o.target_acceptance - alpha);
    log_eps = mu - std::sqrt(count) / o.adapt_gamma * h_bar;
    const double eta = std::pow(count, -o.adapt_kappa);
    log_eps_bar = eta * log_eps + (1.0 - eta) * log_eps_bar;
    return std::exp(log_eps);
  }
};

// The slow windows [begin, end) of warmup iterations (0-based) over which the mass matrix is
// estimated, by Stan's schedule (top of this file); none when warmup < 20 or the mass matrix is
// not adapted.
struct MetricWindow {
  int begin = 0, end = 0;
};
template <int = 0>
std::vector<MetricWindow> metric_windows(const HmcOptions& o) {
  std::vector<MetricWindow> windows;
  const int w = o.warmup;
  if (!o.adapt_mass_matrix || w < 20) return windows;
  int init = o.adapt_init_buffer, term = o.adapt_term_buffer, base = o.adapt_window;
  if (init + term + base > w) {
    init = static_cast<int>(0.15 * w);
    term = static_cast<int>(0.1 * w);
    base = w - init - term;
  }
  const int last = w - term;
  int begin = init, size = base;
  while (true) {
    const int end = begin + size;
    if (end + 2 * size > last) {
      windows.push_back({begin, last});
      return windows;
    }
    windows.push_back({begin, end});
    begin = end;
    size *= 2;
  }
}

struct ChainRun {
  Eigen::MatrixXd draws;
  HmcChainSummary summary;
};

// One transition from x (updated in place when accepted); returns α and whether it diverged.
struct Transition {
  double accept_stat = 0.0;
  bool divergent = false;
  int leapfrog_steps = 0;  // gradients spent
  int tree_depth = 0;      // NUTS: the doublings done (0 for static HMC)
};
template <class Model>
Transition static_transition(const Model& model, const HmcOptions& o, HmcPoint& x, double eps,
                             const InverseMetric& m, Rng& rng) {
  Eigen::VectorXd p = m.draw_momentum(rng);
  const double jittered = eps * (1.0 + o.step_size_jitter * uniform_real(rng, -1.0, 1.0));
  const double log_u = std::log(uniform_real(rng, 0.0, 1.0));
  const double h0 = x.potential + m.kinetic_energy(p);
  HmcPoint y = x;
  const double h1 = leapfrog(model, o.prior_precision, y, p, jittered, o.leapfrog_steps, m);
  const double error = h1 - h0;
  if (!std::isfinite(error) || error > o.max_energy_error) return {0.0, true, o.leapfrog_steps, 0};
  const double accept = error <= 0.0 ? 1.0 : std::exp(-error);
  if (log_u < -error) x = std::move(y);
  return {accept, false, o.leapfrog_steps, 0};
}

// log(eᵃ + eᵇ), −∞ allowed.
template <int = 0>
double log_sum_exp(double a, double b) {
  if (a == -std::numeric_limits<double>::infinity()) return b;
  if (b == -std::numeric_limits<double>::infinity()) return a;
  const double m = std::max(a, b);
  return m + std::log(std::exp(a - m) + std::exp(b - m));
}

// One NUTS transition (top of this file), Stan's multinomial form: the trajectory doubles in a
// random direction until the generalised no-U-turn criterion fails at some level of the tree, a
// transition diverges, or max_tree_depth doublings are done; the new state is drawn from the
// trajectory in proportion to exp(−H), biased towards the newest subtree at the top level.
template <class Model>
class NutsTransition {
 public:
  NutsTransition(const Model& model, const HmcOptions& o, double eps, const InverseMetric& m,
                 Rng& rng)
      : model_(model), o_(o), eps_(eps), m_(m), rng_(rng) {}

  Transition run(HmcPoint& x) {
    const Eigen::Index P = x.theta.size();
    Eigen::VectorXd p = m_.draw_momentum(rng_);
    eps_ *= 1.0 + o_.step_size_jitter * uniform_real(rng_, -1.0, 1.0);
    h0_ = x.potential + m_.kinetic_energy(p);
    z_ = x;
    p_ = p;
    HmcPoint z_fwd = x, z_bck = x, z_sample = x, z_propose = x;
    Eigen::VectorXd pz_fwd = p, pz_bck = p;  // momenta at the two ends
    Eigen::VectorXd p_fwd_fwd = p, p_fwd_bck = p, p_bck_fwd = p, p_bck_bck = p;
    const Eigen::VectorXd sharp = m_.velocity(p);
    Eigen::VectorXd ps_fwd_fwd = sharp, ps_fwd_bck = sharp, ps_bck_fwd = sharp, ps_bck_bck = sharp;
    Eigen::VectorXd rho = p;
    double log_sum_weight = 0.0;  // the initial point's weight, exp(H0 − H0)
    int depth = 0;
    while (depth < o_.max_tree_depth) {
      Eigen::VectorXd rho_fwd = Eigen::VectorXd::Zero(P), rho_bck = Eigen::VectorXd::Zero(P);
      double log_sum_weight_subtree = -std::numeric_limits<double>::infinity();
      bool valid = false;
      if (uniform_real(rng_, 0.0, 1.0) > 0.5) {
        z_ = z_fwd;
        p_ = pz_fwd;
        rho_bck = rho;
        p_bck_fwd = p_fwd_bck;
        ps_bck_fwd = ps_fwd_bck;
        valid = build_tree(depth, z_propose, ps_fwd_bck, ps_fwd_fwd, rho_fwd, p_fwd_bck, p_fwd_fwd,
                           1.0, log_sum_weight_subtree);
        z_fwd = z_;
        pz_fwd = p_;
      } else {
        z_ = z_bck;
        p_ = pz_bck;
        rho_fwd = rho;
        p_fwd_bck = p_bck_fwd;
        ps_fwd_bck = ps_bck_fwd;
        valid = build_tree(depth, z_propose, ps_bck_fwd, ps_bck_bck, rho_bck, p_bck_fwd, p_bck_bck,
                           -1.0, log_sum_weight_subtree);
        z_bck = z_;
        pz_bck = p_;
      }
      if (!valid) break;
      ++depth;
      if (log_sum_weight_subtree > log_sum_weight) {
        z_sample = z_propose;
      } else if (uniform_real(rng_, 0.0, 1.0) < std::exp(log_sum_weight_subtree - log_sum_weight)) {
        z_sample = z_propose;
      }
      log_sum_weight = log_sum_exp(log_sum_weight, log_sum_weight_subtree);
      rho = rho_bck + rho_fwd;
      bool persist = no_u_turn(ps_bck_bck, ps_fwd_fwd, rho);
      persist = persist && no_u_turn(ps_bck_bck, ps_fwd_bck, rho_bck + p_fwd_bck);
      persist = persist && no_u_turn(ps_bck_fwd, ps_fwd_fwd, rho_fwd + p_bck_fwd);
      if (!persist) break;
    }
    x = std::move(z_sample);
    return {n_leapfrog_ > 0 ? sum_metro_prob_ / n_leapfrog_ : 0.0, divergent_, n_leapfrog_, depth};
  }

 private:
  // The generalised no-U-turn criterion across a (sub)trajectory with summed momentum rho and
  // end velocities M⁻¹p at its two ends (Betancourt 2017).
  static bool no_u_turn(const Eigen::VectorXd& sharp_minus, const Eigen::VectorXd& sharp_plus,
                        const Eigen::VectorXd& rho) {
    return sharp_plus.dot(rho) > 0.0 && sharp_minus.dot(rho) > 0.0;
  }

  // Extends the trajectory from (z_, p_) by 2^depth leapfrog steps in direction `sign`, as
  // Stan's base_nuts::build_tree; false if the subtree diverged or turned back on itself.
  bool build_tree(int depth, HmcPoint& z_propose, Eigen::VectorXd& sharp_beg,
                  Eigen::VectorXd& sharp_end, Eigen::VectorXd& rho, Eigen::VectorXd& p_beg,
                  Eigen::VectorXd& p_end, double sign, double& log_sum_weight) {
    const Eigen::Index P = rho.size();
    if (depth == 0) {
      double h = leapfrog(model_, o_.prior_precision, z_, p_, sign * eps_, 1, m_);
      ++n_leapfrog_;
      if (std::isnan(h)) h = std::numeric_limits<double>::infinity();
      if (!(h - h0_ <= o_.max_energy_error)) divergent_ = true;
      log_sum_weight = log_sum_exp(log_sum_weight, h0_ - h);
      sum_metro_prob_ += h0_ - h > 0.0 ? 1.0 : std::exp(h0_ - h);
      z_propose = z_;
      sharp_beg = m_.velocity(p_);
      sharp_end = sharp_beg;
      rho += p_;
      p_beg = p_;
      p_end = p_beg;
      return !divergent_;
    }
    double log_sum_weight_init = -std::numeric_limits<double>::infinity();
    Eigen::VectorXd p_init_end(P), sharp_init_end(P), rho_init = Eigen::VectorXd::Zero(P);
    if (!build_tree(depth - 1, z_propose, sharp_beg, sharp_init_end, rho_init, p_beg, p_init_end,
                    sign, log_sum_weight_init))
      return false;
    HmcPoint z_propose_final = z_;
    double log_sum_weight_final = -std::numeric_limits<double>::infinity();
    Eigen::VectorXd p_final_beg(P), sharp_final_beg(P), rho_final = Eigen::VectorXd::Zero(P);
    if (!build_tree(depth - 1, z_propose_final, sharp_final_beg, sharp_end, rho_final, p_final_beg,
                    p_end, sign, log_sum_weight_final))
      return false;
    const double log_sum_weight_subtree = log_sum_exp(log_sum_weight_init, log_sum_weight_final);
    log_sum_weight = log_sum_exp(log_sum_weight, log_sum_weight_subtree);
    if (log_sum_weight_final > log_sum_weight_subtree) {
      z_propose = std::move(z_propose_final);
    } else if (uniform_real(rng_, 0.0, 1.0) <
               std::exp(log_sum_weight_final - log_sum_weight_subtree)) {
      z_propose = std::move(z_propose_final);
    }
    const Eigen::VectorXd rho_subtree = rho_init + rho_final;
    rho += rho_subtree;
    bool persist = no_u_turn(sharp_beg, sharp_end, rho_subtree);
    persist = persist && no_u_turn(sharp_beg, sharp_final_beg, rho_init + p_final_beg);
    persist = persist && no_u_turn(sharp_init_end, sharp_end, rho_final + p_init_end);
    return persist;
  }

  const Model& model_;
  const HmcOptions& o_;
  double eps_;
  const InverseMetric& m_;
  Rng& rng_;
  double h0_ = 0.0;
  HmcPoint z_;         // the integrator's current point
  Eigen::VectorXd p_;  // and momentum
  int n_leapfrog_ = 0;
  double sum_metro_prob_ = 0.0;
  bool divergent_ = false;
};

// One transition of o.algorithm from x (x updated in place).
template <class Model>
Transition hmc_transition(const Model& model, const HmcOptions& o, HmcPoint& x, double eps,
                          const InverseMetric& m, Rng& rng) {
  if (o.algorithm == HmcAlgorithm::nuts) return NutsTransition<Model>(model, o, eps, m, rng).run(x);
  return static_transition(model, o, x, eps, m, rng);
}

// One chain: warmup with adaptation, then o.draws transitions kept. Throws std::domain_error if
// U or ∇U is not finite at the initial θ. Cost: (warmup + draws) transitions, plus one gradient
// per step-size search trial.
template <class Model>
ChainRun run_chain(const Model& model, const HmcOptions& o, int chain, Rng& rng) {
  const Eigen::Index P = model.num_params();
  HmcPoint x;
  x.theta = o.initial.size() > 0 ? o.initial : initial_mean(model, rng);
  evaluate_potential(model, o.prior_precision, x);
  if (!finite_point(x))
    throw std::domain_error("ngvi::vi::hmc: chain " + std::to_string(chain) +
                            " starts where U(θ) = " + std::to_string(x.potential) +
                            " or its gradient is not finite; give another `initial`");
  InverseMetric m = InverseMetric::identity(P, o.metric);
  double eps = o.initial_step_size;
  ChainRun run;
  if (o.warmup > 0) {
    eps = find_reasonable_step_size(model, o.prior_precision, x, eps, m, rng);
    DualAveraging da;
    da.restart(eps);
    const std::vector<MetricWindow> windows = metric_windows(o);
    std::size_t k = 0;  // the current or next window
    Eigen::MatrixXd buffer;
    for (int t = 0; t < o.warmup; ++t) {
      const Transition tr = hmc_transition(model, o, x, eps, m, rng);
      run.summary.warmup_divergences += tr.divergent ? 1 : 0;
      eps = da.update(tr.accept_stat, o);
      if (k == windows.size() || t < windows[k].begin) continue;
      const MetricWindow& win = windows[k];
      if (t == win.begin) buffer.resize(win.end - win.begin, P);
      buffer.row(t - win.begin) = x.theta.transpose();
      if (t + 1 < win.end) continue;
      ++k;
      if (buffer.rows() < 3) continue;  // too short for a variance (a tiny adapt_window)
      m.estimate(buffer);
      eps = find_reasonable_step_size(model, o.prior_precision, x, eps, m, rng);
      da.restart(eps);
    }
    eps = std::exp(da.log_eps_bar);
  }
  run.summary.step_size = eps;
  run.summary.inverse_metric = m.v;
  run.summary.dense_inverse_metric = m.a;
  run.draws.resize(o.draws, P);
  double accept = 0.0, steps = 0.0, depth = 0.0;
  for (int t = 0; t < o.draws; ++t) {
    const Transition tr = hmc_transition(model, o, x, eps, m, rng);
    accept += tr.accept_stat;
    steps += tr.leapfrog_steps;
    depth += tr.tree_depth;
    run.summary.divergences += tr.divergent ? 1 : 0;
    run.summary.max_tree_depth_hits += tr.tree_depth >= o.max_tree_depth ? 1 : 0;
    run.draws.row(t) = x.theta.transpose();
  }
  run.summary.acceptance_rate = accept / o.draws;
  run.summary.mean_leapfrog_steps = steps / o.draws;
  run.summary.mean_tree_depth = depth / o.draws;
  return run;
}

}  // namespace detail

// Draws from the posterior of model under the prior N(0, δ⁻¹I) by HMC (top of this file), with
// the diagnostics of mcmc_diagnostics.hpp. rng gives each chain its stream (it is advanced by
// `chains` draws). Throws std::invalid_argument for bad options (naming the field and value), an
// empty model or an `initial` of the wrong size or not finite, and std::domain_error if U is not
// finite where a chain starts. Divergent transitions are counted, not thrown.
// Cost: chains × (warmup + draws) transitions of L gradients of the total loss each (static HMC)
// or 1 to 2^max_tree_depth − 1 (NUTS; HmcChainSummary::mean_leapfrog_steps says how many), plus a
// few per adaptation window, spread over the threads by chain; with a dense metric O(P²) more per
// leapfrog step and O(nP² + P³) per window of n draws; the diagnostics O(P·S log S), S =
// chains × draws; the covariance O(S·P²).
template <class Model>
HmcResult hmc(const Model& model, const HmcOptions& options, Rng& rng) {
  static_assert(nn::require_separable_model<Model>());
  const std::string who = "ngvi::vi::hmc";
  options.validate(who);
  if (model.num_examples() < 1) throw std::invalid_argument(who + ": the model has no examples");
  if (options.initial.size() > 0) {
    nn::check_theta_size(options.initial.size(), model.num_params(), who, "initial");
    if (!options.initial.allFinite())
      throw std::invalid_argument(who + ": the initial θ is not finite");
  }
  const auto chains = static_cast<std::size_t>(options.chains);
  std::vector<Rng> streams;
  streams.reserve(chains);
  for (std::size_t c = 0; c < chains; ++c) streams.emplace_back(rng());
  std::vector<detail::ChainRun> runs(chains);
  ad::parallel_blocks(
      options.chains, ad::parallel_options(options), [&](Eigen::Index begin, Eigen::Index end) {
        for (Eigen::Index c = begin; c < end; ++c) {
          const auto k = static_cast<std::size_t>(c);
          runs[k] = detail::run_chain(model, options, static_cast<int>(c), streams[k]);
        }
      });
  HmcResult r;
  const Eigen::Index P = model.num_params();
  for (detail::ChainRun& run : runs) {
    r.divergences += run.summary.divergences;
    r.chains.push_back(run.summary);
    r.draws.push_back(std::move(run.draws));
  }
  const Eigen::Index S = static_cast<Eigen::Index>(chains) * options.draws;
  Eigen::MatrixXd pooled(S, P);
  for (std::size_t c = 0; c < chains; ++c)
    pooled.middleRows(static_cast<Eigen::Index>(c) * options.draws, options.draws) = r.draws[c];
  r.mean = pooled.colwise().mean().transpose();
  const Eigen::MatrixXd centred = pooled.rowwise() - r.mean.transpose();
  r.covariance = centred.transpose() * centred / static_cast<double>(S - 1);
  r.rhat.resize(P);
  r.ess_bulk.resize(P);
  r.ess_tail.resize(P);
  r.ess_mean.resize(P);
  r.mc_standard_error.resize(P);
  for (Eigen::Index j = 0; j < P; ++j) {
    const Eigen::MatrixXd d = r.parameter_draws(j);
    r.rhat(j) = rank_normalized_rhat(d);
    r.ess_bulk(j) = bulk_effective_sample_size(d);
    r.ess_tail(j) = tail_effective_sample_size(d);
    r.ess_mean(j) = effective_sample_size(d);
    r.mc_standard_error(j) = std::sqrt(r.covariance(j, j) / r.ess_mean(j));
  }
  return r;
}

}  // namespace ngvi::vi
