// Tape<Real>: the flat record of one computation, in evaluation order.
//
// A statement is "variable `lhs` was assigned an expression whose partials with respect to
// its operands are these": its (partial, operand index) pairs sit in two parallel arrays and
// the statement only remembers where its pairs end. Because variables receive fresh indices
// in evaluation order, the tape order is a topological order and the reverse sweep is one
// backward loop with no recursion and no sorting. Fused nodes (matrix products, softmax, ...)
// are statements whose reverse step is a function over a payload kept in the arena.
//
// The scalar is a template parameter: Tape<double> computes gradients, and
// Tape<Dual<double, K>> computes K Hessian-vector products in one sweep (the adjoints'
// tangents). Storage is kept on rewind, so re-recording after warm-up allocates nothing.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <autodiff/core/arena.hpp>
#include <autodiff/core/config.hpp>
#include <autodiff/core/scalar_traits.hpp>

namespace ngvi::ad {

namespace detail {

// A growable array of trivially copyable values that never shrinks its capacity.
template <class T>
class GrowBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "GrowBuffer holds trivially copyable values");

 public:
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return capacity_; }
  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }

  void reserve_extra(std::size_t n, std::size_t& growth_counter) {
    if (size_ + n > capacity_) grow(size_ + n, growth_counter);
  }
  // Caller has reserved room.
  void push_unchecked(const T& v) { data_[size_++] = v; }
  void push(const T& v, std::size_t& growth_counter) {
    reserve_extra(1, growth_counter);
    data_[size_++] = v;
  }
  void resize_down(std::size_t n) { size_ = n; }
  void resize(std::size_t n, std::size_t& growth_counter) {
    if (n > capacity_) grow(n, growth_counter);
    size_ = n;
  }

 private:
  void grow(std::size_t need, std::size_t& growth_counter) {
    std::size_t cap = std::max<std::size_t>(capacity_ * 2, 1024);
    while (cap < need) cap *= 2;
    std::unique_ptr<T[]> fresh(new T[cap]);
    if (size_ > 0) std::memcpy(static_cast<void*>(fresh.get()), data_.get(), size_ * sizeof(T));
    data_ = std::move(fresh);
    capacity_ = cap;
    ++growth_counter;
  }

  std::unique_ptr<T[]> data_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

// Stamps are unique across all tapes of the process, so a variable carries enough to tell
// whether it belongs to this tape and to the current recording (checked mode only).
inline std::uint32_t next_stamp() {
  static std::atomic<std::uint32_t> counter{1};
  return counter.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace detail

template <class Real>
class Tape {
 public:
  using real_type = Real;
  // Marks a statement whose reverse step is a fused node.
  static constexpr index_t fused_marker = no_index;

  struct Statement {
    index_t lhs;     // variable defined, or fused_marker
    index_t op_end;  // one past this statement's last operand
  };

  struct Mark {
    std::size_t statements = 0;
    std::size_t operands = 0;
    std::size_t fused = 0;
    std::size_t vars = 0;
    Arena::Mark arena{};
  };

  Tape() : stamp_(detail::next_stamp()) {}
  Tape(const Tape&) = delete;
  Tape& operator=(const Tape&) = delete;

  // ---- recording ---------------------------------------------------------------------------

  // Room for n more operands; pushes after this need no capacity check.
  void reserve_operands(std::size_t n) {
    partials_.reserve_extra(n, growths_);
    indices_.reserve_extra(n, growths_);
  }

  void push_operand(const Real& partial, index_t index) {
    partials_.push_unchecked(partial);
    indices_.push_unchecked(index);
  }

  std::size_t operand_count() const { return partials_.size(); }

  // Closes a statement over the operands pushed since the previous one; returns the index
  // of the fresh variable it defines.
  index_t push_statement() {
    const index_t lhs = new_index();
    statements_.push(Statement{lhs, static_cast<index_t>(partials_.size())}, growths_);
    return lhs;
  }

  // A fresh variable with no statement: an independent input or a fused node's output.
  index_t new_index() {
    if (num_vars_ >= no_index - 1) throw_too_many();
    if constexpr (checked_mode) stamps_.push(stamp_, growths_);
    return static_cast<index_t>(num_vars_++);
  }

  // n consecutive fresh variables; returns the first.
  index_t new_indices(std::size_t n) {
    if (num_vars_ + n >= no_index - 1) throw_too_many();
    if constexpr (checked_mode) {
      for (std::size_t i = 0; i < n; ++i) stamps_.push(stamp_, growths_);
    }
    const index_t first = static_cast<index_t>(num_vars_);
    num_vars_ += n;
    return first;
  }

  // Records a fused node: `node.reverse(adjoints)` runs at this point of the reverse sweep.
  // The node lives in the arena, so it must be trivially destructible.
  template <class Node>
  void push_fused(const Node* node) {
    fused_.push(Fused{&Tape::reverse_thunk<Node>, node}, growths_);
    statements_.push(Statement{fused_marker, static_cast<index_t>(partials_.size())}, growths_);
  }

  Arena& arena() { return arena_; }

  // ---- reverse sweep -----------------------------------------------------------------------

  // Sizes the adjoint vector to the variables recorded so far and sets it to zero.
  void zero_adjoints() {
    adjoints_.resize(num_vars_, growths_);
    std::fill_n(adjoints_.data(), num_vars_, Real(0.0));
  }
  Real& adjoint(index_t i) { return adjoints_[i]; }
  const Real& adjoint(index_t i) const { return adjoints_[i]; }
  Real* adjoints() { return adjoints_.data(); }

  // Propagates adjoints backwards through every statement recorded after `stop`.
  // Cost: one pass over those statements and their operands.
  void reverse(const Mark& stop) {
    Real* adj = adjoints_.data();
    const Statement* st = statements_.data();
    const Real* partial = partials_.data();
    const index_t* index = indices_.data();
    std::size_t fused = fused_.size();
    for (std::size_t s = statements_.size(); s-- > stop.statements;) {
      const Statement cur = st[s];
      const std::size_t begin = s > 0 ? st[s - 1].op_end : 0;
      if (cur.lhs == fused_marker) {
        const Fused& f = fused_[--fused];
        f.reverse(f.node, adj);
        continue;
      }
      const Real a = adj[cur.lhs];
      if (!is_zero(a)) {
        for (std::size_t k = begin; k < cur.op_end; ++k) adj[index[k]] += partial[k] * a;
      }
    }
  }
  void reverse() { reverse(Mark{}); }

  // ---- marks, rewinding, statistics ---------------------------------------------------------

  Mark mark() const {
    return Mark{statements_.size(), partials_.size(), fused_.size(), num_vars_, arena_.mark()};
  }

  // Forgets everything recorded after `m`; the memory is kept for the next recording.
  // Cost: O(1) (one out-of-line call).
  //
  // Out of line on purpose. Inlined, GCC 12 at -O3 (its tree-PRE pass) forwarded the arena
  // position one recording's rewind stored to the mark the next Recording took of the tape,
  // across the end of the first Recording's lifetime, and read that mark from a stack slot
  // that by then held something else: the Hessian loop of bench W4 then rewound the arena to
  // a block index of about 1.6e7 and grew it by a doubling block per recording until
  // std::bad_alloc (-fno-tree-pre, or -O2, or this attribute each removed it; ASan and UBSan
  // found nothing). A call per recording costs nothing next to the recording.
  [[gnu::noinline]] void rewind(const Mark& m) {
    statements_.resize_down(m.statements);
    partials_.resize_down(m.operands);
    indices_.resize_down(m.operands);
    fused_.resize_down(m.fused);
    num_vars_ = m.vars;
    arena_.rewind(m.arena);
    if constexpr (checked_mode) stamps_.resize_down(m.vars);
    stamp_ = detail::next_stamp();
  }
  void clear() { rewind(Mark{}); }

  std::uint32_t stamp() const { return stamp_; }

  // Whether a variable (index, stamp) was recorded on this tape and not rewound since.
  // Exact in checked mode; in release builds only the index range is known.
  bool owns(index_t index, std::uint32_t stamp) const {
    if (index >= num_vars_) return false;
    if constexpr (checked_mode) return stamps_[index] == stamp;
    return true;
  }

  std::size_t num_statements() const { return statements_.size(); }
  std::size_t num_operands() const { return partials_.size(); }
  std::size_t num_vars() const { return num_vars_; }
  std::size_t num_fused() const { return fused_.size(); }
  // Number of times any buffer or arena block was obtained from the system.
  std::size_t allocation_count() const { return growths_ + arena_.block_allocations(); }
  std::size_t bytes_reserved() const {
    return partials_.capacity() * sizeof(Real) + indices_.capacity() * sizeof(index_t) +
           statements_.capacity() * sizeof(Statement) + adjoints_.capacity() * sizeof(Real) +
           fused_.capacity() * sizeof(Fused) + arena_.bytes_reserved();
  }

 private:
  struct Fused {
    void (*reverse)(const void*, Real*);
    const void* node;
  };
  [[noreturn]] static void throw_too_many() {
    throw usage_error("ngvi::ad::Tape: more than 2^32-2 variables recorded on one tape");
  }
  template <class Node>
  static void reverse_thunk(const void* node, Real* adjoints) {
    static_cast<const Node*>(node)->reverse(adjoints);
  }

  detail::GrowBuffer<Statement> statements_;
  detail::GrowBuffer<Real> partials_;
  detail::GrowBuffer<index_t> indices_;
  detail::GrowBuffer<Fused> fused_;
  detail::GrowBuffer<Real> adjoints_;
  detail::GrowBuffer<std::uint32_t> stamps_;
  Arena arena_;
  std::size_t num_vars_ = 0;
  std::size_t growths_ = 0;
  std::uint32_t stamp_;
};

}  // namespace ngvi::ad
