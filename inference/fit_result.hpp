// What a fit returns and records on the way: history rows, counters, status, method state.
//
// FitResult<Q> holds the posterior q (the last good one if the run failed), the history (one
// HistoryRow every LoopOptions::history_every iterations) and the Counters: steps, how often each
// named remedy fired (VON's non-PD precision remedies, say), and the time spent in gradients,
// curvature and linear algebra. A numerical failure (μ or the precision turning non-finite) is not
// thrown: the run stops, status says `failed`, and message names the iteration and the parameter
// block, so a caller keeps everything computed until then. NamedArrays is the plain-data state a
// method hands to checkpoints.
#pragma once

#include <chrono>
#include <map>
#include <ostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

namespace ngvi::vi {

// A method's state as named dense arrays (vectors are n×1), for checkpoints.
using NamedArrays = std::vector<std::pair<std::string, Eigen::MatrixXd>>;

// The array `name` of a method state. Throws std::invalid_argument if it is missing or has
// another shape, naming both.
inline const Eigen::MatrixXd& state_array(const NamedArrays& state, const std::string& name,
                                          Eigen::Index rows, Eigen::Index cols) {
  for (const auto& [k, m] : state)
    if (k == name) {
      if (m.rows() != rows || m.cols() != cols)
        throw std::invalid_argument("ngvi::vi: checkpoint array '" + name + "' is " +
                                    std::to_string(m.rows()) + "×" + std::to_string(m.cols()) +
                                    ", expected " + std::to_string(rows) + "×" +
                                    std::to_string(cols));
      return m;
    }
  throw std::invalid_argument("ngvi::vi: the checkpoint has no array '" + name + "'");
}

struct HistoryRow {
  Eigen::Index iteration = 0;  // 1-based step count at which the row was recorded
  Eigen::Index epoch = 0;      // 1-based epoch that step belongs to
  double elbo = 0.0;  // E_q[log p(D|θ)] − λ KL(q‖p₀), the expectation by Monte Carlo
  double expected_nll = 0.0;  // −E_q[log p(D|θ)] = E_q[Σᵢ ℓᵢ(θ)], Monte Carlo
  double kl = 0.0;            // KL(q‖p₀), closed form
  double train_nll = 0.0;     // Σᵢ ℓᵢ(μ), at the posterior mean
  double seconds = 0.0;       // wall time since the fit started, history evaluation excluded
  // Further metrics added by callbacks (held-out log-likelihood, RMSE, ...), in the order added.
  std::vector<std::pair<std::string, double>> metrics;

  // The metric `name`, or `fallback` if no callback added it.
  double metric(const std::string& name, double fallback = 0.0) const {
    for (const auto& [k, v] : metrics)
      if (k == name) return v;
    return fallback;
  }
};

struct Counters {
  Eigen::Index steps = 0;
  // Remedy name → how many steps it fired on (see the method's options for what each one is).
  std::map<std::string, Eigen::Index> remedies;
  double seconds_gradients = 0.0;       // per-example or minibatch gradients
  double seconds_curvature = 0.0;       // Hessians, GGN, Fisher, K-FAC factors
  double seconds_linear_algebra = 0.0;  // factorisations, solves, eigendecompositions
  double seconds_total = 0.0;           // the whole loop, history evaluation excluded

  void fired(const std::string& remedy) { ++remedies[remedy]; }
  Eigen::Index times_fired(const std::string& remedy) const {
    const auto it = remedies.find(remedy);
    return it == remedies.end() ? 0 : it->second;
  }
};

// Adds the wall time of its scope to one of the Counters' seconds fields.
class ScopedTimer {
 public:
  explicit ScopedTimer(double& seconds)
      : seconds_(seconds), start_(std::chrono::steady_clock::now()) {}
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;
  ~ScopedTimer() {
    seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  double& seconds_;
  std::chrono::steady_clock::time_point start_;
};

enum class FitStatus {
  finished,       // ran the planned iterations
  stopped_early,  // a callback asked to stop (early stopping)
  failed,         // a parameter became non-finite, the loss diverged, or a step threw
                  // StepFailure; the posterior is the last good one
};

inline const char* to_string(FitStatus s) {
  switch (s) {
    case FitStatus::finished:
      return "finished";
    case FitStatus::stopped_early:
      return "stopped_early";
    case FitStatus::failed:
      return "failed";
  }
  return "unknown";
}
inline std::ostream& operator<<(std::ostream& os, FitStatus s) { return os << to_string(s); }

template <class Posterior>
struct FitResult {
  Posterior posterior;
  std::vector<HistoryRow> history;
  Counters counters;
  FitStatus status = FitStatus::finished;
  std::string message;  // why the run failed or stopped; empty when it finished
  bool ok() const { return status != FitStatus::failed; }
};

}  // namespace ngvi::vi
