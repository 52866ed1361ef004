// The thread-local active tape.
//
// Each thread owns one Tape<Real> per scalar type, created on first use; variables record on
// the tape that is active on the thread that creates them. A TapeScope can make another tape
// active for a while. Tapes are never shared between threads, so per-example work in a
// parallel loop records without locks.
#pragma once

#include <autodiff/core/tape.hpp>

namespace ngvi::ad {

namespace detail {
template <class Real>
inline Tape<Real>*& active_tape_slot() {
  thread_local Tape<Real>* slot = nullptr;
  return slot;
}
}  // namespace detail

// This thread's own tape for scalar Real.
template <class Real>
Tape<Real>& thread_tape() {
  thread_local Tape<Real> tape;
  return tape;
}

// The tape new variables of scalar Real record on, on this thread.
template <class Real>
Tape<Real>& active_tape() {
  Tape<Real>*& slot = detail::active_tape_slot<Real>();
  if (slot == nullptr) slot = &thread_tape<Real>();
  return *slot;
}

}  // namespace ngvi::ad
