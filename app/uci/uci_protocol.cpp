// run_uci_protocol (app/uci/uci_protocol.hpp).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numbers>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <app/methods/fit_method.hpp>
#include <app/methods/method_info.hpp>
#include <app/methods/predict.hpp>
#include <app/uci/uci_protocol.hpp>
#include <io/uci_folder.hpp>
#include <nlohmann/json.hpp>
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <inference/mixture_predictive.hpp>
#include <nn/activations.hpp>
#include <nn/dataset.hpp>
#include <nn/likelihoods/gaussian_fixed_noise.hpp>

namespace ngvi::app {
namespace {

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
NetworkModel network_on(const nn::Dataset& data, Eigen::Index hidden, const Noise& noise) {
  return NetworkModel(
      nn::Sequential::mlp({data.input_dim(), hidden, 1}, nn::Relu{}, nn::Init::fan_in_uniform),
      noise.likelihood(), data);
}
NetworkModel network_on(const nn::Dataset& data, Eigen::Index hidden, double noise_precision) {
  return network_on(data, hidden, Noise{noise_precision, 0.0});
}

Problem make_problem(const nn::Dataset& train, const nn::Dataset& held_out, Eigen::Index hidden,
                     const Noise& noise) {
  const nn::DatasetStandardizer st = nn::DatasetStandardizer::fit(train);
  return Problem{network_on(st.transform(train), hidden, noise),
                 network_on(st.transform(held_out), hidden, noise), st.y};
}
Problem make_problem(const nn::Dataset& train, const nn::Dataset& held_out, Eigen::Index hidden,
                     double noise_precision) {
  return make_problem(train, held_out, hidden, Noise{noise_precision, 0.0});
}

// The generator of one stream of draws, seeded by the run's seed and the stream's coordinates,
// so that no draw depends on which thread ran what before it.
vi::Rng stream(std::uint64_t seed, int split, int fit, Eigen::Index epoch) {
  std::seed_seq s{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                  static_cast<std::uint32_t>(split), static_cast<std::uint32_t>(fit),
                  static_cast<std::uint32_t>(epoch)};
  return vi::Rng(s);
}

// Fit numbers of the streams: the tuning fits are 1, 2, ... (fold f > 0 adds 1000·f); the final
// fit is 0, and member m of an ensemble is member_fit(m), past every tuning fit's number.
constexpr int final_fit = 0;
int member_fit(int m) { return 100000 * m; }

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

double finite_or_lowest(double v) {
  return std::isfinite(v) ? v : -std::numeric_limits<double>::infinity();
}

// The epochs a tuning fit is scored after: each quarter of `epochs` (distinct, at least 1).
std::vector<Eigen::Index> scored_epochs(Eigen::Index epochs) {
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

// The inner-split search (steps 1–3 of the header) for every method but laplace.
class SplitRunner {
 public:
  SplitRunner(const UciProtocolOptions& o, const io::UciSplit& data, int split, Eigen::Index hidden)
      : o_(o), data_(data), split_(split), hidden_(hidden) {
    const Eigen::Index n = data.train.size();
    const int k = o.validation_folds;
    for (int f = 0; f < k; ++f) {
      // Validation rows [begin, end): the last validation_fraction of them (one fold), or the
      // f-th of k consecutive blocks.
      const Eigen::Index begin =
          k == 1 ? n - static_cast<Eigen::Index>(std::floor(o.validation_fraction * n)) : f * n / k;
      const Eigen::Index end = k == 1 ? n : (f + 1) * n / k;
      if (end - begin < 1 || n - (end - begin) < 2)
        throw std::invalid_argument("ngvi uci: split " + std::to_string(split) + " has " +
                                    std::to_string(n) +
                                    " training rows, too few for an inner validation split");
      std::vector<Eigen::Index> fit_rows, validation_rows;
      for (Eigen::Index i = 0; i < n; ++i)
        (i >= begin && i < end ? validation_rows : fit_rows).push_back(i);
      folds_.push_back({data.train.subset(fit_rows), data.train.subset(validation_rows)});
    }
  }

  SplitResult run() {
    const auto t0 = std::chrono::steady_clock::now();
    SplitResult r;
    r.split = split_;
    if (o_.validation_folds == 0) {  // no tuning: the given settings on every split
      r.noise_precision = o_.initial_noise_precision;
      r.degrees_of_freedom = degrees_of_freedom_grid().front();
      r.prior_precision = o_.method.prior_precision;
      r.epochs = epochs_of(o_.method);
      r.validation_log_likelihood = not_scored;
      r.log_marginal_likelihood = not_scored;
      final_fit_on_training_set(r);
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      return r;
    }
    search();
    const TuningFit* best = nullptr;
    for (const TuningFit& f : order_)
      if (!best || f.validation_log_likelihood > best->validation_log_likelihood) best = &f;
    if (!best || !std::isfinite(best->validation_log_likelihood)) {
      r.ok = false;
      r.message = "every fit on the inner split failed" +
                  (last_failure_.empty() ? std::string() : ": " + last_failure_);
    } else {
      r.noise_precision = best->noise_precision;
      r.degrees_of_freedom = best->degrees_of_freedom;
      r.prior_precision = best->prior_precision;
      r.epochs = best->best_epoch;
      r.validation_log_likelihood = best->validation_log_likelihood;
      r.log_marginal_likelihood = not_scored;
      final_fit_on_training_set(r);
    }
    r.tuning = order_;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
  }

 private:
  double tau_at(int k) const { return o_.initial_noise_precision * std::exp2(k); }

  // The ν of each τ search: {0} (the Gaussian) or the Student-t grid.
  std::vector<double> degrees_of_freedom_grid() const {
    if (o_.likelihood == RegressionLikelihood::gaussian) return {0.0};
    return o_.degrees_of_freedom;
  }

  // The search of the header comment: for each ν of the grid (Gaussian: one pass), τ = τ₀·2ᵏ at
  // δ₀; at the best (ν, τ), δ over the grid, then τ·2^±1 at the best δ if it is not δ₀.
  void search() {
    const double delta0 = o_.method.prior_precision;
    double nu = 0.0, best_score = lowest_score;
    int k = 0;
    bool first = true;
    for (const double n : degrees_of_freedom_grid()) {
      const int j = log_scale_search(
          -8, 12, [&](int i) { return evaluate(n, tau_at(i), delta0).validation_log_likelihood; },
          [&] { return budget_left(n); });
      const double v = evaluate(n, tau_at(j), delta0).validation_log_likelihood;
      if (first || v > best_score) {
        first = false;
        best_score = v;
        nu = n;
        k = j;
      }
    }
    double best_delta = delta0;
    for (const double delta : o_.prior_precisions) {
      if (!budget_left(nu)) break;
      const double v = evaluate(nu, tau_at(k), delta).validation_log_likelihood;
      if (v > best_score) {
        best_score = v;
        best_delta = delta;
      }
    }
    if (best_delta != delta0)
      for (const int j : {k + 1, k - 1})
        if (budget_left(nu)) evaluate(nu, tau_at(j), best_delta);
  }

  // Whether the search at ν may run another fit: max_tuning_fits per ν.
  bool budget_left(double nu) const {
    return std::count_if(order_.begin(), order_.end(), [&](const TuningFit& f) {
             return f.degrees_of_freedom == nu;
           }) < o_.max_tuning_fits;
  }

  // The fit at (ν, τ, δ), run once (later calls return the first result).
  TuningFit evaluate(double nu, double tau, double delta) {
    for (const TuningFit& f : order_)
      if (f.degrees_of_freedom == nu && f.noise_precision == tau && f.prior_precision == delta)
        return f;
    const int fit_number = static_cast<int>(order_.size()) + 1;
    TuningFit t{tau, delta, 0, lowest_score, not_scored, nu};
    FitRequest request;
    request.settings = o_.method;
    request.settings.prior_precision = delta;
    request.report_epochs = scored_epochs(epochs_of(o_.method));
    // Σ over folds of (validation rows × mean validation LL), per scored epoch.
    std::vector<double> total(request.report_epochs.size(), 0.0);
    double rows = 0.0;
    for (std::size_t f = 0; f < folds_.size(); ++f) {
      // Fold f > 0 draws from streams numbered past every fit number of fold 0.
      const int stream_number = fit_number + 1000 * static_cast<int>(f);
      const auto n_val = static_cast<double>(folds_[f].validation.size());
      // The fold's validation LL per scored epoch; −∞ where the fit never got there.
      std::vector<double> ll(total.size(), lowest_score);
      const Problem p =
          make_problem(folds_[f].train, folds_[f].validation, hidden_, Noise{tau, nu});
      request.hook = [&](Eigen::Index epoch, const AnyPosterior& q) {
        vi::Rng rng = stream(o_.seed, split_, stream_number, epoch);
        const auto at =
            std::find(request.report_epochs.begin(), request.report_epochs.end(), epoch);
        ll[static_cast<std::size_t>(at - request.report_epochs.begin())] =
            finite_or_lowest(predict_regression(q, p.held_out, p.targets, rng,
                                                predict_options(o_.validation_samples))
                                 .test_log_likelihood);
      };
      vi::Rng rng = stream(o_.seed, split_, stream_number, 0);
      const FitOutcome out = fit_method(p.train, request, rng);
      if (!out.ok) last_failure_ = out.message;
      for (std::size_t e = 0; e < total.size(); ++e) total[e] += n_val * ll[e];
      rows += n_val;
    }
    for (std::size_t e = 0; e < total.size(); ++e)
      if (total[e] / rows > t.validation_log_likelihood) {
        t.validation_log_likelihood = total[e] / rows;
        t.best_epoch = request.report_epochs[e];
      }
    order_.push_back(t);
    return t;
  }

  static PredictOptions predict_options(int samples) {
    PredictOptions p;
    p.samples = samples;
    return p;
  }

  // The final fit (ensemble > 1: one per member, from its own start) on the whole training set
  // with the chosen τ, ν, δ and epochs, scored on the test set.
  void final_fit_on_training_set(SplitResult& r) const {
    const Noise noise{r.noise_precision, r.degrees_of_freedom};
    FitRequest request;
    request.settings = o_.method;
    request.settings.prior_precision = r.prior_precision;
    request.settings.epochs = r.epochs;
    const auto fit_member = [&](int m) {
      vi::Rng rng = stream(o_.seed, split_, member_fit(m), 0);
      FitOutcome out =
          fit_method(make_problem(data_.train, data_.test, hidden_, noise).train, request, rng);
      if (!out.ok) return MemberFit{std::nullopt, noise, out.message};
      return MemberFit{std::move(out.posterior), noise, {}};
    };
    score_ensemble(o_, data_, split_, hidden_, predict_options(o_.test_samples), fit_member, r);
  }

  const UciProtocolOptions& o_;
  const io::UciSplit& data_;
  int split_;
  Eigen::Index hidden_;
  struct Fold {
    nn::Dataset train, validation;
  };
  std::vector<Fold> folds_;       // the inner split(s): one, or validation_folds folds
  std::vector<TuningFit> order_;  // every fit, in the order run
  std::string last_failure_;
};

// laplace's type-II maximum-likelihood search over r = δ/τ on the whole training set (header).
class EvidenceRunner {
 public:
  EvidenceRunner(const UciProtocolOptions& o, const io::UciSplit& data, int split,
                 Eigen::Index hidden)
      : o_(o), data_(data), split_(split), hidden_(hidden) {}

  SplitResult run() {
    const auto t0 = std::chrono::steady_clock::now();
    SplitResult r;
    r.split = split_;
    tau_fit_ = o_.initial_noise_precision;
    const double r0 = o_.method.prior_precision / o_.initial_noise_precision;
    log_scale_search(
        -10, 6, [&](int k) { return evaluate(r0 * std::pow(10.0, 0.5 * k)); },
        [&] { return static_cast<int>(order_.size()) < o_.max_tuning_fits; });
    if (!best_) {
      r.ok = false;
      r.message = "every MAP + Laplace fit on the training set failed" +
                  (last_failure_.empty() ? std::string() : ": " + last_failure_);
    } else {
      const TuningFit& b = order_[best_index_];
      r.noise_precision = b.noise_precision;
      r.prior_precision = b.prior_precision;
      r.epochs = epochs_of(o_.method);
      r.validation_log_likelihood = not_scored;
      r.log_marginal_likelihood = b.log_marginal_likelihood;
      score_on_test_set(r);
    }
    r.tuning = order_;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
  }

 private:
  // A MAP + Laplace fit, its evidence maximised over the scale (τ, δ) = (c, r·c), and the
  // Laplace posterior rescaled to that c.
  struct EvidenceFit {
    TuningFit fit;                      // (c*, r·c*) and the evidence there (−∞: failed)
    std::optional<vi::FullGaussian> q;  // N(θ*, (c*·(G + rI))⁻¹); empty if the fit failed
    std::string message;                // why it failed; empty otherwise
  };

  // The MAP + Laplace fit at ratio r and τ (δ = r·τ) from the start of stream `fit_number`, and
  // its evidence maximised over the scale c in closed form (header).
  EvidenceFit fit_at(double ratio, double tau, int fit_number) const {
    const double delta = ratio * tau;
    const NetworkModel model =
        network_on(nn::DatasetStandardizer::fit(data_.train).transform(data_.train), hidden_, tau);
    FitRequest request;
    request.settings = o_.method;
    request.settings.prior_precision = delta;
    vi::Rng rng = stream(o_.seed, split_, fit_number, 0);
    FitOutcome out = fit_method(model, request, rng);
    EvidenceFit r{{tau, delta, epochs_of(o_.method), not_scored, lowest_score}, {}, {}};
    if (!out.ok || !out.evidence) {
      r.message = out.message;
      return r;
    }
    const LaplaceEvidence& e = *out.evidence;
    const auto n = static_cast<double>(model.num_examples());
    const auto p = static_cast<double>(model.num_params());
    const double log_2pi = std::log(2.0 * std::numbers::pi);
    // log p(D|θ*) = N/2·log(τ/2π) − τ/2·SSE at the fitted τ gives the sum of squared residuals.
    const double sse = (2.0 / tau) * (0.5 * n * (std::log(tau) - log_2pi) - e.log_likelihood);
    const double c = n / (sse + ratio * e.squared_norm);
    // log det(c·(G + rI)) = log det(τ·(G + rI)) + P·log(c/τ).
    const double log_det = e.log_det_precision + p * std::log(c / tau);
    const double evidence = 0.5 * n * (std::log(c) - log_2pi) - 0.5 * c * sse -
                            0.5 * ratio * c * e.squared_norm + 0.5 * p * std::log(ratio * c) -
                            0.5 * log_det;
    r.fit.noise_precision = c;
    r.fit.prior_precision = ratio * c;
    r.fit.log_marginal_likelihood = finite_or_lowest(evidence);
    if (!std::isfinite(r.fit.log_marginal_likelihood)) {
      r.message = "the Laplace evidence is not finite";
      return r;
    }
    // The same θ*, its precision τ·(G + rI) rescaled to c·(G + rI).
    const auto& q = std::get<vi::FullGaussian>(out.posterior);
    r.q = vi::FullGaussian(q.mean(), (c / tau) * q.precision());
    return r;
  }

  // The search's fit at ratio r (at τ = the best c* so far). Returns its evidence (−∞ on
  // failure).
  double evaluate(double ratio) {
    EvidenceFit f = fit_at(ratio, tau_fit_, static_cast<int>(order_.size()) + 1);
    order_.push_back(f.fit);
    if (!f.q) {
      last_failure_ = f.message;
      return lowest_score;
    }
    if (!best_ || f.fit.log_marginal_likelihood > order_[best_index_].log_marginal_likelihood) {
      best_index_ = order_.size() - 1;
      best_ = std::move(f.q);
      tau_fit_ = f.fit.noise_precision;
    }
    return f.fit.log_marginal_likelihood;
  }

  // The linearised predictive of the best search fit (member 0) and, for an ensemble, of K − 1
  // more fits at its ratio r and τ, each at its own evidence-optimal scale (header).
  void score_on_test_set(SplitResult& r) const {
    PredictOptions po;
    po.samples = o_.test_samples;
    po.linearised = true;
    const double ratio = r.prior_precision / r.noise_precision;
    const auto fit_member = [&](int m) {
      if (m == 0)
        return MemberFit{AnyPosterior(*best_), Noise{order_[best_index_].noise_precision}, {}};
      const EvidenceFit f = fit_at(ratio, r.noise_precision, member_fit(m));
      if (!f.q) return MemberFit{std::nullopt, Noise{f.fit.noise_precision}, f.message};
      return MemberFit{AnyPosterior(*f.q), Noise{f.fit.noise_precision}, {}};
    };
    score_ensemble(o_, data_, split_, hidden_, po, fit_member, r);
  }

  const UciProtocolOptions& o_;
  const io::UciSplit& data_;
  int split_;
  Eigen::Index hidden_;
  double tau_fit_ = 0.0;  // τ of the next MAP fit: the best c* so far (τ₀ at first)
  std::vector<TuningFit> order_;
  std::optional<vi::FullGaussian> best_;  // the rescaled Laplace posterior of the best fit
  std::size_t best_index_ = 0;
  std::string last_failure_;
};

MeanAndError mean_and_error(const std::vector<double>& v) {
  MeanAndError m;
  if (v.empty()) return m;
  const auto n = static_cast<double>(v.size());
  for (const double x : v) m.mean += x / n;
  if (v.size() > 1) {
    double ss = 0.0;
    for (const double x : v) ss += (x - m.mean) * (x - m.mean);
    m.standard_error = std::sqrt(ss / (n - 1.0)) / std::sqrt(n);
  }
  return m;
}

void validate(const UciProtocolOptions& o) {
  const std::string who = "ngvi::app::run_uci_protocol: ";
  if (o.data.empty()) throw std::invalid_argument(who + "no data folder given");
  if (o.splits < 0)
    throw std::invalid_argument(who + "splits must be >= 0, got " + std::to_string(o.splits));
  if (!(o.validation_fraction > 0.0 && o.validation_fraction < 1.0))
    throw std::invalid_argument(who + "validation_fraction must be in (0, 1), got " +
                                std::to_string(o.validation_fraction));
  if (!(o.initial_noise_precision > 0.0) || !std::isfinite(o.initial_noise_precision))
    throw std::invalid_argument(who + "initial_noise_precision must be positive and finite");
  for (const double d : o.prior_precisions)
    if (!(d > 0.0) || !std::isfinite(d))
      throw std::invalid_argument(who + "every prior precision must be positive and finite, got " +
                                  std::to_string(d));
  if (o.validation_folds < 0 || o.validation_folds > 20)
    throw std::invalid_argument(who + "validation_folds must be in [0, 20], got " +
                                std::to_string(o.validation_folds));
  if (o.ensemble < 1 || o.ensemble > 100)
    throw std::invalid_argument(who + "ensemble must be in [1, 100], got " +
                                std::to_string(o.ensemble));
  if (o.likelihood == RegressionLikelihood::student_t) {
    if (tool_method(o.method.method).laplace)
      throw std::invalid_argument(
          who +
          "likelihood student-t is not available for method map_laplace (its "
          "evidence search and linearised predictive are Gaussian)");
    if (o.degrees_of_freedom.empty())
      throw std::invalid_argument(who + "degrees_of_freedom is empty; give at least one ν");
    for (const double nu : o.degrees_of_freedom)
      if (!(nu > 0.0) || !std::isfinite(nu))
        throw std::invalid_argument(who +
                                    "every degrees_of_freedom must be positive and finite, got " +
                                    std::to_string(nu));
  }
  if (o.max_tuning_fits < 1 || o.validation_samples < 1 || o.test_samples < 1)
    throw std::invalid_argument(
        who + "max_tuning_fits, validation_samples and test_samples must be >= 1");
}

// The means and standard errors of `run` over its splits whose final fit succeeded.
void summarise(UciRun& run) {
  std::vector<double> rmse, ll;
  for (const SplitResult& s : run.splits)
    if (s.ok) {
      rmse.push_back(s.rmse);
      ll.push_back(s.log_likelihood);
    }
  run.rmse = mean_and_error(rmse);
  run.log_likelihood = mean_and_error(ll);
}

}  // namespace

UciData load_uci_data(const UciProtocolOptions& o) {
  validate(o);
  UciData d;
  d.dataset = (o.data / "").parent_path().filename().string();
  d.hidden_units = o.hidden_units > 0 ? o.hidden_units : io::uci_hidden_units(o.data);
  const int available = io::uci_split_count(o.data);
  if (o.splits > available)
    throw io::DataError(o.data, 0, 0, "at least " + std::to_string(o.splits) + " splits",
                        std::to_string(available) + " splits");
  const int k = o.splits > 0 ? o.splits : available;
  for (int s = 0; s < k; ++s) d.splits.push_back(io::load_uci_split(o.data, s));
  return d;
}

UciRun run_uci_protocol(const UciProtocolOptions& o, const UciData& data, int part, int parts) {
  validate(o);
  if (parts < 1 || part < 0 || part >= parts)
    throw std::invalid_argument("ngvi::app::run_uci_protocol: part " + std::to_string(part) +
                                " of " + std::to_string(parts) + " does not exist");
  const auto t0 = std::chrono::steady_clock::now();
  UciRun run;
  run.dataset = data.dataset;
  run.hidden_units = data.hidden_units;
  run.inputs = data.splits.front().train.input_dim();
  std::vector<int> mine;
  for (int s = part; s < static_cast<int>(data.splits.size()); s += parts) mine.push_back(s);
  run.splits.resize(mine.size());
  const int n = static_cast<int>(mine.size());
  tbb::parallel_for(tbb::blocked_range<int>(0, n, 1), [&](const tbb::blocked_range<int>& r) {
    for (int i = r.begin(); i < r.end(); ++i) {
      const int s = mine[static_cast<std::size_t>(i)];
      const io::UciSplit& split = data.splits[static_cast<std::size_t>(s)];
      run.splits[static_cast<std::size_t>(i)] =
          tool_method(o.method.method).laplace ? EvidenceRunner(o, split, s, run.hidden_units).run()
                                               : SplitRunner(o, split, s, run.hidden_units).run();
    }
  });
  summarise(run);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return run;
}

UciRun run_uci_protocol(const UciProtocolOptions& o) {
  return run_uci_protocol(o, load_uci_data(o));
}

UciRun merge_uci_parts(const std::vector<UciRun>& parts) {
  if (parts.empty()) throw std::invalid_argument("ngvi::app::merge_uci_parts: no parts");
  UciRun run = parts.front();
  run.splits.clear();
  for (const UciRun& p : parts) {
    run.splits.insert(run.splits.end(), p.splits.begin(), p.splits.end());
    run.seconds = std::max(run.seconds, p.seconds);
  }
  std::sort(run.splits.begin(), run.splits.end(),
            [](const SplitResult& a, const SplitResult& b) { return a.split < b.split; });
  summarise(run);
  return run;
}

namespace {

nlohmann::json run_json(const UciRun& r) {
  nlohmann::json splits = nlohmann::json::array();
  for (const SplitResult& s : r.splits) {
    nlohmann::json tuning = nlohmann::json::array();
    for (const TuningFit& f : s.tuning)
      tuning.push_back({f.noise_precision, f.prior_precision, f.best_epoch,
                        f.validation_log_likelihood, f.log_marginal_likelihood,
                        f.degrees_of_freedom});
    splits.push_back({{"split", s.split},
                      {"ok", s.ok},
                      {"message", s.message},
                      {"numbers",
                       {s.rmse, s.log_likelihood, s.noise_precision, s.prior_precision,
                        s.validation_log_likelihood, s.log_marginal_likelihood, s.seconds,
                        s.degrees_of_freedom}},
                      {"epochs", s.epochs},
                      {"member_rmse", s.member_rmse},
                      {"member_log_likelihood", s.member_log_likelihood},
                      {"tuning", tuning}});
  }
  return {{"dataset", r.dataset},
          {"inputs", r.inputs},
          {"hidden_units", r.hidden_units},
          {"seconds", r.seconds},
          {"splits", splits}};
}

}  // namespace

std::string encode_uci_run(const UciRun& run) {
  const std::vector<std::uint8_t> bytes = nlohmann::json::to_cbor(run_json(run));
  return std::string(bytes.begin(), bytes.end());
}

UciRun decode_uci_run(const std::string& bytes) {
  const nlohmann::json j = nlohmann::json::from_cbor(bytes);
  UciRun r;
  r.dataset = j.at("dataset").get<std::string>();
  r.inputs = j.at("inputs").get<Eigen::Index>();
  r.hidden_units = j.at("hidden_units").get<Eigen::Index>();
  r.seconds = j.at("seconds").get<double>();
  for (const nlohmann::json& t : j.at("splits")) {
    SplitResult s;
    s.split = t.at("split").get<int>();
    s.ok = t.at("ok").get<bool>();
    s.message = t.at("message").get<std::string>();
    const nlohmann::json& x = t.at("numbers");
    s.rmse = x.at(0).get<double>();
    s.log_likelihood = x.at(1).get<double>();
    s.noise_precision = x.at(2).get<double>();
    s.prior_precision = x.at(3).get<double>();
    s.validation_log_likelihood = x.at(4).get<double>();
    s.log_marginal_likelihood = x.at(5).get<double>();
    s.seconds = x.at(6).get<double>();
    s.degrees_of_freedom = x.at(7).get<double>();
    s.epochs = t.at("epochs").get<Eigen::Index>();
    s.member_rmse = t.at("member_rmse").get<std::vector<double>>();
    s.member_log_likelihood = t.at("member_log_likelihood").get<std::vector<double>>();
    for (const nlohmann::json& f : t.at("tuning"))
      s.tuning.push_back({.noise_precision = f.at(0).get<double>(),
                          .prior_precision = f.at(1).get<double>(),
                          .best_epoch = f.at(2).get<Eigen::Index>(),
                          .validation_log_likelihood = f.at(3).get<double>(),
                          .log_marginal_likelihood = f.at(4).get<double>(),
                          .degrees_of_freedom = f.at(5).get<double>()});
    r.splits.push_back(std::move(s));
  }
  summarise(r);
  return r;
}

}  // namespace ngvi::app
