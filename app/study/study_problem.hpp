// study::Problem: a problem of the user's own for the study — their network (written with nn/'s
// layers, e.g. nn::Sequential::mlp({d, 16, 1}, nn::Tanh{})), their data split into training and
// test sets, and optionally an exact reference posterior — fitted by every method of the study
// and reported like the built-in problems by study::run (study_run.hpp).
//
// `ngvi study --csv FILE --target COLUMN` builds one from a table (csv_problem.hpp); a C++ user
// builds one with make_problem (see examples/study_problem.cpp). What the study can evaluate on a
// user's problem depends on what is known about it:
//   * every method's fit, test metrics, ELBO (Monte Carlo; exact for a linear-Gaussian model, by
//     quadrature for a logistic GLM), fit health and running curvature against the exact Hessian;
//   * the curvature study along the MAP run (the exact Hessian against the GGN, the empirical,
//     MC Fisher and K-FAC), for P ≤ curvature_parameter_limit;
//   * an HMC (NUTS) reference posterior and the methods' scores against it when P·N ≤
//     hmc_work_limit and no exact posterior is given;
//   * the checks and findings against an exact posterior or VI optimum when they are given, or
//     computed in closed form (a model linear in θ with the Gaussian likelihood) or by quadrature
//     (the Gaussian VI optimum of a logistic GLM).
// The findings that cannot be evaluated are listed with the reason (finding_coverage.hpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>
#include <app/methods/network_model.hpp>
#include <app/study/problem_setup.hpp>
#include <app/study/study_records.hpp>
#include <fmt/format.h>

#include <inference/random.hpp>
#include <nn/dataset.hpp>

namespace ngvi::app::study {

// The curvature study computes exact P×P Hessians (at every history row of every fit, and with
// four approximations and their spectra along the MAP run): up to this many parameters, i.e.
// 8 MB per matrix, and about P gradient passes over the training set per Hessian. A problem with
// more parameters is refused (std::invalid_argument), not run without its curvature analyses:
// the fits' measuring code (run_method.hpp) computes them unconditionally.
inline constexpr Eigen::Index curvature_parameter_limit = 1000;

// Up to this many parameters the full-covariance methods (VON, VOGN with the GGN) run; beyond it
// their P×P work per step (a minibatch Hessian and a Cholesky factorisation) is left out and the
// report says so.
inline constexpr Eigen::Index full_covariance_parameter_limit = 500;

// HMC runs when P·N (parameters × training examples, the cost of one gradient) is at most this:
// two moons (P = 65, N = 200, P·N = 13 000) takes about 20 s of one core per seed for 4 × 1300
// NUTS transitions of about 80 gradients each (app/study/README.md); the budget grows with P·N.
inline constexpr Eigen::Index hmc_work_limit = 20000;

struct Problem {
  // Key in results.json and in file names: letters, digits, '_' and '-', not empty.
  std::string name;
  std::string title;        // the report's heading; empty: the name
  std::string description;  // one line: the data and the network
  // The training and the test model: the same network and likelihood, over the training and
  // the test data (inputs as the network sees them). Likelihoods: nn::GaussianFixedNoise
  // (regression, one output) or nn::BernoulliLogit (binary classification, labels 0 and 1).
  std::shared_ptr<const NetworkModel> train, test;
  // Regression: the targets' standardisation, y = y_model·scale + mean, so that the test metrics
  // are in original units; identity for a classification.
  nn::Standardizer targets = nn::Standardizer::identity(1);
  double prior_precision = 1.0;  // δ of the prior N(0, δ⁻¹I)
  // Passes over the training set (quick_epochs with --quick) in minibatches of `minibatch`
  // (0: full batch).
  Eigen::Index epochs = 200;
  Eigen::Index quick_epochs = 20;
  Eigen::Index minibatch = 32;
  // The methods' step sizes (problem_setup.hpp); network_steps(), linear_gaussian_steps() and
  // logistic_glm_steps() are the study's choices for each kind of model.
  StepSizes steps{};
  // An exact posterior (mean and marginal sd; mean_field_sd if known): the study then checks VON
  // and VOGN against it. For a model linear in θ with the Gaussian likelihood the study computes
  // it in closed form when it is not given.
  std::optional<ReferencePosterior> reference;
  // The Gaussian VI optimum, full and mean-field, if known: the Monte-Carlo-error and noisy
  // K-FAC findings are then decided against it. Computed when not given for a model linear in θ
  // (closed form with the Gaussian likelihood, quadrature with the Bernoulli-logit).
  std::optional<GaussianOptimum> vi_optimum;
  // Inputs (rows, as the network sees them) where each method's predictive is compared with the
  // HMC reference's; empty: the first (up to) 10 test inputs.
  Eigen::MatrixXd evaluation_points{};
};

// The study's step sizes for a network trained in minibatches: the regression networks' (the
// natural-gradient steps decayed, a small IVON step), with noisy Adam's larger step that two
// moons needs for a classification.
inline StepSizes network_steps(bool classification) {
  StepSizes s;
  s.natural_decay = 0.005;
  s.ivon = 0.01;
  if (classification) s.noisy_adam = 1e-2;
  return s;
}

// The conjugate problem's: full batch, expectations at the mean (exact for a quadratic loss), so
// that VON and VOGN (GGN) iterate to the exact posterior.
inline StepSizes linear_gaussian_steps() {
  StepSizes s;
  s.natural = 0.8;
  s.natural_mc_samples = 0;
  s.adam = 0.05;
  s.ivon = 0.2;
  s.kfac = 0.2;
  s.kfac_beta = 0.2;
  return s;
}

// The 2-D logistic problem's.
inline StepSizes logistic_glm_steps() {
  StepSizes s;
  s.natural = 0.3;
  s.noisy_adam = 1e-2;
  s.adam = 0.05;
  s.kfac = 0.2;
  s.kfac_beta = 0.2;
  return s;
}

// A model whose network is one dense layer: f = Wx + b is linear in θ.
inline bool linear_in_parameters(const NetworkModel& model) {
  return model.net().layers().size() == 1;
}

// The rows of a data set split into training and test rows, `test_fraction` of them (rounded,
// at least one) held out, chosen by a Fisher–Yates shuffle from vi::Rng(seed): the same split for
// the same seed on every platform. Each part in increasing row order.
struct RowSplit {
  std::vector<Eigen::Index> train, test;
};

// At least this many training rows, and this many test rows, after a split.
inline constexpr Eigen::Index min_training_rows = 10;
inline constexpr Eigen::Index min_test_rows = 2;

// Throws std::invalid_argument for a fraction outside (0, 1) or too few rows on either side.
// Cost: O(rows).
inline RowSplit split_rows(Eigen::Index rows, double test_fraction, std::uint64_t seed) {
  if (!(test_fraction > 0.0 && test_fraction < 1.0))
    throw std::invalid_argument(fmt::format(
        "ngvi::app::study::split_rows: test_fraction must lie in (0, 1), got {}", test_fraction));
  const auto n_test = std::max<Eigen::Index>(
      1, static_cast<Eigen::Index>(std::lround(test_fraction * static_cast<double>(rows))));
  if (rows - n_test < min_training_rows || n_test < min_test_rows)
    throw std::invalid_argument(fmt::format(
        "ngvi::app::study::split_rows: {} rows with test_fraction {} leave {} training and {} "
        "test rows; the study needs at least {} and {}",
        rows, test_fraction, rows - n_test, n_test, min_training_rows, min_test_rows));
  std::vector<Eigen::Index> order(static_cast<std::size_t>(rows));
  for (Eigen::Index i = 0; i < rows; ++i) order[static_cast<std::size_t>(i)] = i;
  vi::Rng rng(seed);
  for (std::size_t i = order.size() - 1; i > 0; --i)
    std::swap(order[i], order[vi::uniform_index(rng, i + 1)]);
  RowSplit s;
  s.test.assign(order.begin(), order.begin() + n_test);
  s.train.assign(order.begin() + n_test, order.end());
  std::sort(s.test.begin(), s.test.end());
  std::sort(s.train.begin(), s.train.end());
  return s;
}

// The rows `rows` of `d`. Cost: a copy of them.
inline nn::Dataset take_rows(const nn::Dataset& d, const std::vector<Eigen::Index>& rows) {
  nn::Dataset out{Eigen::MatrixXd(static_cast<Eigen::Index>(rows.size()), d.X.cols()),
                  Eigen::MatrixXd(static_cast<Eigen::Index>(rows.size()), d.Y.cols())};
  for (std::size_t k = 0; k < rows.size(); ++k) {
    out.X.row(static_cast<Eigen::Index>(k)) = d.X.row(rows[k]);
    out.Y.row(static_cast<Eigen::Index>(k)) = d.Y.row(rows[k]);
  }
  return out;
}

// A Problem from raw training and test data (inputs and targets in original units) as `ngvi
// fit` prepares them: the inputs standardised with the training set's mean and sd (the test set
// with the same statistics), a regression's targets too (the test metrics are reported in
// original units); a classification's labels as they are. The epochs, minibatch and steps are
// the study's for `net` (network_steps, or linear_gaussian_steps / logistic_glm_steps and full
// batch for a single dense layer). Throws std::invalid_argument for a likelihood the study does
// not support, data that do not fit the network, or a training column with no spread.
// Cost: O(rows·columns).
inline Problem make_problem(std::string name, const nn::Sequential& net,
                            const NetworkLikelihood& likelihood, const nn::Dataset& train,
                            const nn::Dataset& test) {
  const std::string who = "ngvi::app::study::make_problem";
  const bool classification = likelihood.holds<nn::BernoulliLogit>();
  if (!classification && !likelihood.holds<nn::GaussianFixedNoise>())
    throw std::invalid_argument(
        who + ": the study supports the GaussianFixedNoise and BernoulliLogit likelihoods, not " +
        std::string(likelihood.held_name()));
  if (train.X.cols() != net.input_dim() || test.X.cols() != net.input_dim() ||
      train.Y.cols() != 1 || test.Y.cols() != 1 || net.output_dim() != 1)
    throw std::invalid_argument(fmt::format(
        "{}: the network maps {} inputs to {} outputs; the training data have {} input and {} "
        "target columns, the test data {} and {} (one target column is needed)",
        who, net.input_dim(), net.output_dim(), train.X.cols(), train.Y.cols(), test.X.cols(),
        test.Y.cols()));
  if (train.X.rows() == 0 || test.X.rows() == 0)
    throw std::invalid_argument(fmt::format("{}: {} training and {} test rows; both need some", who,
                                            train.X.rows(), test.X.rows()));
  for (Eigen::Index c = 0; c < train.X.cols(); ++c)
    if ((train.X.col(c).array() == train.X(0, c)).all())
      throw std::invalid_argument(
          fmt::format("{}: input column {} is constant ({}) over the {} training rows", who, c + 1,
                      train.X(0, c), train.X.rows()));
  if ((train.Y.array() == train.Y(0, 0)).all())
    throw std::invalid_argument(
        fmt::format("{}: the target is constant ({}) over the {} training rows", who, train.Y(0, 0),
                    train.Y.rows()));
  const nn::Standardizer inputs = nn::Standardizer::fit(train.X);
  Problem p;
  p.name = std::move(name);
  p.targets = classification ? nn::Standardizer::identity(1) : nn::Standardizer::fit(train.Y);
  p.train = std::make_shared<const NetworkModel>(
      net, likelihood, nn::Dataset{inputs.transform(train.X), p.targets.transform(train.Y)});
  p.test = std::make_shared<const NetworkModel>(
      net, likelihood, nn::Dataset{inputs.transform(test.X), p.targets.transform(test.Y)});
  if (linear_in_parameters(*p.train)) {
    p.minibatch = 0;
    p.epochs = classification ? 300 : 400;
    p.quick_epochs = classification ? 80 : 200;
    p.steps = classification ? logistic_glm_steps() : linear_gaussian_steps();
  } else {
    p.steps = network_steps(classification);
  }
  p.description = fmt::format("N = {} training and {} test examples; {}; {}", train.X.rows(),
                              test.X.rows(), net.describe(), likelihood.held_name());
  return p;
}

}  // namespace ngvi::app::study
