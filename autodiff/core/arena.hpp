// Arena: bump allocation in a list of blocks, with mark and rewind.
//
// Fused nodes keep their saved values (matrices, partials) here. Blocks are kept when the
// arena is rewound, so recording the same computation again reuses the same memory and
// allocates nothing. Everything placed in the arena must be trivially destructible: a rewind
// just moves the bump pointer back.
//
// Arrays start on a 64-byte boundary (array_alignment, the widest SIMD register): Eigen's
// vectorised loops split an array into a scalar prologue, a packet body and a scalar tail by
// its address, and the scalar and packet code of a kernel need not round alike. With every
// array aligned, a kernel writing into a node's arrays takes the same path for each
// coefficient wherever in the arena the node sits — one part of the engine's rule that a
// result never depends on where its operands sit in memory.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

namespace ngvi::ad {

class Arena {
 public:
  struct Mark {
    std::size_t block = 0;
    std::size_t offset = 0;
  };

  // Alignment of every allocate_array result: a multiple of any SIMD packet (AVX-512 included).
  static constexpr std::size_t array_alignment = 64;

  explicit Arena(std::size_t first_block_bytes = 64 * 1024)
      : next_block_bytes_(first_block_bytes) {}
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  // Raw storage for `bytes` bytes aligned to `align`. Amortised O(1); allocates a new block
  // only when the retained ones are exhausted.
  void* allocate(std::size_t bytes, std::size_t align = alignof(std::max_align_t)) {
    while (current_ < blocks_.size()) {
      Block& b = blocks_[current_];
      // Align the address, not the offset: a block is only as aligned as new[] made it
      // (alignof(std::max_align_t)), and callers may ask for more (alignas(32/64) payloads).
      const std::uintptr_t base = reinterpret_cast<std::uintptr_t>(b.data.get());
      const std::size_t start = static_cast<std::size_t>(
          ((base + offset_ + align - 1) & ~(std::uintptr_t{align} - 1)) - base);
      if (start + bytes <= b.size) {
        offset_ = start + bytes;
        return b.data.get() + start;
      }
      ++current_;
      offset_ = 0;
    }
    const std::size_t size = std::max(next_block_bytes_, bytes + align);
    next_block_bytes_ = size * 2;
    blocks_.push_back(Block{std::unique_ptr<std::byte[]>(new std::byte[size]), size});
    ++block_allocations_;
    current_ = blocks_.size() - 1;
    offset_ = 0;
    return allocate(bytes, align);
  }

  // Uninitialised array of n trivially destructible T, aligned to array_alignment.
  // Cost: O(1); at most array_alignment - 1 bytes of padding.
  template <class T>
  T* allocate_array(std::size_t n) {
    static_assert(std::is_trivially_destructible_v<T>,
                  "ngvi::ad::Arena holds only trivially destructible types: rewinding never "
                  "runs destructors");
    return static_cast<T*>(
        allocate(sizeof(T) * std::max<std::size_t>(n, 1), std::max(alignof(T), array_alignment)));
  }

  template <class T, class... Args>
  T* create(Args&&... args) {
    static_assert(std::is_trivially_destructible_v<T>,
                  "ngvi::ad::Arena holds only trivially destructible types: rewinding never "
                  "runs destructors");
    return new (allocate(sizeof(T), alignof(T))) T(std::forward<Args>(args)...);
  }

  Mark mark() const { return Mark{current_, offset_}; }
  void rewind(const Mark& m) {
    current_ = m.block;
    offset_ = m.offset;
  }

  // How many blocks were ever requested from the system (the allocation-free re-recording
  // test reads this).
  std::size_t block_allocations() const { return block_allocations_; }
  std::size_t bytes_reserved() const {
    std::size_t s = 0;
    for (const Block& b : blocks_) s += b.size;
    return s;
  }

 private:
  struct Block {
    std::unique_ptr<std::byte[]> data;
    std::size_t size;
  };
  std::vector<Block> blocks_;
  std::size_t current_ = 0;
  std::size_t offset_ = 0;
  std::size_t next_block_bytes_;
  std::size_t block_allocations_ = 0;
};

}  // namespace ngvi::ad
