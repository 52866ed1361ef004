// reverse_scratch: aligned, thread-local working memory for the reverse steps of fused nodes.
//
// A reverse step that runs an Eigen kernel (a matrix product, say) must not write its result
// straight into the adjoint array: where a node's adjoints sit depends on everything recorded
// before it, and Eigen splits a destination into a scalar prologue, a packet body and a tail
// by its address — paths that round differently. The step writes into scratch aligned to
// Arena::array_alignment instead, so the split depends on the shape alone, and then adds the
// result into the adjoints coefficient by coefficient (MatrixOperand::add_each), which rounds
// the same on every path. Reverse sweeps run on the thread that owns the tape, so the memory
// is per thread; a few numbered slots let one step hold several buffers at once. Buffers grow
// and never shrink: after the first sweep, sweeps allocate nothing.
#pragma once

#include <cstddef>
#include <new>
#include <type_traits>

#include <autodiff/core/arena.hpp>

namespace ngvi::ad::detail {

// Number of independent scratch buffers per thread and scalar type.
inline constexpr std::size_t reverse_scratch_slots = 3;

// Room for n values of Real in slot `slot` (< reverse_scratch_slots) of this thread, aligned to
// Arena::array_alignment; the contents are unspecified. Valid until the next call with the
// same slot and Real on this thread. Cost: O(1) once the buffer is large enough.
template <class Real>
Real* reverse_scratch(std::size_t slot, std::size_t n) {
  static_assert(std::is_trivially_copyable_v<Real> && std::is_trivially_destructible_v<Real>,
                "ngvi::ad::detail::reverse_scratch holds plain values (double, Dual)");
  struct Buffer {
    void* data = nullptr;
    std::size_t bytes = 0;
    Buffer() = default;
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    ~Buffer() { ::operator delete (data, std::align_val_t{Arena::array_alignment}); }
  };
  thread_local Buffer buffers[reverse_scratch_slots];
  Buffer& b = buffers[slot];
  const std::size_t bytes = (n > 0 ? n : 1) * sizeof(Real);
  if (b.bytes < bytes) {
    ::operator delete (b.data, std::align_val_t{Arena::array_alignment});
    b.data = nullptr;
    b.bytes = 0;
    b.data = ::operator new (bytes, std::align_val_t{Arena::array_alignment});
    b.bytes = bytes;
  }
  return static_cast<Real*>(b.data);
}

}  // namespace ngvi::ad::detail
