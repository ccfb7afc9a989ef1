// h5_compare FILE_A DATASET_A FILE_B DATASET_B: prints both datasets' dimensions and fails
// unless they have the same shape and bitwise equal doubles. h5_compare FILE DATASET: prints
// the dimensions only. h5_compare --flip FILE DATASET INDEX BIT flips one bit of one value in
// place. h5_compare --attribute FILE NAME prints a numeric attribute of the root group;
// h5_compare --value FILE DATASET INDEX prints one value (flat index, row-major). Used to
// check restarts and snapshot layouts, and to corrupt a checkpoint's data on purpose, without
// other tools.
#include <hdf5.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace {

bool readDataset(const char *file, const char *name, std::vector<hsize_t> &dims, std::vector<double> &values) {
  hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0)
    return false;
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  bool ok = d >= 0;
  if (ok) {
    hid_t space = H5Dget_space(d);
    dims.assign(static_cast<size_t>(H5Sget_simple_extent_ndims(space)), 0);
    H5Sget_simple_extent_dims(space, dims.data(), nullptr);
    size_t count = 1;
    for (hsize_t n : dims)
      count *= n;
    values.resize(count);
    ok = H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0;
    H5Sclose(space);
    H5Dclose(d);
  }
  H5Fclose(f);
  return ok;
}

void printDims(const char *file, const char *name, const std::vector<hsize_t> &dims) {
  std::printf("%s:%s dims", file, name);
  for (hsize_t n : dims)
    std::printf(" %llu", static_cast<unsigned long long>(n));
  std::printf("\n");
}

} // namespace

int main(int argc, char **argv) {
  if (argc == 4 && std::strcmp(argv[1], "--attribute") == 0) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    hid_t f = H5Fopen(argv[2], H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t a = f >= 0 ? H5Aopen_by_name(f, "/", argv[3], H5P_DEFAULT, H5P_DEFAULT) : -1;
    double value = 0;
    const bool ok = a >= 0 && H5Aread(a, H5T_NATIVE_DOUBLE, &value) >= 0;
    if (a >= 0)
      H5Aclose(a);
    if (f >= 0)
      H5Fclose(f);
    if (!ok) {
      std::fprintf(stderr, "FAIL: no numeric attribute %s in %s\n", argv[3], argv[2]);
      return 1;
    }
    std::printf("%.17g\n", value);
    return 0;
  }
  if (argc == 5 && std::strcmp(argv[1], "--value") == 0) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    std::vector<hsize_t> dims;
    std::vector<double> values;
    const unsigned long index = std::strtoul(argv[4], nullptr, 10);
    if (!readDataset(argv[2], argv[3], dims, values) || index >= values.size()) {
      std::fprintf(stderr, "FAIL: no value %lu in %s:%s\n", index, argv[2], argv[3]);
      return 1;
    }
    std::printf("%.17g\n", values[index]);
    return 0;
  }
  if (argc == 6 && std::strcmp(argv[1], "--flip") == 0) {
    // Flips one bit of one value in place, through HDF5: a corruption of the data alone.
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    std::vector<hsize_t> dims;
    std::vector<double> values;
    const unsigned long index = std::strtoul(argv[4], nullptr, 10), bit = std::strtoul(argv[5], nullptr, 10);
    if (!readDataset(argv[2], argv[3], dims, values) || index >= values.size() || bit > 63) {
      std::fprintf(stderr, "FAIL: cannot flip bit %lu of value %lu in %s:%s\n", bit, index, argv[2], argv[3]);
      return 1;
    }
    uint64_t bits;
    std::memcpy(&bits, &values[index], sizeof bits);
    bits ^= uint64_t{1} << bit;
    std::memcpy(&values[index], &bits, sizeof bits);
    hid_t f = H5Fopen(argv[2], H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t d = f >= 0 ? H5Dopen2(f, argv[3], H5P_DEFAULT) : -1;
    const bool ok = d >= 0 && H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0;
    if (d >= 0)
      H5Dclose(d);
    if (f >= 0)
      H5Fclose(f);
    return ok ? 0 : 1;
  }
  if (argc != 3 && argc != 5) {
    std::fprintf(stderr, "usage: h5_compare FILE DATASET [FILE DATASET]\n");
    return 2;
  }
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  std::vector<hsize_t> da, db;
  std::vector<double> a, b;
  if (!readDataset(argv[1], argv[2], da, a)) {
    std::printf("FAIL: cannot read %s:%s\n", argv[1], argv[2]);
    return 1;
  }
  printDims(argv[1], argv[2], da);
  if (argc == 3)
    return 0;
  if (!readDataset(argv[3], argv[4], db, b)) {
    std::printf("FAIL: cannot read %s:%s\n", argv[3], argv[4]);
    return 1;
  }
  printDims(argv[3], argv[4], db);
  if (da != db) {
    std::printf("FAIL: shapes differ\n");
    return 1;
  }
  size_t differing = 0;
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    differing += std::memcmp(&a[i], &b[i], sizeof(double)) != 0;
    worst = std::max(worst, std::abs(a[i] - b[i]));
  }
  std::printf("%zu of %zu values differ bitwise, max |difference| = %.3e\n%s\n", differing, a.size(), worst,
              differing ? "FAIL" : "PASS");
  return differing ? 1 : 0;
}
