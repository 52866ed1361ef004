// Finite differences: the reference that AD is checked against.
//
// finite_diff_gradient differentiates f evaluated on double; finite_diff_hessian and
// finite_diff_hvp differentiate ngvi's own AD gradient (ngvi::ad::gradient), i.e. "FD of AD
// gradients": the gradient is exact to rounding, so one level of differencing gives the
// second derivatives with first-derivative accuracy, instead of the ~eps^(1/2) of a second
// difference. The stencils are Boost.Math's central differences
// (boost::math::differentiation::finite_difference_derivative, order 6 by default), which
// also return an error estimate.
//
// Boost's step h depends only on the order (≈2.8e-3 for order 6), not on x, which is wrong
// for both large |x| (roundoff: log near 1e10) and points near a domain boundary or a pole
// (the stencil leaves the domain: log at 1e-3). So each coordinate is differentiated in a
// scaled variable, t ↦ f(x + s·t·e_i), with a length scale s chosen by a search over
// s = max(1, |x_i|)·8^-k (and |x_i|·8^-k for |x_i| < ~1e-12) guided by Boost's error
// estimate, extended by the rounding of x_i + s·t (see detail::search_scale for the rule).
// Non-finite values and checked-mode domain_errors disqualify a scale, so the stencil
// retreats into the domain by itself. Pass FiniteDiffOptions::scale to fix s and skip the
// search. The error estimates can be returned; a caller comparing against FD should treat a
// point whose estimate exceeds its tolerance as one FD cannot judge (double precision cannot
// resolve a stencil within 1e-10 of a boundary at x ≈ 1, for instance).
//
// f is any callable generic in its scalar ([](const auto& x) {...}) taking an Eigen column
// vector; here it is called with Eigen::VectorXd (finite_diff_gradient) or through
// ngvi::ad::gradient with Var<double> (finite_diff_hessian, finite_diff_hvp).
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>
#include <boost/math/differentiation/finite_difference.hpp>

#include <autodiff/core/config.hpp>
#include <autodiff/functional/value_and_gradient.hpp>
#include <autodiff/verify/report.hpp>

namespace ngvi::ad::verify {

struct FiniteDiffOptions {
  // Order of Boost's central stencil: 1, 2, 4, 6 or 8. Order 6 (the default) costs 8 function
  // evaluations per derivative including the error estimate and is accurate to ~12-13 digits
  // for smooth, well-scaled functions; order 8 costs 10 and has a wider stencil (≈±0.19·s),
  // which helps only for very smooth functions and hurts near boundaries.
  int order = 6;
  // Length scale s per coordinate (finite_diff_gradient, finite_diff_hessian: one entry per
  // coordinate of x; finite_diff_hvp: one entry, along v). The stencil then spans
  // x_i ± fd_stencil_radius(order)·s_i. Empty (the default): s is found by the step search
  // described at the top of this file.
  Eigen::VectorXd scale;
};

namespace detail {

inline void check_fd_order(int order) {
  if (order != 1 && order != 2 && order != 4 && order != 6 && order != 8)
    throw std::invalid_argument(
        cat("ngvi::ad::verify: finite-difference order must be 1, 2, 4, 6 or 8, got ",
            std::to_string(order)));
}

// A non-owning reference to a callable double(double). Boost's stencils are instantiated
// once for this type (five orders) instead of once per caller lambda, which keeps test and
// user translation units quick to compile; the indirect call costs nothing next to f.
struct ScalarFunctionRef {
  const void* object;
  double (*call)(const void*, double);
  double operator()(double t) const { return call(object, t); }
};
template <class G>
ScalarFunctionRef scalar_function_ref(const G& g) {
  return {&g, [](const void* o, double t) {
            return static_cast<double>((*static_cast<const G*>(o))(t));
          }};
}

// Boost's derivative of g at t = 0 with its error estimate, for a run-time order.
inline double fd_derivative(ScalarFunctionRef g, int order, double* error) {
  namespace bd = boost::math::differentiation;
  switch (order) {
    case 1:
      return bd::finite_difference_derivative<ScalarFunctionRef, double, 1>(g, 0.0, error);
    case 2:
      return bd::finite_difference_derivative<ScalarFunctionRef, double, 2>(g, 0.0, error);
    case 4:
      return bd::finite_difference_derivative<ScalarFunctionRef, double, 4>(g, 0.0, error);
    case 6:
      return bd::finite_difference_derivative<ScalarFunctionRef, double, 6>(g, 0.0, error);
    case 8:
      return bd::finite_difference_derivative<ScalarFunctionRef, double, 8>(g, 0.0, error);
    default:
      check_fd_order(order);
      return 0.0;
  }
}
template <class G>
double fd_derivative(const G& g, int order, double* error) {
  return fd_derivative(scalar_function_ref(g), order, error);
}

// The step search. eval(s, d, err) computes the derivative estimates d (already divided by
// s) and their error estimates err for length scale s, returning false if anything was not
// finite or a checked-mode domain_error was thrown. Scales s_max, s_max/8, s_max/64, ... are
// tried (14 at most, down to ~2e-12·s_max); if a second start s_fallback below that range is
// given (|x_i|, for a point such as log at 1e-150 or lgamma at 1e-30), the scales from it are
// tried too.
//
// Choosing among them: a trial is "converged" when its error estimate is below 1e-10 of its
// largest derivative. Truncation error falls and roundoff rises as s shrinks, so an accurate
// derivative shows up as a run of consecutive converged trials. A stencil that straddles a
// singularity can also look converged: central differences cancel an even singularity
// (log|Γ(x)| near its pole at 0 looks like a smooth function with slope −γ), so a run at
// large s can be wrong where a run at small s is right, never the other way round. Hence the
// estimate comes from the last run (smallest s; a run of >= 2 trials beats a single trial;
// runs from the fallback start come first), and within it from the trial with the smallest
// absolute error estimate. Without any converged trial (a derivative that is exactly 0, or a
// point where double precision cannot resolve the stencil) the trial with the smallest
// absolute error estimate is used.
// A run ends the search of its start after two more non-converged trials (roundoff only gets
// worse as s shrinks). Cost: 3 to 14 calls of eval per start (typically 5-8).
template <class Eval>
void search_scale(Eval&& eval, double s_max, Eigen::Index n, Eigen::VectorXd& d,
                  Eigen::VectorXd& err, double s_fallback = 0.0) {
  constexpr int max_trials = 14;
  constexpr double converged_rel = 1e-10;
  const double inf = std::numeric_limits<double>::infinity();
  struct Trial {
    Eigen::VectorXd d, e;
    double abs_err;
    int run;  // index of the converged run it belongs to, or -1
  };
  std::vector<Trial> trials;
  int runs = 0;
  int first_fallback_run = -1;  // runs from the fallback start take precedence
  Eigen::VectorXd td(n), te(n);
  for (double start : {s_max, s_fallback}) {
    if (!(start > 0.0) || (start != s_max && start >= s_max * std::pow(8.0, 1 - max_trials)))
      continue;
    if (start != s_max) first_fallback_run = runs;
    bool in_run = false;
    int run_length = 0, after_run = 0;
    double s = start;
    for (int k = 0; k < max_trials; ++k, s /= 8.0) {
      if (!eval(s, td, te)) {
        in_run = false;
        if (run_length >= 2 && ++after_run >= 2) break;
        continue;
      }
      const double emax = n > 0 ? te.maxCoeff() : 0.0;
      const double dmax = n > 0 ? td.cwiseAbs().maxCoeff() : 0.0;
      const bool converged = emax <= converged_rel * dmax;
      if (converged) {
        if (!in_run) {
          ++runs;
          run_length = 0;
        }
        in_run = true;
        ++run_length;
        after_run = 0;
      } else {
        in_run = false;
        if (run_length >= 2 && ++after_run >= 2) break;
      }
      trials.push_back(Trial{td, te, emax, converged ? runs - 1 : -1});
    }
  }
  // The last run of >= 2 trials, else the last run, else none (-1); the fallback start's
  // runs (smaller s still) are considered first.
  int chosen = -1;
  std::vector<int> length(static_cast<std::size_t>(runs), 0);
  for (const Trial& t : trials)
    if (t.run >= 0) ++length[static_cast<std::size_t>(t.run)];
  auto pick = [&](int lo, int hi) {  // runs [lo, hi)
    for (int r = hi - 1; r >= lo && chosen < 0; --r)
      if (length[static_cast<std::size_t>(r)] >= 2) chosen = r;
    if (chosen < 0 && hi > lo) chosen = hi - 1;
  };
  if (first_fallback_run >= 0) pick(first_fallback_run, runs);
  if (chosen < 0) pick(0, first_fallback_run >= 0 ? first_fallback_run : runs);
  const Trial* best = nullptr;
  for (const Trial& t : trials)
    if ((chosen < 0 || t.run == chosen) && (!best || t.abs_err < best->abs_err)) best = &t;
  if (best) {
    d = best->d;
    err = best->e;
  } else {
    d.setConstant(n, std::numeric_limits<double>::quiet_NaN());
    err.setConstant(n, inf);
  }
}

// A fixed-scale evaluation that failed: the estimate is NaN, so any comparison with it fails.
inline void mark_failed(Eigen::VectorXd& d, Eigen::VectorXd& err) {
  d.setConstant(std::numeric_limits<double>::quiet_NaN());
  err.setConstant(std::numeric_limits<double>::infinity());
}

// Boost's step h in t for a stencil of this order (fd_stencil_radius is a multiple of it).
inline double fd_step(int order) {
  const double eps = std::numeric_limits<double>::epsilon();
  switch (order) {
    case 1:
      return 2.0 * std::sqrt(eps);
    case 2:
      return std::cbrt(3.0 * eps);
    case 4:
      return std::pow(11.25 * eps, 1.0 / 5.0);
    case 6:
      return std::pow(eps / 168.0, 1.0 / 7.0);
    default:
      return std::pow(551.25 * eps, 1.0 / 9.0);
  }
}

// Boost's error estimate assumes the stencil points are exact, but x_i + s·t is rounded to
// the spacing of doubles near x_i, an error of up to ulp(x_i)/2 in a step of s·h: relative
// error ~ulp(x_i)/(s·h) in the derivative (1.5e-8 for sin at x = 1e5 with s·h = 1e-3). Adding
// it to the estimate makes the step search avoid steps that are too small for large |x_i|.
inline double point_rounding(double x, double s, int order) {
  const double a = std::abs(x);
  const double ulp = std::nextafter(a, std::numeric_limits<double>::infinity()) - a;
  return ulp / (s * fd_step(order));
}

inline bool all_finite(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return a.allFinite() && b.allFinite();
}

// Evaluates a vector function of t at the stencil points once each: Boost asks every
// component for the same t values, so the gradient at each stencil point is computed once and
// reused for all components (exact equality of t is intended: Boost builds t = k·h from 0).
template <class VecOfT>
void fd_vector_derivative(const VecOfT& vec_of_t, Eigen::Index n, int order, Eigen::VectorXd& d,
                          Eigen::VectorXd& err) {
  std::vector<std::pair<double, Eigen::VectorXd>> cache;
  cache.reserve(11);
  auto at = [&](double t) -> const Eigen::VectorXd& {
    for (const auto& c : cache)
      if (c.first == t) return c.second;
    cache.emplace_back(t, vec_of_t(t));
    return cache.back().second;
  };
  for (Eigen::Index i = 0; i < n; ++i) {
    double e = 0.0;
    d(i) = fd_derivative([&](double t) { return at(t)(i); }, order, &e);
    err(i) = e;
  }
}

}  // namespace detail

// The largest |t| at which a stencil of this order (with its error estimate) evaluates f,
// in units of the length scale s: the stencil spans x_i ± fd_stencil_radius(order)·s_i.
// Use it to choose FiniteDiffOptions::scale that keeps the stencil inside a domain.
inline double fd_stencil_radius(int order) {
  detail::check_fd_order(order);
  // Boost evaluates at t = ±h only for order 1, up to ±2h for 2, ±3h for 4, ±4h for 6 and
  // ±5h for 8, counting the extra points of the error estimate.
  const double multiple = order == 1 ? 1.0 : order / 2 + 1.0;
  return multiple * detail::fd_step(order);
}

// ∇f(x) by central finite differences of f evaluated on double. If `error` is given it
// receives the error estimate per component (Boost's, plus the rounding of the stencil
// points). Cost: per coordinate, (order + 2) calls of f
// per trial scale, 3-28 trials (typically 5-8) without opts.scale, 1 with it.
template <class F>
Eigen::VectorXd finite_diff_gradient(F&& f, const Eigen::Ref<const Eigen::VectorXd>& x,
                                     const FiniteDiffOptions& opts = {},
                                     Eigen::VectorXd* error = nullptr) {
  detail::check_fd_order(opts.order);
  const Eigen::Index n = x.size();
  if (opts.scale.size() != 0 && opts.scale.size() != n)
    throw std::invalid_argument(
        detail::cat("ngvi::ad::verify::finite_diff_gradient: opts.scale has ",
                    std::to_string(opts.scale.size()), " entries, expected ", std::to_string(n),
                    " (the size of x) or 0"));
  Eigen::VectorXd g(n), err(n);
  Eigen::VectorXd xp = x;
  for (Eigen::Index i = 0; i < n; ++i) {
    auto eval = [&](double s, Eigen::VectorXd& d, Eigen::VectorXd& e) {
      auto g_of_t = [&](double t) {
        xp(i) = x(i) + s * t;
        const double y = static_cast<double>(f(std::as_const(xp)));
        xp(i) = x(i);
        return y;
      };
      try {
        double ei = 0.0;
        d(0) = detail::fd_derivative(g_of_t, opts.order, &ei) / s;
        e(0) = ei / s + std::abs(d(0)) * detail::point_rounding(x(i), s, opts.order);
      } catch (const ngvi::ad::domain_error&) {
        xp(i) = x(i);
        return false;
      }
      return detail::all_finite(d, e);
    };
    Eigen::VectorXd d = Eigen::VectorXd::Constant(1, std::numeric_limits<double>::quiet_NaN());
    Eigen::VectorXd e = Eigen::VectorXd::Constant(1, std::numeric_limits<double>::infinity());
    if (opts.scale.size() != 0) {
      if (!eval(opts.scale(i), d, e)) detail::mark_failed(d, e);
    } else {
      detail::search_scale(eval, std::max(1.0, std::abs(x(i))), 1, d, e, std::abs(x(i)));
    }
    g(i) = d(0);
    err(i) = e(0);
  }
  if (error) *error = err;
  return g;
}

// The Hessian of f at x as finite differences of ngvi's AD gradient: column j is the
// derivative of ∇f along e_j. Not symmetrised (its asymmetry is itself a diagnostic). If
// `error` is given it receives the error estimates (Boost's, plus stencil-point rounding).
// Cost: per column, (order + 2) AD gradients per trial scale, 3-28 trials (typically 5-8)
// without opts.scale, 1 with it; i.e. O(n) AD gradients in all.
template <class F>
Eigen::MatrixXd finite_diff_hessian(F&& f, const Eigen::Ref<const Eigen::VectorXd>& x,
                                    const FiniteDiffOptions& opts = {},
                                    Eigen::MatrixXd* error = nullptr) {
  detail::check_fd_order(opts.order);
  const Eigen::Index n = x.size();
  if (opts.scale.size() != 0 && opts.scale.size() != n)
    throw std::invalid_argument(detail::cat(
        "ngvi::ad::verify::finite_diff_hessian: opts.scale has ", std::to_string(opts.scale.size()),
        " entries, expected ", std::to_string(n), " (the size of x) or 0"));
  Eigen::MatrixXd H(n, n), E(n, n);
  Eigen::VectorXd xp = x;
  for (Eigen::Index j = 0; j < n; ++j) {
    auto eval = [&](double s, Eigen::VectorXd& d, Eigen::VectorXd& e) {
      auto grad_of_t = [&](double t) {
        xp(j) = x(j) + s * t;
        Eigen::VectorXd g = ngvi::ad::gradient(f, xp);
        xp(j) = x(j);
        return g;
      };
      try {
        detail::fd_vector_derivative(grad_of_t, n, opts.order, d, e);
      } catch (const ngvi::ad::domain_error&) {
        xp(j) = x(j);
        return false;
      }
      d /= s;
      e = e / s + d.cwiseAbs() * detail::point_rounding(x(j), s, opts.order);
      return detail::all_finite(d, e);
    };
    Eigen::VectorXd d = Eigen::VectorXd::Constant(n, std::numeric_limits<double>::quiet_NaN());
    Eigen::VectorXd e = Eigen::VectorXd::Constant(n, std::numeric_limits<double>::infinity());
    if (opts.scale.size() != 0) {
      if (!eval(opts.scale(j), d, e)) detail::mark_failed(d, e);
    } else {
      detail::search_scale(eval, std::max(1.0, std::abs(x(j))), n, d, e, std::abs(x(j)));
    }
    H.col(j) = d;
    E.col(j) = e;
  }
  if (error) *error = E;
  return H;
}

// ∇²f(x)·v as the finite-difference derivative of ngvi's AD gradient along v,
// d/dt ∇f(x + t·v) at t = 0. The search starts from s = max(1, ‖x‖∞)/‖v‖∞ (a step of about
// Boost's h relative to x); opts.scale, if given, has one entry. Cost: (order + 2) AD
// gradients per trial scale, 3-14 trials (typically 5-8) without opts.scale, 1 with it.
template <class F>
Eigen::VectorXd finite_diff_hvp(F&& f, const Eigen::Ref<const Eigen::VectorXd>& x,
                                const Eigen::Ref<const Eigen::VectorXd>& v,
                                const FiniteDiffOptions& opts = {},
                                Eigen::VectorXd* error = nullptr) {
  detail::check_fd_order(opts.order);
  const Eigen::Index n = x.size();
  if (v.size() != n)
    throw std::invalid_argument(detail::cat("ngvi::ad::verify::finite_diff_hvp: direction v has ",
                                            std::to_string(v.size()), " entries, expected ",
                                            std::to_string(n), " (the size of x)"));
  if (opts.scale.size() > 1)
    throw std::invalid_argument(detail::cat("ngvi::ad::verify::finite_diff_hvp: opts.scale has ",
                                            std::to_string(opts.scale.size()),
                                            " entries, expected 1 (the scale along v) or 0"));
  Eigen::VectorXd d = Eigen::VectorXd::Constant(n, std::numeric_limits<double>::quiet_NaN());
  Eigen::VectorXd e = Eigen::VectorXd::Constant(n, std::numeric_limits<double>::infinity());
  const double vmax = n > 0 ? v.cwiseAbs().maxCoeff() : 0.0;
  if (vmax == 0.0) {  // H·0 = 0 exactly; nothing to difference
    d.setZero();
    if (error) error->setZero(n);
    return d;
  }
  Eigen::VectorXd xp(n);
  auto eval = [&](double s, Eigen::VectorXd& dd, Eigen::VectorXd& ee) {
    auto grad_of_t = [&](double t) {
      xp = x + (s * t) * v;
      return Eigen::VectorXd(ngvi::ad::gradient(f, xp));
    };
    try {
      detail::fd_vector_derivative(grad_of_t, n, opts.order, dd, ee);
    } catch (const ngvi::ad::domain_error&) {
      return false;
    }
    dd /= s;
    // The step moves coordinate i by s·h·v_i; rounding x_i + s·t·v_i matters most where
    // ulp(x_i) is largest relative to the step.
    double rounding = 0.0;
    for (Eigen::Index i = 0; i < n; ++i)
      rounding = std::max(rounding, detail::point_rounding(x(i), s * vmax, opts.order));
    ee = ee / s + dd.cwiseAbs() * rounding;
    return detail::all_finite(dd, ee);
  };
  if (opts.scale.size() == 1) {
    if (!eval(opts.scale(0), d, e)) detail::mark_failed(d, e);
  } else {
    const double xmax = n > 0 ? x.cwiseAbs().maxCoeff() : 0.0;
    detail::search_scale(eval, std::max(1.0, xmax) / vmax, n, d, e);
  }
  if (error) *error = e;
  return d;
}

}  // namespace ngvi::ad::verify
