// Tests of nn/curvature/empirical_fisher.hpp: the per-example gradients it is built from
// (BackPACK-style: their sum is the batch gradient, each row is the gradient of ℓᵢ taken on its
// own, and the matrix does not depend on the thread count) and Σᵢ gᵢgᵢᵀ against a plain loop
// and, for a linear-Gaussian model, the closed form τ² Σ rᵢ² x̃ᵢx̃ᵢᵀ.
//
// Minibatch overloads (ExampleIndices): against Σ over idx of outer products of the all-N
// per-example gradients, the model built on data.subset(idx), the hand-written model, threads.
#include <boost/test/unit_test.hpp>

#include <nn/curvature/empirical_fisher.hpp>

#include <support/check_report.hpp>
#include <support/curvature_fixtures.hpp>
#include <support/curvature_routes.hpp>
#include <support/minibatch.hpp>

BOOST_AUTO_TEST_SUITE(empirical_fisher_test)

namespace {

using namespace ngvi;
namespace tol = ad::verify::tolerances;
using ad::verify::compare;

constexpr ad::verify::Tolerance reordered_sum = tol::ad_vs_ad.scaled(10.0);

}  // namespace

BOOST_AUTO_TEST_CASE(rows_sum_to_the_batch_gradient) {
  Eigen::VectorXd theta;
  const auto m = test::make_supervised({3, 5, 2}, nn::GaussianFixedNoise(0.5, 2), 37, 31, &theta);
  Eigen::VectorXd losses;
  const ad::RowMatrixXd G = nn::example_gradients(m, theta, {}, &losses);
  BOOST_TEST_REQUIRE(G.rows() == 37);
  BOOST_TEST_REQUIRE(G.cols() == m.num_params());
  // The batch gradient through the batched (whole-matrix) forward pass: another code path.
  Eigen::VectorXd g_batch;
  const double L =
      ad::value_and_gradient([&](const auto& th) { return m.total_loss(th); }, theta, g_batch);
  NGVI_CHECK_REPORT(compare(Eigen::VectorXd(G.colwise().sum().transpose()), g_batch, reordered_sum,
                            "Σ rows of per-example gradients vs batch gradient"));
  NGVI_CHECK_REPORT(compare(losses.sum(), L, reordered_sum, "Σ per-example losses vs batch loss"));
}

BOOST_AUTO_TEST_CASE(rows_equal_one_at_a_time_gradients) {
  Eigen::VectorXd theta;
  const auto m = test::make_supervised({2, 4, 3}, nn::SoftmaxCategorical(3), 21, 32, &theta);
  const ad::RowMatrixXd G = nn::example_gradients(m, theta);
  for (Eigen::Index i = 0; i < m.num_examples(); ++i) {
    const Eigen::VectorXd gi =
        ad::gradient([&](const auto& th) { return m.example_loss(th, i); }, theta);
    NGVI_CHECK_REPORT(compare(Eigen::VectorXd(G.row(i).transpose()), gi, tol::ad_vs_ad,
                              "batched row " + std::to_string(i) + " vs gradient of ℓᵢ alone"));
  }
}

BOOST_AUTO_TEST_CASE(gradients_bitwise_identical_for_any_thread_count) {
  Eigen::VectorXd theta;
  const auto m = test::make_supervised({2, 4, 1}, nn::BernoulliLogit(), 45, 33, &theta);
  const ad::RowMatrixXd G1 = nn::example_gradients(m, theta, {1, 1});
  NGVI_CHECK_REPORT(
      compare(nn::example_gradients(m, theta, {2, 1}), G1, tol::exact, "2 threads vs 1"));
  NGVI_CHECK_REPORT(
      compare(nn::example_gradients(m, theta, {0, 1}), G1, tol::exact, "auto threads vs 1"));
  NGVI_CHECK_REPORT(compare(nn::empirical_fisher(m, theta, {2, 1}),
                            nn::empirical_fisher(m, theta, {1, 1}), tol::exact,
                            "empirical Fisher, 2 threads vs 1"));
}

BOOST_AUTO_TEST_CASE(equals_sum_of_outer_products) {
  Eigen::VectorXd theta;
  const auto m = test::make_supervised({2, 3, 1}, nn::BernoulliLogit(), 25, 34, &theta);
  Eigen::MatrixXd ref = Eigen::MatrixXd::Zero(m.num_params(), m.num_params());
  for (Eigen::Index i = 0; i < m.num_examples(); ++i) {
    const Eigen::VectorXd gi =
        ad::gradient([&](const auto& th) { return m.example_loss(th, i); }, theta);
    ref += gi * gi.transpose();
  }
  const Eigen::MatrixXd F = nn::empirical_fisher(m, theta);
  NGVI_CHECK_REPORT(compare(F, ref, reordered_sum, "empirical Fisher vs Σ gᵢgᵢᵀ by a loop"));
  NGVI_CHECK_REPORT(compare(F, Eigen::MatrixXd(F.transpose()), tol::exact, "symmetry"));
  NGVI_CHECK_REPORT(compare(nn::empirical_fisher_diagonal(m, theta), Eigen::VectorXd(F.diagonal()),
                            reordered_sum, "diagonal vs diag(full)"));
}

BOOST_AUTO_TEST_CASE(linear_gaussian_closed_form) {
  // gᵢ = τ (fᵢ − yᵢ) x̃ᵢ, so Σ gᵢgᵢᵀ = τ² Σ rᵢ² x̃ᵢx̃ᵢᵀ.
  Eigen::VectorXd theta;
  const double tau = 1.7;
  const auto m = test::make_supervised({3, 1}, nn::GaussianFixedNoise(tau), 20, 35, &theta);
  Eigen::MatrixXd ref = Eigen::MatrixXd::Zero(4, 4);
  for (Eigen::Index i = 0; i < 20; ++i) {
    Eigen::VectorXd x(4);
    x << m.data().X.row(i).transpose(), 1.0;
    const double r = x.dot(theta) - m.data().Y(i, 0);
    ref += tau * tau * r * r * x * x.transpose();
  }
  NGVI_CHECK_REPORT(compare(nn::empirical_fisher(m, theta), ref, tol::closed_form,
                            "empirical Fisher vs τ² Σ r² x̃x̃ᵀ"));
}

BOOST_AUTO_TEST_CASE(minibatch_is_the_sum_over_idx) {
  Eigen::VectorXd theta;
  const auto m = test::make_supervised({3, 4, 1}, nn::BernoulliLogit(), 13, 41, &theta);
  const std::vector<Eigen::Index> idx = test::mixed_minibatch(13);
  const nn::CurvatureOptions one{.threads = 1, .grain = 3}, two{.threads = 2, .grain = 3};
  const Eigen::MatrixXd F = nn::empirical_fisher(m, theta, idx, one);
  const ad::RowMatrixXd G = nn::example_gradients(m, theta, one);
  Eigen::MatrixXd ref = Eigen::MatrixXd::Zero(theta.size(), theta.size());
  Eigen::VectorXd dref = Eigen::VectorXd::Zero(theta.size());
  for (const Eigen::Index i : idx) {
    ref += G.row(i).transpose() * G.row(i);
    dref += G.row(i).transpose().cwiseAbs2();
  }
  NGVI_CHECK_REPORT(
      compare(F, ref, reordered_sum, "empirical_fisher(idx) vs Σ_idx gᵢgᵢᵀ of all-N gradients"));
  NGVI_CHECK_REPORT(compare(nn::empirical_fisher_diagonal(m, theta, idx, one), dref, reordered_sum,
                            "empirical_fisher_diagonal(idx) vs Σ_idx gᵢ²"));
  NGVI_CHECK_REPORT(compare(F, nn::empirical_fisher(test::subset_model(m, idx), theta, one),
                            reordered_sum, "empirical_fisher(idx) vs the subset model"));
  test::DenseModel<test::BernoulliLogit> hand{{3, 4, 1}, {}, {m.data().X, m.data().Y}};
  NGVI_CHECK_REPORT(
      compare(F, nn::empirical_fisher(hand, theta, idx, one), reordered_sum,
              "empirical_fisher(idx): batched route vs hand-written model (generic route)"));
  NGVI_CHECK_REPORT(compare(nn::empirical_fisher(m, theta, idx, two), F, tol::exact,
                            "empirical_fisher(idx), 2 vs 1 thread"));
  NGVI_CHECK_REPORT(compare(nn::empirical_fisher_diagonal(m, theta, idx, two),
                            nn::empirical_fisher_diagonal(m, theta, idx, one), tol::exact,
                            "empirical_fisher_diagonal(idx), 2 vs 1 thread"));
  test::check_rejects_bad_indices(
      [&](nn::ExampleIndices bad) { return nn::empirical_fisher(m, theta, bad); }, 13,
      "empirical_fisher");
  test::check_rejects_bad_indices(
      [&](nn::ExampleIndices bad) { return nn::empirical_fisher_diagonal(m, theta, bad); }, 13,
      "empirical_fisher_diagonal");
}

// The batched route (blocks of per-example gradients from one batched sweep; the diagonal as
// (D∘D)ᵀ(A∘A) without them) against the generic one on the same model (test::GenericRoute);
// the same bits for 1, 2 and 3 threads. 37 examples in blocks of 3.
template <class Model>
void check_ef_routes(const Model& m, const Eigen::VectorXd& theta, const std::string& what) {
  test::check_batched_route(m, what + ", full",
                            [&](const auto& model, nn::ExampleIndices idx, int t) {
                              const nn::CurvatureOptions o{.threads = t, .grain = 3};
                              return idx.empty() ? nn::empirical_fisher(model, theta, o)
                                                 : nn::empirical_fisher(model, theta, idx, o);
                            });
  test::check_batched_route(
      m, what + ", diagonal", [&](const auto& model, nn::ExampleIndices idx, int t) {
        const nn::CurvatureOptions o{.threads = t, .grain = 3};
        return idx.empty() ? nn::empirical_fisher_diagonal(model, theta, o)
                           : nn::empirical_fisher_diagonal(model, theta, idx, o);
      });
}

BOOST_AUTO_TEST_CASE(batched_route_matches_generic_route) {
  test::for_each_route_model(91, [](const auto& m, const Eigen::VectorXd& theta,
                                    const std::string& what) { check_ef_routes(m, theta, what); });
}

BOOST_AUTO_TEST_SUITE_END()
