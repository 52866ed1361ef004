// Compile-time checks on the callables handed to the drivers, with plain-English messages, and
// the form in which a scalar driver hands a function its input.
#pragma once

#include <concepts>
#include <type_traits>
#include <utility>

#include <autodiff/eigen/matrix_var.hpp>
#include <autodiff/eigen/num_traits.hpp>
#include <autodiff/functional/recording.hpp>

namespace ngvi::ad::detail {

template <class F, class X, class Real>
inline constexpr bool returns_scalar_of = std::is_invocable_v<F&, const X&>&&
    std::is_convertible_v<std::invoke_result_t<F&, const X&>, Var<Real>>;

// Whether f takes its input as one matrix variable (an n×1 MatrixVar<Real>) rather than as an
// Eigen column vector of Var<Real>: a function declared on MatrixVar, which the vector does not
// convert to. A generic lambda takes the vector, as it always has. std::conjunction asks the
// second question only when the first fails: a function of an Eigen vector of Var is never
// tried on a MatrixVar (Eigen's converting constructor would fail inside its body, not softly).
template <class F, class Real>
inline constexpr bool takes_matrix_var_input =
    std::conjunction_v<std::negation<std::is_invocable<F&, const VarVector<Real>&>>,
                       std::is_invocable<F&, const MatrixVar<Real>&>>;

// What a scalar driver hands f: VarVector<Real>, or MatrixVar<Real> when f takes that.
template <class F, class Real>
using driver_input_t =
    std::conditional_t<takes_matrix_var_input<F, Real>, MatrixVar<Real>, VarVector<Real>>;

// x registered on rec as f's input form (the tangents, on Tape<Dual>, as rec.inputs takes them).
template <class F, class Real, class... Tangents>
driver_input_t<F, Real> driver_inputs(Recording<Real>& rec,
                                      const Eigen::Ref<const Eigen::VectorXd>& x,
                                      const Tangents&... tangents) {
  if constexpr (takes_matrix_var_input<F, Real>)
    return rec.input_vector(x, tangents...);
  else
    return rec.inputs(x, tangents...);
}

// f(x) for the input form above must give something a Var<Real> can be built from.
template <class F, class Real>
inline constexpr bool scalar_function_of = returns_scalar_of<F, driver_input_t<F, Real>, Real>;

template <class F, class Real>
inline constexpr bool vector_function_of = std::is_invocable_v<F&, const VarVector<Real>&>;

template <class F, class Real>
void require_scalar_function(const char* driver) {
  (void)driver;
  static_assert(scalar_function_of<F, Real>,
                "ngvi::ad: the function handed to this driver must be callable with an Eigen "
                "column vector of the AD scalar (write it generic: [](const auto& x) {...}) or "
                "with one ngvi::ad::MatrixVar of it, and return a scalar of that type");
}

}  // namespace ngvi::ad::detail
