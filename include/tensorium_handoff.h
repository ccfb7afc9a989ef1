/* Tensorium initial-data handoff: a C99 interface for external evolution codes.
 *
 * Solve two-puncture (Bowen-York) initial data in process or load a saved solution, then
 * evaluate the ADM or BSSN fields at the caller's points into the caller's buffers. Every
 * function returns a status code (TENSORIUM_HANDOFF_OK = 0) and, when given an error struct,
 * fills its message; no C++ exception crosses this interface. Every struct starts with
 * struct_size: set it with the matching *_init function (or sizeof) so that later versions
 * can grow the structs without breaking callers. Link with -ltensorium_handoff (C++ runtime).
 */
#ifndef TENSORIUM_HANDOFF_H
#define TENSORIUM_HANDOFF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TENSORIUM_HANDOFF_API_VERSION 1

typedef enum tensorium_handoff_status {
  TENSORIUM_HANDOFF_OK = 0,
  TENSORIUM_HANDOFF_INVALID_ARGUMENT = 1, /* a NULL pointer, a bad size, a value out of range */
  TENSORIUM_HANDOFF_VERSION_MISMATCH = 2, /* struct_size smaller than this version's struct */
  TENSORIUM_HANDOFF_SOLVE_FAILED = 3,     /* Newton did not converge */
  TENSORIUM_HANDOFF_IO_ERROR = 4,         /* a file could not be read or written */
  TENSORIUM_HANDOFF_BAD_FILE = 5,         /* not a solution file, another version, or corrupted */
  TENSORIUM_HANDOFF_OUT_OF_MEMORY = 6,    /* the solve would not fit in the available memory */
  TENSORIUM_HANDOFF_INTERNAL_ERROR = 7
} tensorium_handoff_status;

/* Caller-owned error report: the status and a NUL-terminated message. */
typedef struct tensorium_handoff_error {
  size_t struct_size;
  int code;
  char message[512];
} tensorium_handoff_error;

/* Two Bowen-York punctures at (+b, 0, 0) (1) and (-b, 0, 0) (2). */
typedef struct tensorium_two_puncture_parameters {
  size_t struct_size;
  double b, m1, m2;          /* half separation, bare masses */
  double P1[3], P2[3];       /* momenta */
  double S1[3], S2[3];       /* spins */
  int32_t npoints[3];        /* nA, nB (Chebyshev-Gauss, >= 4) and nphi (Fourier, >= 1) */
  double tolerance;          /* Newton tolerance on the weighted RMS residual */
} tensorium_two_puncture_parameters;

typedef enum tensorium_handoff_lapse {
  TENSORIUM_HANDOFF_LAPSE_ONE = 0,           /* alpha = 1 */
  TENSORIUM_HANDOFF_LAPSE_PRECOLLAPSED = 1   /* alpha = psi^-2 */
} tensorium_handoff_lapse;

typedef struct tensorium_handoff_options {
  size_t struct_size;
  int32_t lapse;                 /* tensorium_handoff_lapse */
  double puncture_radius_floor;  /* distances to a puncture below floor * b read as floor * b */
} tensorium_handoff_options;

/* Caller-owned component-major buffers of n points: component c of point p at c * n + p.
 * Symmetric tensors have 6 components (xx, xy, xz, yy, yz, zz); vectors 3. NULL skips an
 * optional output (phi = ln psi, W = psi^-2); the others are required. */
typedef struct tensorium_handoff_bssn_buffers {
  size_t struct_size;
  double *chi, *gammatilde, *K, *Atilde, *Gammatilde, *alpha, *beta, *B;
  double *phi, *W;
} tensorium_handoff_bssn_buffers;

typedef struct tensorium_handoff_adm_buffers {
  size_t struct_size;
  double *gamma;  /* 6 components: psi^4 delta_ij */
  double *K;      /* 6 components: psi^-2 Ahat_ij (maximal slicing) */
  double *alpha;  /* 1 component, from the options' lapse */
  double *beta;   /* 3 components, zero */
  double *psi;    /* optional */
} tensorium_handoff_adm_buffers;

/* An opaque solution: solved in process or loaded from a file. */
typedef struct tensorium_handoff_solution tensorium_handoff_solution;

int tensorium_handoff_api_version(void);

/* Defaults: b = 1, m1 = m2 = 0.5, no momenta or spins, npoints 24,24,12, tolerance 1e-12;
 * lapse pre-collapsed, radius floor 1e-10; struct_size set. */
void tensorium_two_puncture_parameters_init(tensorium_two_puncture_parameters *parameters);
void tensorium_handoff_options_init(tensorium_handoff_options *options);
void tensorium_handoff_error_init(tensorium_handoff_error *error);

int tensorium_handoff_solve_two_punctures(const tensorium_two_puncture_parameters *parameters,
                                          tensorium_handoff_solution **solution, tensorium_handoff_error *error);

/* Versioned binary solution file (docs/handoff.md): parameters, resolution, the collocation
 * values and a checksum; loading reproduces the saved solution bit for bit. */
int tensorium_handoff_save(const tensorium_handoff_solution *solution, const char *path, tensorium_handoff_error *error);
int tensorium_handoff_load(const char *path, tensorium_handoff_solution **solution, tensorium_handoff_error *error);

void tensorium_handoff_free(tensorium_handoff_solution *solution);

/* ADM mass and the parameters of a solution. */
int tensorium_handoff_adm_mass(const tensorium_handoff_solution *solution, double *mass, tensorium_handoff_error *error);
int tensorium_handoff_parameters(const tensorium_handoff_solution *solution, tensorium_two_puncture_parameters *parameters,
                                 tensorium_handoff_error *error);

/* Fields at the n points (x[p], y[p], z[p]); options may be NULL for the defaults. Nothing is
 * written when an argument is invalid. n = 0 (e.g. an MPI rank that owns no points) succeeds and
 * writes nothing; the coordinate and buffer pointers may then be NULL. */
int tensorium_handoff_evaluate_bssn(const tensorium_handoff_solution *solution, const tensorium_handoff_options *options,
                                    size_t n, const double *x, const double *y, const double *z,
                                    const tensorium_handoff_bssn_buffers *buffers, tensorium_handoff_error *error);
int tensorium_handoff_evaluate_adm(const tensorium_handoff_solution *solution, const tensorium_handoff_options *options,
                                   size_t n, const double *x, const double *y, const double *z,
                                   const tensorium_handoff_adm_buffers *buffers, tensorium_handoff_error *error);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TENSORIUM_HANDOFF_H */
