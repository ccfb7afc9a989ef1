#pragma once
// Files of a distributed evolution, written collectively through PETSc's parallel HDF5 viewer:
// snapshots (one group per output, the interlaced state in natural x-fastest order) with an
// XDMF index that ParaView and VisIt open, and checkpoints that a new process, on any number
// of ranks, restarts from bit for bit.
#include "tensorium_mlir/Distributed/DistributedEvolution.h"

#include <cstdint>
#include <fstream>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace tensorium_mlir::distributed {

// Pieces every evolution file format shares (the uniform grid's here, the refined grid's in
// src/Refinement).
/// Hexadecimal floating point ("%a"): exact in both directions.
std::string exact(double v);
/// A 64-bit mix (the finaliser of splitmix64): every input bit affects every output bit.
uint64_t mix(uint64_t x);
uint64_t textHash(const std::string &text);
/// A checkpoint's checksum: each rank's sum of hashes of (global position, bits) summed over the
/// ranks (modulo 2^64, so the same for any decomposition), mixed with a hash of the attributes.
/// Collective.
std::string checksumText(MPI_Comm comm, uint64_t local, const std::string &attributes);
/// The attributes a checkpoint's checksum covers, in one string.
std::string checkpointAttributes(const std::string &layout, const std::string &time, const std::string &step,
                                 const std::string &extras);
/// Why rank 0 cannot read `path` as an HDF5 file ("" when it can); every rank gets the answer.
std::string restartFileProblem(MPI_Comm comm, const std::string &path);
/// Runs `work` on rank 0 once every rank has arrived and gives every rank its answer (false
/// when it threw). Collective.
bool agreedOnRoot(MPI_Comm comm, const std::function<bool()> &work) noexcept;
/// Writes `text` to PATH.partial and renames it to `path`; false when either fails.
bool replaceFile(const std::string &path, const std::string &text);
/// The XDMF attributes of evolved fields on one grid of `pointDims` points (slowest first):
/// symmetric rank-2 fields (9 components) by their six independent components, three
/// components as a vector, each a hyperslab of dataset `source` (of `sourceDims`, the
/// components interlaced last) from index `start` plus the component offset.
void writeXdmfFieldAttributes(std::ostream &x, const std::vector<EvolvedField> &fields, const std::string &pointDims,
                              const std::string &start, const std::string &sourceDims, const std::string &source,
                              int indent);

/// A CSV table of a run's progress that rank 0 writes under PATH.partial and moves to PATH when
/// the run finishes, so that a table under its final name is complete. Every call is
/// collective; a file that cannot be opened, written or moved throws DistributedError on every
/// rank. An empty path writes nothing.
class ProgressTable {
public:
  ProgressTable(MPI_Comm comm, std::string path, std::string what);
  /// Whether this rank writes (rank 0 with a path): the others need not format lines.
  bool writing() const { return csv_.is_open(); }
  /// Appends `text` (rank 0's; ignored elsewhere) and checks that it reached the file.
  void append(const std::string &text);
  void finish();

private:
  std::string partial() const { return path_ + ".partial"; }
  MPI_Comm comm_;
  std::string path_, what_;
  std::ofstream csv_;
};

/// One line per evolved field component set: name:components@offset, plus grid and kernel.
/// Two runs can continue each other's checkpoints exactly when their layouts are equal.
std::string evolutionLayout(const DistributedEvolution &e);
/// The end of a layout: " params <exact values>\nfields name:components@offset ...\n".
std::string layoutParamsAndFields(const std::vector<double> &params, const std::vector<EvolvedField> &fields);

class SnapshotWriter {
public:
  /// `path` ends in .h5; the XDMF index is the same path with .xmf. Snapshots go to
  /// `path`.partial until finish() moves them into place, so that a run that stops early never
  /// leaves a file that looks complete.
  /// `runFile`: the text of the run file the run was started from ("" for none), kept as the
  /// root attribute tensorium_run_file so that the output documents its run.
  SnapshotWriter(const DistributedEvolution &e, std::string path, const std::string &runFile = "");
  /// Appends the current state as /snapshot_<step> (time and step as attributes).
  void write(const DistributedEvolution &e);
  /// Collective, before finish(): a table of the run (the same on every rank; rank 0's is
  /// written) as the dataset /<group>/table, rows x columns, with the column names as the
  /// group's attribute "columns" (comma-separated). Nothing for an empty table.
  void writeTable(const DistributedEvolution &e, const std::string &group, const std::vector<std::string> &columns,
                  const std::vector<double> &rows);
  /// Collective: renames the snapshot file to `path` and writes the XDMF index listing every
  /// snapshot. Throws DistributedError if either fails.
  void finish(const DistributedEvolution &e);
  /// Collective, for a run that stops early: keeps the snapshots under their .partial name and
  /// indexes them in partialXdmfPath() (FILE.partial.xmf), so that they open in ParaView or
  /// VisIt all the same. Returns whether the index was written (not after a failed write, which
  /// empties the file); never throws.
  bool abandon(const DistributedEvolution &e) noexcept;
  const std::string &path() const { return path_; }
  const std::string &xdmfPath() const { return xdmf_; }
  std::string partialPath() const { return path_ + ".partial"; }
  std::string partialXdmfPath() const { return xdmf_.substr(0, xdmf_.size() - 4) + ".partial.xmf"; }
  /// Whether the current step has been written.
  bool wrote(long step) const { return !written_.empty() && written_.back().first == step; }

private:
  bool writeXdmf(const DistributedEvolution &e, const std::string &data, const std::string &index) const;
  std::string path_, xdmf_;
  std::vector<std::pair<long, double>> written_; // (step, time)
  bool damaged_ = false;                          // a write failed and emptied the file
};

struct CheckpointExtras {
  /// Values a driver needs to continue exactly (e.g. puncture positions), stored losslessly.
  std::vector<double> values;
  /// The run file's text ("" for none), kept as /checkpoint's attribute run_file (outside the
  /// checksum: it documents the run and plays no part in continuing it).
  std::string runFile;
};

/// Writes state, time, step, layout and extras to `path` (through a temporary file renamed into
/// place, so that an interrupted write never leaves a file that looks valid).
void writeCheckpoint(const DistributedEvolution &e, const std::string &path, const CheckpointExtras &extras);

/// Loads a checkpoint into `e` (state, time, step) and returns its extras. Throws
/// DistributedError on every rank, before changing `e`, when the file is missing, unreadable,
/// not a checkpoint, or written by a run with a different layout.
CheckpointExtras readCheckpoint(DistributedEvolution &e, const std::string &path);

} // namespace tensorium_mlir::distributed
