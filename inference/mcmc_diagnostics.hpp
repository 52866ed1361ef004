// Convergence diagnostics of Markov chains, as Stan computes them: split R-hat and the effective
// sample size (ESS), plain and rank-normalised — what hmc.hpp reports per parameter, and what
// decides whether a chain's draws can serve as a reference posterior.
//
// The draws of one scalar quantity come as an n×m matrix: column c is chain c, in draw order.
//
// Split chains. Each chain is cut into its first and second half (the middle draw dropped when n
// is odd), giving 2m chains of n' = ⌊n/2⌋ draws, so that a trend within a chain shows up as
// disagreement between chains (Gelman et al. 2013, "Bayesian Data Analysis", 3rd ed., §11.4).
//
// R-hat (Gelman & Rubin 1992; split form as above). With chain means θ̄_c, chain variances s²_c
// (divisor n' − 1), W = mean_c s²_c and B/n' = variance of the θ̄_c (divisor m − 1),
//   var⁺ = (n' − 1)/n' · W + B/n',   R̂ = √(var⁺ / W),
// which tends to 1 as the chains mix and exceeds it when they disagree.
//
// Rank normalisation (Vehtari, Gelman, Simpson, Carpenter & Bürkner 2021, "Rank-normalization,
// folding, and localization: an improved R-hat for assessing convergence of MCMC"): the S = n·m
// pooled draws are replaced by z = Φ⁻¹((r − 3/8)/(S + 1/4)), r their rank among all draws (ties
// get the average rank), Φ⁻¹ the standard normal quantile (Boost.Math). The paper's R-hat is
//   R̂ = max(R̂_bulk, R̂_tail),
// R̂_bulk the split R-hat of z, R̂_tail that of the rank-normalised folded draws |θ − median θ|
// (which catches chains that agree in location but not in scale); it works for heavy tails and
// infinite variances. Its recommended threshold is 1.01.
//
// Effective sample size (Geyer 1992, "Practical Markov chain Monte Carlo"; the multi-chain form of
// Gelman et al. 2013 and Vehtari et al. 2021). With the chains' autocovariances
// γ_c(t) = (1/n) Σᵢ (θ_{i,c} − θ̄_c)(θ_{i+t,c} − θ̄_c) (computed by FFT, Eigen's), the combined
// autocorrelation is
//   ρ̂_t = 1 − (W − mean_c γ_c(t)) / var⁺,
// and ESS = m·n / τ̂, τ̂ = −1 + 2 Σ_{t=0}^{2k+1} ρ̂_t (+ ρ̂ at the next even lag when positive),
// where the sum of pairs P_k = ρ̂_{2k} + ρ̂_{2k+1} is truncated at the first negative pair (Geyer's
// initial positive sequence) and made non-increasing (his initial monotone sequence), exactly as
// Stan's compute_effective_sample_size does; τ̂ is capped from below so that ESS ≤ S·log₁₀ S.
// effective_sample_size() is this on the split chains of the raw draws (the ESS that sets the
// Monte-Carlo error of a posterior mean, sd/√ESS); bulk_effective_sample_size() is the same on
// the rank-normalised split chains (Vehtari et al. 2021's bulk-ESS, defined also when the
// variance is not); tail_effective_sample_size() is their tail-ESS, the smaller ESS of the
// indicators I(θ ≤ q₀.₀₅) and I(θ ≤ q₀.₉₅) on the split chains (q the pooled quantiles), which
// says how well the draws pin down the 5 % and 95 % quantiles.
// Functions and members that would not otherwise be templates are written `template <int = 0>`
// (called as usual), so that a program compiles their Eigen, FFT and Boost.Math code only if it
// calls them (docs/architecture.md, "Compile time").
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <boost/math/distributions/normal.hpp>
#include <unsupported/Eigen/FFT>

namespace ngvi::vi {

namespace detail {

// Throws std::invalid_argument unless the n×m draws have m >= 1 chains of n >= 8 draws (four per
// half after splitting, the fewest the ESS recursion reads) and are all finite.
template <int = 0>
void check_chain_draws(const Eigen::MatrixXd& draws, const char* who) {
  const std::string w = std::string("ngvi::vi::") + who;
  if (draws.cols() < 1) throw std::invalid_argument(w + ": no chains (the draws have 0 columns)");
  if (draws.rows() < 8)
    throw std::invalid_argument(w + ": each chain needs at least 8 draws, got " +
                                std::to_string(draws.rows()));
  if (!draws.allFinite()) throw std::invalid_argument(w + ": the draws are not all finite");
}

// The 2m split chains of n×m draws: ⌊n/2⌋ × 2m, the first half of chain c in column 2c and its
// second half in column 2c + 1 (the middle draw dropped when n is odd). Cost: O(n·m) copies.
template <int = 0>
Eigen::MatrixXd split_chains(const Eigen::MatrixXd& draws) {
  const Eigen::Index n = draws.rows() / 2, m = draws.cols();
  Eigen::MatrixXd s(n, 2 * m);
  for (Eigen::Index c = 0; c < m; ++c) {
    s.col(2 * c) = draws.col(c).head(n);
    s.col(2 * c + 1) = draws.col(c).tail(n);
  }
  return s;
}

// γ(t) = (1/n) Σ_{i<n−t} (xᵢ − x̄)(x_{i+t} − x̄), t = 0..n−1, by FFT of the zero-padded centred
// series (padding to a power of two ≥ 2n, so no wrap-around). Cost: O(n log n).
template <int = 0>
Eigen::VectorXd autocovariance(const Eigen::VectorXd& x) {
  const Eigen::Index n = x.size();
  Eigen::Index size = 1;
  while (size < 2 * n) size *= 2;
  std::vector<double> padded(static_cast<std::size_t>(size), 0.0);
  const double mean = x.mean();
  for (Eigen::Index i = 0; i < n; ++i) padded[static_cast<std::size_t>(i)] = x(i) - mean;
  Eigen::FFT<double> fft;
  std::vector<std::complex<double>> freq;
  fft.fwd(freq, padded);
  for (auto& f : freq) f = std::norm(f);
  std::vector<double> acov;
  fft.inv(acov, freq);
  Eigen::VectorXd g(n);
  for (Eigen::Index t = 0; t < n; ++t) g(t) = acov[static_cast<std::size_t>(t)] / n;
  return g;
}

// var⁺ and W of the chains (columns) as at the top of this file. Cost: O(n·m).
struct ChainVariances {
  double within = 0.0;  // W
  double pooled = 0.0;  // var⁺
};
template <int = 0>
ChainVariances chain_variances(const Eigen::MatrixXd& chains) {
  const auto n = static_cast<double>(chains.rows());
  const Eigen::Index m = chains.cols();
  const Eigen::RowVectorXd means = chains.colwise().mean();
  double w = 0.0;
  for (Eigen::Index c = 0; c < m; ++c)
    w += (chains.col(c).array() - means(c)).square().sum() / (n - 1.0);
  w /= static_cast<double>(m);
  double b_over_n = 0.0;
  if (m > 1) b_over_n = (means.array() - means.mean()).square().sum() / static_cast<double>(m - 1);
  return {w, (n - 1.0) / n * w + b_over_n};
}

// √(var⁺/W) of chains taken as they are (no splitting). A constant quantity (W = 0) gives NaN,
// as Stan's does. Cost: O(n·m).
template <int = 0>
double rhat_of_chains(const Eigen::MatrixXd& chains) {
  const ChainVariances v = chain_variances(chains);
  return std::sqrt(v.pooled / v.within);
}

// Stan's multi-chain ESS of chains taken as they are (top of this file). Cost: m FFTs of
// length ≥ 2n and O(n·m).
template <int = 0>
double ess_of_chains(const Eigen::MatrixXd& chains) {
  const Eigen::Index n = chains.rows(), m = chains.cols();
  std::vector<Eigen::VectorXd> acov;
  acov.reserve(static_cast<std::size_t>(m));
  for (Eigen::Index c = 0; c < m; ++c) acov.push_back(autocovariance(chains.col(c)));
  const ChainVariances v = chain_variances(chains);
  const double total = static_cast<double>(n * m);
  if (!(v.within > 0.0)) return std::numeric_limits<double>::quiet_NaN();
  const auto rho_at = [&](Eigen::Index t) {
    double mean_acov = 0.0;
    for (const Eigen::VectorXd& a : acov) mean_acov += a(t);
    mean_acov /= static_cast<double>(m);
    return 1.0 - (v.within - mean_acov) / v.pooled;
  };
  Eigen::VectorXd rho = Eigen::VectorXd::Zero(n);
  double rho_even = 1.0, rho_odd = rho_at(1);
  rho(0) = rho_even;
  rho(1) = rho_odd;
  // Geyer's initial positive sequence, stopping at n − 4 so that the last pair stays available
  // as the bias term below (Stan's choice, which helps antithetic chains).
  Eigen::Index s = 1;
  while (s < n - 4 && rho_even + rho_odd > 0.0) {
    rho_even = rho_at(s + 1);
    rho_odd = rho_at(s + 2);
    if (rho_even + rho_odd >= 0.0) {
      rho(s + 1) = rho_even;
      rho(s + 2) = rho_odd;
    }
    s += 2;
  }
  const Eigen::Index max_s = s;
  if (rho_even > 0.0) rho(max_s + 1) = rho_even;
  // Geyer's initial monotone sequence: each pair no larger than the one before.
  for (Eigen::Index t = 1; t <= max_s - 3; t += 2) {
    if (rho(t + 1) + rho(t + 2) > rho(t - 1) + rho(t)) {
      rho(t + 1) = (rho(t - 1) + rho(t)) / 2.0;
      rho(t + 2) = rho(t + 1);
    }
  }
  const double tau = -1.0 + 2.0 * rho.head(max_s).sum() + rho(max_s + 1);
  return std::min(total / tau, total * std::log10(total));
}

// z = Φ⁻¹((r − 3/8)/(S + 1/4)) of every entry, r its average rank among all S entries.
// Cost: a sort of the S entries and S normal quantiles.
template <int = 0>
Eigen::MatrixXd rank_normalize(const Eigen::MatrixXd& draws) {
  const Eigen::Index total = draws.size();
  std::vector<Eigen::Index> order(static_cast<std::size_t>(total));
  std::iota(order.begin(), order.end(), Eigen::Index{0});
  const double* x = draws.data();
  std::stable_sort(order.begin(), order.end(),
                   [x](Eigen::Index a, Eigen::Index b) { return x[a] < x[b]; });
  Eigen::MatrixXd z(draws.rows(), draws.cols());
  const boost::math::normal_distribution<double> normal(0.0, 1.0);
  const double denominator = static_cast<double>(total) + 0.25;
  for (Eigen::Index i = 0; i < total;) {
    Eigen::Index j = i;  // [i, j) is a run of ties
    while (j < total &&
           x[order[static_cast<std::size_t>(j)]] == x[order[static_cast<std::size_t>(i)]])
      ++j;
    const double rank = 0.5 * static_cast<double>(i + 1 + j);  // mean of the ranks i+1..j
    const double q = boost::math::quantile(normal, (rank - 0.375) / denominator);
    for (Eigen::Index k = i; k < j; ++k) z.data()[order[static_cast<std::size_t>(k)]] = q;
    i = j;
  }
  return z;
}

// |θ − median θ|, the median over all entries (the mean of the two middle ones for an even
// count). Cost: O(S) selection.
template <int = 0>
Eigen::MatrixXd fold_at_median(const Eigen::MatrixXd& draws) {
  std::vector<double> v(draws.data(), draws.data() + draws.size());
  const std::size_t half = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(half), v.end());
  double median = v[half];
  if (v.size() % 2 == 0)
    median = 0.5 *
             (median + *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(half)));
  return (draws.array() - median).abs().matrix();
}

// The p-quantile of all entries, interpolating between order statistics at (S − 1)p (the
// usual "type 7" definition). Cost: a sort of the S entries.
template <int = 0>
double pooled_quantile(const Eigen::MatrixXd& draws, double p) {
  std::vector<double> v(draws.data(), draws.data() + draws.size());
  std::sort(v.begin(), v.end());
  const double h = (static_cast<double>(v.size()) - 1.0) * p;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (h - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

}  // namespace detail

// The classic split R-hat of n×m draws (chains in columns; top of this file), without rank
// normalisation. Throws std::invalid_argument for fewer than 8 draws per chain, no chains, or
// non-finite draws. Cost: O(n·m).
template <int = 0>
double split_rhat(const Eigen::MatrixXd& draws) {
  detail::check_chain_draws(draws, "split_rhat");
  return detail::rhat_of_chains(detail::split_chains(draws));
}

// Vehtari et al. 2021's R-hat: max(bulk R-hat, tail R-hat) of the rank-normalised split chains
// (top of this file); converged at <= 1.01 by their recommendation. Throws as split_rhat.
// Cost: two sorts of the n·m draws and 2·n·m normal quantiles.
template <int = 0>
double rank_normalized_rhat(const Eigen::MatrixXd& draws) {
  detail::check_chain_draws(draws, "rank_normalized_rhat");
  const Eigen::MatrixXd split = detail::split_chains(draws);
  const double bulk = detail::rhat_of_chains(detail::rank_normalize(split));
  const double tail = detail::rhat_of_chains(detail::rank_normalize(detail::fold_at_median(split)));
  return std::max(bulk, tail);
}

// The ESS of the split chains of the raw draws (top of this file): sd/√ESS is the Monte-Carlo
// standard error of their mean. Throws as split_rhat. Cost: 2m FFTs of length ≥ n and O(n·m).
template <int = 0>
double effective_sample_size(const Eigen::MatrixXd& draws) {
  detail::check_chain_draws(draws, "effective_sample_size");
  return detail::ess_of_chains(detail::split_chains(draws));
}

// Vehtari et al. 2021's bulk-ESS: the ESS of the rank-normalised split chains. Throws as
// split_rhat. Cost: a sort of the n·m draws, n·m normal quantiles and 2m FFTs.
template <int = 0>
double bulk_effective_sample_size(const Eigen::MatrixXd& draws) {
  detail::check_chain_draws(draws, "bulk_effective_sample_size");
  return detail::ess_of_chains(detail::rank_normalize(detail::split_chains(draws)));
}

// Vehtari et al. 2021's tail-ESS: min over p ∈ {0.05, 0.95} of the ESS of the split chains of
// I(θ ≤ q_p) (top of this file); NaN when an indicator is constant. Throws as split_rhat.
// Cost: a sort of the n·m draws and 4m FFTs.
template <int = 0>
double tail_effective_sample_size(const Eigen::MatrixXd& draws) {
  detail::check_chain_draws(draws, "tail_effective_sample_size");
  const Eigen::MatrixXd split = detail::split_chains(draws);
  double ess = std::numeric_limits<double>::infinity();
  for (const double p : {0.05, 0.95}) {
    const double q = detail::pooled_quantile(draws, p);
    const Eigen::MatrixXd below = (split.array() <= q).cast<double>().matrix();
    ess = std::min(ess, detail::ess_of_chains(below));
  }
  return ess;
}

}  // namespace ngvi::vi
