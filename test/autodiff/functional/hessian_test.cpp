// Tests of autodiff/functional/hessian.hpp: exact Hessians by forward-over-reverse in blocks
// of K directions, against closed forms (Rosenbrock, a quadratic form, which must come out
// exact to rounding), against finite differences of the AD gradient and the hvp columns
// (check_hessian); blocking: K = 1, 3 (not a divisor of n: a partial last block) and the
// default 8 agree; the value and gradient outputs; constant functions and n = 0; and the
// regression of pow(x, y) at y = 0, whose cross partial 1/x used to be lost; and repeated
// Hessians at two K of a model on matrix variables, which must reuse the tapes' memory (an
// inlined Tape::rewind was miscompiled by GCC 12 at -O3 into an ever-growing arena); the sweeps
// on threads (ParallelOptions) give the calling thread's bits for any thread count and grain,
// whatever the calling thread's tape holds, and a bad thread count or a throwing function is
// reported, not lost.
#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <Eigen/Core>
#include <boost/test/unit_test.hpp>

#include <autodiff/core/active_tape.hpp>
#include <autodiff/core/var.hpp>
#include <autodiff/eigen/elementwise.hpp>
#include <autodiff/eigen/matrix_var_operators.hpp>
#include <autodiff/eigen/num_traits.hpp>
#include <autodiff/eigen/reductions.hpp>
#include <autodiff/expr/functions.hpp>
#include <autodiff/expr/operators.hpp>
#include <autodiff/functional/hessian.hpp>
#include <autodiff/functional/value_and_gradient.hpp>
#include <autodiff/verify/check.hpp>
#include <autodiff/verify/test_problems.hpp>

#include <support/check_bitwise.hpp>
#include <support/check_report.hpp>
#include <support/position_independence.hpp>

BOOST_AUTO_TEST_SUITE(hessian_test)
namespace {

namespace vf = ngvi::ad::verify;
namespace tol = ngvi::ad::verify::tolerances;

using ngvi::ad::verify::problems::Rosenbrock;

Eigen::VectorXd test_point(Eigen::Index n) {
  Eigen::VectorXd x(n);
  for (Eigen::Index i = 0; i < n; ++i) x(i) = 0.9 * std::cos(0.7 * static_cast<double>(i) + 0.3);
  return x;
}

// ½‖tanh(X W) v − y‖² with W (3×4) and v (4) packed in θ (16), on matrix variables.
struct MatrixMlpLoss {
  Eigen::MatrixXd X;
  Eigen::VectorXd y;
  template <class Theta>
  auto operator()(const Theta& theta) const {
    using S = typename Theta::Scalar;
    const auto W = ngvi::ad::as_matrix(Eigen::Map<const Eigen::Matrix<S, 3, 4>>(theta.data()));
    const auto v = ngvi::ad::as_matrix(theta.tail(4));
    return S(0.5 * ngvi::ad::squared_norm(ngvi::ad::tanh(X * W) * v - y));
  }
};

// MatrixMlpLoss on six fixed rows.
MatrixMlpLoss six_row_mlp_loss() {
  MatrixMlpLoss f{Eigen::MatrixXd(6, 3), Eigen::VectorXd(6)};
  for (Eigen::Index i = 0; i < 6; ++i) {
    for (Eigen::Index j = 0; j < 3; ++j)
      f.X(i, j) = std::sin(1.3 * static_cast<double>(i) - 0.7 * static_cast<double>(j));
    f.y(i) = 0.2 * static_cast<double>(i) - 0.5;
  }
  return f;
}

// Hessians of f at x in rounds, K = 4 and K = 8 alternating: every round gives the same bits,
// and after the first round neither Dual tape allocates.
void check_repeated_hessians(const MatrixMlpLoss& f, const Eigen::VectorXd& x) {
  using ngvi::ad::Dual;
  const Eigen::MatrixXd H4 = ngvi::ad::hessian<4>(f, x);
  const Eigen::MatrixXd H8 = ngvi::ad::hessian<8>(f, x);
  const auto& tape4 = ngvi::ad::active_tape<Dual<double, 4>>();
  const auto& tape8 = ngvi::ad::active_tape<Dual<double, 8>>();
  const std::size_t allocs4 = tape4.allocation_count(), allocs8 = tape8.allocation_count();
  for (int round = 0; round < 5; ++round) {
    BOOST_TEST_CONTEXT("round " << round) {
      NGVI_CHECK_REPORT(vf::compare(ngvi::ad::hessian<4>(f, x), H4, tol::exact, "K = 4 again"));
      NGVI_CHECK_REPORT(vf::compare(ngvi::ad::hessian<8>(f, x), H8, tol::exact, "K = 8 again"));
      BOOST_TEST(tape4.allocation_count() == allocs4);
      BOOST_TEST(tape8.allocation_count() == allocs8);
    }
  }
  NGVI_CHECK_REPORT(vf::compare(H4, H8, tol::ad_vs_ad, "K = 4 vs K = 8"));
  NGVI_CHECK_REPORT(vf::check_hessian(f, x));
}

}  // namespace

BOOST_AUTO_TEST_CASE(rosenbrock_matches_the_closed_form) {
  for (Eigen::Index n : {2, 5, 10, 17}) {
    BOOST_TEST_CONTEXT("n = " << n) {
      const Eigen::VectorXd x = test_point(n);
      double value = 0.0;
      Eigen::VectorXd grad;
      const Eigen::MatrixXd H = ngvi::ad::hessian(Rosenbrock{}, x, &value, &grad);
      NGVI_CHECK_REPORT(
          vf::compare(H, Rosenbrock::hessian(x), tol::closed_form, "Hessian vs closed form"));
      NGVI_CHECK_REPORT(vf::compare(value, Rosenbrock{}(x), tol::ad_vs_ad, "value output"));
      NGVI_CHECK_REPORT(
          vf::compare(grad, ngvi::ad::gradient(Rosenbrock{}, x), tol::ad_vs_ad, "gradient output"));
    }
  }
}

BOOST_AUTO_TEST_CASE(block_size_does_not_change_the_result) {
  // n = 10: K = 1 (ten sweeps), K = 3 (three full blocks and a block of one), K = 8 (one
  // full block and a block of two).
  const Eigen::VectorXd x = test_point(10);
  const Eigen::MatrixXd H8 = ngvi::ad::hessian<8>(Rosenbrock{}, x);
  NGVI_CHECK_REPORT(
      vf::compare(ngvi::ad::hessian<1>(Rosenbrock{}, x), H8, tol::ad_vs_ad, "K = 1 vs K = 8"));
  NGVI_CHECK_REPORT(
      vf::compare(ngvi::ad::hessian<3>(Rosenbrock{}, x), H8, tol::ad_vs_ad, "K = 3 vs K = 8"));
  NGVI_CHECK_REPORT(vf::compare(H8, H8.transpose(), tol::exact, "symmetric"));
}

BOOST_AUTO_TEST_CASE(quadratic_form_is_exact) {
  // f = ½ xᵀAx with a non-symmetric integer A: H = ½(A + Aᵀ) exactly (all partials are
  // sums of integers times ½).
  Eigen::Matrix4d A;
  A << 4, -1, 2, 0, 3, 5, -2, 1, 0, 1, 6, -3, 2, 0, 1, 7;
  auto f = [&A](const auto& x) {
    using S = std::decay_t<decltype(x(0))>;
    S s = 0.0;
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) s += 0.5 * A(i, j) * x(i) * x(j);
    return s;
  };
  const Eigen::Vector4d x(0.5, -1.25, 2.0, 0.75);
  NGVI_CHECK_REPORT(vf::compare(ngvi::ad::hessian(f, x), (0.5 * (A + A.transpose())).eval(),
                                tol::exact, "Hessian of a quadratic form"));
}

BOOST_AUTO_TEST_CASE(agrees_with_finite_differences_and_hvp_columns) {
  auto f = [](const auto& x) {
    using std::atan2;
    using std::exp;
    using std::log;
    using std::sin;
    using S = std::decay_t<decltype(x(0))>;
    return S(exp(0.3 * x(0)) * sin(x(1) * x(2)) + log(1.0 + x(3) * x(3)) * x(0) +
             atan2(x(2), x(3)));
  };
  for (const Eigen::Vector4d& x :
       {Eigen::Vector4d(0.2, -0.7, 1.1, 0.5), Eigen::Vector4d(-1.5, 2.0, 0.3, -0.9)})
    NGVI_CHECK_REPORT(vf::check_hessian(f, x));
  NGVI_CHECK_REPORT(vf::check_hessian(Rosenbrock{}, test_point(9)));
}

BOOST_AUTO_TEST_CASE(pow_cross_partial_at_a_zero_exponent) {
  // ∂²(x^y)/∂x∂y = x^{y−1}(1 + y log x) = 1/x at y = 0 (it used to come out as 0 on one
  // side, so the symmetrised result was 1/(2x)).
  auto f = [](const auto& x) {
    using std::pow;
    using S = std::decay_t<decltype(x(0))>;
    return S(pow(x(0), x(1)));
  };
  const Eigen::Vector2d x(2.5, 0.0);
  Eigen::Matrix2d exact;
  const double l = std::log(2.5);
  exact << 0.0, 1.0 / 2.5, 1.0 / 2.5, l * l;
  NGVI_CHECK_REPORT(
      vf::compare(ngvi::ad::hessian(f, x), exact, tol::closed_form, "Hessian of x^y at y = 0"));
  NGVI_CHECK_REPORT(vf::check_hessian(f, x));
}

BOOST_AUTO_TEST_CASE(constant_functions_and_empty_inputs) {
  auto constant = [](const auto& x) {
    using S = typename std::decay_t<decltype(x)>::Scalar;
    return S(3.0);
  };
  double value = 0.0;
  Eigen::VectorXd grad;
  const Eigen::MatrixXd H = ngvi::ad::hessian(constant, Eigen::Vector3d(1, 2, 3), &value, &grad);
  BOOST_TEST(value == 3.0);
  NGVI_CHECK_REPORT(vf::compare(H, Eigen::Matrix3d::Zero(), tol::exact, "Hessian of a constant"));
  NGVI_CHECK_REPORT(
      vf::compare(grad, Eigen::Vector3d::Zero(), tol::exact, "gradient of a constant"));
  const Eigen::MatrixXd H0 = ngvi::ad::hessian(constant, Eigen::VectorXd(0), &value);
  BOOST_TEST(H0.rows() == 0);
  BOOST_TEST(H0.cols() == 0);
  BOOST_TEST(value == 3.0);
  // Linear functions: zero Hessian, exactly.
  auto linear = [](const auto& x) {
    using S = std::decay_t<decltype(x(0))>;
    return S(2.0 * x(0) - 3.0 * x(1) + x(2));
  };
  NGVI_CHECK_REPORT(vf::compare(ngvi::ad::hessian(linear, Eigen::Vector3d(1, 2, 3)),
                                Eigen::Matrix3d::Zero(), tol::exact,
                                "Hessian of a linear function"));
}

BOOST_AUTO_TEST_CASE(repeated_hessians_at_two_block_sizes_reuse_the_tapes) {
  check_repeated_hessians(six_row_mlp_loss(), test_point(16));
}

BOOST_AUTO_TEST_CASE(sweeps_on_threads_give_the_calling_threads_bits) {
  // n = 16 at K = 3: six sweeps, the last of one column. Grains of 1 and 3 columns give a
  // sweep per task, 7 three sweeps per task (blocks of 3 + 3), 100 all in one task.
  using D = ngvi::ad::Dual<double, 3>;
  const MatrixMlpLoss f = six_row_mlp_loss();
  const Eigen::VectorXd x = test_point(16);
  double value = 0.0;
  Eigen::VectorXd grad;
  const Eigen::MatrixXd H = ngvi::ad::hessian<3>(f, x, &value, &grad);
  NGVI_CHECK_REPORT(vf::check_hessian(f, x));
  NGVI_CHECK_REPORT(vf::compare(H, ngvi::ad::hessian<8>(f, x), tol::ad_vs_ad, "K = 3 vs K = 8"));
  for (const int threads : {0, 1, 2, 3}) {
    for (const Eigen::Index grain : {1, 3, 7, 100}) {
      for (const bool open_recording : {false, true}) {
        BOOST_TEST_CONTEXT("threads " << threads << ", grain " << grain
                                      << (open_recording ? ", after an open recording" : "")) {
          // The calling thread's blocks then start after a 13-wide tanh node on its
          // Tape<Dual<double, 3>>; the workers' tapes are wherever their last use left them.
          ngvi::ad::TapeScope<D> outer;
          if (open_recording)
            ngvi::test::record_prefix<D>({ngvi::test::TapePrefix::Kind::elementwise, 13});
          double value_t = 0.0;
          Eigen::VectorXd grad_t;
          const Eigen::MatrixXd H_t =
              ngvi::ad::hessian<3>(f, x, {.threads = threads, .grain = grain}, &value_t, &grad_t);
          NGVI_CHECK_BITWISE(H_t, H, "Hessian");
          NGVI_CHECK_BITWISE(value_t, value, "value");
          NGVI_CHECK_BITWISE(grad_t, grad, "gradient");
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(sweeps_on_threads_report_errors) {
  const Eigen::VectorXd x = test_point(16);
  const ngvi::ad::ParallelOptions negative{.threads = -1};
  BOOST_CHECK_EXCEPTION(ngvi::ad::hessian(Rosenbrock{}, x, negative), std::invalid_argument,
                        [](const std::invalid_argument& e) {
                          const std::string m = e.what();
                          return m.find("parallel_blocks") != std::string::npos &&
                                 m.find("threads = -1") != std::string::npos;
                        });
  // A function that throws from the worker threads' sweeps: the exception reaches the caller.
  auto throwing = [](const auto& v) -> std::decay_t<decltype(v(0))> {
    if (v(0) < 10.0) throw std::domain_error("hessian_test: thrown from f");
    return v(0);
  };
  BOOST_CHECK_THROW(ngvi::ad::hessian<1>(throwing, x, {.threads = 2, .grain = 1}),
                    std::domain_error);
}

BOOST_AUTO_TEST_SUITE_END()
