// TapeScope: RAII bracket around a recording.
//
// On construction it remembers where the tape ends (and optionally makes another tape
// active); on destruction — normal exit or exception — it rewinds the tape to that point and
// restores the previously active tape. Scopes nest: an inner scope rewinds only what was
// recorded inside it, so a driver such as gradient() can be called while an outer recording
// is in progress. Memory is kept, so a loop of scoped recordings allocates nothing after the
// first iteration.
#pragma once

#include <autodiff/core/active_tape.hpp>

namespace ngvi::ad {

template <class Real = double>
class TapeScope {
 public:
  using Mark = typename Tape<Real>::Mark;

  // Records on this thread's active tape.
  TapeScope() : tape_(active_tape<Real>()), previous_(&tape_), mark_(tape_.mark()) {}

  // Makes `tape` the active tape of this thread until the scope ends.
  explicit TapeScope(Tape<Real>& tape)
      : tape_(tape), previous_(&active_tape<Real>()), mark_(tape.mark()) {
    detail::active_tape_slot<Real>() = &tape_;
  }

  TapeScope(const TapeScope&) = delete;
  TapeScope& operator=(const TapeScope&) = delete;

  ~TapeScope() {
    tape_.rewind(mark_);
    detail::active_tape_slot<Real>() = previous_;
  }

  Tape<Real>& tape() { return tape_; }
  // Where this scope's recording starts: the stop point of its reverse sweeps.
  const Mark& mark() const { return mark_; }

  // Forgets what was recorded inside the scope so far, keeping the scope open (for loops
  // that record one example after another).
  void rewind() { tape_.rewind(mark_); }

 private:
  Tape<Real>& tape_;
  Tape<Real>* previous_;
  Mark mark_;
};

}  // namespace ngvi::ad
