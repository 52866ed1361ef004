// What the two hyperparameter searches of a UCI split (app/uci/cross_validation_search.hpp,
// app/uci/evidence_search.hpp) share: the network and the standardised problem of a fit, the
// generator of each stream of draws, the fit numbers of those streams, the test-set scoring of the
// final (ensemble) fit and the search on a log scale. The protocol is described in
// app/uci/uci_protocol.hpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <app/methods/any_posterior.hpp>
#include <app/methods/network_model.hpp>
#include <app/methods/predict.hpp>
#include <app/uci/uci_protocol.hpp>
#include <io/uci_folder.hpp>

#include <inference/mixture_predictive.hpp>
#include <inference/predictive.hpp>
#include <inference/random.hpp>
#include <nn/activations.hpp>
#include <nn/dataset.hpp>
#include <nn/likelihoods/gaussian_fixed_noise.hpp>

namespace ngvi::app::uci {

// A model trained on `train` and its twin over `held_out` (validation or test), both
// standardised with the statistics of `train`.
struct Problem {
  NetworkModel train;
  NetworkModel held_out;
  nn::Standardizer targets;  // of `train`: the predictive reports original units with it
};

// The likelihood of a fit: Gaussian with precision τ (ν = 0), or Student-t with precision τ and
// ν degrees of freedom.
struct Noise {
  double precision = 0.0;           // τ, standardised units
  double degrees_of_freedom = 0.0;  // ν; 0: the Gaussian likelihood

  NetworkLikelihood likelihood() const {
    if (degrees_of_freedom == 0.0) return nn::GaussianFixedNoise(precision);
    return nn::StudentT(precision, degrees_of_freedom);
  }
};

// The network with `hidden` ReLU units and the likelihood of `noise` over `data` (already
// standardised). Its weights and biases start from U(±1/√fan_in) (nn::Init::fan_in_uniform,
// PyTorch's default, as the PyTorch reference's): with ngvi's He-normal/Glorot start VOGN at the
// reference's settings trailed it by 0.2 in test RMSE on Boston (docs/uci.md).
inline NetworkModel network_on(const nn::Dataset& data, Eigen::Index hidden, const Noise& noise) {
  return NetworkModel(
      nn::Sequential::mlp({data.input_dim(), hidden, 1}, nn::Relu{}, nn::Init::fan_in_uniform),
      noise.likelihood(), data);
}
inline NetworkModel network_on(const nn::Dataset& data, Eigen::Index hidden,
                               double noise_precision) {
  return network_on(data, hidden, Noise{noise_precision, 0.0});
}

inline Problem make_problem(const nn::Dataset& train, const nn::Dataset& held_out,
                            Eigen::Index hidden, const Noise& noise) {
  const nn::DatasetStandardizer st = nn::DatasetStandardizer::fit(train);
  return Problem{network_on(st.transform(train), hidden, noise),
                 network_on(st.transform(held_out), hidden, noise), st.y};
}
inline Problem make_problem(const nn::Dataset& train, const nn::Dataset& held_out,
                            Eigen::Index hidden, double noise_precision) {
  return make_problem(train, held_out, hidden, Noise{noise_precision, 0.0});
}

// The generator of one stream of draws, seeded by the run's seed and the stream's coordinates,
// so that no draw depends on which thread ran what before it.
inline vi::Rng stream(std::uint64_t seed, int split, int fit, Eigen::Index epoch) {
  std::seed_seq s{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                  static_cast<std::uint32_t>(split), static_cast<std::uint32_t>(fit),
                  static_cast<std::uint32_t>(epoch)};
  return vi::Rng(s);
}

// Fit numbers of the streams: the tuning fits are 1, 2, ... (fold f > 0 adds 1000·f); the final
// fit is member_fit(0) = 0, and member m of an ensemble is member_fit(m), past every tuning fit's
// number.
inline int member_fit(int m) { return 100000 * m; }

// One member of the final (ensemble of) fit(s): its posterior and the noise precision τ of its
// model, or why its fit failed.
struct MemberFit {
  std::optional<AnyPosterior> posterior;  // empty: the fit failed
  Noise noise;                            // its likelihood's τ (and ν)
  std::string message;                    // why it failed; empty otherwise
};

// The test-set tail of both protocols, written into r: fit_member(m) gives member m of
// o.ensemble, whose predictive on the test set (with its own τ and ν, from member m's test stream)
// is formed with `options`; r gets the equally weighted mixture's RMSE and log-likelihood
// (inference/mixture_predictive.hpp) and, for several members, each member's own. A failed
// member stops the scoring with r.ok = false and a message naming it.
template <class FitMember>
void score_ensemble(const UciProtocolOptions& o, const io::UciSplit& data, int split,
                    Eigen::Index hidden, const PredictOptions& options, FitMember fit_member,
                    SplitResult& r) {
  std::vector<vi::RegressionPredictive> members;
  for (int m = 0; m < o.ensemble; ++m) {
    const MemberFit f = fit_member(m);
    if (!f.posterior) {
      r.ok = false;
      r.message = (o.ensemble > 1 ? "ensemble member " + std::to_string(m) + ": " : "") + f.message;
      return;
    }
    vi::Rng test_rng = stream(o.seed, split, member_fit(m), 1);
    const Problem p = make_problem(data.train, data.test, hidden, f.noise);
    members.push_back(predict_regression(*f.posterior, p.held_out, p.targets, test_rng, options));
  }
  if (members.size() > 1)
    for (const vi::RegressionPredictive& m : members) {
      r.member_rmse.push_back(m.rmse);
      r.member_log_likelihood.push_back(m.test_log_likelihood);
    }
  const Problem p = make_problem(data.train, data.test, hidden, r.noise_precision);
  const vi::RegressionPredictive mix =
      vi::mixture_regression_predictive(members, p.targets.inverse_transform(p.held_out.data().Y));
  r.rmse = mix.rmse;
  r.log_likelihood = mix.test_log_likelihood;
}

inline double finite_or_lowest(double v) {
  return std::isfinite(v) ? v : -std::numeric_limits<double>::infinity();
}

// The epochs a tuning fit is scored after: each quarter of `epochs` (distinct, at least 1).
inline std::vector<Eigen::Index> scored_epochs(Eigen::Index epochs) {
  constexpr int parts = 4;
  std::vector<Eigen::Index> e;
  for (int q = 1; q <= parts; ++q) {
    const Eigen::Index at = std::max<Eigen::Index>(1, (epochs * q) / parts);
    if (e.empty() || e.back() != at) e.push_back(at);
  }
  return e;
}

constexpr double not_scored = std::numeric_limits<double>::quiet_NaN();
constexpr double lowest_score = -std::numeric_limits<double>::infinity();

// A search on a log scale over one exponent k (the grid value is base·stepᵏ): start at k = 0,
// move by 2 while the score improves (first up, then, if that never improved, down), then try
// k ± 1 beside the best; `evaluate(k)` returns the score of k (memoised by the caller), and
// `budget_left()` says whether another evaluation is allowed. Returns the best k.
template <class Evaluate, class BudgetLeft>
int log_scale_search(int lowest, int highest, Evaluate&& evaluate, BudgetLeft&& budget_left) {
  int best = 0;
  double best_score = evaluate(best);
  for (const int step : {2, -2}) {
    bool moved = false;
    for (int k = best + step; k >= lowest && k <= highest && budget_left(); k += step) {
      const double v = evaluate(k);
      if (v <= best_score) break;
      best = k;
      best_score = v;
      moved = true;
    }
    if (moved) break;
  }
  for (const int k : {best + 1, best - 1})
    if (k >= lowest && k <= highest && budget_left()) {
      const double v = evaluate(k);
      if (v > best_score) {
        best = k;
        best_score = v;
      }
    }
  return best;
}

}  // namespace ngvi::app::uci
