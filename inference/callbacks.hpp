// Callbacks for vi::fit: progress on stderr, held-out metrics, early stopping, and the history
// as CSV or JSON text.
//
// Each is an optional hook object (see fit.hpp): pass any of them, in any number, after the
// generator — vi::fit(model, options, rng, HeldOut{...}, EarlyStopping{...}, ProgressBar{}).
// They run in the order given, so put HeldOut before EarlyStopping, which reads its metric.
// The callbacks that write files (history files rewritten at each row, periodic checkpoints),
// atomically, are in io/history_file.hpp and io/checkpoint_file.hpp (the io module), with
// everything else about files.
// Functions and members that would not otherwise be templates are written `template <int = 0>`
// (called as usual), so that a program compiles their JSON and Eigen code only if it calls them
// (docs/architecture.md, "Compile time").
#pragma once

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <inference/fit_result.hpp>

namespace ngvi::vi {

// A progress bar on stderr: iteration, rate, ETA and the latest ELBO, redrawn in place at most
// ten times a second. Quiet when stderr is not a terminal (logs and CI stay clean) unless
// `force` is set. Cost: one clock read per iteration.
class ProgressBar {
 public:
  explicit ProgressBar(std::string label = "fit", std::ostream* out = nullptr, bool force = false)
      : label_(std::move(label)), out_(out), force_(force) {}

  template <class Ctx>
  void on_begin(const Ctx&) {
    active_ = force_ || (out_ == nullptr && ::isatty(::fileno(stderr)) != 0);
    start_ = last_ = std::chrono::steady_clock::now();
  }
  template <class Ctx>
  bool on_iteration(const Ctx& ctx) {
    if (!active_) return false;
    const auto now = std::chrono::steady_clock::now();
    const bool final = ctx.iteration() == ctx.total_iterations();
    if (!final && now - last_ < std::chrono::milliseconds(100)) return false;
    last_ = now;
    draw(ctx, now);
    return false;
  }
  template <class Ctx, class Result>
  void on_end(const Ctx& ctx, const Result&) {
    if (!active_) return;
    draw(ctx, std::chrono::steady_clock::now());
    stream() << '\n' << std::flush;
  }

 private:
  std::ostream& stream() const { return out_ ? *out_ : std::cerr; }
  template <class Ctx>
  void draw(const Ctx& ctx, std::chrono::steady_clock::time_point now) {
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const double done = static_cast<double>(ctx.iteration());
    const double total = static_cast<double>(ctx.total_iterations());
    const double frac = total > 0 ? done / total : 1.0;
    const double rate = elapsed > 0 ? done / elapsed : 0.0;
    const double eta = rate > 0 ? (total - done) / rate : 0.0;
    constexpr int width = 24;
    const int filled = static_cast<int>(frac * width);
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.append(static_cast<std::size_t>(width - filled), '.');
    std::string elbo;
    if (!ctx.history().empty()) elbo = fmt::format("  ELBO {:.4g}", ctx.history().back().elbo);
    stream() << fmt::format("\r{} [{}] {}/{} {:.0f} it/s ETA {:.1f}s{}", label_, bar,
                            ctx.iteration(), ctx.total_iterations(), rate, eta, elbo)
             << std::flush;
  }

  std::string label_;
  std::ostream* out_;
  bool force_;
  bool active_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

// Adds held-out metrics to each history row: evaluate(posterior) returns (name, value) pairs,
// e.g. test log-likelihood and RMSE from predictive.hpp. Cost: that of evaluate per row.
template <class Evaluate>
struct HeldOut {
  Evaluate evaluate;
  template <class Ctx>
  void on_history(HistoryRow& row, const Ctx& ctx) {
    for (auto&& [name, value] : evaluate(ctx.posterior())) row.metrics.emplace_back(name, value);
  }
};
template <class Evaluate>
HeldOut(Evaluate) -> HeldOut<Evaluate>;

// Stops the run when a history metric has not improved by min_delta for `patience` rows in a
// row. The metric is a HistoryRow field name ("elbo", "train_nll") or one a HeldOut callback
// added. Throws std::invalid_argument at the first row that lacks it.
class EarlyStopping {
 public:
  // metric: a HistoryRow field ("elbo", "train_nll", "expected_nll", "kl") or a HeldOut metric;
  // maximise: true for ELBO or log-likelihood, false for NLL or RMSE; patience: rows without
  // improvement before stopping; min_delta: an improvement smaller than this does not count.
  explicit EarlyStopping(std::string metric = "elbo", bool maximise = true, int patience = 5,
                         double min_delta = 0.0)
      : metric_(std::move(metric)),
        maximise_(maximise),
        patience_(patience),
        min_delta_(min_delta) {
    if (patience < 1)
      throw std::invalid_argument("ngvi::vi::EarlyStopping: patience must be >= 1, got " +
                                  std::to_string(patience));
  }

  template <class Ctx>
  void on_history(HistoryRow& row, const Ctx&) {
    const double v = value(row);
    const double signed_v = maximise_ ? v : -v;
    if (signed_v > best_ + min_delta_) {
      best_ = signed_v;
      stale_ = 0;
    } else {
      ++stale_;
    }
  }
  template <class Ctx>
  bool on_iteration(const Ctx&) const {
    return stale_ >= patience_;
  }

 private:
  double value(const HistoryRow& row) const {
    if (metric_ == "elbo") return row.elbo;
    if (metric_ == "expected_nll") return row.expected_nll;
    if (metric_ == "train_nll") return row.train_nll;
    if (metric_ == "kl") return row.kl;
    for (const auto& [k, v] : row.metrics)
      if (k == metric_) return v;
    throw std::invalid_argument("ngvi::vi::EarlyStopping: the history has no metric '" + metric_ +
                                "' (pass a HeldOut callback that adds it, before EarlyStopping)");
  }
  std::string metric_;
  bool maximise_;
  int patience_;
  double min_delta_;
  double best_ = -std::numeric_limits<double>::infinity();
  int stale_ = 0;
};

// The history as CSV: iteration, epoch, elbo, expected_nll, kl, train_nll, seconds, then the
// held-out metrics of the first row, in order. Cost: O(rows · columns).
template <int = 0>
std::string history_csv(const std::vector<HistoryRow>& history) {
  std::ostringstream os;
  os << "iteration,epoch,elbo,expected_nll,kl,train_nll,seconds";
  std::vector<std::string> names;
  if (!history.empty())
    for (const auto& [k, v] : history.front().metrics) names.push_back(k);
  for (const auto& n : names) os << ',' << n;
  os << '\n';
  for (const HistoryRow& r : history) {
    os << fmt::format("{},{},{:.17g},{:.17g},{:.17g},{:.17g},{:.6f}", r.iteration, r.epoch, r.elbo,
                      r.expected_nll, r.kl, r.train_nll, r.seconds);
    for (const auto& n : names) os << fmt::format(",{:.17g}", r.metric(n, std::nan("")));
    os << '\n';
  }
  return os.str();
}

// The history as a JSON array of row objects (metrics as members). Cost: O(rows · columns).
template <int = 0>
nlohmann::json history_json(const std::vector<HistoryRow>& history) {
  nlohmann::json rows = nlohmann::json::array();
  for (const HistoryRow& r : history) {
    nlohmann::json j = {{"iteration", r.iteration},
                        {"epoch", r.epoch},
                        {"elbo", r.elbo},
                        {"expected_nll", r.expected_nll},
                        {"kl", r.kl},
                        {"train_nll", r.train_nll},
                        {"seconds", r.seconds}};
    for (const auto& [k, v] : r.metrics) j[k] = v;
    rows.push_back(std::move(j));
  }
  return rows;
}

}  // namespace ngvi::vi
