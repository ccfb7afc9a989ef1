"""Psi4's (2, 0) mode of the even-parity quadrupole Teukolsky wave, derived symbolically and
compared with the generated Weyl kernel on the wave's fixture.

The derivation (sympy, independent of the kernel and its finite differences): the wave's spatial
metric in spherical coordinates (r, theta, phi), gamma = flat + h, lapse 1, zero shift, with the
Teukolsky (1982) functions A, B, C of F(X) = amp exp(-(X / lam)^2) at X = t - r; to first order
in h, E_ij = R_ij (the linearised Ricci tensor with flat covariant derivatives), K_ij =
-d_t h_ij / 2, B_ij = eps_i^kl D_k K_lj (eps_r theta phi = r^2 sin theta), and
Psi4 = (E_ij - i B_ij) mbar^i mbar^j with mbar = (e_theta - i e_phi) / sqrt 2 (the background
Weyl tensor vanishes, so the triad's own perturbation does not enter at this order). The mode
C20 = oint Psi4 conj(-2Y20) dOmega by Gauss-Legendre quadrature of the symbolic Psi4.

The kernel's values come from TensoriumWeylTests (--gtest_filter=*Teukolsky*), which prints C20
on the sphere r = 3 at t = 2 (amp = 1e-8, lam = 1) for h = 0.1 and 0.05, for the fixture and for
its broken twin (C with the coefficient 0.3 for 1/4). The fixture must match at
order 4; the twin must not. Prints "failures: N"."""
import math
import re
import subprocess
import sys

import sympy as sp

tests_binary = sys.argv[1]
failures = 0


def check(condition, what):
    global failures
    print(("ok    " if condition else "FAIL  ") + what, flush=True)
    failures += 0 if condition else 1


t, r, th = sp.symbols("t r theta", positive=True)
ph = sp.Symbol("phi")
eps = sp.Symbol("epsilon")
A, B, C = [sp.Function(n)(t, r) for n in ("A", "B", "C")]
s, c = sp.sin(th), sp.cos(th)
coords = [r, th, ph]
g = sp.Matrix([[1 + eps * A * (2 - 3 * s**2), eps * B * (-3 * s * c) * r, 0],
               [eps * B * (-3 * s * c) * r, r**2 * (1 + eps * (C * 3 * s**2 - A)), 0],
               [0, 0, r**2 * s**2 * (1 + eps * (-3 * C * s**2 + A * (3 * s**2 - 1)))]])
g0 = g.subs(eps, 0)
h = g.diff(eps)  # the perturbation, exactly linear
g0i = g0.inv()
G0 = [[[sp.simplify(sum(g0i[k, l] * (sp.diff(g0[l, i], coords[j]) + sp.diff(g0[l, j], coords[i]) - sp.diff(g0[i, j], coords[l]))
                        for l in range(3)) / 2) for j in range(3)] for i in range(3)] for k in range(3)]


def covariant(T):  # D_k T_ij, flat
    return [[[sp.diff(T[i, j], coords[k]) - sum(G0[m][k][i] * T[m, j] + G0[m][k][j] * T[i, m] for m in range(3))
              for j in range(3)] for i in range(3)] for k in range(3)]


Dh = covariant(h)
DDh = [[[[sp.diff(Dh[b][i][j], coords[a]) - sum(G0[m][a][b] * Dh[m][i][j] + G0[m][a][i] * Dh[b][m][j] + G0[m][a][j] * Dh[b][i][m]
                                              for m in range(3)) for j in range(3)] for i in range(3)] for b in range(3)] for a in range(3)]
trace = sum(g0i[i, j] * h[i, j] for i in range(3) for j in range(3))
dtrace = [sp.diff(trace, x) for x in coords]
DDtrace = [[sp.diff(dtrace[j], coords[i]) - sum(G0[m][i][j] * dtrace[m] for m in range(3)) for j in range(3)] for i in range(3)]
# Linearised Ricci: (D^k D_i h_jk + D^k D_j h_ik - D^k D_k h_ij - D_i D_j h) / 2.
E = sp.Matrix(3, 3, lambda i, j: (sum(g0i[k, l] * (DDh[l][i][j][k] + DDh[l][j][i][k] - DDh[l][k][i][j])
                                      for k in range(3) for l in range(3)) - DDtrace[i][j]) / 2)
K = -sp.diff(h, t) / 2
DK = covariant(K)
volume = r**2 * s


def levi(i, j, k):
    return sp.Rational((i - j) * (j - k) * (k - i), 2)


Bm = sp.Matrix(3, 3, lambda i, j: sum(volume * levi(i, a, b) * g0i[a, k] * g0i[b, l] * DK[k][l][j]
                                      for a in range(3) for b in range(3) for k in range(3) for l in range(3)))
mbar = [0, 1 / (r * sp.sqrt(2)), -sp.I / (r * s * sp.sqrt(2))]
psi4 = sum((E[i, j] - sp.I * Bm[i, j]) * mbar[i] * mbar[j] for i in range(3) for j in range(3))

X = sp.Symbol("X")
amp, lam = sp.Rational(1, 10**8), 1
F = amp * sp.exp(-(X / lam)**2)
Fn = [sp.diff(F, X, n).subs(X, t - r) for n in range(5)]
closed = {A: 3 * (Fn[2] / r**3 + 3 * Fn[1] / r**4 + 3 * Fn[0] / r**5),
          B: -(Fn[3] / r**2 + 3 * Fn[2] / r**3 + 6 * Fn[1] / r**4 + 6 * Fn[0] / r**5),
          C: (Fn[4] / r + 2 * Fn[3] / r**2 + 9 * Fn[2] / r**3 + 21 * Fn[1] / r**4 + 21 * Fn[0] / r**5) / 4}
psi4_at = sp.lambdify(th, psi4.subs(closed).doit().subs({t: 2, r: 3}), "mpmath")

# C20 = 2 pi int_0^pi Psi4(theta) sqrt(15 / 32 pi) sin^2(theta) sin(theta) dtheta (m = 0: no phi
# dependence), by mpmath's adaptive quadrature.
import mpmath
mpmath.mp.dps = 30
symbolic = complex(mpmath.quad(lambda x: 2 * mpmath.pi * psi4_at(x) * mpmath.sqrt(15 / (32 * mpmath.pi)) * mpmath.sin(x)**3,
                               [0, mpmath.pi]))
print(f"symbolic C20 = {symbolic.real:.12e} {symbolic.imag:+.12e} i")

out = subprocess.run([tests_binary, "--gtest_filter=*Teukolsky*"], capture_output=True, text=True, timeout=600).stdout
values = {}
for kind, hh, re_, im_ in re.findall(r"(teukolsky|twin) C20 h=([0-9.]+): (\S+) (\S+)", out):
    values.setdefault(kind, []).append(complex(float(re_), float(im_)))
print(out)
for kind in ("teukolsky", "twin"):
    v = values.get(kind, [])
    if len(v) != 2:
        check(False, f"{kind}: two kernel values printed")
        continue
    e = [abs(x - symbolic) for x in v]
    order = math.log2(e[0] / e[1]) if e[1] > 0 else float("inf")
    print(f"{kind}: |C20 - symbolic| {e[0]:.3e} -> {e[1]:.3e} (order {order:.2f}), relative {e[1] / abs(symbolic):.2e}")
    if kind == "teukolsky":
        check(e[1] < 1e-4 * abs(symbolic) and order > 3.5, "the kernel's C20 matches the symbolic derivation at order 4")
    else:
        check(e[1] > 1e-3 * abs(symbolic) and order < 1, "the twin's C20 does not converge to it")
print(f"failures: {failures}")
