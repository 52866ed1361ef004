// Tests of autodiff/functional/recording.hpp: the recording protocol against closed forms and
// finite differences — the gradient from inputs + backward + adjoints, Hessian columns from
// inputs with tangents on Tape<Dual>, adjoints of lifted constants, the seeded sums Σ ys(k) and
// Σ w_k ys(k) (vector-Jacobian products), constants, a loop that rewinds to just after the
// inputs (the same bits as a fresh recording), the tape given back when the recording ends,
// and the argument checks.
#include <cmath>
#include <stdexcept>
#include <string>

#include <Eigen/Core>
#include <boost/test/unit_test.hpp>

#include <autodiff/core/active_tape.hpp>
#include <autodiff/core/dual.hpp>
#include <autodiff/core/var.hpp>
#include <autodiff/eigen/elementwise.hpp>
#include <autodiff/eigen/matrix_var.hpp>
#include <autodiff/eigen/num_traits.hpp>
#include <autodiff/expr/functions.hpp>
#include <autodiff/expr/operators.hpp>
#include <autodiff/functional/recording.hpp>
#include <autodiff/verify/compare.hpp>
#include <autodiff/verify/finite_diff.hpp>
#include <autodiff/verify/tolerances.hpp>

#include <support/check_report.hpp>

BOOST_AUTO_TEST_SUITE(recording_test)
namespace {

namespace ad = ngvi::ad;
namespace vf = ngvi::ad::verify;
namespace tol = ngvi::ad::verify::tolerances;

// f(x) = x₀x₁² + sin(x₂) + e^{x₀x₂}.
struct F {
  template <class X>
  auto operator()(const X& x) const {
    using std::exp;
    using std::sin;
    return x(0) * x(1) * x(1) + sin(x(2)) + exp(x(0) * x(2));
  }
  static Eigen::VectorXd grad(const Eigen::VectorXd& x) {
    const double e = std::exp(x(0) * x(2));
    return Eigen::Vector3d(x(1) * x(1) + x(2) * e, 2.0 * x(0) * x(1), std::cos(x(2)) + x(0) * e);
  }
  static Eigen::MatrixXd hess(const Eigen::VectorXd& x) {
    const double e = std::exp(x(0) * x(2));
    Eigen::Matrix3d H;
    H << x(2) * x(2) * e, 2.0 * x(1), e + x(0) * x(2) * e,  //
        2.0 * x(1), 2.0 * x(0), 0.0,                        //
        e + x(0) * x(2) * e, 0.0, -std::sin(x(2)) + x(0) * x(0) * e;
    return H;
  }
};

Eigen::VectorXd point() { return Eigen::Vector3d(0.7, -1.3, 0.4); }

using RowMatrixXd = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

}  // namespace

BOOST_AUTO_TEST_CASE(inputs_backward_and_adjoints_give_the_gradient) {
  const Eigen::VectorXd x = point();
  ad::Recording<double> rec;
  const ad::VarVector<double> xv = rec.inputs(x);
  const ad::Var<double> y = F{}(xv);
  BOOST_TEST(y.value() == F{}(x));
  BOOST_TEST_REQUIRE(rec.backward(y));
  const Eigen::VectorXd g = rec.adjoints(xv);
  NGVI_CHECK_REPORT(vf::compare(g, F::grad(x), tol::closed_form, "gradient vs closed form"));
  NGVI_CHECK_REPORT(vf::compare(g, vf::finite_diff_gradient(F{}, x), tol::gradient_vs_fd,
                                "gradient vs finite differences"));
  for (Eigen::Index i = 0; i < x.size(); ++i) BOOST_TEST(rec.adjoint(xv(i)) == g(i));
  NGVI_CHECK_REPORT(vf::compare(rec.adjoints_of(xv), g, tol::exact, "adjoints_of vs adjoints"));
}

BOOST_AUTO_TEST_CASE(inputs_with_tangents_give_hessian_columns) {
  using D = ad::Dual<double, 2>;
  const Eigen::VectorXd x = point();
  // Tangents e₀ and e₂: the adjoints' tangents are columns 0 and 2 of the Hessian.
  Eigen::MatrixXd T = Eigen::MatrixXd::Zero(3, 2);
  T(0, 0) = 1.0;
  T(2, 1) = 1.0;
  ad::Recording<D> rec;
  const ad::VarVector<D> xv = rec.inputs(x, T);
  BOOST_TEST_REQUIRE(rec.backward(F{}(xv)));
  const auto a = rec.adjoints(xv);
  Eigen::VectorXd g(3);
  Eigen::MatrixXd HT(3, 2);
  for (Eigen::Index i = 0; i < 3; ++i) {
    g(i) = a(i).v;
    HT(i, 0) = a(i).d[0];
    HT(i, 1) = a(i).d[1];
  }
  NGVI_CHECK_REPORT(vf::compare(g, F::grad(x), tol::closed_form, "gradient (dual values)"));
  NGVI_CHECK_REPORT(vf::compare(HT, (F::hess(x) * T).eval(), tol::closed_form, "H·[e₀ e₂]"));
  NGVI_CHECK_REPORT(vf::compare(HT, (vf::finite_diff_hessian(F{}, x) * T).eval(),
                                tol::hessian_vs_fd, "H·[e₀ e₂] vs finite differences"));
}

BOOST_AUTO_TEST_CASE(lifted_constants_get_their_adjoints) {
  // y = Σ_rc w_rc M_rc² + M₀₀M₁₂: ∂y/∂M = 2 w∘M plus the product's two entries.
  Eigen::MatrixXd M(2, 3), w(2, 3);
  M << 0.5, -1.0, 2.0, 1.5, 0.25, -0.75;
  w << 1.0, 2.0, 3.0, -1.0, 0.5, 4.0;
  ad::Recording<double> rec;
  const ad::VarMatrix<double> Mv = rec.lift(M);
  BOOST_TEST(Mv(1, 2).index() == Mv(0, 0).index() + 5);
  ad::Var<double> y = Mv(0, 0) * Mv(1, 2);
  for (Eigen::Index c = 0; c < 3; ++c)
    for (Eigen::Index r = 0; r < 2; ++r) y += w(r, c) * Mv(r, c) * Mv(r, c);
  BOOST_TEST_REQUIRE(rec.backward(y));
  Eigen::MatrixXd expected = 2.0 * w.cwiseProduct(M);
  expected(0, 0) += M(1, 2);
  expected(1, 2) += M(0, 0);
  NGVI_CHECK_REPORT(vf::compare(rec.adjoints(Mv), expected, tol::closed_form, "∂y/∂M"));
  const RowMatrixXd row_major = rec.adjoints_of<RowMatrixXd>(Mv);
  NGVI_CHECK_REPORT(vf::compare(row_major, expected, tol::closed_form, "∂y/∂M, row-major copy"));
}

BOOST_AUTO_TEST_CASE(seeded_sums_are_vector_jacobian_products) {
  // ys = (x₀x₁, x₀ + x₂, sin x₁), J its Jacobian; the weighted seed gives Jᵀw, the plain one Jᵀ1.
  const Eigen::VectorXd x = point();
  Eigen::Matrix3d J;
  J << x(1), x(0), 0.0,  //
      1.0, 0.0, 1.0,     //
      0.0, std::cos(x(1)), 0.0;
  const Eigen::Vector3d w(0.5, -2.0, 3.0);
  ad::Recording<double> rec;
  const ad::VarVector<double> xv = rec.inputs(x);
  ad::VarVector<double> ys(3);
  ys(0) = xv(0) * xv(1);
  ys(1) = xv(0) + xv(2);
  ys(2) = ngvi::ad::sin(xv(1));
  BOOST_TEST_REQUIRE(rec.backward(ys, w));
  NGVI_CHECK_REPORT(vf::compare(Eigen::VectorXd(rec.adjoints(xv)), (J.transpose() * w).eval(),
                                tol::closed_form, "Jᵀw"));
  auto weighted = [&](const Eigen::VectorXd& z) {
    return w(0) * z(0) * z(1) + w(1) * (z(0) + z(2)) + w(2) * std::sin(z(1));
  };
  NGVI_CHECK_REPORT(vf::compare(Eigen::VectorXd(rec.adjoints(xv)),
                                vf::finite_diff_gradient(weighted, x), tol::gradient_vs_fd,
                                "Jᵀw vs finite differences"));
  BOOST_TEST_REQUIRE(rec.backward(ys));
  NGVI_CHECK_REPORT(vf::compare(Eigen::VectorXd(rec.adjoints(xv)),
                                (J.transpose() * Eigen::Vector3d::Ones()).eval(), tol::closed_form,
                                "Jᵀ1"));
}

BOOST_AUTO_TEST_CASE(a_matrix_variable_seeds_the_sum_of_its_entries) {
  // Y = M ∘ M by columns (a fused node's output handle): backward(Y.col(1)) gives ∂(Σ col 1)/∂M =
  // 2M on column 1, and backward(Y) 2M everywhere — as seeding the same Vars one by one does.
  Eigen::MatrixXd M(2, 3);
  M << 0.5, -1.0, 2.0, 1.5, 0.25, -0.75;
  ad::Recording<double> rec;
  const ad::MatrixVar<double> Mv = rec.lift_matrix(M);
  const ad::MatrixVar<double> Y = ad::cwise_product(Mv, Mv);
  BOOST_TEST_REQUIRE(rec.backward(Y.col(1)));
  Eigen::MatrixXd expected = Eigen::MatrixXd::Zero(2, 3);
  expected.col(1) = 2.0 * M.col(1);
  NGVI_CHECK_REPORT(vf::compare(rec.adjoints_of(Mv), expected, tol::closed_form, "∂Σ Y₁/∂M"));
  BOOST_TEST_REQUIRE(rec.backward(Y));
  const Eigen::MatrixXd all = rec.adjoints_of(Mv);
  NGVI_CHECK_REPORT(vf::compare(all, Eigen::MatrixXd(2.0 * M), tol::closed_form, "∂Σ Y/∂M"));
  BOOST_TEST_REQUIRE(rec.backward(Y.to_eigen()));
  BOOST_TEST((rec.adjoints_of(Mv) == all));
  BOOST_TEST(!rec.backward(ad::MatrixVar<double>(M)));
  BOOST_TEST(rec.adjoints_of(Mv).isZero(0.0));
}

BOOST_AUTO_TEST_CASE(constants_seed_nothing_and_read_zero) {
  ad::Recording<double> rec;
  const ad::VarVector<double> xv = rec.inputs(point());
  const ad::Var<double> c = 2.5;
  BOOST_TEST(!rec.backward(c));
  BOOST_TEST(rec.adjoint(c) == 0.0);
  BOOST_TEST(rec.adjoints(xv).isZero(0.0));
  ad::VarVector<double> ys(2);
  ys(0) = 1.0;
  ys(1) = -3.0;
  BOOST_TEST(!rec.backward(ys, Eigen::Vector2d(1.0, 2.0)));
  BOOST_TEST(rec.adjoints(xv).isZero(0.0));
  // A constant among variables: its adjoint reads 0 and the gather skips it.
  ad::VarVector<double> mixed(2);
  mixed(0) = xv(1);
  mixed(1) = c;
  BOOST_TEST_REQUIRE(rec.backward(xv(0) * xv(1)));
  const Eigen::VectorXd a = rec.adjoints_of(mixed);
  BOOST_TEST(a(0) == point()(0));
  BOOST_TEST(a(1) == 0.0);
}

BOOST_AUTO_TEST_CASE(rewinding_to_after_the_inputs_gives_the_bits_of_a_fresh_recording) {
  const Eigen::VectorXd x = point();
  auto term = [](const auto& v, int i) { return F{}(v) * static_cast<double>(i + 1) + v(i % 3); };
  const ad::Tape<double>& tape = ad::active_tape<double>();
  const std::size_t vars_before = tape.num_vars();
  {
    ad::Recording<double> rec;
    const ad::VarVector<double> xv = rec.inputs(x);
    const auto after_inputs = rec.mark();
    for (int i = 0; i < 5; ++i) {
      BOOST_TEST_REQUIRE(rec.backward(term(xv, i)));
      const Eigen::VectorXd g = rec.adjoints(xv);
      rec.rewind(after_inputs);
      BOOST_TEST(tape.num_vars() == vars_before + 3);
      ad::Recording<double> fresh;
      const ad::VarVector<double> xf = fresh.inputs(x);
      BOOST_TEST_REQUIRE(fresh.backward(term(xf, i)));
      NGVI_CHECK_REPORT(
          vf::compare(g, Eigen::VectorXd(fresh.adjoints(xf)), tol::exact, "rewound vs fresh"));
      Eigen::VectorXd expected = F::grad(x) * static_cast<double>(i + 1);
      expected(i % 3) += 1.0;
      NGVI_CHECK_REPORT(vf::compare(g, expected, tol::closed_form, "term gradient"));
    }
    rec.rewind();
    BOOST_TEST(tape.num_vars() == vars_before);
    static_cast<void>(rec.inputs(x));
  }
  BOOST_TEST(tape.num_vars() == vars_before);
}

BOOST_AUTO_TEST_CASE(bad_arguments_are_refused_with_the_values) {
  auto says = [](const char* a, const char* b) {
    return [a, b](const std::invalid_argument& e) {
      const std::string what = e.what();
      return what.find(a) != std::string::npos && what.find(b) != std::string::npos;
    };
  };
  {
    ad::Recording<ad::Dual<double, 2>> rec;
    BOOST_CHECK_EXCEPTION(rec.inputs(point(), Eigen::MatrixXd::Zero(3, 1)), std::invalid_argument,
                          says("ngvi::ad::Recording::inputs", "3×1, expected 3×2"));
  }
  ad::Recording<double> rec;
  const ad::VarVector<double> xv = rec.inputs(point());
  const ad::Var<double> earlier = xv(0) * xv(1);
  const ad::Var<double> later = xv(2) * xv(2);
  ad::VarVector<double> ys(2);  // recorded in the opposite order: not consecutive
  ys(0) = later;
  ys(1) = earlier;
  BOOST_CHECK_EXCEPTION(rec.backward(ys, Eigen::Vector3d::Ones()), std::invalid_argument,
                        says("ngvi::ad::Recording::backward", "weights has 3 entries, expected 2"));
  BOOST_CHECK_EXCEPTION(static_cast<void>(rec.adjoints(ys)), std::invalid_argument,
                        says("ngvi::ad::Recording::adjoints", "not consecutive"));
}

BOOST_AUTO_TEST_SUITE_END()
