#include "tensorium_mlir/Distributed/SnapshotSlice.h"

#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>
#include <utility>

namespace tensorium_mlir::distributed {
namespace {

/// Closes an HDF5 handle with the right call when it leaves scope.
struct Handle {
  hid_t id = -1;
  herr_t (*close)(hid_t) = nullptr;
  Handle(hid_t i, herr_t (*c)(hid_t)) : id(i), close(c) {}
  ~Handle() {
    if (id >= 0 && close)
      close(id);
  }
  Handle(const Handle &) = delete;
  Handle &operator=(const Handle &) = delete;
};

Handle openFile(const std::string &path) {
  H5E_auto2_t func = nullptr;
  void *data = nullptr;
  H5Eget_auto2(H5E_DEFAULT, &func, &data);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); // errors become messages here, not HDF5 stack dumps
  Handle f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  H5Eset_auto2(H5E_DEFAULT, func, data);
  if (f.id < 0)
    throw SnapshotError("cannot open '" + path + "' as an HDF5 file");
  return Handle(std::exchange(f.id, -1), H5Fclose);
}

std::string stringAttribute(hid_t object, const char *name, const std::string &path) {
  if (H5Aexists(object, name) <= 0)
    throw SnapshotError("'" + path + "' has no attribute '" + name + "' (not a tensorium-evolve snapshot file?)");
  Handle a(H5Aopen(object, name, H5P_DEFAULT), H5Aclose);
  Handle type(H5Aget_type(a.id), H5Tclose);
  if (H5Tget_class(type.id) != H5T_STRING)
    throw SnapshotError("attribute '" + std::string(name) + "' of '" + path + "' is not a string");
  if (H5Tis_variable_str(type.id) > 0) {
    Handle memory(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(memory.id, H5T_VARIABLE);
    char *text = nullptr;
    if (H5Aread(a.id, memory.id, &text) < 0 || !text)
      throw SnapshotError("cannot read attribute '" + std::string(name) + "' of '" + path + "'");
    std::string out(text);
    H5free_memory(text);
    return out;
  }
  const size_t size = H5Tget_size(type.id);
  std::string out(size, '\0');
  Handle memory(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(memory.id, size);
  if (H5Aread(a.id, memory.id, out.data()) < 0)
    throw SnapshotError("cannot read attribute '" + std::string(name) + "' of '" + path + "'");
  return out.substr(0, std::strlen(out.c_str()));
}

double numberAttribute(hid_t object, const std::string &name, const std::string &path) {
  if (H5Aexists(object, name.c_str()) <= 0)
    throw SnapshotError("'" + path + "' has no attribute '" + name + "' (written before the grid attributes existed?)");
  Handle a(H5Aopen(object, name.c_str(), H5P_DEFAULT), H5Aclose);
  double value = 0;
  if (H5Aread(a.id, H5T_NATIVE_DOUBLE, &value) < 0)
    throw SnapshotError("cannot read attribute '" + name + "' of '" + path + "'");
  return value;
}

herr_t collectStep(hid_t, const char *name, const H5L_info_t *, void *steps) {
  long step = 0;
  char tail = 0;
  if (std::sscanf(name, "snapshot_%ld%c", &step, &tail) == 1)
    static_cast<std::vector<long> *>(steps)->push_back(step);
  return 0;
}

} // namespace

std::vector<long> snapshotSteps(const std::string &path) {
  const Handle f = openFile(path);
  (void)stringAttribute(f.id, "tensorium_layout", path);
  std::vector<long> steps;
  hsize_t index = 0;
  H5Literate(f.id, H5_INDEX_NAME, H5_ITER_INC, &index, collectStep, &steps);
  std::sort(steps.begin(), steps.end());
  return steps;
}

SnapshotSlice readSnapshotSlice(const std::string &path, long step) {
  const std::vector<long> steps = snapshotSteps(path);
  if (steps.empty())
    throw SnapshotError("'" + path + "' holds no snapshot");
  if (step < 0)
    step = steps.back();
  if (std::find(steps.begin(), steps.end(), step) == steps.end()) {
    std::string list;
    for (long s : steps)
      list += (list.empty() ? "" : ", ") + std::to_string(s);
    throw SnapshotError("'" + path + "' has no snapshot at step " + std::to_string(step) + " (it has " + list + ")");
  }
  const Handle f = openFile(path);
  // The layout: one "name:components@offset" per field on its second line.
  const std::string layout = stringAttribute(f.id, "tensorium_layout", path);
  std::map<std::string, std::pair<int, int>> fields;
  {
    std::istringstream lines(layout);
    std::string line;
    while (std::getline(lines, line)) {
      std::istringstream words(line);
      for (std::string w; words >> w;) {
        const size_t colon = w.find(':'), at = w.find('@');
        if (colon == std::string::npos || at == std::string::npos || at < colon)
          continue;
        try {
          fields[w.substr(0, colon)] = {std::stoi(w.substr(colon + 1, at - colon - 1)), std::stoi(w.substr(at + 1))};
        } catch (const std::exception &) {
        }
      }
    }
  }
  for (const auto &[name, components] : std::map<std::string, int>{{"chi", 1}, {"gammatilde", 9}, {"Atilde", 9}, {"K", 1}}) {
    const auto it = fields.find(name);
    if (it == fields.end() || it->second.first != components)
      throw SnapshotError("'" + path + "' has no BSSN field '" + name + "' with " + std::to_string(components) +
                          " components (a BSSN run's snapshots are needed)");
  }
  auto data = std::make_shared<horizons::UniformGridData>();
  const char *axes[3] = {"x", "y", "z"};
  for (size_t a = 0; a < 3; ++a) {
    data->origin[a] = numberAttribute(f.id, std::string("origin_") + axes[a], path);
    data->spacing[a] = numberAttribute(f.id, std::string("spacing_") + axes[a], path);
    data->n[a] = static_cast<int>(numberAttribute(f.id, std::string("points_") + axes[a], path));
  }
  char group[64];
  std::snprintf(group, sizeof group, "/snapshot_%08ld", step);
  SnapshotSlice out;
  out.step = step;
  {
    Handle g(H5Gopen2(f.id, group, H5P_DEFAULT), H5Gclose);
    if (g.id < 0)
      throw SnapshotError("cannot open " + std::string(group) + " in '" + path + "'");
    out.time = numberAttribute(g.id, "time", path);
  }
  Handle d(H5Dopen2(f.id, (std::string(group) + "/state").c_str(), H5P_DEFAULT), H5Dclose);
  if (d.id < 0)
    throw SnapshotError("'" + path + "' has no dataset " + std::string(group) + "/state");
  Handle space(H5Dget_space(d.id), H5Sclose);
  const int rank = H5Sget_simple_extent_ndims(space.id);
  hsize_t dims[4] = {0, 0, 0, 0};
  if (rank != 4 || H5Sget_simple_extent_dims(space.id, dims, nullptr) != 4 || dims[0] != static_cast<hsize_t>(data->n[2]) ||
      dims[1] != static_cast<hsize_t>(data->n[1]) || dims[2] != static_cast<hsize_t>(data->n[0]))
    throw SnapshotError("the state of " + std::string(group) + " does not have the grid's shape");
  const size_t dof = dims[3], points = static_cast<size_t>(data->n[0]) * data->n[1] * data->n[2];
  std::vector<double> state(points * dof);
  if (H5Dread(d.id, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, state.data()) < 0)
    throw SnapshotError("cannot read " + std::string(group) + "/state of '" + path + "'");
  for (size_t c = 0; c < 6; ++c)
    data->gamma[c].resize(points), data->K[c].resize(points);
  const int chi = fields["chi"].second, gt = fields["gammatilde"].second, At = fields["Atilde"].second, K = fields["K"].second;
  constexpr int symmetric[6] = {0, 1, 2, 4, 5, 8};
  for (size_t p = 0; p < points; ++p) {
    const double *u = &state[p * dof];
    const double c = u[chi];
    if (!(c > 0))
      throw SnapshotError("chi = " + std::to_string(c) + " at grid point " + std::to_string(p) + " of " + group +
                          ": not a positive conformal factor");
    for (size_t q = 0; q < 6; ++q) {
      const double g = u[gt + symmetric[q]];
      data->gamma[q][p] = g / c;
      data->K[q][p] = (u[At + symmetric[q]] + g * u[K] / 3) / c;
    }
  }
  data->validate();
  out.data = std::move(data);
  return out;
}

} // namespace tensorium_mlir::distributed
