// cross_validation_search (app/uci/cross_validation_search.hpp): SplitRunner cuts the training
// rows into the inner fold(s), searches τ (for each ν of student-t) and then δ by the validation
// log-likelihood of every fold's validation rows, which also picks the epochs, and fits and scores
// the final network (or ensemble) on the whole training set. What it shares with the evidence
// search (the problems, the streams of draws, the test scoring, the log-scale search) is
// app/uci/split_fits.hpp.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <app/methods/fit_method.hpp>
#include <app/methods/predict.hpp>
#include <app/uci/cross_validation_search.hpp>
#include <app/uci/split_fits.hpp>

#include <nn/dataset.hpp>

namespace ngvi::app {
namespace {

using namespace uci;

// The inner-split search (steps 1–3 of app/uci/uci_protocol.hpp) for every method but
// map_laplace.
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

}  // namespace

SplitResult cross_validation_search(const UciProtocolOptions& o, const io::UciSplit& data,
                                    int split, Eigen::Index hidden) {
  return SplitRunner(o, data, split, hidden).run();
}

}  // namespace ngvi::app
