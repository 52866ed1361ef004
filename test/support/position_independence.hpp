// Tape histories, and the check that a result does not depend on them.
//
// A result must not depend on what was recorded on the tape before it: a function recorded on
// a fresh tape and the same function recorded after any history must give the same bits. The
// histories here move both places a fused node's data can sit — its arena arrays (values,
// derivatives, index lists) and its slice of the adjoint array — through every offset modulo
// any SIMD width up to 64 bytes:
//   * k = 0…64 throw-away scalar variables (shift the adjoint indices by k),
//   * one elementwise fused node (tanh) of every size 1…64 (shifts the arena by two arrays of
//     the size and the adjoints by twice the size),
//   * one matrix product (size×1 by 1×1) of every size 1…64 (shifts the arena by size + 1
//     doubles, so odd multiples of 8 bytes, and the adjoints by twice the size).
// record_prefix records one history on this thread's active Tape<Real>; run it inside a
// TapeScope, then call the driver under test (value_and_gradient, hvp, hessian, ... nest).
// check_position_independence does exactly that for a scalar function f(θ), for every history
// and on each tape: value and gradient on Tape<double>, value, gradient and Hessian-vector
// product on Tape<Dual<double, 1>>, and (optionally) the Hessian on Tape<Dual<double, 8>>, each
// compared bit for bit with the same computation on a fresh tape. The reference is the engine
// itself: the property is reproducibility, not accuracy (other tests check that).
#pragma once

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <boost/test/unit_test.hpp>

#include <autodiff/autodiff.hpp>

#include <support/check_bitwise.hpp>

namespace ngvi::test {

// Deterministic values in (lo, lo + width), spread by the golden ratio: test points and data
// matrices for the position-independence cases.
inline Eigen::VectorXd spread(Eigen::Index n, double lo, double width, double phase = 0.0) {
  Eigen::VectorXd x(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const double u = 0.6180339887498949 * static_cast<double>(i + 1) + phase;
    x(i) = lo + width * (u - std::floor(u));
  }
  return x;
}

struct TapePrefix {
  enum class Kind { variables, elementwise, product };
  Kind kind = Kind::variables;
  int size = 0;

  std::string name() const {
    switch (kind) {
      case Kind::variables:
        return "after " + std::to_string(size) + " throw-away variables";
      case Kind::elementwise:
        return "after a tanh node of size " + std::to_string(size);
      case Kind::product:
        return "after a matmul node of size " + std::to_string(size);
    }
    return {};
  }
};

// The 193 histories described at the top of this file.
inline std::vector<TapePrefix> all_tape_prefixes() {
  std::vector<TapePrefix> out;
  for (int k = 0; k <= 64; ++k) out.push_back({TapePrefix::Kind::variables, k});
  for (int k = 1; k <= 64; ++k) out.push_back({TapePrefix::Kind::elementwise, k});
  for (int k = 1; k <= 64; ++k) out.push_back({TapePrefix::Kind::product, k});
  return out;
}

// Records `prefix` on this thread's active Tape<Real>.
template <class Real>
void record_prefix(const TapePrefix& prefix) {
  namespace ad = ngvi::ad;
  using V = ad::Var<Real>;
  ad::VarVector<Real> v(prefix.size);
  for (int i = 0; i < prefix.size; ++i) v(i) = V::independent(Real(0.125 * (i + 1)));
  if (prefix.kind == TapePrefix::Kind::elementwise) {
    const ad::VarVector<Real> y = ad::tanh(v);
    (void)y;
  } else if (prefix.kind == TapePrefix::Kind::product) {
    const Eigen::MatrixXd c = Eigen::MatrixXd::Constant(1, 1, 0.5);
    const Eigen::Matrix<V, Eigen::Dynamic, Eigen::Dynamic> y = ad::matmul(v, c);
    (void)y;
  }
}

struct PositionOutcome {
  double value = 0.0, hvp_value = 0.0;
  Eigen::VectorXd grad, hvp_grad, hv;
  Eigen::MatrixXd hessian;
};

// f at x recorded after `prefix` (or on a fresh tape) on each of the three tapes; v is the
// direction of the Hessian-vector product.
template <class F>
PositionOutcome evaluate_after(const F& f, const Eigen::VectorXd& x, const Eigen::VectorXd& v,
                               const std::optional<TapePrefix>& prefix, bool with_hessian) {
  namespace ad = ngvi::ad;
  PositionOutcome o;
  {
    ad::TapeScope<double> outer;
    if (prefix) record_prefix<double>(*prefix);
    o.value = ad::value_and_gradient(f, x, o.grad);
  }
  {
    using D = ad::Dual<double, 1>;
    ad::TapeScope<D> outer;
    if (prefix) record_prefix<D>(*prefix);
    o.hvp_value = ad::gradient_and_hvp(f, x, v, o.hvp_grad, o.hv);
  }
  if (with_hessian) {
    using D = ad::Dual<double, 8>;
    ad::TapeScope<D> outer;
    if (prefix) record_prefix<D>(*prefix);
    o.hessian = ad::hessian<8>(f, x);
  }
  return o;
}

// Every history of all_tape_prefixes() against the fresh tape: one BOOST_TEST per call, naming
// how many histories change the bits and the first difference found.
template <class F>
void check_position_independence(const std::string& name, const F& f, const Eigen::VectorXd& x,
                                 bool with_hessian = true) {
  Eigen::VectorXd v(x.size());
  for (Eigen::Index i = 0; i < v.size(); ++i) v(i) = 1.0 - 0.3 * static_cast<double>(i % 7);
  const PositionOutcome fresh = evaluate_after(f, x, v, std::nullopt, with_hessian);
  BOOST_TEST_REQUIRE(std::isfinite(fresh.value), name << ": value " << fresh.value);
  int differing = 0, total = 0;
  std::string first;
  for (const TapePrefix& p : all_tape_prefixes()) {
    const PositionOutcome o = evaluate_after(f, x, v, p, with_hessian);
    ++total;
    const BitwiseReport reports[] = {
        bitwise_equal(o.value, fresh.value, "value"),
        bitwise_equal(o.grad, fresh.grad, "gradient"),
        bitwise_equal(o.hvp_value, fresh.hvp_value, "value on Tape<Dual<double, 1>>"),
        bitwise_equal(o.hvp_grad, fresh.hvp_grad, "gradient on Tape<Dual<double, 1>>"),
        bitwise_equal(o.hv, fresh.hv, "Hessian-vector product"),
        bitwise_equal(o.hessian, fresh.hessian, "Hessian")};
    for (const BitwiseReport& r : reports) {
      if (r.equal) continue;
      if (first.empty()) first = p.name() + ", " + r.message;
      ++differing;
      break;
    }
  }
  BOOST_TEST(differing == 0,
             name << ": " << differing << " of " << total
                  << " tape histories change the bits of the result; first: " << first);
}

}  // namespace ngvi::test
