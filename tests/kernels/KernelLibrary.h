#pragma once
// Loads a generated kernel module with dlopen and calls its lowered functions. Lowered
// signatures are (integer prefix..., doubles..., memref descriptors...); every descriptor is
// five integer-class arguments, so one call shape covers every kernel family.
#include <array>
#include <cstdint>
#include <dlfcn.h>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tensorium_test {

class KernelLibrary {
public:
  explicit KernelLibrary(const std::string &path) {
    handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_)
      throw std::runtime_error("dlopen " + path + ": " + dlerror());
  }
  ~KernelLibrary() {
    if (handle_)
      dlclose(handle_);
  }
  KernelLibrary(const KernelLibrary &) = delete;
  KernelLibrary &operator=(const KernelLibrary &) = delete;

  void *symbol(const std::string &name) const {
    void *s = dlsym(handle_, name.c_str());
    if (!s)
      throw std::runtime_error("missing symbol " + name);
    return s;
  }

private:
  void *handle_ = nullptr;
};

/// Appends the five lowered arguments of a rank-1 memref over `data[0, size)`.
inline void pushMemref(std::vector<int64_t> &ints, double *data, int64_t size) {
  ints.push_back(reinterpret_cast<int64_t>(data));
  ints.push_back(reinterpret_cast<int64_t>(data));
  ints.push_back(0);
  ints.push_back(size);
  ints.push_back(1);
}

template <typename T, size_t> using Repeat = T;

template <size_t... P, size_t... D, size_t... K>
void callImpl(void *fn, const int64_t *pre, const double *d, const int64_t *k, std::index_sequence<P...>,
              std::index_sequence<D...>, std::index_sequence<K...>) {
  using F = void (*)(Repeat<int64_t, P>..., Repeat<double, D>..., Repeat<int64_t, K>...);
  reinterpret_cast<F>(fn)(pre[P]..., d[D]..., k[K]...);
}

/// Calls `fn(prefix ints, doubles, trailing ints)` returning void. Sizes are compile-time.
template <size_t NP, size_t ND, size_t NK>
void callKernel(void *fn, const std::array<int64_t, NP> &pre, const std::array<double, ND> &d,
                const std::vector<int64_t> &k) {
  if (k.size() != NK)
    throw std::runtime_error("wrong number of trailing integer arguments");
  callImpl(fn, pre.data(), d.data(), k.data(), std::make_index_sequence<NP>{}, std::make_index_sequence<ND>{},
           std::make_index_sequence<NK>{});
}

template <size_t... D>
double callScalarImpl(void *fn, const double *d, std::index_sequence<D...>) {
  using F = double (*)(Repeat<double, D>...);
  return reinterpret_cast<F>(fn)(d[D]...);
}

/// Calls a point kernel `double fn(double...)`.
template <size_t ND> double callScalar(void *fn, const std::array<double, ND> &d) {
  return callScalarImpl(fn, d.data(), std::make_index_sequence<ND>{});
}

} // namespace tensorium_test
