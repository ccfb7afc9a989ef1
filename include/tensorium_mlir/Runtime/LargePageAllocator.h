#pragma once
// Allocator for grid-sized arrays. A stencil kernel touches, at every point, a few hundred
// pages (each field component at every x-plane the stencil reaches); with 4 KiB pages that is
// more than the first-level TLB holds, and the vector kernels stall on its misses. Arrays of
// 2 MiB and more are therefore aligned to 2 MiB and marked for transparent huge pages
// (madvise), before anything is written to them so that the kernel backs them with huge pages
// from the first touch. Smaller arrays use the ordinary heap.
#include <cstddef>
#include <cstdlib>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace tensorium_mlir::runtime {

template <class T> struct LargePageAllocator {
  using value_type = T;
  static constexpr size_t kHugePage = size_t{2} << 20;

  LargePageAllocator() = default;
  template <class U> LargePageAllocator(const LargePageAllocator<U> &) {}

  T *allocate(size_t n) {
    if (n > static_cast<size_t>(-1) / sizeof(T))
      throw std::bad_array_new_length();
    const size_t bytes = n * sizeof(T);
    if (bytes < kHugePage) {
      void *p = std::malloc(bytes ? bytes : 1);
      if (!p)
        throw std::bad_alloc();
      return static_cast<T *>(p);
    }
    const size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void *p = std::aligned_alloc(kHugePage, rounded);
    if (!p)
      throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    // Advice only: where huge pages are disabled the array simply stays on small pages.
    (void)madvise(p, rounded, MADV_HUGEPAGE);
#endif
    return static_cast<T *>(p);
  }
  void deallocate(T *p, size_t) noexcept { std::free(p); }

  template <class U> bool operator==(const LargePageAllocator<U> &) const { return true; }
};

} // namespace tensorium_mlir::runtime
