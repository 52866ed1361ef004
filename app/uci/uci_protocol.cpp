// run_uci_protocol (app/uci/uci_protocol.hpp).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <stdexcept>

#include <app/methods/fit_method.hpp>
#include <app/methods/predict.hpp>
#include <app/uci/uci_protocol.hpp>
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <nn/activations.hpp>
#include <nn/data_loader.hpp>
#include <nn/dataset.hpp>
#include <nn/likelihoods/gaussian_fixed_noise.hpp>

namespace ngvi::app {
namespace {

// A model trained on `train` and its twin over `held_out` (validation or test), both
// standardised with the statistics of `train`.
struct Problem {
  RegressionModel train;
  RegressionModel held_out;
  nn::Standardizer targets;  // of `train`: the predictive reports original units with it
};

Problem make_problem(const nn::Dataset& train, const nn::Dataset& held_out, Eigen::Index hidden,
                     double noise_precision) {
  const nn::DatasetStandardizer st = nn::DatasetStandardizer::fit(train);
  const nn::Sequential net = nn::Sequential::mlp({train.input_dim(), hidden, 1}, nn::Relu{});
  const nn::GaussianFixedNoise lik(noise_precision);
  return Problem{RegressionModel(net, lik, st.transform(train)),
                 RegressionModel(net, lik, st.transform(held_out)), st.y};
}

// The generator of one stream of draws, seeded by the run's seed and the stream's coordinates,
// so that no draw depends on which thread ran what before it.
vi::Rng stream(std::uint64_t seed, int split, int fit, Eigen::Index epoch) {
  std::seed_seq s{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                  static_cast<std::uint32_t>(split), static_cast<std::uint32_t>(fit),
                  static_cast<std::uint32_t>(epoch)};
  return vi::Rng(s);
}

// Fit numbers of the streams: the tuning fits are 1, 2, ...; the final fit is 0.
constexpr int final_fit = 0;

double finite_or_lowest(double v) {
  return std::isfinite(v) ? v : -std::numeric_limits<double>::infinity();
}

// The epochs a tuning fit is scored after: each quarter of `epochs` (distinct, at least 1); for
// laplace each half (each score there costs a P×P Laplace approximation and its inverse).
std::vector<Eigen::Index> scored_epochs(Eigen::Index epochs, Method method) {
  const int parts = method == Method::laplace ? 2 : 4;
  std::vector<Eigen::Index> e;
  for (int q = 1; q <= parts; ++q) {
    const Eigen::Index at = std::max<Eigen::Index>(1, (epochs * q) / parts);
    if (e.empty() || e.back() != at) e.push_back(at);
  }
  return e;
}

class SplitRunner {
 public:
  SplitRunner(const UciProtocolOptions& o, const nn::UciSplit& data, int split, Eigen::Index hidden)
      : o_(o), data_(data), split_(split), hidden_(hidden) {
    const Eigen::Index n = data.train.size();
    const auto n_val = static_cast<Eigen::Index>(std::floor(o.validation_fraction * n));
    const Eigen::Index n_fit = n - n_val;
    if (n_val < 1 || n_fit < 2)
      throw std::invalid_argument("ngvi uci: split " + std::to_string(split) + " has " +
                                  std::to_string(n) +
                                  " training rows, too few for an inner validation split");
    std::vector<Eigen::Index> head(static_cast<std::size_t>(n_fit)),
        tail(static_cast<std::size_t>(n_val));
    for (Eigen::Index i = 0; i < n_fit; ++i) head[static_cast<std::size_t>(i)] = i;
    for (Eigen::Index i = 0; i < n_val; ++i) tail[static_cast<std::size_t>(i)] = n_fit + i;
    inner_train_ = data.train.subset(head);
    validation_ = data.train.subset(tail);
  }

  SplitResult run() {
    const auto t0 = std::chrono::steady_clock::now();
    SplitResult r;
    r.split = split_;
    search();
    const TuningFit* best = nullptr;
    for (const auto& [k, f] : fits_)
      if (!best || f.validation_log_likelihood > best->validation_log_likelihood) best = &f;
    if (!best || !std::isfinite(best->validation_log_likelihood)) {
      r.ok = false;
      r.message = "every fit on the inner split failed" +
                  (last_failure_.empty() ? std::string() : ": " + last_failure_);
    } else {
      r.noise_precision = best->noise_precision;
      r.epochs = best->best_epoch;
      r.validation_log_likelihood = best->validation_log_likelihood;
      final_fit_on_training_set(r);
    }
    r.tuning = order_;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
  }

 private:
  double tau_at(int k) const { return o_.initial_noise_precision * std::exp2(k); }

  // The search of the header comment, on exponents k of τ = τ₀·2ᵏ.
  void search() {
    constexpr int lowest = -8, highest = 12;  // τ₀/256 .. 4096·τ₀
    int best = 0;
    evaluate(best);
    for (const int step : {2, -2}) {
      bool moved = false;
      for (int k = best + step; k >= lowest && k <= highest && budget_left(); k += step) {
        if (score(evaluate(k)) <= score(fits_.at(best))) break;
        best = k;
        moved = true;
      }
      if (moved) break;
    }
    for (const int k : {best + 1, best - 1})
      if (k >= lowest && k <= highest && budget_left()) evaluate(k);
  }

  bool budget_left() const { return static_cast<int>(fits_.size()) < o_.max_tuning_fits; }
  static double score(const TuningFit& f) { return f.validation_log_likelihood; }

  const TuningFit& evaluate(int k) {
    if (const auto it = fits_.find(k); it != fits_.end()) return it->second;
    const int fit_number = static_cast<int>(fits_.size()) + 1;
    const double tau = tau_at(k);
    const Problem p = make_problem(inner_train_, validation_, hidden_, tau);
    TuningFit t{tau, 0, -std::numeric_limits<double>::infinity()};
    FitRequest request;
    request.settings = o_.method;
    request.report_epochs = scored_epochs(epochs_of(o_.method), o_.method.method);
    request.hook = [&](Eigen::Index epoch, const AnyPosterior& q) {
      vi::Rng rng = stream(o_.seed, split_, fit_number, epoch);
      const double ll = finite_or_lowest(
          predict_regression(q, p.held_out, p.targets, rng, predict_options(o_.validation_samples))
              .test_log_likelihood);
      if (ll > t.validation_log_likelihood) {
        t.validation_log_likelihood = ll;
        t.best_epoch = epoch;
      }
    };
    vi::Rng rng = stream(o_.seed, split_, fit_number, 0);
    const FitOutcome out = fit_method(p.train, request, rng);
    if (!out.ok) last_failure_ = out.message;
    order_.push_back(t);
    return fits_.emplace(k, t).first->second;
  }

  PredictOptions predict_options(int samples) const {
    PredictOptions p;
    p.samples = samples;
    p.linearised = o_.method.method == Method::laplace;
    return p;
  }

  void final_fit_on_training_set(SplitResult& r) const {
    const Problem p = make_problem(data_.train, data_.test, hidden_, r.noise_precision);
    FitRequest request;
    request.settings = o_.method;
    request.settings.epochs = r.epochs;
    vi::Rng rng = stream(o_.seed, split_, final_fit, 0);
    const FitOutcome out = fit_method(p.train, request, rng);
    if (!out.ok) {
      r.ok = false;
      r.message = out.message;
      return;
    }
    vi::Rng test_rng = stream(o_.seed, split_, final_fit, 1);
    const vi::RegressionPredictive pred = predict_regression(
        out.posterior, p.held_out, p.targets, test_rng, predict_options(o_.test_samples));
    r.rmse = pred.rmse;
    r.log_likelihood = pred.test_log_likelihood;
  }

  const UciProtocolOptions& o_;
  const nn::UciSplit& data_;
  int split_;
  Eigen::Index hidden_;
  nn::Dataset inner_train_, validation_;
  std::map<int, TuningFit> fits_;  // by exponent k
  std::vector<TuningFit> order_;   // in the order run
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
  if (o.max_tuning_fits < 1 || o.validation_samples < 1 || o.test_samples < 1)
    throw std::invalid_argument(
        who + "max_tuning_fits, validation_samples and test_samples must be >= 1");
}

}  // namespace

UciRun run_uci_protocol(const UciProtocolOptions& o) {
  validate(o);
  const auto t0 = std::chrono::steady_clock::now();
  UciRun run;
  run.dataset = (o.data / "").parent_path().filename().string();
  run.hidden_units = o.hidden_units > 0 ? o.hidden_units : nn::uci_hidden_units(o.data);
  const int available = nn::uci_split_count(o.data);
  if (o.splits > available)
    throw nn::DataError(o.data, 0, 0, "at least " + std::to_string(o.splits) + " splits",
                        std::to_string(available) + " splits");
  const int k = o.splits > 0 ? o.splits : available;
  // Every file is read (and checked) before any fit starts.
  std::vector<nn::UciSplit> data;
  for (int s = 0; s < k; ++s) data.push_back(nn::load_uci_split(o.data, s));
  run.inputs = data.front().train.input_dim();
  run.splits.resize(static_cast<std::size_t>(k));
  tbb::parallel_for(tbb::blocked_range<int>(0, k, 1), [&](const tbb::blocked_range<int>& r) {
    for (int s = r.begin(); s < r.end(); ++s)
      run.splits[static_cast<std::size_t>(s)] =
          SplitRunner(o, data[static_cast<std::size_t>(s)], s, run.hidden_units).run();
  });
  std::vector<double> rmse, ll;
  for (const SplitResult& s : run.splits)
    if (s.ok) {
      rmse.push_back(s.rmse);
      ll.push_back(s.log_likelihood);
    }
  run.rmse = mean_and_error(rmse);
  run.log_likelihood = mean_and_error(ll);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return run;
}

}  // namespace ngvi::app
