// run_uci_protocol (app/uci/uci_protocol.hpp): the options' checks, the data, the splits dealt
// to threads (and parts) and their summary. The searches of a split are
// app/uci/cross_validation_search.cpp and app/uci/evidence_search.cpp; a run's bytes
// app/uci/uci_run_json.cpp.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include <app/methods/method_info.hpp>
#include <app/uci/cross_validation_search.hpp>
#include <app/uci/evidence_search.hpp>
#include <app/uci/uci_protocol.hpp>
#include <io/uci_folder.hpp>
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

namespace ngvi::app {

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

namespace {

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

}  // namespace

void summarise_uci_run(UciRun& run) {
  std::vector<double> rmse, ll;
  for (const SplitResult& s : run.splits)
    if (s.ok) {
      rmse.push_back(s.rmse);
      ll.push_back(s.log_likelihood);
    }
  run.rmse = mean_and_error(rmse);
  run.log_likelihood = mean_and_error(ll);
}

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
  check_hyperparameter_source(o.method.method, o.method.hyperparameters);
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
      const bool learned = o.method.hyperparameters != HyperparameterSource::settings;
      run.splits[static_cast<std::size_t>(i)] =
          learned ? evidence_gradient_fit(o, split, s, run.hidden_units)
          : tool_method(o.method.method).laplace
              ? evidence_search(o, split, s, run.hidden_units)
              : cross_validation_search(o, split, s, run.hidden_units);
    }
  });
  summarise_uci_run(run);
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
  summarise_uci_run(run);
  return run;
}

}  // namespace ngvi::app
