#!/usr/bin/python3
"""Fits the polynomials of gelu's float32 kernels in numerics version 2 and prints them.

erf_polynomial (ops/common/vec_math.h): erf(a) for a in [0, 1] as a P(a^2), P of degree 7
(relative error); for a in [1, 3.9] as Q(s), s = (2 a - 4.9) / 2.9 in [-1, 1], Q of degree 14.
gelu_derivative_polynomial (ops/gelu/gelu_cpu.cpp): gelu'(x) - 1/2 = Phi(x) - 1/2 + x phi(x),
odd; for a = |x| in [0, 1.5] as a P(a^2), P of degree 7; for a in [1.5, 5.9] as Q(s),
s = (2 a - 7.4) / 4.4, Q of degree 15.
Each fit is the minimax one, approached by Lawson's iteration (least squares on Chebyshev points,
reweighted by the error), with the coefficients rounded to float32 one at a time from the
highest degree, the lower ones fitted again after each. numpy's least squares runs on one thread,
so that every run prints the same coefficients. Needs numpy:
/usr/bin/python3 scripts/fit_gelu_polynomials.py
"""
import math
import os

os.environ["OPENBLAS_NUM_THREADS"] = "1"  # the same last bits on every run: one thread's order of sums
import numpy as np  # noqa: E402 (after the environment it reads)


def chebyshev_points(lo, hi, n):
    k = np.arange(n)
    return (lo + hi) / 2 + (hi - lo) / 2 * np.cos(np.pi * (k + 0.5) / n)


def minimax(basis, target, iterations=300):
    weights = np.full(len(target), 1.0 / len(target))
    for _ in range(iterations):
        root = np.sqrt(weights)
        coefficients, *_ = np.linalg.lstsq(basis * root[:, None], target * root, rcond=None)
        error = np.abs(basis @ coefficients - target)
        weights *= error
        weights /= weights.sum()
    return coefficients


def fit_in_float32(basis, target):
    degree = basis.shape[1] - 1
    fixed = {}
    for j in range(degree, -1, -1):
        free = [i for i in range(degree + 1) if i not in fixed]
        rest = target - sum(basis[:, i] * value for i, value in fixed.items())
        fixed[j] = float(np.float32(minimax(basis[:, free], rest)[free.index(j)]))
    return np.array([fixed[i] for i in range(degree + 1)])


def odd_near_zero(f, hi, degree):
    """f(a) = a P(a^2) on [0, hi]; returns P and the largest error of a P(a^2)."""
    a = chebyshev_points(0.0, hi, 3000)
    basis = np.stack([(a * a) ** i for i in range(degree + 1)], axis=1)
    p = fit_in_float32(basis, np.array([f(t) / t for t in a]))
    return p, np.abs((basis @ p) * a - np.array([f(t) for t in a])).max()


def on_interval(f, lo, hi, degree):
    """f(a) = Q((2 a - lo - hi) / (hi - lo)) on [lo, hi]; returns Q and its largest error."""
    a = chebyshev_points(lo, hi, 4000)
    s = (2 * a - lo - hi) / (hi - lo)
    basis = np.stack([s**i for i in range(degree + 1)], axis=1)
    target = np.array([f(t) for t in a])
    q = fit_in_float32(basis, target)
    return q, np.abs(basis @ q - target).max()


def report(name, coefficients, error):
    print(f"{name}: largest absolute error {error:.3g} before float32 evaluation; highest degree first:")
    print(", ".join(f"{np.float32(c)!r}f" for c in reversed(coefficients)))


def gelu_derivative_minus_half(x):
    return 0.5 * math.erf(x / math.sqrt(2)) + x * math.exp(-x * x / 2) / math.sqrt(2 * math.pi)


report("erf, P (a in [0, 1])", *odd_near_zero(math.erf, 1.0, 7))
report("erf, Q (a in [1, 3.9])", *on_interval(math.erf, 1.0, 3.9, 14))
report("gelu' - 1/2, P (a in [0, 1.5])", *odd_near_zero(gelu_derivative_minus_half, 1.5, 7))
report("gelu' - 1/2, Q (a in [1.5, 5.9])", *on_interval(gelu_derivative_minus_half, 1.5, 5.9, 15))
