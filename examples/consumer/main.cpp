// Downstream-user check: an installed ngvi computes exact first and second derivatives.
//
// Built by .ci/run against `cmake --install` output via find_package(ngvi), so it exercises the
// installed headers (include/ngvi), the exported targets and their dependencies — not the source
// tree. It differentiates f(x) = Σ_{i<n-1} x_i² exp(x_{i+1}) with value_and_gradient, gradient,
// hvp and hessian, compares each with the closed form below, prints the worst relative error per
// quantity and exits non-zero on any mismatch. n = 11 > 8 so the Hessian needs several sweeps.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include <Eigen/Core>

#include <autodiff/autodiff.hpp>

namespace {

// Written once, generic in the scalar: runs on double, Var<double> and Var<Dual<double, K>>.
template <class Vector>
auto f(const Vector& x) {
  using std::exp;
  using T = typename Vector::Scalar;
  T s = 0.0;
  for (Eigen::Index i = 0; i + 1 < x.size(); ++i) s += x(i) * x(i) * exp(x(i + 1));
  return s;
}

double f_closed(const Eigen::VectorXd& x) { return f(x); }

Eigen::VectorXd gradient_closed(const Eigen::VectorXd& x) {
  const Eigen::Index n = x.size();
  Eigen::VectorXd g = Eigen::VectorXd::Zero(n);
  for (Eigen::Index j = 0; j < n; ++j) {
    if (j + 1 < n) g(j) += 2.0 * x(j) * std::exp(x(j + 1));
    if (j >= 1) g(j) += x(j - 1) * x(j - 1) * std::exp(x(j));
  }
  return g;
}

Eigen::MatrixXd hessian_closed(const Eigen::VectorXd& x) {
  const Eigen::Index n = x.size();
  Eigen::MatrixXd h = Eigen::MatrixXd::Zero(n, n);
  for (Eigen::Index j = 0; j < n; ++j) {
    if (j + 1 < n) {
      h(j, j) += 2.0 * std::exp(x(j + 1));
      h(j, j + 1) = h(j + 1, j) = 2.0 * x(j) * std::exp(x(j + 1));
    }
    if (j >= 1) h(j, j) += x(j - 1) * x(j - 1) * std::exp(x(j));
  }
  return h;
}

// AD is exact: the only differences from the closed form are rounding in a different order.
constexpr double kRelTol = 1e-12;
constexpr double kAbsTol = 1e-13;

int failures = 0;

void check(const std::string& what, const Eigen::MatrixXd& got, const Eigen::MatrixXd& want) {
  if (got.rows() != want.rows() || got.cols() != want.cols()) {
    std::printf("FAIL %-20s shape %ldx%ld, expected %ldx%ld\n", what.c_str(), long(got.rows()),
                long(got.cols()), long(want.rows()), long(want.cols()));
    ++failures;
    return;
  }
  double worst = 0.0;  // worst error in units of the allowed error
  Eigen::Index wi = 0, wj = 0;
  for (Eigen::Index j = 0; j < want.cols(); ++j)
    for (Eigen::Index i = 0; i < want.rows(); ++i) {
      const double err = std::abs(got(i, j) - want(i, j));
      double ratio = err / (kAbsTol + kRelTol * std::abs(want(i, j)));
      if (std::isnan(ratio)) ratio = std::numeric_limits<double>::infinity();
      if (ratio > worst) {
        worst = ratio;
        wi = i;
        wj = j;
      }
    }
  const bool ok = worst <= 1.0;
  std::printf("%s %-20s worst at (%ld,%ld): got %.17g, expected %.17g (%.2g of tolerance)\n",
              ok ? "ok  " : "FAIL", what.c_str(), long(wi), long(wj), got(wi, wj), want(wi, wj),
              worst);
  if (!ok) ++failures;
}

}  // namespace

int main() {
  const Eigen::Index n = 11;
  Eigen::VectorXd x(n), v(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    x(i) = 0.3 * std::sin(1.7 * double(i) + 0.4) - 0.1;
    v(i) = std::cos(0.9 * double(i)) + 0.05;
  }
  const auto fn = [](const auto& y) { return f(y); };

  Eigen::VectorXd grad;
  const double value = ngvi::ad::value_and_gradient(fn, x, grad);
  check("value", Eigen::MatrixXd::Constant(1, 1, value),
        Eigen::MatrixXd::Constant(1, 1, f_closed(x)));
  check("value_and_gradient", grad, gradient_closed(x));
  check("gradient", ngvi::ad::gradient(fn, x), gradient_closed(x));
  check("hvp", ngvi::ad::hvp(fn, x, v), hessian_closed(x) * v);
  check("hessian", ngvi::ad::hessian(fn, x), hessian_closed(x));

  if (failures > 0) {
    std::printf("%d check(s) failed\n", failures);
    return 1;
  }
  std::printf("all checks passed\n");
  return 0;
}
