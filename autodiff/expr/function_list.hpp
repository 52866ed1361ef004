// The list of elementary functions: the one place a function is named.
//
// Each overload set of the engine is generated from these lists — functions.hpp (Var
// expressions), dual.hpp (Dual<T, K>), elementary.hpp (plain numbers) and eigen/elementwise.hpp
// (whole matrices, one fused node each) — so that generic code finds every function on every
// scalar, and adding a function means one line here plus its fn:: struct in elementary.hpp
// (value, derivative, domain). A list is an X-macro: NGVI_AD_UNARY_FUNCTIONS(X) expands
// X(name, Op) once per function, with `name` the public function and `Op` its fn:: struct;
// two names may share one struct (fabs/abs, softplus/log1p_exp).
#pragma once

// f(x): the names follow <cmath>, plus square, logistic, log1p_exp (softplus), digamma, trigamma.
#define NGVI_AD_UNARY_FUNCTIONS(X) \
  X(exp, Exp)                      \
  X(expm1, Expm1)                  \
  X(log, Log)                      \
  X(log1p, Log1p)                  \
  X(log2, Log2)                    \
  X(log10, Log10)                  \
  X(sqrt, Sqrt)                    \
  X(cbrt, Cbrt)                    \
  X(square, Square)                \
  X(abs, Abs)                      \
  X(fabs, Abs)                     \
  X(sin, Sin)                      \
  X(cos, Cos)                      \
  X(tan, Tan)                      \
  X(asin, Asin)                    \
  X(acos, Acos)                    \
  X(atan, Atan)                    \
  X(sinh, Sinh)                    \
  X(cosh, Cosh)                    \
  X(tanh, Tanh)                    \
  X(asinh, Asinh)                  \
  X(acosh, Acosh)                  \
  X(atanh, Atanh)                  \
  X(erf, Erf)                      \
  X(erfc, Erfc)                    \
  X(lgamma, Lgamma)                \
  X(tgamma, Tgamma)                \
  X(digamma, Digamma)              \
  X(trigamma, Trigamma)            \
  X(logistic, Logistic)            \
  X(log1p_exp, Log1pExp)           \
  X(softplus, Log1pExp)

// f(x, y), each with the partials in both arguments.
#define NGVI_AD_BINARY_FUNCTIONS(X) \
  X(pow, Pow)                       \
  X(atan2, Atan2)                   \
  X(hypot, Hypot)                   \
  X(fmin, Fmin)                     \
  X(fmax, Fmax)
