// Constraint studies from study files: the generic form of the built-in constraint cases, with
// the data and constraint kernels given as module paths.
#include "tensorium_mlir/Verification/ConstraintStudy.h"

#include "CaseSupport.h"

namespace tensorium_mlir::verification {

using namespace cases;

namespace {

/// The buffers of kernel `symbol` in a module ("" when absent) and whether it exists.
bool kernelBuffers(const tensorium_module_tables &t, const std::string &symbol, std::vector<std::string> &names) {
  for (int k = 0; k < t.kernel_count; ++k)
    if (symbol == t.kernels[k].symbol) {
      for (int b = 0; b < t.kernels[k].buffer_count; ++b)
        names.push_back(t.buffers[t.kernels[k].first_buffer + b].name);
      return true;
    }
  return false;
}

} // namespace

std::string missingForRole(const std::string &modulePath, const std::string &role) {
  const LoadedModule *m = nullptr;
  try {
    m = &moduleAt(modulePath);
  } catch (const std::exception &e) {
    return e.what();
  }
  const bool data = role == "data";
  // Exact-slice data come from the slice kernel, the only one that writes K_ij.
  const std::string kernel = data ? kSliceKernelSymbol : "tensorium_residual_grid_parallel";
  const std::vector<std::string> needed =
      data ? std::vector<std::string>{"x", "y", "z", "alpha", "gamma", "gammaU", "Kij"}
           : std::vector<std::string>{"gamma", "gammaU", "Kij", "H"};
  std::vector<std::string> have;
  if (!kernelBuffers(m->module->tables(), kernel, have))
    return "its program has no " + kernel +
           (data ? " kernel: the constraints need K_ij, so the initial_data block's split_3p1 must map Kij -> Kij[i,j] "
                   "(besides alpha, gamma and gammaU; a static metric4 with zero shift gives K_ij = 0)"
                 : " kernel (a constraints block over gamma, gammaU and Kij)");
  for (const std::string &b : needed)
    if (std::find(have.begin(), have.end(), b) == have.end())
      return "its kernel " + kernel + " has no buffer '" + b + "'" +
             (data ? " (exact-slice data are Cartesian: x, y, z in; alpha, gamma, gammaU and Kij out)" : "");
  return "";
}

std::vector<std::string> moduleParameterNames(const std::string &modulePath) {
  const tensorium_module_tables &t = moduleAt(modulePath).module->tables();
  return std::vector<std::string>(t.param_names, t.param_names + t.param_count);
}

bool moduleHasBuffer(const std::string &modulePath, const std::string &buffer) {
  const tensorium_module_tables &t = moduleAt(modulePath).module->tables();
  for (int b = 0; b < t.buffer_count; ++b)
    if (buffer == t.buffers[b].name)
      return true;
  return false;
}

void runConstraintStudy(const ConstraintStudy &study, Report &report) {
  report.text << "study " << study.name << "\n" << study.description << "\n";
  report.text << "grids: [-" << study.halfWidth << ", " << study.halfWidth << "]^3; norms over |x_a - c_a| <= "
              << study.region.box << " (smooth taper over the last " << study.region.taper << ")";
  if (!study.region.excisionCentres.empty())
    report.text << " outside balls of radius " << study.region.excision << " (weight rising smoothly to 1 at radius "
                << study.region.excision + study.region.rise << ")";
  report.text << "; weighted L2 and max norms\n\n";
  std::shared_ptr<physics::TwoPunctureSolution> solution;
  if (study.twoPuncture)
    solution = std::make_shared<physics::TwoPunctureSolution>(solvePunctures(study.punctures));
  int widest = 6;
  for (const auto &[order, path] : study.constraintModules)
    widest = std::max(widest, order);
  std::map<int, std::vector<ConvergenceRow>> byOrder;
  for (int n : study.resolutions) {
    const Grid whole = cube(n, study.halfWidth);
    // This rank's part of the grid, with ghosts as wide as the widest constraint stencil.
    distributed::DistributedGrid part(gComm, {{n, n, n}, {whole.lo[0], whole.lo[1], whole.lo[2]},
                                              {whole.h[0], whole.h[1], whole.h[2]}, widest / 2,
                                              distributed::Boundary::Open}, 1);
    const Grid g = localGrid(part);
    const auto start = std::chrono::steady_clock::now();
    ADMFields adm = solution ? toADM(handoffState(g, *solution))
                             : exactSlice(moduleAt(study.dataModule), g, study.dataParameters, true).adm;
    const Mask mask = study.region.mask(g) * ownedMask(part);
    for (const auto &[order, path] : study.constraintModules)
      byOrder[order].push_back({"constraints", order, n, g.h[0], evaluateConstraints(moduleAt(path), g, adm, mask)});
    if (gRank == 0)
      std::fprintf(stderr, "  n=%d: data and constraints in %.2f s\n", n,
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  for (auto &[order, rows] : byOrder) {
    const int expected = study.expectedOrder > 0 ? study.expectedOrder : order;
    judgeConvergence(rows, "Hamiltonian and momentum constraints, finite-difference order " + std::to_string(order),
                     "constraints order " + std::to_string(order), expected, report, study.tolerance,
                     study.judgeMomentum);
  }
}

} // namespace tensorium_mlir::verification
