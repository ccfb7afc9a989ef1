#include "tensorium_mlir/Problems/SolutionFile.h"

#include "tensorium_mlir/Support/InputFile.h"

#include <hdf5.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>

namespace tensorium_mlir::elliptic {

namespace {

constexpr const char *kFormat = "tensorium-declared-solution-1";

/// Closes an HDF5 handle on scope exit.
struct Handle {
  hid_t id;
  herr_t (*close)(hid_t);
  ~Handle() {
    if (id >= 0)
      close(id);
  }
};

void check(bool ok, const std::string &what) {
  if (!ok)
    throw ProblemError(what);
}

void stringAttribute(hid_t at, const char *name, const std::string &value) {
  Handle type{H5Tcopy(H5T_C_S1), H5Tclose};
  H5Tset_size(type.id, value.size() + 1);
  Handle space{H5Screate(H5S_SCALAR), H5Sclose};
  Handle attr{H5Acreate2(at, name, type.id, space.id, H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
  check(attr.id >= 0 && H5Awrite(attr.id, type.id, value.c_str()) >= 0, std::string("cannot write attribute ") + name);
}

template <typename T> void arrayAttribute(hid_t at, const char *name, hid_t type, const std::vector<T> &values) {
  const hsize_t size = values.size();
  Handle space{H5Screate_simple(1, &size, nullptr), H5Sclose};
  Handle attr{H5Acreate2(at, name, type, space.id, H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
  check(attr.id >= 0 && H5Awrite(attr.id, type, values.data()) >= 0, std::string("cannot write attribute ") + name);
}

std::string readString(hid_t at, const char *name) {
  check(H5Aexists(at, name) > 0, std::string("not a Tensorium solution file (no attribute ") + name + ")");
  Handle attr{H5Aopen(at, name, H5P_DEFAULT), H5Aclose};
  Handle type{H5Aget_type(attr.id), H5Tclose};
  check(H5Tget_class(type.id) == H5T_STRING, std::string("attribute ") + name + " is not a string");
  const size_t size = H5Tget_size(type.id);
  std::string value(size, '\0');
  Handle memType{H5Tcopy(H5T_C_S1), H5Tclose};
  H5Tset_size(memType.id, size);
  check(H5Aread(attr.id, memType.id, value.data()) >= 0, std::string("cannot read attribute ") + name);
  return value.c_str();
}

template <typename T> std::vector<T> readArray(hid_t at, const char *name, hid_t type, size_t expected) {
  check(H5Aexists(at, name) > 0, std::string("not a Tensorium solution file (no attribute ") + name + ")");
  Handle attr{H5Aopen(at, name, H5P_DEFAULT), H5Aclose};
  Handle space{H5Aget_space(attr.id), H5Sclose};
  check(H5Sget_simple_extent_npoints(space.id) == static_cast<hssize_t>(expected),
        std::string("attribute ") + name + " has the wrong size");
  std::vector<T> values(expected);
  check(H5Aread(attr.id, type, values.data()) >= 0, std::string("cannot read attribute ") + name);
  return values;
}

void writeDataset(hid_t group, const std::string &name, const std::vector<hsize_t> &dims, const double *data) {
  Handle space{H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose};
  Handle set{H5Dcreate2(group, name.c_str(), H5T_IEEE_F64LE, space.id, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose};
  check(set.id >= 0 && H5Dwrite(set.id, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0,
        "cannot write dataset " + name);
}

std::vector<double> readDataset(hid_t group, const std::string &name, size_t expected) {
  check(H5Lexists(group, name.c_str(), H5P_DEFAULT) > 0, "the file has no dataset " + name);
  Handle set{H5Dopen2(group, name.c_str(), H5P_DEFAULT), H5Dclose};
  Handle space{H5Dget_space(set.id), H5Sclose};
  check(H5Sget_simple_extent_npoints(space.id) == static_cast<hssize_t>(expected), "dataset " + name + " has the wrong size");
  std::vector<double> values(expected);
  check(H5Dread(set.id, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0,
        "cannot read dataset " + name);
  return values;
}

std::vector<std::string> split(const std::string &text, char separator) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, separator))
    out.push_back(item);
  return out;
}

} // namespace

std::array<double, 3> Lattice::point(int i, int j, int k) const {
  auto at = [&](int a, int idx) {
    const double lo = bounds[static_cast<size_t>(2 * a)], hi = bounds[static_cast<size_t>(2 * a + 1)];
    return idx == n[static_cast<size_t>(a)] - 1 ? hi : lo + (hi - lo) * idx / (n[static_cast<size_t>(a)] - 1);
  };
  return {at(0, i), at(1, j), at(2, k)};
}

Lattice makeLattice(const std::array<long, 3> &n, const std::array<double, 6> &bounds) {
  Lattice l;
  for (size_t a = 0; a < 3; ++a) {
    check(n[a] >= 2 && n[a] <= kMaxLatticeAxisPoints,
          "a lattice axis takes 2 to " + std::to_string(kMaxLatticeAxisPoints) + " points, got " + std::to_string(n[a]));
    l.n[a] = static_cast<int>(n[a]);
  }
  for (size_t a = 0; a < 3; ++a)
    check(std::isfinite(bounds[2 * a]) && std::isfinite(bounds[2 * a + 1]) && bounds[2 * a] < bounds[2 * a + 1],
          "lattice bounds must be finite with min < max on every axis");
  l.bounds = bounds;
  return l;
}

double latticeValueBytes(const Lattice &lattice, size_t unknowns) {
  return 8.0 * static_cast<double>(unknowns) * lattice.n[0] * static_cast<double>(lattice.n[1]) * lattice.n[2];
}

LatticeValues sampleOnLattice(const DeclaredProblemSolution &s, const Lattice &lattice) {
  LatticeValues out;
  out.lattice = lattice;
  out.names = s.unknownNames;
  const size_t total = static_cast<size_t>(lattice.n[0]) * lattice.n[1] * lattice.n[2];
  out.values.assign(s.unknownNames.size(), std::vector<double>(total));
  for (int k = 0; k < lattice.n[2]; ++k)
    for (int j = 0; j < lattice.n[1]; ++j)
      for (int i = 0; i < lattice.n[0]; ++i) {
        const size_t at = (static_cast<size_t>(k) * lattice.n[1] + j) * lattice.n[0] + i;
        const std::array<double, 3> x = lattice.point(i, j, k);
        bool outside = false;
        for (size_t u = 0; u < s.unknownNames.size(); ++u) {
          out.values[u][at] = s.interpolate(s.unknownNames[u], x);
          outside = outside || std::isnan(out.values[u][at]);
        }
        out.outside += outside ? 1 : 0;
      }
  return out;
}

void writeSolutionFile(const std::string &path, const std::string &block, const DeclaredProblemSolution &s,
                       const LatticeValues *lattice) {
  const std::string partial = path + ".partial";
  {
    Handle file{H5Fcreate(partial.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose};
    check(file.id >= 0, "cannot create '" + path + "'");
    std::string names, parameters;
    for (const std::string &n : s.unknownNames)
      names += (names.empty() ? "" : ",") + n;
    for (const auto &[name, v] : s.parameters) {
      char buffer[64];
      std::snprintf(buffer, sizeof buffer, "%.17g", v);
      parameters += (parameters.empty() ? "" : ",") + name + "=" + buffer;
    }
    stringAttribute(file.id, "format", kFormat);
    stringAttribute(file.id, "block", block);
    stringAttribute(file.id, "map", s.map);
    stringAttribute(file.id, "unknowns", names);
    stringAttribute(file.id, "parameters", parameters);
    arrayAttribute(file.id, "resolution", H5T_NATIVE_INT, std::vector<int>(s.resolution.begin(), s.resolution.end()));
    arrayAttribute(file.id, "bounds", H5T_NATIVE_DOUBLE, std::vector<double>(s.bounds.begin(), s.bounds.end()));
    arrayAttribute(file.id, "b", H5T_NATIVE_DOUBLE, std::vector<double>{s.punctureB});
    {
      Handle group{H5Gcreate2(file.id, "collocation", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose};
      const size_t n = s.grid->size();
      for (size_t u = 0; u < s.unknownNames.size(); ++u)
        writeDataset(group.id, s.unknownNames[u], {static_cast<hsize_t>(n)}, s.solverVariable.data() + u * n);
    }
    if (lattice) {
      Handle group{H5Gcreate2(file.id, "lattice", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose};
      const Lattice &l = lattice->lattice;
      arrayAttribute(group.id, "points", H5T_NATIVE_INT, std::vector<int>(l.n.begin(), l.n.end()));
      arrayAttribute(group.id, "bounds", H5T_NATIVE_DOUBLE, std::vector<double>(l.bounds.begin(), l.bounds.end()));
      for (size_t u = 0; u < lattice->names.size(); ++u)
        writeDataset(group.id, lattice->names[u],
                     {static_cast<hsize_t>(l.n[2]), static_cast<hsize_t>(l.n[1]), static_cast<hsize_t>(l.n[0])},
                     lattice->values[u].data());
    }
    check(H5Fflush(file.id, H5F_SCOPE_GLOBAL) >= 0, "cannot write '" + path + "'");
  }
  if (std::rename(partial.c_str(), path.c_str()) != 0) {
    std::remove(partial.c_str());
    throw ProblemError("cannot write '" + path + "'");
  }
  if (!lattice)
    return;
  // XDMF index: a 3-D co-rectilinear mesh (origin and spacing) with one node attribute per unknown.
  const Lattice &l = lattice->lattice;
  const std::string file = path.substr(path.find_last_of('/') + 1);
  const std::string dims = std::to_string(l.n[2]) + " " + std::to_string(l.n[1]) + " " + std::to_string(l.n[0]);
  std::ostringstream x;
  x.precision(17);
  x << "<?xml version=\"1.0\" ?>\n<Xdmf Version=\"3.0\">\n <Domain>\n  <Grid Name=\"" << block
    << "\" GridType=\"Uniform\">\n   <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"" << dims
    << "\"/>\n   <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
    << "    <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">" << l.bounds[4] << " "
    << l.bounds[2] << " " << l.bounds[0] << "</DataItem>\n"
    << "    <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">"
    << (l.bounds[5] - l.bounds[4]) / (l.n[2] - 1) << " " << (l.bounds[3] - l.bounds[2]) / (l.n[1] - 1) << " "
    << (l.bounds[1] - l.bounds[0]) / (l.n[0] - 1) << "</DataItem>\n   </Geometry>\n";
  for (const std::string &name : lattice->names)
    x << "   <Attribute Name=\"" << name << "\" AttributeType=\"Scalar\" Center=\"Node\">\n"
      << "    <DataItem Dimensions=\"" << dims << "\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">" << file
      << ":/lattice/" << name << "</DataItem>\n   </Attribute>\n";
  x << "  </Grid>\n </Domain>\n</Xdmf>\n";
  const std::string xmf = path.substr(0, path.size() - (path.size() > 3 && path.substr(path.size() - 3) == ".h5" ? 3 : 0)) + ".xmf";
  std::ofstream out(xmf + ".partial");
  check(static_cast<bool>(out << x.str()) && static_cast<bool>(out.flush()), "cannot write '" + xmf + "'");
  out.close();
  check(std::rename((xmf + ".partial").c_str(), xmf.c_str()) == 0, "cannot write '" + xmf + "'");
}

StoredSolution readSolutionFile(const std::string &path) {
  // Quiet HDF5's own error stack: failures become ProblemError messages.
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const std::string problem = support::inputFileProblem(path, std::numeric_limits<std::uint64_t>::max());
  check(problem.empty(), "cannot read '" + path + "': " + problem);
  Handle file{H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
  check(file.id >= 0, "'" + path + "' is not an HDF5 file");
  check(readString(file.id, "format") == kFormat, "'" + path + "' is not a Tensorium declared-problem solution file");
  StoredSolution out;
  out.block = readString(file.id, "block");
  const std::string map = readString(file.id, "map");
  const std::vector<std::string> names = split(readString(file.id, "unknowns"), ',');
  for (const std::string &item : split(readString(file.id, "parameters"), ',')) {
    const size_t eq = item.find('=');
    if (eq != std::string::npos)
      out.parameters[item.substr(0, eq)] = std::strtod(item.c_str() + eq + 1, nullptr);
  }
  const std::vector<int> resolution = readArray<int>(file.id, "resolution", H5T_NATIVE_INT, 3);
  const std::vector<double> bounds = readArray<double>(file.id, "bounds", H5T_NATIVE_DOUBLE, 6);
  const double b = readArray<double>(file.id, "b", H5T_NATIVE_DOUBLE, 1)[0];
  for (int n : resolution)
    check(n >= 1 && n <= 512, "'" + path + "' has a resolution out of range");
  const size_t points = static_cast<size_t>(resolution[0]) * resolution[1] * resolution[2];
  Vector v(static_cast<Eigen::Index>(points * names.size()));
  {
    check(H5Lexists(file.id, "collocation", H5P_DEFAULT) > 0, "'" + path + "' has no collocation group");
    Handle group{H5Gopen2(file.id, "collocation", H5P_DEFAULT), H5Gclose};
    for (size_t u = 0; u < names.size(); ++u) {
      const std::vector<double> values = readDataset(group.id, names[u], points);
      std::copy(values.begin(), values.end(), v.data() + u * points);
    }
  }
  out.solution = restoreDeclaredSolution(map, {resolution[0], resolution[1], resolution[2]},
                                         {bounds[0], bounds[1], bounds[2], bounds[3], bounds[4], bounds[5]}, b, names, v);
  out.solution.parameters = out.parameters;
  if (H5Lexists(file.id, "lattice", H5P_DEFAULT) > 0) {
    Handle group{H5Gopen2(file.id, "lattice", H5P_DEFAULT), H5Gclose};
    LatticeValues l;
    const std::vector<int> n = readArray<int>(group.id, "points", H5T_NATIVE_INT, 3);
    const std::vector<double> lb = readArray<double>(group.id, "bounds", H5T_NATIVE_DOUBLE, 6);
    for (size_t a = 0; a < 3; ++a) {
      check(n[a] >= 2 && n[a] <= 1024, "'" + path + "' has a lattice size out of range");
      l.lattice.n[a] = n[a];
    }
    for (size_t i = 0; i < 6; ++i)
      l.lattice.bounds[i] = lb[i];
    l.names = names;
    const size_t total = static_cast<size_t>(n[0]) * n[1] * n[2];
    for (const std::string &name : names)
      l.values.push_back(readDataset(group.id, name, total));
    out.lattice = std::move(l);
  }
  return out;
}

} // namespace tensorium_mlir::elliptic
