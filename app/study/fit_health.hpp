// Fit health: whether a study fit can be read at all, by a rule stated in advance.
//
// A fit is
//   diverged  when the fit loop stopped it (status "failed": a parameter or loss went non-finite,
//             or the training loss ran away — vi::LoopOptions::divergence), or its final test
//             log-likelihood is not finite;
//   poor      when its final test log-likelihood (nats per test example) is below that of the
//             no-skill predictive, which ignores the inputs: N(ȳ, s²) with the training targets'
//             mean and standard deviation for a regression, the training labels' frequency for a
//             classification — a posterior worse than knowing nothing about x;
//   ok        otherwise.
// The report marks such fits in its tables and verdicts and keeps the plots' y-range on the
// healthy curves; the terminal lists them.
#pragma once

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include <Eigen/Core>
#include <app/study/study_records.hpp>
#include <fmt/format.h>

namespace ngvi::app::study {

// The no-skill predictive's test log-likelihood, nats per test example, from the training and
// test targets as the model sees them (0/1 labels for a classification), in the units of the
// methods' test metrics: a regression's log densities lose log_jacobian = Σ log scale of the
// targets' standardisation (nn::Standardizer::log_jacobian). Throws std::invalid_argument for
// fewer than two training targets or no test target. Cost: O(N + N*).
inline double no_skill_log_likelihood(const Eigen::VectorXd& train, const Eigen::VectorXd& test,
                                      bool classification, double log_jacobian = 0.0) {
  if (train.size() < 2 || test.size() < 1)
    throw std::invalid_argument(fmt::format(
        "ngvi::app::study::no_skill_log_likelihood: needs >= 2 training and >= 1 test targets, "
        "got {} and {}",
        train.size(), test.size()));
  const double n = static_cast<double>(train.size());
  if (classification) {
    const double p = (train.sum() + 1.0) / (n + 2.0);  // Laplace's rule: never 0 or 1
    return (test.array() * std::log(p) + (1.0 - test.array()) * std::log1p(-p)).mean();
  }
  const double mean = train.mean();
  const double var = (train.array() - mean).square().sum() / (n - 1.0);
  return (-0.5 * (test.array() - mean).square() / var).mean() -
         0.5 * std::log(2.0 * std::numbers::pi * var) - log_jacobian;
}

// Sets m.health and m.health_reason by the rule above. Cost: O(1).
inline void assess_health(MethodRecord& m, double no_skill) {
  if (m.status == "failed") {
    m.health = "diverged";
    m.health_reason = m.message;
  } else if (!std::isfinite(m.test_log_likelihood)) {
    m.health = "diverged";
    m.health_reason = "its final test log-likelihood is not finite";
  } else if (m.test_log_likelihood < no_skill) {
    m.health = "poor";
    m.health_reason = fmt::format(
        "its test log-likelihood {:.4g} is below the no-skill predictive's {:.4g} (which "
        "ignores the inputs)",
        m.test_log_likelihood, no_skill);
  } else {
    m.health = "ok";
    m.health_reason.clear();
  }
}

}  // namespace ngvi::app::study
