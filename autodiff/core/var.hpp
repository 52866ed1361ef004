// Var<Real>: the reverse-mode scalar.
//
// A Var is a value and the index of the tape variable that holds its adjoint (or no index,
// for a constant). Assigning an expression to a Var evaluates it and records one statement
// on the thread's active tape; copying a Var records nothing, because copies share the index.
// Var<double> gives gradients; Var<Dual<double, K>> gives Hessian-vector products.
//
// In checked builds every use of a Var verifies that it lives on the active tape and was not
// recorded inside a scope that has since been rewound, and throws usage_error otherwise.
#pragma once

#include <cmath>
#include <cstdint>
#include <ostream>
#include <string>

#include <autodiff/core/active_tape.hpp>
#include <autodiff/core/config.hpp>
#include <autodiff/core/scalar_traits.hpp>
#include <autodiff/expr/expr.hpp>

namespace ngvi::ad {

template <class Real>
class Var : public Expr<Var<Real>, Real> {
 public:
  using value_type = Real;
  static constexpr int n_operands = 1;

  Var() noexcept : val_(0.0), idx_(no_index), stamp_(0) {}

  // A constant (no tape entry).
  template <ConstantFor<Real> C>
  Var(const C& c) : val_(static_cast<Real>(c)), idx_(no_index), stamp_(0) {}  // NOLINT

  // Records the expression as one statement.
  template <class E>
  Var(const Expr<E, Real>& e) {  // NOLINT(google-explicit-constructor)
    assign(e.derived());
  }

  Var(const Var&) = default;
  Var& operator=(const Var&) = default;

  template <class E>
  Var& operator=(const Expr<E, Real>& e) {
    assign(e.derived());
    return *this;
  }
  template <ConstantFor<Real> C>
  Var& operator=(const C& c) {
    val_ = static_cast<Real>(c);
    idx_ = no_index;
    return *this;
  }

  // A fresh independent variable (an input) on the active tape.
  static Var independent(const Real& value) {
    Tape<Real>& t = active_tape<Real>();
    Var v;
    v.val_ = value;
    v.idx_ = t.new_index();
    v.stamp_ = t.stamp();
    return v;
  }
  // Wraps a variable a fused node has created on `t`.
  static Var from_index(const Real& value, index_t index, const Tape<Real>& t) {
    Var v;
    v.val_ = value;
    v.idx_ = index;
    v.stamp_ = t.stamp();
    return v;
  }

  const Real& value() const { return val_; }
  index_t index() const { return idx_; }
  std::uint32_t stamp() const { return stamp_; }
  bool is_active() const { return idx_ != no_index; }

  template <class TapeT>
  void push(TapeT& t, const Real& m) const {
    if (idx_ != no_index) {
      if constexpr (checked_mode) check_on(t);
      t.push_operand(m, idx_);
    }
  }

  // Throws usage_error unless this variable is a constant or lives on tape t.
  void check_on(const Tape<Real>& t) const {
    if (idx_ != no_index && !t.owns(idx_, stamp_)) {
      throw usage_error("ngvi::ad::Var: variable #" + std::to_string(idx_) +
                        " is not on this thread's active tape: it was recorded inside a "
                        "TapeScope that has since been rewound, or on another thread's tape");
    }
  }

  template <class E>
  Var& operator+=(const Expr<E, Real>& e);
  template <class E>
  Var& operator-=(const Expr<E, Real>& e);
  template <class E>
  Var& operator*=(const Expr<E, Real>& e);
  template <class E>
  Var& operator/=(const Expr<E, Real>& e);
  template <ConstantFor<Real> C>
  Var& operator+=(const C& c);
  template <ConstantFor<Real> C>
  Var& operator-=(const C& c);
  template <ConstantFor<Real> C>
  Var& operator*=(const C& c);
  template <ConstantFor<Real> C>
  Var& operator/=(const C& c);

 private:
  template <class E>
  void assign(const E& e) {
    Tape<Real>& t = active_tape<Real>();
    t.reserve_operands(E::n_operands);
    const std::size_t begin = t.operand_count();
    e.push(t, Real(1.0));
    // Read the value only after push(): with aliasing (x = x * y) e holds copies anyway.
    const Real v = e.value();
    if (t.operand_count() == begin) {
      idx_ = no_index;
      stamp_ = 0;
    } else {
      idx_ = t.push_statement();
      stamp_ = t.stamp();
    }
    val_ = v;
  }

  Real val_;
  index_t idx_;
  std::uint32_t stamp_;
};

template <class Real>
inline double value_of(const Var<Real>& x) {
  return value_of(x.value());
}

template <class T>
struct is_var : std::false_type {};
template <class Real>
struct is_var<Var<Real>> : std::true_type {};
template <class T>
inline constexpr bool is_var_v = is_var<T>::value;

template <class Real>
std::ostream& operator<<(std::ostream& os, const Var<Real>& x) {
  return os << x.value();
}

}  // namespace ngvi::ad
