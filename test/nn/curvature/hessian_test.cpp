// Tests of nn/curvature/hessian.hpp: the exact Hessian of Σᵢ ℓᵢ by forward-over-reverse on the
// whole sum, against the sum of per-example Hessians (another AD route), finite differences of
// AD gradients (verify::finite_diff_hessian), and for a linear-Gaussian model the closed form.
//
// Minibatch overloads (ExampleIndices): through batch_loss against the model built on
// data.subset(idx), against the example-by-example sum on idx and the hand-written model (no
// batch_loss: the generic sum), thread counts.
#include <Eigen/Eigenvalues>
#include <boost/test/unit_test.hpp>

#include <nn/curvature/hessian.hpp>
#include <nn/per_example.hpp>

#include <support/check_report.hpp>
#include <support/curvature_fixtures.hpp>
#include <support/minibatch.hpp>

BOOST_AUTO_TEST_SUITE(hessian_test)

namespace {

using namespace ngvi;
namespace tol = ad::verify::tolerances;
using ad::verify::compare;

// The per-example route adds N matrices in another order than the one-tape route; entries are
// sums of O(N) terms of order one, so allow a few ulps per term on top of ad_vs_ad.
constexpr ad::verify::Tolerance reordered_sum = tol::ad_vs_ad.scaled(10.0);

template <class Model>
auto total(const Model& m) {
  return [&m](const auto& th) {
    using T = typename std::decay_t<decltype(th)>::Scalar;
    T s(0.0);
    for (Eigen::Index i = 0; i < m.num_examples(); ++i) s = s + m.example_loss(th, i);
    return s;
  };
}

}  // namespace

BOOST_AUTO_TEST_CASE(total_hessian_equals_sum_of_example_hessians) {
  Eigen::VectorXd theta;
  const auto gauss = test::make_supervised({2, 4, 1}, nn::GaussianFixedNoise(2.0), 15, 1, &theta);
  const Eigen::MatrixXd H = nn::exact_hessian(gauss, theta);
  NGVI_CHECK_REPORT(compare(nn::exact_hessian_by_examples(gauss, theta), H, reordered_sum,
                            "Σ per-example Hessians vs Hessian of the sum (Gaussian MLP)"));
  std::vector<Eigen::MatrixXd> Hi;
  nn::per_example_hessians(gauss, theta, Hi);
  BOOST_TEST_REQUIRE(Hi.size() == 15u);
  Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(H.rows(), H.cols());
  for (const auto& h : Hi) sum += h;
  NGVI_CHECK_REPORT(
      compare(sum, H, reordered_sum, "Σ nn::per_example_hessians vs Hessian of the sum"));

  const auto softmax = test::make_supervised({2, 3, 3}, nn::SoftmaxCategorical(3), 12, 2, &theta);
  NGVI_CHECK_REPORT(compare(nn::exact_hessian_by_examples(softmax, theta),
                            nn::exact_hessian(softmax, theta), reordered_sum,
                            "Σ per-example Hessians vs Hessian of the sum (softmax MLP)"));
}

BOOST_AUTO_TEST_CASE(matches_finite_differences_of_ad_gradients) {
  Eigen::VectorXd theta;
  const auto m = test::make_supervised({2, 3, 1}, nn::BernoulliLogit(), 20, 3, &theta);
  const Eigen::MatrixXd H = nn::exact_hessian(m, theta);
  const Eigen::MatrixXd H_fd = ad::verify::finite_diff_hessian(total(m), theta);
  NGVI_CHECK_REPORT(compare(H, H_fd, tol::hessian_vs_fd,
                            "exact Hessian vs finite differences of AD gradients (Bernoulli MLP)"));
  // The loss of a tanh network is not convex: the test point must show negative curvature,
  // or this comparison would not exercise the second-derivative terms of the network.
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(H);
  BOOST_TEST(es.eigenvalues()(0) < 0.0);
}

BOOST_AUTO_TEST_CASE(value_and_gradient_outputs) {
  Eigen::VectorXd theta;
  const auto m = test::make_supervised({1, 3, 1}, nn::GaussianLearnedNoise(2.0), 10, 4, &theta);
  double value = 0.0;
  Eigen::VectorXd g;
  nn::exact_hessian(m, theta, {}, &value, &g);
  Eigen::VectorXd g_ref;
  const double v_ref = ad::value_and_gradient(total(m), theta, g_ref);
  NGVI_CHECK_REPORT(compare(value, v_ref, tol::ad_vs_ad, "value from exact_hessian"));
  NGVI_CHECK_REPORT(compare(g, g_ref, tol::ad_vs_ad, "gradient from exact_hessian"));
}

BOOST_AUTO_TEST_CASE(linear_gaussian_closed_form) {
  // f = w·x + b, ℓ = τ/2 (y − f)²: ∇²L = τ Σᵢ x̃ᵢx̃ᵢᵀ with x̃ = (x, 1) in the W-then-b layout.
  Eigen::VectorXd theta;
  const double tau = 3.0;
  const auto m = test::make_supervised({3, 1}, nn::GaussianFixedNoise(tau), 25, 5, &theta);
  Eigen::MatrixXd ref = Eigen::MatrixXd::Zero(4, 4);
  for (Eigen::Index i = 0; i < 25; ++i) {
    Eigen::VectorXd x(4);
    x << m.data().X.row(i).transpose(), 1.0;
    ref += tau * x * x.transpose();
  }
  BOOST_TEST_REQUIRE(m.num_params() == 4);
  NGVI_CHECK_REPORT(compare(nn::exact_hessian(m, theta), ref, tol::closed_form,
                            "Hessian of linear-Gaussian loss vs τ Σ x̃x̃ᵀ"));
}

BOOST_AUTO_TEST_CASE(diagonal_is_diagonal_of_full) {
  Eigen::VectorXd theta;
  const auto m = test::make_supervised({2, 3, 1}, nn::BernoulliLogit(), 10, 6, &theta);
  NGVI_CHECK_REPORT(compare(nn::exact_hessian_diagonal(m, theta),
                            Eigen::VectorXd(nn::exact_hessian(m, theta).diagonal()), tol::exact,
                            "exact_hessian_diagonal vs diag(exact_hessian)"));
}

BOOST_AUTO_TEST_CASE(bitwise_identical_for_any_thread_count) {
  Eigen::VectorXd theta;
  const auto m = test::make_supervised({2, 4, 2}, nn::HeteroscedasticGaussian(), 40, 7, &theta);
  const nn::CurvatureOptions one{.threads = 1, .grain = 1}, two{.threads = 2, .grain = 1},
      any{.threads = 0, .grain = 1};
  const Eigen::MatrixXd H1 = nn::exact_hessian_by_examples(m, theta, one);
  NGVI_CHECK_REPORT(compare(nn::exact_hessian_by_examples(m, theta, two), H1, tol::exact,
                            "2 threads vs 1 thread"));
  NGVI_CHECK_REPORT(compare(nn::exact_hessian_by_examples(m, theta, any), H1, tol::exact,
                            "automatic threads vs 1 thread"));
  // The whole-loss route, its 3 sweeps (P = 22) one per task, on 1, 2 and automatic threads:
  // the same bits, and the per-example sum to rounding; the minibatch form likewise.
  double value1 = 0.0;
  Eigen::VectorXd grad1;
  const Eigen::MatrixXd W1 = nn::exact_hessian(m, theta, one, &value1, &grad1);
  NGVI_CHECK_REPORT(compare(W1, H1, reordered_sum, "exact_hessian vs exact_hessian_by_examples"));
  const std::vector<Eigen::Index> idx = test::mixed_minibatch(40);
  const Eigen::MatrixXd B1 = nn::exact_hessian(m, theta, idx, one);
  for (const nn::CurvatureOptions& o : {two, any}) {
    BOOST_TEST_CONTEXT("threads " << o.threads) {
      double value = 0.0;
      Eigen::VectorXd grad;
      NGVI_CHECK_REPORT(compare(nn::exact_hessian(m, theta, o, &value, &grad), W1, tol::exact,
                                "exact_hessian vs 1 thread"));
      NGVI_CHECK_REPORT(compare(value, value1, tol::exact, "its value vs 1 thread"));
      NGVI_CHECK_REPORT(compare(grad, grad1, tol::exact, "its gradient vs 1 thread"));
      NGVI_CHECK_REPORT(compare(nn::exact_hessian(m, theta, idx, o), B1, tol::exact,
                                "exact_hessian(idx) vs 1 thread"));
    }
  }
}

BOOST_AUTO_TEST_CASE(wrong_theta_size_throws) {
  Eigen::VectorXd theta;
  const auto m = test::make_supervised({2, 1}, nn::GaussianFixedNoise(1.0), 5, 8, &theta);
  BOOST_CHECK_THROW(nn::exact_hessian(m, Eigen::VectorXd::Zero(2)), std::invalid_argument);
  BOOST_CHECK_THROW(nn::exact_hessian_by_examples(m, Eigen::VectorXd::Zero(4)),
                    std::invalid_argument);
  nn::CurvatureOptions bad;
  bad.reduction_blocks = 0;
  BOOST_CHECK_THROW(nn::exact_hessian_by_examples(m, theta, bad), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(minibatch_is_the_sum_over_idx) {
  Eigen::VectorXd theta;
  const auto m = test::make_supervised({2, 3, 1}, nn::BernoulliLogit(), 12, 71, &theta);
  const std::vector<Eigen::Index> idx = test::mixed_minibatch(12);
  const auto sub = test::subset_model(m, idx);
  double value = 0.0, value_sub = 0.0;
  Eigen::VectorXd grad, grad_sub;
  const Eigen::MatrixXd H = nn::exact_hessian(m, theta, idx, {}, &value, &grad);
  NGVI_CHECK_REPORT(compare(H, nn::exact_hessian(sub, theta, {}, &value_sub, &grad_sub),
                            reordered_sum, "exact_hessian(idx) vs the subset model"));
  NGVI_CHECK_REPORT(
      compare(value, value_sub, tol::ad_vs_ad, "Σ_idx ℓᵢ vs the subset model's loss"));
  NGVI_CHECK_REPORT(
      compare(grad, grad_sub, tol::ad_vs_ad, "∇ Σ_idx ℓᵢ vs the subset model's gradient"));
  const nn::CurvatureOptions one{.threads = 1, .grain = 3}, two{.threads = 2, .grain = 3};
  const Eigen::MatrixXd Hex = nn::exact_hessian_by_examples(m, theta, idx, one);
  NGVI_CHECK_REPORT(
      compare(H, Hex, reordered_sum, "exact_hessian(idx) vs exact_hessian_by_examples(idx)"));
  NGVI_CHECK_REPORT(compare(nn::exact_hessian_by_examples(m, theta, idx, two), Hex, tol::exact,
                            "exact_hessian_by_examples(idx), 2 vs 1 thread"));
  test::DenseModel<test::BernoulliLogit> hand{{2, 3, 1}, {}, {m.data().X, m.data().Y}};
  NGVI_CHECK_REPORT(
      compare(nn::exact_hessian(hand, theta, idx), H, reordered_sum,
              "exact_hessian(idx): hand-written model (Σ example_loss) vs batch_loss"));
  NGVI_CHECK_REPORT(compare(nn::exact_hessian_diagonal(m, theta, idx),
                            Eigen::VectorXd(H.diagonal()), tol::exact,
                            "exact_hessian_diagonal(idx) vs diag(exact_hessian(idx))"));
  test::check_rejects_bad_indices(
      [&](nn::ExampleIndices bad) { return nn::exact_hessian(m, theta, bad); }, 12,
      "exact_hessian");
  test::check_rejects_bad_indices(
      [&](nn::ExampleIndices bad) { return nn::exact_hessian_diagonal(m, theta, bad); }, 12,
      "exact_hessian");
  test::check_rejects_bad_indices(
      [&](nn::ExampleIndices bad) { return nn::exact_hessian_by_examples(m, theta, bad); }, 12,
      "exact_hessian_by_examples");
}

BOOST_AUTO_TEST_SUITE_END()
