#include "tensorium_mlir/Distributed/EvolutionIO.h"

#include "tensorium_mlir/Support/InputFile.h"

#include <petscviewerhdf5.h>

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <exception>
#include <fstream>
#include <functional>
#include <limits>
#include <iomanip>
#include <sstream>
#include <unistd.h>

namespace tensorium_mlir::distributed {

namespace {


/// Closes an HDF5 file whose write failed (as on a full disk). HDF5 cannot close such a file
/// while its final flush has no space, and a failed close leaves it in a state that crashes
/// HDF5 later, at the latest inside MPI_Finalize. The file is incomplete anyway: it is emptied
/// first, which frees the space the flush needs, then closed with every object the failed
/// write left open (the parallel file driver closes only a file without open objects). A file
/// that was only read (`emptied` false: a refused restart) is closed the same way and kept as it
/// is: it is the user's data. Collective.
void abandonFile(MPI_Comm comm, const std::string &path, PetscViewer &viewer, bool emptied) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (emptied && rank == 0 && truncate(path.c_str(), 0) != 0)
    std::perror(path.c_str());
  MPI_Barrier(comm);
  if (PetscViewerDestroy(&viewer) == 0)
    return;
  const ssize_t count = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_FILE);
  std::vector<hid_t> files(static_cast<size_t>(std::max<ssize_t>(count, 0)));
  const ssize_t found = files.empty() ? 0 : H5Fget_obj_ids(H5F_OBJ_ALL, H5F_OBJ_FILE, files.size(), files.data());
  for (ssize_t f = 0; f < found; ++f) {
    const hid_t file = files[static_cast<size_t>(f)];
    char name[4096] = "";
    if (H5Fget_name(file, name, sizeof name) < 0 || path != name)
      continue;
    const unsigned kinds = H5F_OBJ_DATASET | H5F_OBJ_GROUP | H5F_OBJ_DATATYPE | H5F_OBJ_ATTR | H5F_OBJ_LOCAL;
    std::vector<hid_t> open(static_cast<size_t>(std::max<ssize_t>(H5Fget_obj_count(file, kinds), 0)));
    const ssize_t listed = open.empty() ? 0 : H5Fget_obj_ids(file, kinds, open.size(), open.data());
    for (ssize_t o = 0; o < listed; ++o) {
      const hid_t id = open[static_cast<size_t>(o)];
      if (H5Iget_type(id) == H5I_ATTR)
        H5Aclose(id);
      else
        H5Oclose(id);
    }
    if (H5Fclose(file) < 0 && rank == 0)
      std::fprintf(stderr, "warning: HDF5 could not close '%s' after a failed write\n", path.c_str());
  }
}

/// An HDF5 file open through PETSc's viewer for one scope; when the scope ends by an exception
/// (a failed write, a refused checkpoint), the file is abandoned as above, emptied only when it
/// was opened for writing.
class Viewer {
public:
  Viewer(MPI_Comm comm, const std::string &path, PetscFileMode mode)
      : comm_(comm), path_(path), written_(mode != FILE_MODE_READ) {
    checkPetsc(PetscViewerHDF5Open(comm, path.c_str(), mode, &viewer_), ("opening HDF5 file " + path).c_str());
  }
  ~Viewer() {
    if (!viewer_)
      return;
    if (std::uncaught_exceptions() > exceptionsAtOpen_)
      abandonFile(comm_, path_, viewer_, written_);
    else
      PetscViewerDestroy(&viewer_);
  }
  operator PetscViewer() const { return viewer_; }

private:
  MPI_Comm comm_;
  std::string path_;
  bool written_;
  PetscViewer viewer_ = nullptr;
  int exceptionsAtOpen_ = std::uncaught_exceptions();
};

void writeString(PetscViewer v, const char *parent, const char *name, const std::string &value) {
  checkPetsc(PetscViewerHDF5WriteAttribute(v, parent, name, PETSC_STRING, value.c_str()), "writing an HDF5 attribute");
}

std::string readString(PetscViewer v, const char *parent, const char *name) {
  PetscBool has = PETSC_FALSE;
  checkPetsc(PetscViewerHDF5HasAttribute(v, parent, name, &has), "reading an HDF5 attribute");
  if (!has)
    throw DistributedError(std::string("attribute '") + name + "' missing");
  char *text = nullptr;
  checkPetsc(PetscViewerHDF5ReadAttribute(v, parent, name, PETSC_STRING, nullptr, &text), "reading an HDF5 attribute");
  std::string out = text ? text : "";
  PetscFree(text);
  return out;
}


/// Checksum of a checkpoint: the state as a sum over its values of a hash of (global natural
/// index, bits), so that it is the same for every domain decomposition (the sum wraps modulo
/// 2^64), plus a hash of the attributes written with it. One flipped bit anywhere changes it.
std::string checkpointChecksum(const DistributedEvolution &e, Vec state, const std::string &attributes) {
  const DistributedGrid &g = e.grid();
  const Box &owned = g.owned();
  const GridSpec &spec = g.spec();
  const int dof = g.dof();
  const PetscScalar *values = nullptr;
  checkPetsc(VecGetArrayRead(state, &values), "VecGetArrayRead");
  uint64_t local = 0;
  size_t at = 0;
  for (int64_t k = owned.begin[2]; k < owned.begin[2] + owned.extent[2]; ++k)
    for (int64_t j = owned.begin[1]; j < owned.begin[1] + owned.extent[1]; ++j)
      for (int64_t i = owned.begin[0]; i < owned.begin[0] + owned.extent[0]; ++i)
        for (int c = 0; c < dof; ++c, ++at) {
          const uint64_t index = static_cast<uint64_t>(((k * spec.points[1] + j) * spec.points[0] + i) * dof + c);
          uint64_t bits;
          std::memcpy(&bits, &values[at], sizeof bits);
          local += mix(mix(index) ^ bits);
        }
  checkPetsc(VecRestoreArrayRead(state, &values), "VecRestoreArrayRead");
  return checksumText(g.comm(), local, attributes);
}


/// The lines of two layouts that differ.
std::string layoutDifference(const std::string &file, const std::string &run) {
  std::istringstream a(file), b(run);
  std::string out;
  for (std::string la, lb; static_cast<bool>(std::getline(a, la)) | static_cast<bool>(std::getline(b, lb));)
    if (la != lb)
      out += "\n  file: " + la + "\n  run:  " + lb;
  return out;
}

} // namespace

std::string exact(double v) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%a", v);
  return buffer;
}

uint64_t mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

uint64_t textHash(const std::string &text) {
  uint64_t h = mix(text.size());
  for (unsigned char c : text)
    h = mix(h ^ c);
  return h;
}

std::string restartFileProblem(MPI_Comm comm, const std::string &path) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  std::string problem;
  if (rank == 0) {
    problem = support::inputFileProblem(path, std::numeric_limits<std::uint64_t>::max());
    if (!problem.empty())
      problem = "cannot be read: " + problem;
    else if (H5Fis_hdf5(path.c_str()) <= 0)
      problem = "is not an HDF5 file";
  }
  broadcastText(problem, comm);
  return problem;
}

std::string checksumText(MPI_Comm comm, uint64_t local, const std::string &attributes) {
  uint64_t total = 0;
  MPI_Allreduce(&local, &total, 1, MPI_UINT64_T, MPI_SUM, comm);
  char text[40];
  std::snprintf(text, sizeof text, "%016" PRIx64, mix(total ^ textHash(attributes)));
  return text;
}

std::string checkpointAttributes(const std::string &layout, const std::string &time, const std::string &step,
                                 const std::string &extras) {
  return layout + "\ntime " + time + "\nstep " + step + "\nextras " + extras;
}

bool agreedOnRoot(MPI_Comm comm, const std::function<bool()> &work) noexcept {
  int rank = 0, ok = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Barrier(comm);
  if (rank == 0) {
    try {
      ok = work() ? 1 : 0;
    } catch (...) {
      ok = 0;
    }
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
  return ok != 0;
}

bool replaceFile(const std::string &path, const std::string &text) {
  const std::string tmp = path + ".partial";
  {
    std::ofstream out(tmp);
    out << text;
    if (!out.flush())
      return false;
  }
  return std::rename(tmp.c_str(), path.c_str()) == 0;
}

void writeXdmfFieldAttributes(std::ostream &x, const std::vector<EvolvedField> &fields, const std::string &pointDims,
                              const std::string &start, const std::string &sourceDims, const std::string &source,
                              int indent) {
  const std::string pad(static_cast<size_t>(indent), ' ');
  const char *axes = "xyz";
  auto attribute = [&](const std::string &name, unsigned offset, unsigned count) {
    x << pad << "<Attribute Name=\"" << name << "\" Center=\"Node\" AttributeType=\"" << (count == 3 ? "Vector" : "Scalar")
      << "\">\n" << pad << " <DataItem ItemType=\"HyperSlab\" Dimensions=\"" << pointDims << " " << count << "\">\n"
      << pad << "  <DataItem Dimensions=\"3 4\" Format=\"XML\">" << start << " " << offset << " 1 1 1 1 " << pointDims
      << " " << count << "</DataItem>\n"
      << pad << "  <DataItem Dimensions=\"" << sourceDims << "\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">"
      << source << "</DataItem>\n" << pad << " </DataItem>\n" << pad << "</Attribute>\n";
  };
  for (const EvolvedField &f : fields) {
    if (f.components == 9) { // symmetric rank 2: the six independent components
      for (unsigned a = 0; a < 3; ++a)
        for (unsigned b = a; b < 3; ++b)
          attribute(f.name + "_" + axes[a] + axes[b], f.offset + 3 * a + b, 1);
    } else {
      attribute(f.name, f.offset, f.components);
    }
  }
}

ProgressTable::ProgressTable(MPI_Comm comm, std::string path, std::string what)
    : comm_(comm), path_(std::move(path)), what_(std::move(what)) {
  int rank = 0, opened = 1;
  MPI_Comm_rank(comm_, &rank);
  if (rank == 0 && !path_.empty()) {
    csv_.open(partial());
    opened = csv_.is_open();
  }
  MPI_Bcast(&opened, 1, MPI_INT, 0, comm_);
  if (!opened)
    throw DistributedError("cannot write " + partial());
}

void ProgressTable::append(const std::string &text) {
  if (csv_.is_open())
    csv_ << text << std::flush;
  // A line that could not be written (a full disk) ends the run on every rank; the table keeps
  // its .partial name.
  int written = !csv_.is_open() || csv_.good();
  MPI_Bcast(&written, 1, MPI_INT, 0, comm_);
  if (!written)
    throw DistributedError("writing the " + what_ + " " + partial() + " failed");
}

void ProgressTable::finish() {
  int moved = 1;
  if (csv_.is_open()) {
    csv_.close();
    moved = csv_.good() && std::rename(partial().c_str(), path_.c_str()) == 0;
  }
  MPI_Bcast(&moved, 1, MPI_INT, 0, comm_);
  if (!moved)
    throw DistributedError("cannot move the " + what_ + " into place at " + path_);
}

std::string evolutionLayout(const DistributedEvolution &e) {
  std::ostringstream s;
  const GridSpec &g = e.grid().spec();
  s << "kernel " << e.options().rhsKernel << " radius " << e.stencilRadius() << "\n";
  s << "grid " << g.points[0] << " " << g.points[1] << " " << g.points[2] << " lower";
  for (double v : g.lower)
    s << " " << exact(v);
  s << " spacing";
  for (double v : g.spacing)
    s << " " << exact(v);
  s << " boundary " << boundaryName(g.boundary) << " ghost " << g.ghostWidth << "\n";
  s << "integrator " << integratorName(e.options().integrator) << layoutParamsAndFields(e.options().params, e.fields());
  return s.str();
}

std::string layoutParamsAndFields(const std::vector<double> &params, const std::vector<EvolvedField> &fields) {
  std::ostringstream s;
  s << " params";
  for (double p : params)
    s << " " << exact(p);
  s << "\nfields";
  for (const EvolvedField &f : fields)
    s << " " << f.name << ":" << f.components << "@" << f.offset;
  s << "\n";
  return s.str();
}

SnapshotWriter::SnapshotWriter(const DistributedEvolution &e, std::string path, const std::string &runFile)
    : path_(std::move(path)) {
  if (path_.size() < 4 || path_.substr(path_.size() - 3) != ".h5")
    throw DistributedError("output file '" + path_ + "' must end in .h5");
  xdmf_ = path_.substr(0, path_.size() - 3) + ".xmf";
  Viewer v(e.grid().comm(), partialPath(), FILE_MODE_WRITE);
  writeString(v, "/", "tensorium_layout", evolutionLayout(e));
  if (!runFile.empty())
    writeString(v, "/", "tensorium_run_file", runFile);
  // The grid as numbers too, for readers that do not parse the layout: the first point's
  // coordinates, the spacing and the points per axis.
  const GridSpec &g = e.grid().spec();
  const char *axes[3] = {"x", "y", "z"};
  for (int a = 0; a < 3; ++a) {
    const double origin = g.lower[a], spacing = g.spacing[a];
    const PetscInt points = static_cast<PetscInt>(g.points[a]);
    checkPetsc(PetscViewerHDF5WriteAttribute(v, "/", ("origin_" + std::string(axes[a])).c_str(), PETSC_DOUBLE, &origin),
               "writing an HDF5 attribute");
    checkPetsc(PetscViewerHDF5WriteAttribute(v, "/", ("spacing_" + std::string(axes[a])).c_str(), PETSC_DOUBLE, &spacing),
               "writing an HDF5 attribute");
    checkPetsc(PetscViewerHDF5WriteAttribute(v, "/", ("points_" + std::string(axes[a])).c_str(), PETSC_INT, &points),
               "writing an HDF5 attribute");
  }
}

void SnapshotWriter::write(const DistributedEvolution &e) {
  if (damaged_)
    throw DistributedError("the snapshot file " + partialPath() + " was emptied by a failed write");
  // A write that fails empties the file (Viewer): nothing written before can be indexed.
  damaged_ = true;
  char group[64];
  std::snprintf(group, sizeof group, "/snapshot_%08ld", e.stepNumber());
  {
    Viewer v(e.grid().comm(), partialPath(), FILE_MODE_APPEND);
    checkPetsc(PetscViewerHDF5PushGroup(v, group), "PetscViewerHDF5PushGroup");
    checkPetsc(VecView(e.state(), v), "writing a snapshot");
    const double t = e.time();
    checkPetsc(PetscViewerHDF5WriteAttribute(v, group, "time", PETSC_DOUBLE, &t), "writing an HDF5 attribute");
    writeString(v, group, "step", std::to_string(e.stepNumber()));
    checkPetsc(PetscViewerHDF5PopGroup(v), "PetscViewerHDF5PopGroup");
  }
  damaged_ = false;
  written_.push_back({e.stepNumber(), e.time()});
}

void SnapshotWriter::writeTable(const DistributedEvolution &e, const std::string &group, const std::vector<std::string> &columns,
                                const std::vector<double> &rows) {
  if (columns.empty() || rows.size() % columns.size() != 0)
    throw DistributedError("table '" + group + "': " + std::to_string(rows.size()) + " values do not fill rows of " +
                           std::to_string(columns.size()) + " columns");
  if (rows.empty())
    return;
  if (damaged_)
    throw DistributedError("the snapshot file " + partialPath() + " was emptied by a failed write");
  damaged_ = true;
  const std::string path = "/" + group;
  {
    Viewer v(e.grid().comm(), partialPath(), FILE_MODE_APPEND);
    // Rank 0 holds every value; a block size of one row makes the dataset rows x columns.
    Vec table;
    const PetscInt local = e.grid().rank() == 0 ? static_cast<PetscInt>(rows.size()) : 0;
    checkPetsc(VecCreateMPI(e.grid().comm(), local, PETSC_DETERMINE, &table), "VecCreateMPI");
    checkPetsc(VecSetBlockSize(table, static_cast<PetscInt>(columns.size())), "VecSetBlockSize");
    checkPetsc(PetscObjectSetName(reinterpret_cast<PetscObject>(table), "table"), "PetscObjectSetName");
    if (local > 0) {
      PetscScalar *a;
      checkPetsc(VecGetArray(table, &a), "VecGetArray");
      std::copy(rows.begin(), rows.end(), a);
      checkPetsc(VecRestoreArray(table, &a), "VecRestoreArray");
    }
    checkPetsc(PetscViewerHDF5PushGroup(v, path.c_str()), "PetscViewerHDF5PushGroup");
    const PetscErrorCode viewed = VecView(table, v);
    VecDestroy(&table);
    checkPetsc(viewed, ("writing the table " + path).c_str());
    std::string names;
    for (const std::string &c : columns)
      names += (names.empty() ? "" : ",") + c;
    writeString(v, path.c_str(), "columns", names);
    checkPetsc(PetscViewerHDF5PopGroup(v), "PetscViewerHDF5PopGroup");
  }
  damaged_ = false;
}

void SnapshotWriter::finish(const DistributedEvolution &e) {
  if (!agreedOnRoot(e.grid().comm(), [&] {
        return std::rename(partialPath().c_str(), path_.c_str()) == 0 && writeXdmf(e, path_, xdmf_);
      }))
    throw DistributedError("cannot move the snapshots into place at " + path_ + " (or write " + xdmf_ + ")");
}

bool SnapshotWriter::abandon(const DistributedEvolution &e) noexcept {
  return agreedOnRoot(e.grid().comm(),
                      [&] { return !damaged_ && !written_.empty() && writeXdmf(e, partialPath(), partialXdmfPath()); });
}

bool SnapshotWriter::writeXdmf(const DistributedEvolution &e, const std::string &data, const std::string &index) const {
  const GridSpec &g = e.grid().spec();
  const int dof = e.grid().dof();
  std::string file = data.substr(data.find_last_of('/') + 1);
  // XDMF lists dimensions slowest first (z, y, x here: the DMDA's natural order is x fastest),
  // and the origin and spacing of a CoRect mesh in the same z, y, x order.
  std::ostringstream dims, full;
  dims << g.points[2] << " " << g.points[1] << " " << g.points[0];
  full << dims.str() << " " << dof;
  std::ostringstream x;
  x.precision(17);
  x << "<?xml version=\"1.0\" ?>\n<Xdmf Version=\"2.0\">\n <Domain>\n"
    << "  <Grid Name=\"evolution\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  for (auto [step, time] : written_) {
    char group[64];
    std::snprintf(group, sizeof group, "/snapshot_%08ld", step);
    x << "   <Grid Name=\"step " << step << "\" GridType=\"Uniform\">\n"
      << "    <Time Value=\"" << time << "\"/>\n"
      << "    <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"" << dims.str() << "\"/>\n"
      << "    <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
      << "     <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">" << g.lower[2] << " " << g.lower[1] << " " << g.lower[0]
      << "</DataItem>\n"
      << "     <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">" << g.spacing[2] << " " << g.spacing[1] << " " << g.spacing[0]
      << "</DataItem>\n    </Geometry>\n";
    writeXdmfFieldAttributes(x, e.fields(), dims.str(), "0 0 0", full.str(), file + ":" + group + "/state", 4);
    x << "   </Grid>\n";
  }
  x << "  </Grid>\n </Domain>\n</Xdmf>\n";
  return replaceFile(index, x.str());
}

void writeCheckpoint(const DistributedEvolution &e, const std::string &path, const CheckpointExtras &extras) {
  const std::string tmp = path + ".partial";
  {
    Viewer v(e.grid().comm(), tmp, FILE_MODE_WRITE);
    checkPetsc(PetscViewerHDF5PushGroup(v, "/checkpoint"), "PetscViewerHDF5PushGroup");
    checkPetsc(VecView(e.state(), v), "writing a checkpoint");
    std::ostringstream s;
    for (double x : extras.values)
      s << exact(x) << " ";
    const std::string layout = evolutionLayout(e), time = exact(e.time()), step = std::to_string(e.stepNumber());
    writeString(v, "/checkpoint", "layout", layout);
    writeString(v, "/checkpoint", "time", time);
    writeString(v, "/checkpoint", "step", step);
    writeString(v, "/checkpoint", "extras", s.str());
    if (!extras.runFile.empty())
      writeString(v, "/checkpoint", "run_file", extras.runFile);
    writeString(v, "/checkpoint", "checksum",
                checkpointChecksum(e, e.state(), checkpointAttributes(layout, time, step, s.str())));
    checkPetsc(PetscViewerHDF5PopGroup(v), "PetscViewerHDF5PopGroup");
  }
  if (!agreedOnRoot(e.grid().comm(), [&] { return std::rename(tmp.c_str(), path.c_str()) == 0; }))
    throw DistributedError("cannot move checkpoint into place at " + path);
}

CheckpointExtras readCheckpoint(DistributedEvolution &e, const std::string &path) {
  if (const std::string problem = restartFileProblem(e.grid().comm(), path); !problem.empty())
    throw DistributedError("restart file '" + path + "' " + problem);
  std::string layout, time, step, extras;
  Vec loaded;
  checkPetsc(VecDuplicate(e.state(), &loaded), "VecDuplicate");
  checkPetsc(PetscObjectSetName(reinterpret_cast<PetscObject>(loaded), "state"), "PetscObjectSetName");
  try {
    Viewer v(e.grid().comm(), path, FILE_MODE_READ);
    PetscBool has = PETSC_FALSE;
    checkPetsc(PetscViewerHDF5HasGroup(v, "/checkpoint", &has), "reading a checkpoint");
    if (!has) {
      PetscBool refined = PETSC_FALSE;
      checkPetsc(PetscViewerHDF5HasGroup(v, "/refined_checkpoint", &refined), "reading a checkpoint");
      // The caller's message names the file.
      throw DistributedError(refined ? "is a checkpoint of the refined grid (continue it with the --refine-radii it was "
                                       "written with)"
                                     : "is not a checkpoint (no /checkpoint group)");
    }
    layout = readString(v, "/checkpoint", "layout");
    if (layout != evolutionLayout(e))
      throw DistributedError("was written by a different run:" + layoutDifference(layout, evolutionLayout(e)));
    time = readString(v, "/checkpoint", "time");
    step = readString(v, "/checkpoint", "step");
    extras = readString(v, "/checkpoint", "extras");
    const std::string stored = readString(v, "/checkpoint", "checksum");
    checkPetsc(PetscViewerHDF5PushGroup(v, "/checkpoint"), "PetscViewerHDF5PushGroup");
    checkPetsc(VecLoad(loaded, v), "loading the checkpointed state");
    checkPetsc(PetscViewerHDF5PopGroup(v), "PetscViewerHDF5PopGroup");
    const std::string computed = checkpointChecksum(e, loaded, checkpointAttributes(layout, time, step, extras));
    if (computed != stored)
      throw DistributedError("dataset /checkpoint/state or its attributes fail the checksum (stored " + stored +
                             ", computed " + computed + "): the file is corrupted");
  } catch (const DistributedError &err) {
    VecDestroy(&loaded);
    throw DistributedError("restart file '" + path + "': " + err.what());
  }
  // Attributes are parsed in full before the state is touched.
  auto number = [&](const std::string &text, const char *what) {
    char *end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end || !std::isfinite(v)) {
      VecDestroy(&loaded);
      throw DistributedError("restart file '" + path + "': attribute '" + what + "' is not a number: '" + text + "'");
    }
    return v;
  };
  const double t = number(time, "time");
  const double stepValue = number(step, "step");
  if (!(stepValue >= 0 && stepValue <= 9.0e15) || stepValue != std::floor(stepValue)) {
    VecDestroy(&loaded);
    throw DistributedError("restart file '" + path + "': attribute 'step' is not a step count: '" + step + "'");
  }
  CheckpointExtras out;
  std::istringstream s(extras);
  for (std::string item; s >> item;)
    out.values.push_back(number(item, "extras"));
  checkPetsc(VecCopy(loaded, e.state()), "VecCopy");
  VecDestroy(&loaded);
  e.setTime(t, static_cast<long>(stepValue));
  return out;
}

} // namespace tensorium_mlir::distributed
