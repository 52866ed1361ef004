// hvp: Hessian-vector product by forward-over-reverse.
//
// The function is recorded once on Tape<Dual<double, 1>> with input tangents v; sweeping the
// tape in dual arithmetic gives the gradient in the adjoints' values and H·v in their
// tangents. Exact (no finite differences). A function declared on ad::MatrixVar gets x as one
// matrix variable, as value_and_gradient gives it. Cost: one recording + one reverse sweep in dual
// arithmetic, about 2-3 times a gradient.
#pragma once

#include <Eigen/Core>

#include <autodiff/core/dual.hpp>
#include <autodiff/eigen/num_traits.hpp>
#include <autodiff/functional/concepts.hpp>
#include <autodiff/functional/recording.hpp>

namespace ngvi::ad {

// Returns f(x); writes ∇f(x) into grad and ∇²f(x)·v into hv.
template <class F>
double gradient_and_hvp(F&& f, const Eigen::Ref<const Eigen::VectorXd>& x,
                        const Eigen::Ref<const Eigen::VectorXd>& v, Eigen::VectorXd& grad,
                        Eigen::VectorXd& hv) {
  using D = Dual<double, 1>;
  detail::require_scalar_function<F, D>("hvp");
  if (v.size() != x.size())
    throw std::invalid_argument("ngvi::ad::hvp: direction v has " + std::to_string(v.size()) +
                                " entries, expected " + std::to_string(x.size()) +
                                " (the size of x)");
  Recording<D> rec;
  const Eigen::Index n = x.size();
  const auto xv = detail::driver_inputs<F>(rec, x, v);
  const Var<D> y = f(xv);
  grad.setZero(n);
  hv.setZero(n);
  if (!rec.backward(y)) return y.value().v;
  const auto adjoints = rec.adjoints(xv);
  for (Eigen::Index i = 0; i < n; ++i) {
    const D& a = adjoints(i);
    grad(i) = a.v;
    hv(i) = a.d[0];
  }
  return y.value().v;
}

// ∇²f(x)·v. Cost: one recording + one sweep in Dual<double, 1> arithmetic.
template <class F>
Eigen::VectorXd hvp(F&& f, const Eigen::Ref<const Eigen::VectorXd>& x,
                    const Eigen::Ref<const Eigen::VectorXd>& v) {
  Eigen::VectorXd g, hv;
  gradient_and_hvp(f, x, v, g, hv);
  return hv;
}

}  // namespace ngvi::ad
