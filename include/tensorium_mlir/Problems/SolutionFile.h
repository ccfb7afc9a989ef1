#pragma once
// Solved data of declared problems on disk: HDF5 files holding the collocation solution (enough
// to rebuild the grid and interpolate anywhere) and optionally its values on a Cartesian lattice,
// with an XDMF index that ParaView and VisIt open.
#include "tensorium_mlir/Problems/DeclaredProblem.h"

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tensorium_mlir::elliptic {

/// nx x ny x nz points spanning [xmin, xmax] x [ymin, ymax] x [zmin, zmax] (ends included).
struct Lattice {
  std::array<int, 3> n{};
  std::array<double, 6> bounds{};
  std::array<double, 3> point(int i, int j, int k) const;
};

/// Points per lattice axis at most: keeps point counts and byte counts exact in double; memory
/// (latticeValueBytes, checked by the caller) decides what actually runs.
inline constexpr long kMaxLatticeAxisPoints = 100000;

/// A lattice of n points per axis over bounds [xmin, xmax, ymin, ymax, zmin, zmax]; throws
/// ProblemError unless every n is in [2, kMaxLatticeAxisPoints] and every min < max, finite.
Lattice makeLattice(const std::array<long, 3> &n, const std::array<double, 6> &bounds);

/// Bytes of the sampled values of `unknowns` unknowns on the lattice (what sampleOnLattice holds).
double latticeValueBytes(const Lattice &lattice, size_t unknowns);

struct LatticeValues {
  Lattice lattice;
  std::vector<std::string> names;
  /// values[u][(k * ny + j) * nx + i]: x fastest, NaN outside the domain.
  std::vector<std::vector<double>> values;
  size_t outside = 0; // lattice points outside the domain
};

/// Every unknown of `s` interpolated spectrally at the lattice points.
LatticeValues sampleOnLattice(const DeclaredProblemSolution &s, const Lattice &lattice);

/// Writes `path` (.h5; through a temporary name renamed at the end) and, with a lattice, the
/// XDMF index `path` with .xmf. /collocation/<unknown>: the solver variable; root attributes:
/// map, resolution, bounds, b, unknowns, block, parameters; /lattice/<unknown>: nz x ny x nx.
/// Throws ProblemError when a file cannot be written.
void writeSolutionFile(const std::string &path, const std::string &block, const DeclaredProblemSolution &s,
                       const LatticeValues *lattice);

struct StoredSolution {
  std::string block;
  std::map<std::string, double> parameters;
  DeclaredProblemSolution solution;
  std::optional<LatticeValues> lattice;
};

/// Reads a file written by writeSolutionFile; throws ProblemError for a missing, foreign or
/// inconsistent file.
StoredSolution readSolutionFile(const std::string &path);

} // namespace tensorium_mlir::elliptic
