// Classification metrics of a predictive distribution: accuracy, negative log-likelihood and
// expected calibration error (ECE), from class probabilities and labels.
//
// The predictive code (predictive.hpp) turns any posterior into per-example class probabilities
// p_i (one row per example, C columns summing to 1; a Bernoulli-logit model gives the two
// columns (1 − p, p)); these functions score them against the labels y_i ∈ {0, …, C−1}:
//   accuracy  = (1/N) Σᵢ [argmax_c p_ic = yᵢ]      (ties go to the lowest class index)
//   NLL       = −(1/N) Σᵢ log p_{i,yᵢ}               (+∞ if a label has probability 0)
//   ECE       = Σ_b (n_b/N) |acc_b − conf_b|         (Guo et al. 2017, "On Calibration of
//               Modern Neural Networks", Eqn. 3)
// ECE binning: the confidence of example i is its top-class probability cᵢ = max_c p_ic;
// `bins` equal-width bins over [0, 1], bin b = [b/B, (b+1)/B) for b < B−1 and the last bin closed,
// [(B−1)/B, 1]; acc_b is the accuracy and conf_b the mean confidence of the n_b examples in bin
// b; empty bins contribute 0. With two classes the confidence is ≥ ½, so only the upper half of
// the bins is ever used (the binning is the multi-class one, for comparability).
// Functions and members that would not otherwise be templates are written `template <int = 0>`
// (called as usual), so that a program compiles their Eigen code only if it calls them
// (docs/architecture.md, "Compile time").
#pragma once

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Core>

namespace ngvi::vi {

struct ClassificationMetrics {
  double accuracy = 0.0;  // fraction of examples whose most probable class is the label
  double nll = 0.0;       // −mean log p(yᵢ), nats per example
  double ece = 0.0;       // expected calibration error, equal-width confidence bins
};

namespace detail {

// Throws std::invalid_argument unless `probabilities` (N×C, C ≥ 2, N ≥ 1) has finite entries in
// [0, 1] with rows summing to 1 (to 1e-9), and `labels` has N entries, each a class index.
template <int = 0>
void check_classification_inputs(const Eigen::MatrixXd& probabilities,
                                 const Eigen::VectorXd& labels, const char* who) {
  const std::string w = std::string("ngvi::vi::") + who;
  if (probabilities.rows() == 0) throw std::invalid_argument(w + ": no examples (0 rows)");
  if (probabilities.cols() < 2)
    throw std::invalid_argument(w + ": probabilities have " + std::to_string(probabilities.cols()) +
                                " columns, expected one per class (at least 2)");
  if (labels.size() != probabilities.rows())
    throw std::invalid_argument(w + ": " + std::to_string(labels.size()) + " labels for " +
                                std::to_string(probabilities.rows()) + " rows of probabilities");
  for (Eigen::Index i = 0; i < probabilities.rows(); ++i) {
    double sum = 0.0;
    for (Eigen::Index c = 0; c < probabilities.cols(); ++c) {
      const double p = probabilities(i, c);
      if (!(p >= 0.0 && p <= 1.0))
        throw std::invalid_argument(w + ": probability (" + std::to_string(i) + ", " +
                                    std::to_string(c) + ") = " + std::to_string(p) +
                                    " is not in [0, 1]");
      sum += p;
    }
    if (!(std::abs(sum - 1.0) <= 1e-9))
      throw std::invalid_argument(w + ": the probabilities of row " + std::to_string(i) +
                                  " sum to " + std::to_string(sum) + ", expected 1");
    const double y = labels(i);
    if (!(y >= 0.0 && y < static_cast<double>(probabilities.cols()) && y == std::floor(y)))
      throw std::invalid_argument(w + ": label " + std::to_string(i) + " is " + std::to_string(y) +
                                  ", expected a class index in 0.." +
                                  std::to_string(probabilities.cols() - 1));
  }
}

// argmax over row i, ties to the lowest index.
template <int = 0>
Eigen::Index predicted_class(const Eigen::MatrixXd& probabilities, Eigen::Index i) {
  Eigen::Index best = 0;
  for (Eigen::Index c = 1; c < probabilities.cols(); ++c)
    if (probabilities(i, c) > probabilities(i, best)) best = c;
  return best;
}

}  // namespace detail

// ECE with `bins` equal-width confidence bins (see the top of this file). Throws
// std::invalid_argument for bins < 1 or inputs failing the checks above. Cost: O(N·C + bins).
template <int = 0>
double expected_calibration_error(const Eigen::MatrixXd& probabilities,
                                  const Eigen::VectorXd& labels, int bins = 10) {
  detail::check_classification_inputs(probabilities, labels, "expected_calibration_error");
  if (bins < 1)
    throw std::invalid_argument("ngvi::vi::expected_calibration_error: bins must be >= 1, got " +
                                std::to_string(bins));
  std::vector<double> count(static_cast<std::size_t>(bins), 0.0), correct = count,
                                                                  confidence = count;
  for (Eigen::Index i = 0; i < probabilities.rows(); ++i) {
    const Eigen::Index c = detail::predicted_class(probabilities, i);
    const double conf = probabilities(i, c);
    const auto b =
        static_cast<std::size_t>(std::min(static_cast<int>(std::floor(conf * bins)), bins - 1));
    count[b] += 1.0;
    confidence[b] += conf;
    correct[b] += static_cast<double>(c) == labels(i) ? 1.0 : 0.0;
  }
  double ece = 0.0;
  for (std::size_t b = 0; b < count.size(); ++b)
    if (count[b] > 0.0) ece += std::abs(correct[b] - confidence[b]);  // n_b·|acc_b − conf_b|
  return ece / static_cast<double>(probabilities.rows());
}

// Accuracy, NLL and ECE (see the top of this file). Throws as expected_calibration_error.
// Cost: O(N·C + bins).
template <int = 0>
ClassificationMetrics classification_metrics(const Eigen::MatrixXd& probabilities,
                                             const Eigen::VectorXd& labels, int bins = 10) {
  ClassificationMetrics m;
  m.ece = expected_calibration_error(probabilities, labels, bins);
  const auto n = static_cast<double>(probabilities.rows());
  for (Eigen::Index i = 0; i < probabilities.rows(); ++i) {
    const auto y = static_cast<Eigen::Index>(labels(i));
    m.accuracy += detail::predicted_class(probabilities, i) == y ? 1.0 : 0.0;
    m.nll -= std::log(probabilities(i, y));
  }
  m.accuracy /= n;
  m.nll /= n;
  return m;
}

}  // namespace ngvi::vi
