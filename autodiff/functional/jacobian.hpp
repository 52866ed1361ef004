// jacobian: reverse-mode Jacobian of a vector function of a vector.
//
// Cost: one recording + one reverse sweep per output (m sweeps for m outputs), so it suits
// functions with fewer outputs than inputs.
#pragma once

#include <Eigen/Core>

#include <autodiff/eigen/num_traits.hpp>
#include <autodiff/functional/concepts.hpp>
#include <autodiff/functional/recording.hpp>

namespace ngvi::ad {

// Returns the m×n Jacobian J(i, j) = ∂f_i/∂x_j; writes f(x) into value if given.
template <class F>
Eigen::MatrixXd jacobian(F&& f, const Eigen::Ref<const Eigen::VectorXd>& x,
                         Eigen::VectorXd* value = nullptr) {
  static_assert(detail::vector_function_of<F, double>,
                "ngvi::ad::jacobian: the function must be callable with an Eigen column vector "
                "of the AD scalar (write it generic: [](const auto& x) {...}) and return an "
                "Eigen vector of that scalar");
  Recording<double> rec;
  const VarVector<double> xv = rec.inputs(x);
  const VarVector<double> y = f(xv);
  const Eigen::Index m = y.size(), n = x.size();
  if (value) {
    value->resize(m);
    for (Eigen::Index i = 0; i < m; ++i) (*value)(i) = y(i).value();
  }
  Eigen::MatrixXd J = Eigen::MatrixXd::Zero(m, n);
  for (Eigen::Index i = 0; i < m; ++i)
    if (rec.backward(y(i))) J.row(i) = rec.adjoints(xv).transpose();
  return J;
}

}  // namespace ngvi::ad
