// Compile-time checks on the callables handed to the drivers, with plain-English messages.
#pragma once

#include <concepts>
#include <type_traits>
#include <utility>

#include <autodiff/eigen/num_traits.hpp>

namespace ngvi::ad::detail {

// f(x) for an Eigen vector x of scalar S must give something a Var<Real> can be built from.
template <class F, class Real>
inline constexpr bool scalar_function_of = std::is_invocable_v<F&, const VarVector<Real>&>&&
    std::is_convertible_v<std::invoke_result_t<F&, const VarVector<Real>&>, Var<Real>>;

template <class F, class Real>
inline constexpr bool vector_function_of = std::is_invocable_v<F&, const VarVector<Real>&>;

template <class F, class Real>
void require_scalar_function(const char* driver) {
  (void)driver;
  static_assert(scalar_function_of<F, Real>,
                "ngvi::ad: the function handed to this driver must be callable with an Eigen "
                "column vector of the AD scalar (write it generic: [](const auto& x) {...}) "
                "and return a scalar of that type");
}

}  // namespace ngvi::ad::detail
