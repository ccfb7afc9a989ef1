#include "tensorium_mlir/Refinement/RefinedIO.h"

#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace tensorium_mlir::refinement {

namespace {

using distributed::exact;
using distributed::mix;
using distributed::checkpointAttributes;
using distributed::checksumText;
using distributed::writeXdmfFieldAttributes;

/// One HDF5 identifier, closed with its kind's function when the scope ends.
class Handle {
public:
  Handle(hid_t id, herr_t (*close)(hid_t), const std::string &what) : id_(id), close_(close) {
    if (id_ < 0)
      throw RefinementError("HDF5: " + what + " failed");
  }
  ~Handle() { close_(id_); }
  Handle(const Handle &) = delete;
  Handle &operator=(const Handle &) = delete;
  operator hid_t() const { return id_; }

private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

void check(herr_t status, const std::string &what) {
  if (status < 0)
    throw RefinementError("HDF5: " + what + " failed");
}

/// A file opened by every rank of `comm` through MPI-IO (HDF5's own error printing silenced:
/// failures come back as exceptions that name the step).
Handle openFile(MPI_Comm comm, const std::string &path, unsigned mode, bool create) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  Handle access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "a file access list");
  check(H5Pset_fapl_mpio(access, comm, MPI_INFO_NULL), "setting MPI-IO");
  const hid_t f = create ? H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access)
                         : H5Fopen(path.c_str(), mode, access);
  return Handle(f, H5Fclose, (create ? "creating " : "opening ") + path);
}

void writeText(hid_t parent, const char *name, const std::string &value) {
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose, "a string type");
  check(H5Tset_size(type, std::max<size_t>(value.size(), 1)), "a string size");
  Handle space(H5Screate(H5S_SCALAR), H5Sclose, "a scalar space");
  Handle a(H5Acreate2(parent, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose, std::string("attribute ") + name);
  const std::string padded = value.empty() ? std::string(1, '\0') : value;
  check(H5Awrite(a, type, padded.data()), std::string("writing attribute ") + name);
}

std::string readText(hid_t parent, const char *name) {
  if (H5Aexists(parent, name) <= 0)
    throw RefinementError(std::string("attribute '") + name + "' missing");
  Handle a(H5Aopen(parent, name, H5P_DEFAULT), H5Aclose, std::string("attribute ") + name);
  Handle type(H5Aget_type(a), H5Tclose, "an attribute type");
  if (H5Tget_class(type) != H5T_STRING || H5Tis_variable_str(type) > 0)
    throw RefinementError(std::string("attribute '") + name + "' is not a fixed-length string");
  std::string text(H5Tget_size(type), '\0');
  check(H5Aread(a, type, text.data()), std::string("reading attribute ") + name);
  return text.substr(0, text.find('\0'));
}

void writeNumber(hid_t parent, const char *name, hid_t type, const void *value) {
  Handle space(H5Screate(H5S_SCALAR), H5Sclose, "a scalar space");
  Handle a(H5Acreate2(parent, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose, std::string("attribute ") + name);
  check(H5Awrite(a, type, value), std::string("writing attribute ") + name);
}

/// Rows [first, first + rows) of a dataset of `dims` (rank `rank`, rows along the first axis)
/// written or read collectively; a rank without rows selects nothing.
void transferRows(hid_t dataset, int rank, const hsize_t *dims, hsize_t first, hsize_t rows, hid_t memoryType,
                  void *data, bool write) {
  Handle file(H5Dget_space(dataset), H5Sclose, "a dataset space");
  hsize_t start[5] = {first, 0, 0, 0, 0}, count[5] = {rows, 0, 0, 0, 0}, one[5] = {1, 0, 0, 0, 0};
  for (int a = 1; a < rank; ++a)
    count[a] = one[a] = dims[a];
  Handle memory(H5Screate_simple(rank, rows ? count : one, nullptr), H5Sclose, "a memory space");
  if (rows) {
    check(H5Sselect_hyperslab(file, H5S_SELECT_SET, start, nullptr, count, nullptr), "selecting rows");
  } else {
    check(H5Sselect_none(file), "selecting nothing");
    check(H5Sselect_none(memory), "selecting nothing");
  }
  Handle transfer(H5Pcreate(H5P_DATASET_XFER), H5Pclose, "a transfer list");
  check(H5Pset_dxpl_mpio(transfer, H5FD_MPIO_COLLECTIVE), "collective transfer");
  double dummy = 0;
  void *buffer = data ? data : &dummy;
  check(write ? H5Dwrite(dataset, memoryType, memory, file, transfer, buffer)
              : H5Dread(dataset, memoryType, memory, file, transfer, buffer),
        write ? "writing a dataset" : "reading a dataset");
}

hid_t createDataset(hid_t parent, const char *name, hid_t type, int rank, const hsize_t *dims) {
  Handle space(H5Screate_simple(rank, dims, nullptr), H5Sclose, "a dataset space");
  return H5Dcreate2(parent, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
}

/// This rank's leaves as rows of (level, first x, first y, first z).
std::vector<int64_t> leafRows(const RefinedEvolution &e) {
  std::vector<int64_t> rows;
  for (const Block &k : e.blocks())
    rows.insert(rows.end(), {k.leaf.level, k.leaf.first[0], k.leaf.first[1], k.leaf.first[2]});
  return rows;
}

/// Sum over this rank's leaves and values of a hash of (global position, bits): the same total
/// on any number of ranks once summed (modulo 2^64).
uint64_t stateHash(const std::vector<int64_t> &leaves, const std::vector<double> &state, int64_t firstLeaf,
                   size_t perLeaf) {
  uint64_t h = 0;
  for (size_t i = 0; i < leaves.size(); ++i)
    h += mix(mix(static_cast<uint64_t>(firstLeaf) * 4 + i + (uint64_t{1} << 62)) ^ static_cast<uint64_t>(leaves[i]));
  const uint64_t base = static_cast<uint64_t>(firstLeaf) * perLeaf;
  for (size_t v = 0; v < state.size(); ++v) {
    uint64_t bits;
    std::memcpy(&bits, &state[v], sizeof bits);
    h += mix(mix(base + v) ^ bits);
  }
  return h;
}



} // namespace

std::string refinedLayout(const RefinedEvolution &e) {
  std::ostringstream s;
  const RefinedEvolution::Options &o = e.options();
  const ForestSpec &f = o.forest;
  s << "kernel " << o.rhsKernel << " radius " << e.stencilRadius() << "\n";
  s << "forest lower " << exact(f.lower[0]) << " " << exact(f.lower[1]) << " " << exact(f.lower[2]) << " root_width "
    << exact(f.rootWidth) << " roots " << f.roots[0] << " " << f.roots[1] << " " << f.roots[2]
    << (f.periodic ? " periodic" : " open") << " block " << f.blockPoints << " max_level " << f.maxLevel << "\n";
  s << "ghost " << o.ghostWidth << " interpolation " << o.interpolationPoints << " integrator rk4"
    << distributed::layoutParamsAndFields(o.params, e.fields());
  return s.str();
}

RefinedSnapshotWriter::RefinedSnapshotWriter(const RefinedEvolution &e, std::string path, const std::string &runFile)
    : path_(std::move(path)) {
  if (path_.size() < 4 || path_.substr(path_.size() - 3) != ".h5")
    throw RefinementError("output file '" + path_ + "' must end in .h5");
  xdmf_ = path_.substr(0, path_.size() - 3) + ".xmf";
  Handle file = openFile(e.forest().comm(), partialPath(), 0, true);
  writeText(file, "tensorium_layout", refinedLayout(e));
  if (!runFile.empty())
    writeText(file, "tensorium_run_file", runFile);
  // The grid as numbers, for readers that do not parse the layout: a block of level l whose
  // first point has indices f holds the points lower + (f + i + 1/2) root_width / (N 2^l).
  const ForestSpec &f = e.options().forest;
  const char *axes[3] = {"x", "y", "z"};
  for (int a = 0; a < 3; ++a)
    writeNumber(file, ("lower_" + std::string(axes[a])).c_str(), H5T_NATIVE_DOUBLE, &f.lower[a]);
  writeNumber(file, "root_width", H5T_NATIVE_DOUBLE, &f.rootWidth);
  writeNumber(file, "block_points", H5T_NATIVE_INT, &f.blockPoints);
}

void RefinedSnapshotWriter::write(const RefinedEvolution &e) {
  if (damaged_)
    throw RefinementError("the snapshot file " + partialPath() + " could not be written earlier");
  damaged_ = true;
  const int n = e.options().forest.blockPoints, dof = e.dof();
  const hsize_t leaves = static_cast<hsize_t>(e.forest().globalCount());
  const hsize_t first = static_cast<hsize_t>(e.forest().globalOffset()), local = e.blocks().size();
  // Blocks transposed to x fastest with the components interlaced: the layout XDMF readers take.
  const size_t interior = static_cast<size_t>(n) * n * n;
  std::vector<double> values(local * interior * static_cast<size_t>(dof));
  for (size_t b = 0; b < local; ++b) {
    const Block &k = e.blocks()[b];
    const size_t points = static_cast<size_t>(k.extent() * k.extent() * k.extent());
    double *out = values.data() + b * interior * static_cast<size_t>(dof);
    for (const EvolvedField &f : e.fields()) {
      const double *x = std::as_const(*k.storage).buffer(f.name).data();
      for (unsigned c = 0; c < f.components; ++c)
        for (int z = 0; z < n; ++z)
          for (int y = 0; y < n; ++y)
            for (int i = 0; i < n; ++i)
              out[((static_cast<size_t>(z) * n + y) * n + i) * dof + f.offset + c] = x[c * points + k.index(i, y, z)];
    }
  }
  std::vector<int64_t> rows = leafRows(e);
  char group[64];
  std::snprintf(group, sizeof group, "/snapshot_%08ld", e.stepNumber());
  {
    Handle file = openFile(e.forest().comm(), partialPath(), H5F_ACC_RDWR, false);
    Handle g(H5Gcreate2(file, group, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose, std::string("group ") + group);
    const hsize_t stateDims[4] = {leaves * n, static_cast<hsize_t>(n), static_cast<hsize_t>(n), static_cast<hsize_t>(dof)};
    Handle state(createDataset(g, "state", H5T_IEEE_F64LE, 4, stateDims), H5Dclose, "dataset state");
    transferRows(state, 4, stateDims, first * n, local * n, H5T_NATIVE_DOUBLE, values.data(), true);
    const hsize_t leafDims[2] = {leaves, 4};
    Handle leafSet(createDataset(g, "leaves", H5T_STD_I64LE, 2, leafDims), H5Dclose, "dataset leaves");
    transferRows(leafSet, 2, leafDims, first, local, H5T_NATIVE_INT64, rows.data(), true);
    const double t = e.time();
    const long step = e.stepNumber();
    writeNumber(g, "time", H5T_NATIVE_DOUBLE, &t);
    writeNumber(g, "step", H5T_NATIVE_LONG, &step);
  }
  damaged_ = false;
  written_.push_back({e.stepNumber(), e.time(), e.gatherLeavesOnRoot()});
}

void RefinedSnapshotWriter::finish(const RefinedEvolution &e) {
  if (!distributed::agreedOnRoot(e.forest().comm(), [&] {
        return std::rename(partialPath().c_str(), path_.c_str()) == 0 && writeXdmf(e, path_, xdmf_);
      }))
    throw RefinementError("cannot move the snapshots into place at " + path_ + " (or write " + xdmf_ + ")");
}

bool RefinedSnapshotWriter::abandon(const RefinedEvolution &e) noexcept {
  return distributed::agreedOnRoot(
      e.forest().comm(), [&] { return !damaged_ && !written_.empty() && writeXdmf(e, partialPath(), partialXdmfPath()); });
}

bool RefinedSnapshotWriter::writeXdmf(const RefinedEvolution &e, const std::string &data, const std::string &index) const {
  const ForestSpec &f = e.options().forest;
  const int n = f.blockPoints, dof = e.dof();
  const std::string file = data.substr(data.find_last_of('/') + 1);
  std::ostringstream x;
  x.precision(17);
  x << "<?xml version=\"1.0\" ?>\n<Xdmf Version=\"2.0\">\n <Domain>\n"
    << "  <Grid Name=\"evolution\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  for (const Written &w : written_) {
    char group[64];
    std::snprintf(group, sizeof group, "/snapshot_%08ld", w.step);
    const size_t leaves = w.leaves.size();
    x << "   <Grid Name=\"step " << w.step << "\" GridType=\"Collection\" CollectionType=\"Spatial\">\n"
      << "    <Time Value=\"" << w.time << "\"/>\n";
    for (size_t b = 0; b < leaves; ++b) {
      const Leaf &l = w.leaves[b];
      const double h = f.spacing(l.level);
      // XDMF lists dimensions, origin and spacing slowest first: z, y, x.
      x << "    <Grid Name=\"block " << b << " level " << l.level << "\" GridType=\"Uniform\">\n"
        << "     <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"" << n << " " << n << " " << n << "\"/>\n"
        << "     <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n      <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">";
      for (int a = 2; a >= 0; --a)
        x << f.lower[a] + (static_cast<double>(l.first[a]) + 0.5) * h << (a ? " " : "");
      x << "</DataItem>\n      <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">" << h << " " << h << " " << h
        << "</DataItem>\n     </Geometry>\n";
      const std::string blockDims = std::to_string(n) + " " + std::to_string(n) + " " + std::to_string(n);
      writeXdmfFieldAttributes(x, e.fields(), blockDims, std::to_string(b * n) + " 0 0",
                               std::to_string(leaves * n) + " " + std::to_string(n) + " " + std::to_string(n) + " " +
                                   std::to_string(dof),
                               file + ":" + group + "/state", 5);
      x << "    </Grid>\n";
    }
    x << "   </Grid>\n";
  }
  x << "  </Grid>\n </Domain>\n</Xdmf>\n";
  return distributed::replaceFile(index, x.str());
}

void writeRefinedCheckpoint(const RefinedEvolution &e, const std::string &path, const distributed::CheckpointExtras &extras) {
  MPI_Comm comm = e.forest().comm();
  const std::string tmp = path + ".partial";
  const int n = e.options().forest.blockPoints;
  const size_t perLeaf = static_cast<size_t>(e.dof()) * n * n * n;
  const hsize_t leaves = static_cast<hsize_t>(e.forest().globalCount());
  const hsize_t first = static_cast<hsize_t>(e.forest().globalOffset()), local = e.blocks().size();
  std::vector<double> state = e.localState();
  std::vector<int64_t> rows = leafRows(e);
  std::ostringstream s;
  for (double v : extras.values)
    s << exact(v) << " ";
  const std::string layout = refinedLayout(e), time = exact(e.time()), step = std::to_string(e.stepNumber());
  const std::string sum = checksumText(comm, stateHash(rows, state, e.forest().globalOffset(), perLeaf),
                                   checkpointAttributes(layout, time, step, s.str()));
  {
    Handle file = openFile(comm, tmp, 0, true);
    Handle g(H5Gcreate2(file, "/refined_checkpoint", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
             "group /refined_checkpoint");
    const hsize_t stateDims[2] = {leaves, perLeaf}, leafDims[2] = {leaves, 4};
    Handle data(createDataset(g, "state", H5T_IEEE_F64LE, 2, stateDims), H5Dclose, "dataset state");
    transferRows(data, 2, stateDims, first, local, H5T_NATIVE_DOUBLE, state.data(), true);
    Handle leafSet(createDataset(g, "leaves", H5T_STD_I64LE, 2, leafDims), H5Dclose, "dataset leaves");
    transferRows(leafSet, 2, leafDims, first, local, H5T_NATIVE_INT64, rows.data(), true);
    writeText(g, "layout", layout);
    writeText(g, "time", time);
    writeText(g, "step", step);
    writeText(g, "extras", s.str());
    writeText(g, "checksum", sum);
    if (!extras.runFile.empty())
      writeText(g, "run_file", extras.runFile);
  }
  if (!distributed::agreedOnRoot(comm, [&] { return std::rename(tmp.c_str(), path.c_str()) == 0; }))
    throw RefinementError("cannot move the checkpoint into place at " + path);
}

RefinedCheckpoint readRefinedCheckpoint(MPI_Comm comm, const std::string &path) {
  if (const std::string problem = distributed::restartFileProblem(comm, path); !problem.empty())
    throw RefinementError("restart file '" + path + "' " + problem);
  RefinedCheckpoint c;
  std::string failure, time, step, extras;
  try {
    Handle file = openFile(comm, path, H5F_ACC_RDONLY, false);
    if (H5Lexists(file, "/refined_checkpoint", H5P_DEFAULT) <= 0)
      throw RefinementError(H5Lexists(file, "/checkpoint", H5P_DEFAULT) > 0
                                ? "is a checkpoint of the uniform grid, not of the refined grid"
                                : "is not a checkpoint (no /refined_checkpoint group)");
    Handle g(H5Gopen2(file, "/refined_checkpoint", H5P_DEFAULT), H5Gclose, "group /refined_checkpoint");
    c.layout = readText(g, "layout");
    time = readText(g, "time");
    step = readText(g, "step");
    extras = readText(g, "extras");
    Handle leafSet(H5Dopen2(g, "leaves", H5P_DEFAULT), H5Dclose, "dataset leaves");
    Handle space(H5Dget_space(leafSet), H5Sclose, "a dataset space");
    hsize_t dims[2] = {0, 0};
    if (H5Sget_simple_extent_ndims(space) != 2 || H5Sget_simple_extent_dims(space, dims, nullptr) != 2 || dims[1] != 4 ||
        dims[0] == 0 || dims[0] > (hsize_t{1} << 32))
      throw RefinementError("dataset leaves is not a list of leaves");
    std::vector<int64_t> rows(dims[0] * 4);
    check(H5Dread(leafSet, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows.data()), "reading the leaves");
    for (size_t i = 0; i < dims[0]; ++i) {
      Leaf l;
      l.level = static_cast<int>(rows[4 * i]);
      l.first = {rows[4 * i + 1], rows[4 * i + 2], rows[4 * i + 3]};
      c.leaves.push_back(l);
    }
  } catch (const RefinementError &err) {
    failure = err.what();
  }
  // Every rank read the same file: a failure anywhere is reported everywhere.
  int failed = failure.empty() ? 0 : 1;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, comm);
  if (failed)
    throw RefinementError("restart file '" + path + "' " + (failure.empty() ? "cannot be read on every rank" : failure));
  auto number = [&](const std::string &text, const char *what) {
    char *end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end || !std::isfinite(v))
      throw RefinementError("restart file '" + path + "': attribute '" + what + "' is not a number: '" + text + "'");
    return v;
  };
  c.time = number(time, "time");
  const double stepValue = number(step, "step");
  if (!(stepValue >= 0 && stepValue <= 9.0e15) || stepValue != std::floor(stepValue))
    throw RefinementError("restart file '" + path + "': attribute 'step' is not a step count: '" + step + "'");
  c.step = static_cast<long>(stepValue);
  std::istringstream s(extras);
  for (std::string item; s >> item;)
    c.extras.push_back(number(item, "extras"));
  return c;
}

void loadRefinedCheckpoint(RefinedEvolution &e, const std::string &path, const RefinedCheckpoint &c) {
  MPI_Comm comm = e.forest().comm();
  auto fail = [&](const std::string &why) { throw RefinementError("restart file '" + path + "': " + why); };
  const std::string layout = refinedLayout(e);
  if (c.layout != layout) {
    std::istringstream a(c.layout), b(layout);
    std::string difference;
    for (std::string la, lb; static_cast<bool>(std::getline(a, la)) | static_cast<bool>(std::getline(b, lb));)
      if (la != lb)
        difference += "\n  file: " + la + "\n  run:  " + lb;
    fail("was written by a different run:" + difference);
  }
  if (static_cast<int64_t>(c.leaves.size()) != e.forest().globalCount())
    fail("lists " + std::to_string(c.leaves.size()) + " leaves, the grid built from them has " +
         std::to_string(e.forest().globalCount()));
  const int n = e.options().forest.blockPoints;
  const size_t perLeaf = static_cast<size_t>(e.dof()) * n * n * n;
  const hsize_t first = static_cast<hsize_t>(e.forest().globalOffset()), local = e.blocks().size();
  std::vector<double> state(local * perLeaf);
  std::string stored, failure;
  try {
    Handle file = openFile(comm, path, H5F_ACC_RDONLY, false);
    Handle g(H5Gopen2(file, "/refined_checkpoint", H5P_DEFAULT), H5Gclose, "group /refined_checkpoint");
    stored = readText(g, "checksum");
    Handle data(H5Dopen2(g, "state", H5P_DEFAULT), H5Dclose, "dataset state");
    Handle space(H5Dget_space(data), H5Sclose, "a dataset space");
    hsize_t dims[2] = {0, 0};
    if (H5Sget_simple_extent_ndims(space) != 2 || H5Sget_simple_extent_dims(space, dims, nullptr) != 2 ||
        dims[0] != c.leaves.size() || dims[1] != perLeaf)
      throw RefinementError("dataset state does not hold " + std::to_string(perLeaf) + " values for each of " +
                            std::to_string(c.leaves.size()) + " leaves");
    transferRows(data, 2, dims, first, local, H5T_NATIVE_DOUBLE, state.data(), false);
  } catch (const RefinementError &err) {
    failure = err.what();
  }
  int failed = failure.empty() ? 0 : 1;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, comm);
  if (failed)
    fail(failure.empty() ? "cannot be read on every rank" : failure);
  std::vector<int64_t> rows = leafRows(e);
  std::ostringstream s;
  for (double v : c.extras)
    s << exact(v) << " ";
  const std::string computed = checksumText(comm, stateHash(rows, state, e.forest().globalOffset(), perLeaf),
                                        checkpointAttributes(c.layout, exact(c.time), std::to_string(c.step), s.str()));
  if (computed != stored)
    fail("the state or its attributes fail the checksum (stored " + stored + ", computed " + computed +
         "): the file is corrupted");
  e.setLocalState(state, c.time, c.step);
}

} // namespace tensorium_mlir::refinement
