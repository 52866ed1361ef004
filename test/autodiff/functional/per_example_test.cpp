// Tests of autodiff/functional/per_example.hpp: the rows of per_example_gradients sum to the
// gradient of the total loss and each equals the gradient of its own term; results are
// bitwise identical for 1, 2 and 7 threads and any block size; per_example_hessians match
// hessian() of each term; a negative thread count is rejected with a message.
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include <autodiff/autodiff.hpp>
#include <autodiff/verify/check.hpp>

#include <support/check_report.hpp>

BOOST_AUTO_TEST_SUITE(per_example_test)
namespace {

namespace ad = ngvi::ad;
namespace vf = ngvi::ad::verify;
namespace tol = ngvi::ad::verify::tolerances;

// Logistic regression terms ℓᵢ(θ) = log(1 + exp(zᵢ)) − yᵢzᵢ plus a nonlinear twist.
struct Terms {
  Eigen::MatrixXd X;
  Eigen::VectorXd y;
  Terms() : X(203, 4), y(203) {
    for (Eigen::Index i = 0; i < X.size(); ++i)
      X(i) = std::sin(0.37 * static_cast<double>(i) + 1.0);
    for (Eigen::Index i = 0; i < y.size(); ++i) y(i) = (i % 3 == 0) ? 1.0 : 0.0;
  }
  template <class V>
  auto operator()(const V& theta, Eigen::Index i) const {
    using T = typename V::Scalar;
    using std::sin;
    T z = theta(4);
    for (Eigen::Index j = 0; j < 4; ++j) z += theta(j) * X(i, j);
    return T(ad::log1p_exp(z) - y(i) * z + 0.1 * sin(theta(0) * theta(1)));
  }
};

Eigen::VectorXd theta0() {
  Eigen::VectorXd t(5);
  t << 0.2, -0.4, 0.7, 0.1, -0.3;
  return t;
}

}  // namespace

BOOST_AUTO_TEST_CASE(rows_sum_to_the_batch_gradient_and_match_one_at_a_time) {
  const Terms terms;
  ad::RowMatrixXd G;
  Eigen::VectorXd losses;
  ad::per_example_gradients(terms, theta0(), terms.X.rows(), G, {}, &losses);
  auto total = [&](const auto& th) {
    using T = typename std::decay_t<decltype(th)>::Scalar;
    T s = 0.0;
    for (Eigen::Index i = 0; i < terms.X.rows(); ++i) s += terms(th, i);
    return s;
  };
  NGVI_CHECK_REPORT(vf::compare(G.colwise().sum().transpose().eval(), ad::gradient(total, theta0()),
                                tol::ad_vs_ad, "Σ rows vs batch gradient"));
  for (Eigen::Index i : {0, 17, 202}) {
    auto one = [&](const auto& th) { return terms(th, i); };
    Eigen::VectorXd g;
    const double v = ad::value_and_gradient(one, theta0(), g);
    NGVI_CHECK_REPORT(
        vf::compare(G.row(i).transpose().eval(), g, tol::exact, "row vs its own gradient"));
    NGVI_CHECK_REPORT(vf::compare(losses(i), v, tol::exact, "loss of the example"));
  }
}

BOOST_AUTO_TEST_CASE(bitwise_identical_for_any_thread_count) {
  const Terms terms;
  ad::RowMatrixXd G1, G2, G7, G7b;
  ad::per_example_gradients(terms, theta0(), terms.X.rows(), G1, {1, 16});
  ad::per_example_gradients(terms, theta0(), terms.X.rows(), G2, {2, 16});
  ad::per_example_gradients(terms, theta0(), terms.X.rows(), G7, {7, 16});
  ad::per_example_gradients(terms, theta0(), terms.X.rows(), G7b, {7, 3});
  NGVI_CHECK_REPORT(vf::compare(G2, G1, tol::exact, "2 threads vs 1"));
  NGVI_CHECK_REPORT(vf::compare(G7, G1, tol::exact, "7 threads vs 1"));
  NGVI_CHECK_REPORT(vf::compare(G7b, G1, tol::exact, "7 threads, blocks of 3, vs 1"));
}

BOOST_AUTO_TEST_CASE(per_example_hessians_match_hessian_of_each_term) {
  const Terms terms;
  std::vector<Eigen::MatrixXd> H;
  ad::per_example_hessians(terms, theta0(), 9, H, {2, 2});
  BOOST_TEST_REQUIRE(H.size() == 9u);
  for (Eigen::Index i = 0; i < 9; ++i) {
    auto one = [&](const auto& th) { return terms(th, i); };
    NGVI_CHECK_REPORT(vf::compare(H[static_cast<std::size_t>(i)], ad::hessian(one, theta0()),
                                  tol::exact, "per-example Hessian vs hessian()"));
  }
  auto one = [&](const auto& th) { return terms(th, 4); };
  NGVI_CHECK_REPORT(vf::check_hessian(one, theta0()));
}

BOOST_AUTO_TEST_CASE(negative_thread_count_is_rejected) {
  const Terms terms;
  ad::RowMatrixXd G;
  BOOST_CHECK_EXCEPTION(ad::per_example_gradients(terms, theta0(), 10, G, {-1, 4}),
                        std::invalid_argument, [](const std::invalid_argument& e) {
                          const std::string what = e.what();
                          return what.find("ngvi::ad::parallel_blocks") != std::string::npos &&
                                 what.find("threads = -1") != std::string::npos;
                        });
}

BOOST_AUTO_TEST_CASE(blocks_on_a_kept_arena_cover_every_index_once_in_fixed_blocks) {
  // The same thread count twice (the second call runs on the kept arena) and another count:
  // each index visited exactly once, by the block [⌊i/grain⌋·grain, …) that contains it.
  for (int threads : {3, 3, 2}) {
    const Eigen::Index n = 101, grain = 7;
    std::vector<int> visits(static_cast<std::size_t>(n), 0);
    std::vector<Eigen::Index> block_of(static_cast<std::size_t>(n), -1);
    ad::parallel_blocks(n, {threads, grain}, [&](Eigen::Index begin, Eigen::Index end) {
      for (Eigen::Index i = begin; i < end; ++i) {
        ++visits[static_cast<std::size_t>(i)];
        block_of[static_cast<std::size_t>(i)] = begin;
      }
    });
    for (Eigen::Index i = 0; i < n; ++i) {
      BOOST_TEST(visits[static_cast<std::size_t>(i)] == 1);
      BOOST_TEST(block_of[static_cast<std::size_t>(i)] == i / grain * grain);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
