// Tests of nn/curvature/ggn.hpp: the generalized Gauss-Newton Σᵢ Jᵢᵀ H_L,i Jᵢ.
//
// Independent routes: for a model linear in θ the GGN is the exact Hessian (forward-over-
// reverse on the whole loss) and has a closed form; the full matrix (reverse-mode Jacobians)
// against the matrix-free product (forward tangents + one reverse sweep); against the
// hand-written DenseModel (scalar code, no fused nodes) at the same θ; diagonal against full.
//
// Minibatch overloads (ExampleIndices): against the model built on data.subset(idx), the
// hand-written model (generic route) on the same idx, the matrix-free product, thread counts.
//
// The column-restricted sum (K-FAC's S factor), which the batched route builds from the δs
// without forming Jᵢ, against the same entries of the full sum.
#include <Eigen/Eigenvalues>
#include <boost/test/unit_test.hpp>

#include <nn/curvature/detail/jacobian_sandwich.hpp>
#include <nn/curvature/ggn.hpp>
#include <nn/curvature/hessian.hpp>
#include <nn/curvature/output_jacobians.hpp>

#include <support/check_report.hpp>
#include <support/curvature_fixtures.hpp>
#include <support/curvature_routes.hpp>
#include <support/minibatch.hpp>

BOOST_AUTO_TEST_SUITE(ggn_test)

namespace {

using namespace ngvi;
namespace tol = ad::verify::tolerances;
using ad::verify::compare;

// The GGN and the Hessian sum the same per-example terms in different orders and through
// different kernels (Jacobian products vs dual sweeps): allow a few ulps per term of the sum.
constexpr ad::verify::Tolerance reordered_sum = tol::ad_vs_ad.scaled(10.0);

Eigen::VectorXd augmented(const Eigen::MatrixXd& X, Eigen::Index i) {
  Eigen::VectorXd x(X.cols() + 1);
  x << X.row(i).transpose(), 1.0;
  return x;
}

}  // namespace

BOOST_AUTO_TEST_CASE(equals_hessian_for_linear_gaussian) {
  Eigen::VectorXd theta;
  const double tau = 2.5;
  const auto m = test::make_supervised({3, 1}, nn::GaussianFixedNoise(tau), 30, 11, &theta);
  const Eigen::MatrixXd G = nn::ggn(m, theta);
  NGVI_CHECK_REPORT(compare(G, nn::exact_hessian(m, theta), reordered_sum,
                            "GGN vs exact Hessian, linear model, Gaussian likelihood"));
  Eigen::MatrixXd ref = Eigen::MatrixXd::Zero(4, 4);
  for (Eigen::Index i = 0; i < 30; ++i) {
    const Eigen::VectorXd x = augmented(m.data().X, i);
    ref += tau * x * x.transpose();
  }
  NGVI_CHECK_REPORT(compare(G, ref, tol::closed_form, "GGN vs τ Σ x̃x̃ᵀ"));
}

BOOST_AUTO_TEST_CASE(equals_hessian_for_linear_bernoulli_logit) {
  Eigen::VectorXd theta;
  const auto m = test::make_supervised({3, 1}, nn::BernoulliLogit(), 40, 12, &theta);
  const Eigen::MatrixXd G = nn::ggn(m, theta);
  NGVI_CHECK_REPORT(compare(G, nn::exact_hessian(m, theta), reordered_sum,
                            "GGN vs exact Hessian, linear model, Bernoulli-logit likelihood"));
  Eigen::MatrixXd ref = Eigen::MatrixXd::Zero(4, 4);
  for (Eigen::Index i = 0; i < 40; ++i) {
    const Eigen::VectorXd x = augmented(m.data().X, i);
    const double p = 1.0 / (1.0 + std::exp(-theta.head(3).dot(m.data().X.row(i)) - theta(3)));
    ref += p * (1.0 - p) * x * x.transpose();
  }
  NGVI_CHECK_REPORT(compare(G, ref, tol::closed_form, "GGN vs Σ p(1−p) x̃x̃ᵀ"));
}

BOOST_AUTO_TEST_CASE(equals_hessian_for_linear_softmax) {
  Eigen::VectorXd theta;
  const auto m = test::make_supervised({2, 3}, nn::SoftmaxCategorical(3), 25, 13, &theta);
  NGVI_CHECK_REPORT(compare(nn::ggn(m, theta), nn::exact_hessian(m, theta), reordered_sum,
                            "GGN vs exact Hessian, linear model, softmax likelihood"));
}

BOOST_AUTO_TEST_CASE(differs_from_hessian_for_an_mlp) {
  // The linear-model identities above are only informative if the GGN is not the Hessian in
  // general: for a tanh network it drops Σ (∂ℓ/∂f) ∇²f, which is far from zero here.
  Eigen::VectorXd theta;
  const auto m = test::make_supervised({2, 4, 1}, nn::BernoulliLogit(), 30, 14, &theta);
  const Eigen::MatrixXd G = nn::ggn(m, theta);
  const Eigen::MatrixXd H = nn::exact_hessian(m, theta);
  BOOST_TEST((G - H).norm() / H.norm() > 0.05);
  // The GGN is PSD (H_L = p(1−p) ≥ 0); the Hessian here is not.
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eg(G), eh(H);
  BOOST_TEST(eg.eigenvalues()(0) > -1e-12 * eg.eigenvalues().cwiseAbs().maxCoeff());
  BOOST_TEST(eh.eigenvalues()(0) < 0.0);
}

BOOST_AUTO_TEST_CASE(columns_equal_matrix_free_products) {
  Eigen::VectorXd theta;
  const auto gauss =
      test::make_supervised({2, 3, 2}, nn::GaussianFixedNoise(1.5, 2), 12, 15, &theta);
  Eigen::MatrixXd G = nn::ggn(gauss, theta);
  Eigen::MatrixXd cols(G.rows(), G.cols());
  for (Eigen::Index j = 0; j < G.cols(); ++j)
    cols.col(j) = nn::ggn_vector_product(gauss, theta, Eigen::VectorXd::Unit(G.cols(), j));
  NGVI_CHECK_REPORT(
      compare(cols, G, reordered_sum, "G·e_j vs column j of G (Gaussian, 2 outputs)"));

  const auto soft = test::make_supervised({2, 3, 3}, nn::SoftmaxCategorical(3), 12, 16, &theta);
  G = nn::ggn(soft, theta);
  std::mt19937_64 rng(99);
  std::normal_distribution<double> z(0.0, 1.0);
  Eigen::VectorXd v(G.cols());
  for (Eigen::Index p = 0; p < v.size(); ++p) v(p) = z(rng);
  NGVI_CHECK_REPORT(compare(nn::ggn_vector_product(soft, theta, v), Eigen::VectorXd(G * v),
                            reordered_sum.scaled(10.0), "G·v matrix-free vs G·v (softmax)"));
}

BOOST_AUTO_TEST_CASE(matches_hand_written_model) {
  // Same architecture, likelihood, data and θ layout, written as plain scalar code.
  Eigen::VectorXd theta;
  const auto m = test::make_supervised({2, 3, 1}, nn::BernoulliLogit(), 20, 17, &theta);
  test::DenseModel<test::BernoulliLogit> ref{{2, 3, 1}, {}, {m.data().X, m.data().Y}};
  BOOST_TEST_REQUIRE(ref.num_params() == m.num_params());
  NGVI_CHECK_REPORT(compare(nn::ggn(m, theta), nn::ggn(ref, theta), reordered_sum,
                            "GGN of nn::Supervised vs GGN of the hand-written model"));
  NGVI_CHECK_REPORT(compare(nn::exact_hessian(m, theta), nn::exact_hessian(ref, theta),
                            reordered_sum,
                            "Hessian of nn::Supervised vs Hessian of the hand-written model"));
}

BOOST_AUTO_TEST_CASE(fisher_output_curvature_for_heteroscedastic_gaussian) {
  // ∂²ℓ/∂f² of the heteroscedastic Gaussian is indefinite when y ≠ μ, so the textbook GGN is
  // not PSD; the output-Fisher variant is, and equals Σ Jᵀ F_L J built by hand.
  Eigen::VectorXd theta;
  const auto m = test::make_supervised({2, 3, 2}, nn::HeteroscedasticGaussian(), 25, 18, &theta);
  nn::GgnOptions fisher;
  fisher.output_curvature = nn::OutputCurvature::fisher;
  const Eigen::MatrixXd GF = nn::ggn(m, theta, fisher);
  Eigen::MatrixXd ref = Eigen::MatrixXd::Zero(GF.rows(), GF.cols());
  for (Eigen::Index i = 0; i < m.num_examples(); ++i) {
    Eigen::VectorXd f;
    const Eigen::MatrixXd J = nn::example_output_jacobian(m, theta, i, &f);
    ref += J.transpose() * m.likelihood().output_fisher(f) * J;
  }
  NGVI_CHECK_REPORT(compare(GF, ref, reordered_sum, "GGN with output Fisher vs Σ Jᵀ F_L J"));
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> ef(GF), eh(nn::ggn(m, theta));
  BOOST_TEST(ef.eigenvalues()(0) > -1e-12 * ef.eigenvalues().cwiseAbs().maxCoeff());
  BOOST_TEST(eh.eigenvalues()(0) < -1e-6 * eh.eigenvalues().cwiseAbs().maxCoeff());
}

BOOST_AUTO_TEST_CASE(diagonal_is_diagonal_of_full) {
  Eigen::VectorXd theta;
  const auto m = test::make_supervised({2, 3, 3}, nn::SoftmaxCategorical(3), 15, 19, &theta);
  NGVI_CHECK_REPORT(compare(nn::ggn_diagonal(m, theta),
                            Eigen::VectorXd(nn::ggn(m, theta).diagonal()), reordered_sum,
                            "ggn_diagonal vs diag(ggn)"));
}

BOOST_AUTO_TEST_CASE(bitwise_identical_for_any_thread_count) {
  Eigen::VectorXd theta;
  const auto m = test::make_supervised({2, 4, 1}, nn::GaussianFixedNoise(1.0), 50, 20, &theta);
  const nn::GgnOptions one{.threads = 1, .grain = 1}, two{.threads = 2, .grain = 1};
  const Eigen::VectorXd v = Eigen::VectorXd::LinSpaced(theta.size(), -1.0, 1.0);
  NGVI_CHECK_REPORT(
      compare(nn::ggn(m, theta, two), nn::ggn(m, theta, one), tol::exact, "ggn 2 vs 1 thread"));
  NGVI_CHECK_REPORT(compare(nn::ggn_diagonal(m, theta, two), nn::ggn_diagonal(m, theta, one),
                            tol::exact, "ggn_diagonal 2 vs 1 thread"));
  NGVI_CHECK_REPORT(compare(nn::ggn_vector_product(m, theta, v, two),
                            nn::ggn_vector_product(m, theta, v, one), tol::exact,
                            "ggn_vector_product 2 vs 1 thread"));
}

BOOST_AUTO_TEST_CASE(bad_arguments_throw) {
  Eigen::VectorXd theta;
  const auto m = test::make_supervised({2, 1}, nn::GaussianFixedNoise(1.0), 5, 21, &theta);
  BOOST_CHECK_THROW(nn::ggn(m, Eigen::VectorXd::Zero(2)), std::invalid_argument);
  BOOST_CHECK_THROW(nn::ggn_vector_product(m, theta, Eigen::VectorXd::Zero(2)),
                    std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(minibatch_is_the_sum_over_idx) {
  Eigen::VectorXd theta;
  const auto m = test::make_supervised({2, 4, 3}, nn::SoftmaxCategorical(3), 14, 22, &theta);
  const std::vector<Eigen::Index> idx = test::mixed_minibatch(14);
  const auto sub = test::subset_model(m, idx);
  const nn::GgnOptions one{.threads = 1, .grain = 3}, two{.threads = 2, .grain = 3};
  const Eigen::MatrixXd G = nn::ggn(m, theta, idx, one);
  NGVI_CHECK_REPORT(
      compare(G, nn::ggn(sub, theta, one), reordered_sum, "ggn(idx) vs ggn of the subset model"));
  NGVI_CHECK_REPORT(compare(nn::ggn_diagonal(m, theta, idx, one), nn::ggn_diagonal(sub, theta, one),
                            reordered_sum,
                            "ggn_diagonal(idx) vs ggn_diagonal of the subset model"));
  // The hand-written model has no batched route: generic per-example Jacobians on idx.
  test::DenseModel<test::SoftmaxCategorical> ref{{2, 4, 3}, {3}, {m.data().X, m.data().Y}};
  NGVI_CHECK_REPORT(compare(G, nn::ggn(ref, theta, idx, one), reordered_sum,
                            "ggn(idx): batched route vs hand-written model (generic route)"));
  const Eigen::VectorXd v = Eigen::VectorXd::LinSpaced(theta.size(), -1.0, 2.0);
  NGVI_CHECK_REPORT(compare(nn::ggn_vector_product(m, theta, idx, v, one), Eigen::VectorXd(G * v),
                            reordered_sum.scaled(10.0), "ggn_vector_product(idx) vs ggn(idx)·v"));
  NGVI_CHECK_REPORT(compare(nn::ggn(m, theta, idx, two), G, tol::exact, "ggn(idx), 2 vs 1 thread"));
  NGVI_CHECK_REPORT(compare(nn::ggn_diagonal(m, theta, idx, two),
                            nn::ggn_diagonal(m, theta, idx, one), tol::exact,
                            "ggn_diagonal(idx), 2 vs 1 thread"));
  NGVI_CHECK_REPORT(compare(nn::ggn_vector_product(m, theta, idx, v, two),
                            nn::ggn_vector_product(m, theta, idx, v, one), tol::exact,
                            "ggn_vector_product(idx), 2 vs 1 thread"));
}

BOOST_AUTO_TEST_CASE(minibatch_bad_indices_throw) {
  Eigen::VectorXd theta;
  const auto m = test::make_supervised({2, 1}, nn::GaussianFixedNoise(1.0), 5, 23, &theta);
  const Eigen::VectorXd v = Eigen::VectorXd::Ones(theta.size());
  test::check_rejects_bad_indices([&](nn::ExampleIndices idx) { return nn::ggn(m, theta, idx); }, 5,
                                  "ggn");
  test::check_rejects_bad_indices(
      [&](nn::ExampleIndices idx) { return nn::ggn_diagonal(m, theta, idx); }, 5, "ggn_diagonal");
  test::check_rejects_bad_indices(
      [&](nn::ExampleIndices idx) { return nn::ggn_vector_product(m, theta, idx, v); }, 5,
      "ggn_vector_product");
}

// The batched route (Supervised<Sequential>: one forward pass and m sweeps per block, the
// diagonal from squared δs without Jᵢ) against the generic route on the same model
// (test::GenericRoute: one recording per example), full and diagonal, all N and a minibatch;
// the same bits for 1, 2 and 3 threads. 37 examples in blocks of 3: 13 blocks.
template <class Model>
void check_ggn_routes(const Model& m, const Eigen::VectorXd& theta, const std::string& what) {
  const auto options = [](int threads) { return nn::GgnOptions{.threads = threads, .grain = 3}; };
  test::check_batched_route(m, what + ", full",
                            [&](const auto& model, nn::ExampleIndices idx, int t) {
                              return idx.empty() ? nn::ggn(model, theta, options(t))
                                                 : nn::ggn(model, theta, idx, options(t));
                            });
  test::check_batched_route(m, what + ", diagonal",
                            [&](const auto& model, nn::ExampleIndices idx, int t) {
                              return idx.empty() ? nn::ggn_diagonal(model, theta, options(t))
                                                 : nn::ggn_diagonal(model, theta, idx, options(t));
                            });
  const std::vector<Eigen::Index> idx = test::mixed_minibatch(m.num_examples());
  NGVI_CHECK_REPORT(compare(nn::ggn_diagonal(m, theta, idx, options(1)),
                            Eigen::VectorXd(nn::ggn(m, theta, idx, options(1)).diagonal()),
                            test::curvature_routes::batched_vs_generic,
                            what + ": batched diagonal on idx vs the full matrix's"));
}

BOOST_AUTO_TEST_CASE(batched_route_matches_generic_route) {
  test::for_each_route_model(71, [](const auto& m, const Eigen::VectorXd& theta,
                                    const std::string& what) { check_ggn_routes(m, theta, what); });
}

BOOST_AUTO_TEST_CASE(column_restricted_sums_from_the_deltas_equal_the_full_sums_entries) {
  // Every kind of column: weights and biases of both layers (out of order, one repeated) and
  // the likelihood's own parameter; the output matrix a fixed SPD M of the model's output size.
  Eigen::VectorXd theta;
  const auto m = test::make_supervised({3, 4, 2}, nn::GaussianLearnedNoise(2.0, 2), 29, 23, &theta);
  const Eigen::Index P = theta.size(), out = m.output_dim();
  const Eigen::MatrixXd A =
      Eigen::MatrixXd::NullaryExpr(out, out, [](Eigen::Index r, Eigen::Index c) {
        return std::cos(1.7 * static_cast<double>(r) + 0.4 * static_cast<double>(c));
      });
  const Eigen::MatrixXd M = A * A.transpose() + Eigen::MatrixXd::Identity(out, out);
  const auto output_matrix = [&](const Eigen::VectorXd&, Eigen::Index) { return M; };
  const std::vector<Eigen::Index> idx = nn::all_examples(m.data().X.rows());
  const std::vector<Eigen::Index> columns = {P - 1, 14, 0, 5, 12, 13, 16, 25, 19, 14};
  const nn::CurvatureOptions options{.threads = 1};
  const Eigen::MatrixXd all = nn::detail::jacobian_sandwich_sum(
      m, theta, idx, options, nn::detail::SandwichShape::full, output_matrix);
  BOOST_REQUIRE(all.rows() == P);
  const Eigen::MatrixXd some = nn::detail::jacobian_sandwich_sum(
      m, theta, idx, options, nn::detail::SandwichShape::full, output_matrix, columns);
  const Eigen::MatrixXd some_diagonal = nn::detail::jacobian_sandwich_sum(
      m, theta, idx, options, nn::detail::SandwichShape::diagonal, output_matrix, columns);
  const auto C = static_cast<Eigen::Index>(columns.size());
  Eigen::MatrixXd expected(C, C);
  for (Eigen::Index a = 0; a < C; ++a)
    for (Eigen::Index b = 0; b < C; ++b)
      expected(a, b) =
          all(columns[static_cast<std::size_t>(a)], columns[static_cast<std::size_t>(b)]);
  NGVI_CHECK_REPORT(compare(some, expected, tol::ad_vs_ad,
                            "restricted sum (from the δs) vs the full sum's entries"));
  NGVI_CHECK_REPORT(compare(Eigen::VectorXd(some_diagonal.col(0)),
                            Eigen::VectorXd(expected.diagonal()), tol::ad_vs_ad,
                            "restricted diagonal vs the full sum's diagonal entries"));
}

BOOST_AUTO_TEST_SUITE_END()
