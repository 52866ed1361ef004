// Tests of nn/parameters.hpp: named blocks, views for every scalar type, initialisers.
#include <cmath>
#include <random>
#include <string>

#include <Eigen/Core>
#include <boost/test/unit_test.hpp>

#include <autodiff/autodiff.hpp>
#include <nn/parameters.hpp>

BOOST_AUTO_TEST_SUITE(parameters_test)

using namespace ngvi;
using nn::Block;
using nn::ParameterLayout;

namespace {
ParameterLayout two_blocks() {
  ParameterLayout l;
  l.add("w", 2, 3);
  l.add("b", 2, 1);
  return l;
}
bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}
}  // namespace

BOOST_AUTO_TEST_CASE(blocks_are_laid_out_in_order) {
  const ParameterLayout l = two_blocks();
  BOOST_TEST(l.size() == 8);
  BOOST_TEST(l.blocks().size() == 2u);
  BOOST_TEST(l.block("w").offset == 0);
  BOOST_TEST(l.block("w").size() == 6);
  BOOST_TEST(l.block("b").offset == 6);
  BOOST_TEST(l.block("b").rows == 2);
  BOOST_TEST(l.block("b").cols == 1);
  BOOST_TEST(l.describe(4) == "w(1, 1)");
  BOOST_TEST(l.describe(7) == "b(1, 0)");
  BOOST_CHECK_THROW(l.describe(8), std::out_of_range);
}

BOOST_AUTO_TEST_CASE(missing_block_names_it_and_lists_the_known_ones) {
  const ParameterLayout l = two_blocks();
  try {
    (void)l.block("bias");
    BOOST_FAIL("no exception");
  } catch (const std::out_of_range& e) {
    const std::string msg = e.what();
    BOOST_TEST(contains(msg, "'bias'"), msg);
    BOOST_TEST(contains(msg, "w, b"), msg);
  }
}

BOOST_AUTO_TEST_CASE(duplicate_or_empty_names_are_rejected) {
  ParameterLayout l = two_blocks();
  BOOST_CHECK_THROW(l.add("w", 1, 1), std::invalid_argument);
  BOOST_CHECK_THROW(l.add("", 1, 1), std::invalid_argument);
  BOOST_CHECK_THROW(l.add("neg", -1, 1), std::invalid_argument);
  ParameterLayout m;
  m.add("s", 1, 1);
  l.append(m, "lik.");
  BOOST_TEST(l.block("lik.s").offset == 8);
}

BOOST_AUTO_TEST_CASE(views_are_row_major_and_write_through) {
  const ParameterLayout l = two_blocks();
  Eigen::VectorXd theta = Eigen::VectorXd::LinSpaced(8, 0.0, 7.0);
  auto W = nn::view(theta, l.block("w"));
  BOOST_TEST(W.rows() == 2);
  BOOST_TEST(W.cols() == 3);
  BOOST_TEST(W(0, 2) == 2.0);  // row-major: (0, 2) is entry 2
  BOOST_TEST(W(1, 0) == 3.0);
  W(1, 2) = -1.0;
  BOOST_TEST(theta(5) == -1.0);
  const Eigen::VectorXd& ct = theta;
  BOOST_TEST(nn::vector_view(ct, l.block("b"))(1) == 7.0);
  Eigen::VectorXd short_theta(4);
  BOOST_CHECK_THROW(nn::view(short_theta, l.block("b")), std::out_of_range);
}

BOOST_AUTO_TEST_CASE(views_work_for_var_scalars) {
  const ParameterLayout l = two_blocks();
  const Eigen::VectorXd x = Eigen::VectorXd::LinSpaced(8, 1.0, 8.0);
  // Σ over the bias block of the squares: gradient is 2·b on the bias, 0 elsewhere.
  auto f = [&](const auto& theta) {
    const auto b = nn::view(theta, l.block("b"));
    using T = typename std::decay_t<decltype(theta)>::Scalar;
    T s(0.0);
    for (Eigen::Index i = 0; i < b.rows(); ++i) s += b(i, 0) * b(i, 0);
    return s;
  };
  const Eigen::VectorXd g = ad::gradient(f, x);
  BOOST_TEST(g.head(6).cwiseAbs().maxCoeff() == 0.0);
  BOOST_TEST(g(6) == 14.0);
  BOOST_TEST(g(7) == 16.0);
  const Eigen::MatrixXd H = ad::hessian(f, x);
  BOOST_TEST(H(6, 6) == 2.0);
  BOOST_TEST(H(7, 7) == 2.0);
  BOOST_TEST(H.cwiseAbs().sum() == 4.0);
}

BOOST_AUTO_TEST_CASE(initialisers_respect_their_bounds_and_seeds) {
  ParameterLayout l;
  const Block& w = l.add("w", 200, 300);
  const Block& z = l.add("z", 3, 1);
  Eigen::VectorXd theta = Eigen::VectorXd::Constant(l.size(), 5.0);
  std::mt19937_64 rng(42);
  nn::init_glorot_uniform(theta, w, rng);
  nn::init_zeros(theta, l.block("z"));
  const double limit = std::sqrt(6.0 / 500.0);
  BOOST_TEST(nn::vector_view(theta, w).cwiseAbs().maxCoeff() <= limit);
  BOOST_TEST(nn::vector_view(theta, l.block("z")).cwiseAbs().maxCoeff() == 0.0);
  (void)z;
  // Same seed, same draws; the next draws differ.
  Eigen::VectorXd a = theta, b = theta;
  std::mt19937_64 r1(7), r2(7);
  nn::init_he_normal(a, w, r1);
  nn::init_he_normal(b, w, r2);
  BOOST_TEST((a - b).cwiseAbs().maxCoeff() == 0.0);
  nn::init_he_normal(b, w, r2);
  BOOST_TEST((a - b).cwiseAbs().maxCoeff() > 0.0);
}

// Sample moments of 60 000 draws: the standard error of the sample standard deviation is
// σ/sqrt(2n) ≈ 0.3 % of σ, so 2 % (6-7 standard errors) cannot fail by chance but does catch a
// wrong fan (a factor sqrt(2) or more).
BOOST_AUTO_TEST_CASE(normal_initialisers_have_the_documented_spread) {
  ParameterLayout l;
  const Block& w = l.add("w", 200, 300);
  const double n = static_cast<double>(w.size());
  Eigen::VectorXd theta(l.size());
  std::mt19937_64 rng(3);
  auto sd = [&] {
    const auto v = nn::vector_view(theta, w).array();
    return std::sqrt((v - v.mean()).square().sum() / n);
  };
  nn::init_he_normal(theta, w, rng);
  BOOST_TEST(std::abs(sd() / std::sqrt(2.0 / 300.0) - 1.0) < 0.02);
  nn::init_glorot_normal(theta, w, rng);
  BOOST_TEST(std::abs(sd() / std::sqrt(2.0 / 500.0) - 1.0) < 0.02);
  nn::init_normal(theta, w, rng, 0.5, 1.0);
  BOOST_TEST(std::abs(nn::vector_view(theta, w).mean() - 1.0) < 0.01);
  BOOST_TEST(std::abs(sd() / 0.5 - 1.0) < 0.02);
  nn::init_he_uniform(theta, w, rng);
  BOOST_TEST(nn::vector_view(theta, w).cwiseAbs().maxCoeff() <= std::sqrt(6.0 / 300.0));
  BOOST_TEST(std::abs(sd() / std::sqrt(2.0 / 300.0) - 1.0) < 0.02);  // U(±a) has sd a/sqrt(3)
  BOOST_CHECK_THROW(nn::init_normal(theta, w, rng, -1.0), std::invalid_argument);
}

// U(±1/sqrt(fan_in)) (PyTorch nn.Linear's default): every draw within the bound, mean 0 and sd
// limit/sqrt(3) by the sample moments of 60 000 draws (standard errors: mean ≈ 0.4 % of the limit,
// sd ≈ 0.3 % of σ, so the 2 % bounds cannot fail by chance but catch a wrong fan or a √3), the
// fan-in an argument (a bias block has one column); the float draws are the double draws rounded.
BOOST_AUTO_TEST_CASE(fan_in_uniform_has_the_documented_bound_and_moments) {
  ParameterLayout l;
  const Block& w = l.add("w", 200, 300);
  const double n = static_cast<double>(w.size());
  const double limit = 1.0 / std::sqrt(13.0);
  Eigen::VectorXd theta = Eigen::VectorXd::Constant(l.size(), 5.0);
  std::mt19937_64 rng(11);
  nn::init_fan_in_uniform(theta, w, rng, 13);
  const auto v = nn::vector_view(theta, w).array();
  BOOST_TEST(v.abs().maxCoeff() <= limit);
  BOOST_TEST(v.abs().maxCoeff() > 0.99 * limit);
  BOOST_TEST(std::abs(v.mean()) < 0.02 * limit);
  const double sd = std::sqrt((v - v.mean()).square().sum() / n);
  BOOST_TEST(std::abs(sd / (limit / std::sqrt(3.0)) - 1.0) < 0.02);
  // Generic in the scalar: the same seed gives a float θ the double draws, rounded.
  Eigen::VectorXf theta_f = Eigen::VectorXf::Zero(l.size());
  std::mt19937_64 rng_f(11);
  nn::init_fan_in_uniform(theta_f, w, rng_f, 13);
  BOOST_TEST((nn::vector_view(theta_f, w) - nn::vector_view(theta, w).cast<float>())
                 .cwiseAbs()
                 .maxCoeff() == 0.0f);
  BOOST_CHECK_THROW(nn::init_fan_in_uniform(theta, w, rng, 0), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
