#pragma once
// Files of a refined evolution, written collectively with parallel HDF5: snapshots of every block
// with an XDMF index (per time a spatial collection of one uniform grid per block, which ParaView
// and VisIt open as a multiblock data set), and checkpoints (the leaves, the state in global leaf
// order, a checksum) that restart bit for bit on any number of ranks. No MLIR here.
#include "tensorium_mlir/Distributed/EvolutionIO.h"
#include "tensorium_mlir/Refinement/RefinedEvolution.h"

#include <string>
#include <vector>

namespace tensorium_mlir::refinement {

/// Kernel, forest, ghost width, interpolation, parameters and fields, one line each: two runs can
/// continue each other's checkpoints exactly when their layouts are equal.
std::string refinedLayout(const RefinedEvolution &e);

class RefinedSnapshotWriter {
public:
  /// `path` ends in .h5 (the XDMF index: .xmf); written as `path`.partial until finish(), so a
  /// run that stops early never leaves a file that looks complete. `runFile`: the run file's text
  /// (root attribute tensorium_run_file), "" for none. Collective.
  RefinedSnapshotWriter(const RefinedEvolution &e, std::string path, const std::string &runFile = "");
  /// Appends the state as /snapshot_<step>: `state` (blocks stacked along z: rows b N .. b N + N - 1
  /// are block b, each z, y, x with x fastest, the evolved components interlaced) and `leaves`
  /// (level and first point index per axis at that level, one row per block), time and step as
  /// attributes. Collective.
  void write(const RefinedEvolution &e);
  /// Renames the file to `path` and writes the XDMF index. Collective; throws RefinementError.
  void finish(const RefinedEvolution &e);
  /// For a run that stops early: keeps the .partial file and indexes it in FILE.partial.xmf.
  /// Returns whether the index was written; never throws. Collective.
  bool abandon(const RefinedEvolution &e) noexcept;
  bool wrote(long step) const { return !written_.empty() && written_.back().step == step; }
  const std::string &xdmfPath() const { return xdmf_; }
  std::string partialPath() const { return path_ + ".partial"; }
  std::string partialXdmfPath() const { return xdmf_.substr(0, xdmf_.size() - 4) + ".partial.xmf"; }

private:
  struct Written {
    long step = 0;
    double time = 0;
    std::vector<Leaf> leaves; // rank 0
  };
  bool writeXdmf(const RefinedEvolution &e, const std::string &data, const std::string &index) const;
  std::string path_, xdmf_;
  std::vector<Written> written_;
  bool damaged_ = false;
};

/// What a refined checkpoint holds besides the state, read on every rank.
struct RefinedCheckpoint {
  std::string layout;
  std::vector<Leaf> leaves; // every leaf, in global order
  double time = 0;
  long step = 0;
  std::vector<double> extras;
};

/// Writes the leaves, state, time, step, layout and extras to `path` (through PATH.partial,
/// renamed into place). Collective; throws RefinementError.
void writeRefinedCheckpoint(const RefinedEvolution &e, const std::string &path, const distributed::CheckpointExtras &extras);

/// Reads a refined checkpoint's description on every rank; throws RefinementError on every rank
/// when the file is missing, unreadable or not a refined checkpoint.
RefinedCheckpoint readRefinedCheckpoint(MPI_Comm comm, const std::string &path);

/// Loads the state of checkpoint `path` (described by `c`) into `e`, built on c.leaves: refuses a
/// different layout and a state that fails the checksum before changing `e`. Collective.
void loadRefinedCheckpoint(RefinedEvolution &e, const std::string &path, const RefinedCheckpoint &c);

} // namespace tensorium_mlir::refinement
