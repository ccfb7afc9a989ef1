// The C handoff interface (include/tensorium_handoff.h) over the two-puncture solver and its
// C++ handoff. Every entry point catches everything: no exception leaves this file.
#include "tensorium_handoff.h"

#include "handoff_two_puncture_kernels.h"

#include "tensorium_mlir/Physics/TwoPunctureHandoff.h"
#include "tensorium_mlir/Physics/TwoPunctures.h"
#include "tensorium_mlir/Runtime/MemoryBudget.h"
#include "tensorium_mlir/Support/InputFile.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <fstream>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

using namespace tensorium_mlir;

struct tensorium_handoff_solution {
  physics::TwoPunctureParameters parameters;
  physics::TwoPunctureOptions options;
  std::unique_ptr<physics::TwoPunctureSolution> solution;
};

namespace {

constexpr char kMagic[8] = {'T', 'N', 'S', 'O', 'L', 'V', '0', '1'};
constexpr uint32_t kFileVersion = 1;
constexpr uint32_t kKindTwoPunctures = 1;

/// A status with its message, thrown inside this file only.
struct Failure {
  int code;
  std::string message;
};

int report(tensorium_handoff_error *error, int code, const std::string &message) {
  if (error && error->struct_size >= sizeof(tensorium_handoff_error)) {
    error->code = code;
    std::snprintf(error->message, sizeof error->message, "%s", message.c_str());
  }
  return code;
}

/// Runs `body`, turning every failure into a status and a message.
template <typename F> int guarded(tensorium_handoff_error *error, F &&body) {
  if (error && error->struct_size < sizeof(tensorium_handoff_error))
    return TENSORIUM_HANDOFF_VERSION_MISMATCH; // no room for a message
  try {
    body();
    return report(error, TENSORIUM_HANDOFF_OK, "");
  } catch (const Failure &f) {
    return report(error, f.code, f.message);
  } catch (const runtime::InsufficientMemory &e) {
    return report(error, TENSORIUM_HANDOFF_OUT_OF_MEMORY, e.what());
  } catch (const std::bad_alloc &) {
    return report(error, TENSORIUM_HANDOFF_OUT_OF_MEMORY, "out of memory");
  } catch (const std::invalid_argument &e) {
    return report(error, TENSORIUM_HANDOFF_INVALID_ARGUMENT, e.what());
  } catch (const std::exception &e) {
    return report(error, TENSORIUM_HANDOFF_INTERNAL_ERROR, e.what());
  } catch (...) {
    return report(error, TENSORIUM_HANDOFF_INTERNAL_ERROR, "unknown internal error");
  }
}

[[noreturn]] void fail(int code, const std::string &message) { throw Failure{code, message}; }

void require(bool condition, const std::string &message) {
  if (!condition)
    fail(TENSORIUM_HANDOFF_INVALID_ARGUMENT, message);
}

template <typename T> void requireStruct(const T *s, const char *what) {
  require(s != nullptr, std::string(what) + " is NULL");
  if (s->struct_size < sizeof(T))
    fail(TENSORIUM_HANDOFF_VERSION_MISMATCH, std::string(what) + ".struct_size is " + std::to_string(s->struct_size) +
                                                 ", this library needs at least " + std::to_string(sizeof(T)) +
                                                 " (initialise it with its *_init function)");
}

const tensorium_spectral_residual_kernel_desc *kernel() { return &handoff_tensorium_spectral_residual_kernels[0]; }

physics::TwoPunctureParameters toPhysics(const tensorium_two_puncture_parameters &p) {
  physics::TwoPunctureParameters q;
  q.b = p.b;
  q.m1 = p.m1;
  q.m2 = p.m2;
  for (int i = 0; i < 3; ++i) {
    q.P1[static_cast<size_t>(i)] = p.P1[i];
    q.P2[static_cast<size_t>(i)] = p.P2[i];
    q.S1[static_cast<size_t>(i)] = p.S1[i];
    q.S2[static_cast<size_t>(i)] = p.S2[i];
  }
  return q;
}

physics::TwoPunctureOptions toOptions(const int32_t npoints[3], double tolerance) {
  require(npoints[0] >= 4 && npoints[1] >= 4 && npoints[2] >= 1 && npoints[0] <= 512 && npoints[1] <= 512 &&
              npoints[2] <= 512,
          "npoints must be nA, nB in [4, 512] and nphi in [1, 512]");
  require(std::isfinite(tolerance) && tolerance > 0 && tolerance < 1, "the tolerance must lie in (0, 1)");
  physics::TwoPunctureOptions o;
  o.nA = npoints[0];
  o.nB = npoints[1];
  o.nPhi = npoints[2];
  o.newton.tolerance = tolerance;
  return o;
}

physics::HandoffOptions handoffOptions(const tensorium_handoff_options *options) {
  physics::HandoffOptions o;
  if (!options)
    return o;
  requireStruct(options, "options");
  require(options->lapse == TENSORIUM_HANDOFF_LAPSE_ONE || options->lapse == TENSORIUM_HANDOFF_LAPSE_PRECOLLAPSED,
          "options.lapse must be TENSORIUM_HANDOFF_LAPSE_ONE or TENSORIUM_HANDOFF_LAPSE_PRECOLLAPSED");
  o.lapse = options->lapse == TENSORIUM_HANDOFF_LAPSE_ONE ? physics::InitialLapse::One : physics::InitialLapse::PreCollapsed;
  require(std::isfinite(options->puncture_radius_floor) && options->puncture_radius_floor > 0,
          "options.puncture_radius_floor must be positive and finite");
  o.punctureRadiusFloor = options->puncture_radius_floor;
  return o;
}

/// Whether there are points to evaluate. n = 0 (an MPI rank that owns no points) is a valid call
/// that writes nothing, whatever the coordinate and buffer pointers are (empty arrays may be NULL).
bool requirePoints(size_t n, const double *x, const double *y, const double *z) {
  if (n == 0)
    return false;
  require(x && y && z, "a coordinate array is NULL");
  return true;
}

/// FNV-1a over the bytes written so far: detects truncated or altered files.
uint64_t fnv1a(const std::string &bytes) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

template <typename T> void put(std::string &out, const T &v) { out.append(reinterpret_cast<const char *>(&v), sizeof v); }

template <typename T> T take(const std::string &in, size_t &at) {
  if (at + sizeof(T) > in.size())
    fail(TENSORIUM_HANDOFF_BAD_FILE, "the solution file is truncated");
  T v;
  std::memcpy(&v, in.data() + at, sizeof v);
  at += sizeof v;
  return v;
}

} // namespace

extern "C" {

int tensorium_handoff_api_version(void) { return TENSORIUM_HANDOFF_API_VERSION; }

void tensorium_two_puncture_parameters_init(tensorium_two_puncture_parameters *p) {
  if (!p)
    return;
  std::memset(p, 0, sizeof *p);
  p->struct_size = sizeof *p;
  p->b = 1.0;
  p->m1 = p->m2 = 0.5;
  p->npoints[0] = p->npoints[1] = 24;
  p->npoints[2] = 12;
  p->tolerance = 1e-12;
}

void tensorium_handoff_options_init(tensorium_handoff_options *o) {
  if (!o)
    return;
  std::memset(o, 0, sizeof *o);
  o->struct_size = sizeof *o;
  o->lapse = TENSORIUM_HANDOFF_LAPSE_PRECOLLAPSED;
  o->puncture_radius_floor = 1e-10;
}

void tensorium_handoff_error_init(tensorium_handoff_error *e) {
  if (!e)
    return;
  std::memset(e, 0, sizeof *e);
  e->struct_size = sizeof *e;
}

int tensorium_handoff_solve_two_punctures(const tensorium_two_puncture_parameters *parameters,
                                          tensorium_handoff_solution **solution, tensorium_handoff_error *error) {
  return guarded(error, [&] {
    requireStruct(parameters, "parameters");
    require(solution != nullptr, "solution (the output handle) is NULL");
    *solution = nullptr;
    auto s = std::make_unique<tensorium_handoff_solution>();
    s->parameters = toPhysics(*parameters);
    require(std::isfinite(parameters->b) && parameters->b > 0, "b must be positive and finite");
    s->options = toOptions(parameters->npoints, parameters->tolerance);
    s->solution = std::make_unique<physics::TwoPunctureSolution>(
        physics::solveTwoPunctures(kernel(), s->parameters, s->options));
    if (s->solution->result().status == elliptic::NewtonStatus::InvalidProblem)
      fail(TENSORIUM_HANDOFF_INVALID_ARGUMENT, s->solution->result().message);
    if (!s->solution->result().converged())
      fail(TENSORIUM_HANDOFF_SOLVE_FAILED, "the two-puncture solve did not converge: " + s->solution->result().message);
    *solution = s.release();
  });
}

int tensorium_handoff_save(const tensorium_handoff_solution *solution, const char *path, tensorium_handoff_error *error) {
  return guarded(error, [&] {
    require(solution && solution->solution, "solution is NULL");
    require(path && *path, "path is NULL or empty");
    const physics::TwoPunctureParameters &p = solution->parameters;
    const elliptic::Vector &v = solution->solution->v();
    std::string bytes(kMagic, sizeof kMagic);
    put(bytes, kFileVersion);
    put(bytes, kKindTwoPunctures);
    for (double d : {p.b, p.m1, p.m2})
      put(bytes, d);
    for (const auto *a : {&p.P1, &p.P2, &p.S1, &p.S2})
      for (double d : *a)
        put(bytes, d);
    for (int32_t n : {solution->options.nA, solution->options.nB, solution->options.nPhi})
      put(bytes, n);
    put(bytes, solution->options.newton.tolerance);
    const elliptic::SpectralNewtonResult &r = solution->solution->result();
    put(bytes, static_cast<int32_t>(r.status));
    put(bytes, static_cast<int32_t>(r.iterations));
    put(bytes, r.residualNorm);
    put(bytes, static_cast<uint64_t>(v.size()));
    bytes.append(reinterpret_cast<const char *>(v.data()), static_cast<size_t>(v.size()) * sizeof(double));
    put(bytes, fnv1a(bytes));
    // Written under a temporary name and renamed, so a failed write never looks complete.
    const std::string partial = std::string(path) + ".partial";
    {
      std::ofstream out(partial, std::ios::binary);
      if (!out.write(bytes.data(), static_cast<std::streamsize>(bytes.size())) || !out.flush())
        fail(TENSORIUM_HANDOFF_IO_ERROR, std::string("cannot write '") + path + "'");
    }
    if (std::rename(partial.c_str(), path) != 0) {
      std::remove(partial.c_str());
      fail(TENSORIUM_HANDOFF_IO_ERROR, std::string("cannot write '") + path + "'");
    }
  });
}

int tensorium_handoff_load(const char *path, tensorium_handoff_solution **solution, tensorium_handoff_error *error) {
  return guarded(error, [&] {
    require(path && *path, "path is NULL or empty");
    require(solution != nullptr, "solution (the output handle) is NULL");
    *solution = nullptr;
    if (const std::string problem = support::inputFileProblem(path, std::numeric_limits<std::uint64_t>::max());
        !problem.empty())
      fail(TENSORIUM_HANDOFF_IO_ERROR, std::string("cannot read '") + path + "': " + problem);
    std::ifstream in(path, std::ios::binary);
    if (!in)
      fail(TENSORIUM_HANDOFF_IO_ERROR, std::string("cannot read '") + path + "'");
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (bytes.size() < sizeof kMagic + 8 || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
      fail(TENSORIUM_HANDOFF_BAD_FILE, std::string("'") + path + "' is not a Tensorium solution file");
    size_t at = sizeof kMagic;
    const uint32_t version = take<uint32_t>(bytes, at), kind = take<uint32_t>(bytes, at);
    if (version != kFileVersion)
      fail(TENSORIUM_HANDOFF_BAD_FILE, "solution file version " + std::to_string(version) + ", this library reads " +
                                           std::to_string(kFileVersion));
    if (kind != kKindTwoPunctures)
      fail(TENSORIUM_HANDOFF_BAD_FILE, "the solution file holds an unknown kind of data (" + std::to_string(kind) + ")");
    auto s = std::make_unique<tensorium_handoff_solution>();
    physics::TwoPunctureParameters &p = s->parameters;
    p.b = take<double>(bytes, at);
    p.m1 = take<double>(bytes, at);
    p.m2 = take<double>(bytes, at);
    for (auto *a : {&p.P1, &p.P2, &p.S1, &p.S2})
      for (double &d : *a)
        d = take<double>(bytes, at);
    int32_t npoints[3];
    for (int32_t &n : npoints)
      n = take<int32_t>(bytes, at);
    const double tolerance = take<double>(bytes, at);
    elliptic::SpectralNewtonResult result;
    result.status = static_cast<elliptic::NewtonStatus>(take<int32_t>(bytes, at));
    result.iterations = take<int32_t>(bytes, at);
    result.residualNorm = take<double>(bytes, at);
    const uint64_t count = take<uint64_t>(bytes, at);
    if (count > (bytes.size() - at) / sizeof(double))
      fail(TENSORIUM_HANDOFF_BAD_FILE, "the solution file is truncated");
    elliptic::Vector v(static_cast<Eigen::Index>(count));
    std::memcpy(v.data(), bytes.data() + at, count * sizeof(double));
    at += count * sizeof(double);
    const uint64_t stored = take<uint64_t>(bytes, at);
    if (at != bytes.size() || stored != fnv1a(bytes.substr(0, at - sizeof stored)))
      fail(TENSORIUM_HANDOFF_BAD_FILE, std::string("'") + path + "' is corrupted (checksum mismatch)");
    try {
      s->options = toOptions(npoints, tolerance);
      if (!(std::isfinite(p.b) && p.b > 0))
        throw std::invalid_argument("b");
      s->solution = std::make_unique<physics::TwoPunctureSolution>(
          physics::restoreTwoPunctures(kernel(), p, s->options, v, result));
    } catch (const std::invalid_argument &e) {
      fail(TENSORIUM_HANDOFF_BAD_FILE, std::string("'") + path + "' holds inconsistent data: " + e.what());
    }
    *solution = s.release();
  });
}

void tensorium_handoff_free(tensorium_handoff_solution *solution) { delete solution; }

int tensorium_handoff_adm_mass(const tensorium_handoff_solution *solution, double *mass, tensorium_handoff_error *error) {
  return guarded(error, [&] {
    require(solution && solution->solution, "solution is NULL");
    require(mass != nullptr, "mass is NULL");
    *mass = solution->solution->admMass();
  });
}

int tensorium_handoff_parameters(const tensorium_handoff_solution *solution, tensorium_two_puncture_parameters *out,
                                 tensorium_handoff_error *error) {
  return guarded(error, [&] {
    require(solution && solution->solution, "solution is NULL");
    requireStruct(out, "parameters");
    const physics::TwoPunctureParameters &p = solution->parameters;
    out->b = p.b;
    out->m1 = p.m1;
    out->m2 = p.m2;
    for (int i = 0; i < 3; ++i) {
      out->P1[i] = p.P1[static_cast<size_t>(i)];
      out->P2[i] = p.P2[static_cast<size_t>(i)];
      out->S1[i] = p.S1[static_cast<size_t>(i)];
      out->S2[i] = p.S2[static_cast<size_t>(i)];
    }
    out->npoints[0] = solution->options.nA;
    out->npoints[1] = solution->options.nB;
    out->npoints[2] = solution->options.nPhi;
    out->tolerance = solution->options.newton.tolerance;
  });
}

int tensorium_handoff_evaluate_bssn(const tensorium_handoff_solution *solution, const tensorium_handoff_options *options,
                                    size_t n, const double *x, const double *y, const double *z,
                                    const tensorium_handoff_bssn_buffers *buffers, tensorium_handoff_error *error) {
  return guarded(error, [&] {
    require(solution && solution->solution, "solution is NULL");
    if (!requirePoints(n, x, y, z)) {
      handoffOptions(options); // still validated
      return;
    }
    requireStruct(buffers, "buffers");
    const struct {
      double *p;
      const char *name;
    } required[] = {{buffers->chi, "chi"},       {buffers->gammatilde, "gammatilde"}, {buffers->K, "K"},
                    {buffers->Atilde, "Atilde"}, {buffers->Gammatilde, "Gammatilde"}, {buffers->alpha, "alpha"},
                    {buffers->beta, "beta"},     {buffers->B, "B"}};
    for (const auto &r : required)
      require(r.p != nullptr, std::string("buffers.") + r.name + " is NULL (required)");
    const physics::TwoPunctureHandoff handoff(*solution->solution, handoffOptions(options));
    auto span = [n](double *p, size_t components) { return p ? std::span<double>(p, components * n) : std::span<double>(); };
    physics::BSSNFieldBuffers out;
    out.chi = span(buffers->chi, 1);
    out.gammatilde = span(buffers->gammatilde, 6);
    out.K = span(buffers->K, 1);
    out.Atilde = span(buffers->Atilde, 6);
    out.Gammatilde = span(buffers->Gammatilde, 3);
    out.alpha = span(buffers->alpha, 1);
    out.beta = span(buffers->beta, 3);
    out.B = span(buffers->B, 3);
    out.phi = span(buffers->phi, 1);
    out.W = span(buffers->W, 1);
    handoff.write({x, n}, {y, n}, {z, n}, out);
  });
}

int tensorium_handoff_evaluate_adm(const tensorium_handoff_solution *solution, const tensorium_handoff_options *options,
                                   size_t n, const double *x, const double *y, const double *z,
                                   const tensorium_handoff_adm_buffers *buffers, tensorium_handoff_error *error) {
  return guarded(error, [&] {
    require(solution && solution->solution, "solution is NULL");
    if (!requirePoints(n, x, y, z)) {
      handoffOptions(options); // still validated
      return;
    }
    requireStruct(buffers, "buffers");
    require(buffers->gamma && buffers->K && buffers->alpha && buffers->beta,
            "buffers.gamma, K, alpha and beta are required (psi is optional)");
    for (size_t p = 0; p < n; ++p)
      require(std::isfinite(x[p]) && std::isfinite(y[p]) && std::isfinite(z[p]),
              "point " + std::to_string(p) + " has a non-finite coordinate");
    const physics::HandoffOptions o = handoffOptions(options);
    const physics::TwoPunctureHandoff handoff(*solution->solution, o);
    for (size_t p = 0; p < n; ++p) {
      const physics::PunctureFieldValues v = handoff.evaluate({x[p], y[p], z[p]});
      const double psi2 = v.psi * v.psi, psi4 = psi2 * psi2;
      for (size_t c = 0; c < 6; ++c) {
        const bool diagonal = c == 0 || c == 3 || c == 5;
        buffers->gamma[c * n + p] = diagonal ? psi4 : 0.0;
        buffers->K[c * n + p] = v.Ahat[c] / psi2;
      }
      buffers->alpha[p] = o.lapse == physics::InitialLapse::One ? 1.0 : 1.0 / psi2;
      for (size_t c = 0; c < 3; ++c)
        buffers->beta[c * n + p] = 0.0;
      if (buffers->psi)
        buffers->psi[p] = v.psi;
    }
  });
}

} // extern "C"
