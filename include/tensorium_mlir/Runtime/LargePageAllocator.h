#pragma once
// Allocator for grid-sized arrays. A stencil kernel touches, at every vector step, a few hundred
// distinct pages (each field component at every x-plane and row its stencils reach); with
// 4 KiB pages that is more than the first-level TLB holds. Arrays of 2 MiB and more are
// therefore mapped on their own, 2 MiB aligned, and advised for transparent huge pages before
// anything is written to them, so that where the system's policy allows it (`madvise` or
// `always`) they are backed by huge pages from the first touch. What this is worth is measured
// by TensoriumBssnBenchmark (its huge/4k column); smaller arrays use the ordinary heap. Under
// AddressSanitizer every array uses the heap, so that overruns past its end are still caught.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
#define TENSORIUM_LARGE_PAGES 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TENSORIUM_LARGE_PAGES 0
#endif
#endif
#if !defined(TENSORIUM_LARGE_PAGES)
#if defined(__linux__) && defined(MADV_HUGEPAGE)
#define TENSORIUM_LARGE_PAGES 1
#else
#define TENSORIUM_LARGE_PAGES 0
#endif
#endif

namespace tensorium_mlir::runtime {

template <class T> struct LargePageAllocator {
  using value_type = T;
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;

  LargePageAllocator() = default;
  template <class U> LargePageAllocator(const LargePageAllocator<U> &) {}

  T *allocate(std::size_t n) {
    if (n > SIZE_MAX / sizeof(T))
      throw std::bad_array_new_length();
    const std::size_t bytes = n * sizeof(T);
    if (!mapped(bytes)) {
      void *p = std::malloc(bytes ? bytes : 1);
      if (!p)
        throw std::bad_alloc();
      return static_cast<T *>(p);
    }
#if TENSORIUM_LARGE_PAGES
    if (bytes > SIZE_MAX - 2 * kHugePage)
      throw std::bad_alloc();
    const std::size_t rounded = roundUp(bytes);
    // Over-map by one huge page and trim both ends to a 2 MiB aligned range.
    void *raw = mmap(nullptr, rounded + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
      throw std::bad_alloc();
    const auto start = reinterpret_cast<std::uintptr_t>(raw);
    const std::uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
    if (aligned > start)
      munmap(raw, aligned - start);
    if (const std::size_t tail = start + rounded + kHugePage - (aligned + rounded))
      munmap(reinterpret_cast<void *>(aligned + rounded), tail);
    // Advice only: where huge pages are disabled the array simply stays on small pages.
    (void)madvise(reinterpret_cast<void *>(aligned), rounded, MADV_HUGEPAGE);
    return reinterpret_cast<T *>(aligned);
#else
    return nullptr; // unreachable: mapped() is false without large-page support
#endif
  }

  void deallocate(T *p, std::size_t n) noexcept {
    if (!p)
      return;
#if TENSORIUM_LARGE_PAGES
    if (mapped(n * sizeof(T))) {
      munmap(p, roundUp(n * sizeof(T)));
      return;
    }
#endif
    std::free(p);
  }

  template <class U> bool operator==(const LargePageAllocator<U> &) const { return true; }

private:
  static bool mapped(std::size_t bytes) { return TENSORIUM_LARGE_PAGES && bytes >= kHugePage; }
  static std::size_t roundUp(std::size_t bytes) { return (bytes + kHugePage - 1) / kHugePage * kHugePage; }
};

} // namespace tensorium_mlir::runtime
