// The 2-D logistic-regression problem: θ = (w, b) of the Dense(1, 1) layer, the model's loss and
// gradient equal the closed forms Σᵢ log(1 + e^{fᵢ}) − yᵢfᵢ with fᵢ = w xᵢ + b, labels are 0/1
// draws whose frequency follows the generating parameters, and the seed fixes the data.
#include <cmath>
#include <stdexcept>

#include <boost/test/unit_test.hpp>

#include <autodiff/functional/value_and_gradient.hpp>
#include <inference/problems.hpp>

#include <support/posterior_checks.hpp>

BOOST_AUTO_TEST_SUITE(logistic_regression_2d_test)

namespace vi = ngvi::vi;
namespace tol = ngvi::test::vi_tolerances;
using Eigen::VectorXd;
using ngvi::ad::verify::compare;

BOOST_AUTO_TEST_CASE(model_is_logistic_regression_in_w_and_b) {
  const auto p = vi::problems::make_logistic_regression_2d();
  BOOST_TEST(p.model.num_params() == 2);
  const VectorXd theta = (VectorXd(2) << 0.7, -0.3).finished();
  double loss = 0.0;
  VectorXd grad_ref = VectorXd::Zero(2);
  for (Eigen::Index i = 0; i < p.inputs.size(); ++i) {
    const double f = theta(0) * p.inputs(i) + theta(1);
    loss += std::log1p(std::exp(f)) - p.labels(i) * f;
    const double r = 1.0 / (1.0 + std::exp(-f)) - p.labels(i);
    grad_ref += r * (VectorXd(2) << p.inputs(i), 1.0).finished();
  }
  VectorXd grad;
  const double value = ngvi::ad::value_and_gradient(
      [&](const auto& th) { return p.model.total_loss(th); }, theta, grad);
  NGVI_CHECK_REPORT(compare(value, loss, tol::closed_form, "Σᵢℓᵢ vs Σ log(1 + e^f) − y f"));
  NGVI_CHECK_REPORT(compare(grad, grad_ref, tol::closed_form, "gradient vs Σ (σ(f) − y)(x, 1)"));
}

BOOST_AUTO_TEST_CASE(labels_follow_the_generating_model) {
  // Many examples: the number of ones is Binomial-like with mean Σσ(fᵢ) and variance Σσ(1−σ).
  const auto p = vi::problems::make_logistic_regression_2d({.examples = 4000, .seed = 2});
  double mean = 0.0, var = 0.0;
  for (Eigen::Index i = 0; i < p.inputs.size(); ++i) {
    BOOST_TEST((p.labels(i) == 0.0 || p.labels(i) == 1.0));
    const double s =
        1.0 / (1.0 + std::exp(-(p.true_parameters(0) * p.inputs(i) + p.true_parameters(1))));
    mean += s;
    var += s * (1.0 - s);
  }
  NGVI_CHECK_MC(p.labels.sum(), mean, std::sqrt(var));
}

BOOST_AUTO_TEST_CASE(same_seed_same_data_and_bad_options_throw) {
  const auto a = vi::problems::make_logistic_regression_2d({.seed = 4});
  const auto b = vi::problems::make_logistic_regression_2d({.seed = 4});
  BOOST_TEST((a.inputs == b.inputs && a.labels == b.labels));
  BOOST_CHECK_THROW(vi::problems::make_logistic_regression_2d({.examples = 0}),
                    std::invalid_argument);
  BOOST_CHECK_THROW(vi::problems::make_logistic_regression_2d({.prior_precision = -2.0}),
                    std::invalid_argument);
  BOOST_CHECK_THROW(vi::problems::make_logistic_regression_2d({.input_scale = 0.0}),
                    std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
