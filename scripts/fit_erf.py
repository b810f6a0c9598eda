#!/usr/bin/python3
"""Fits the coefficients of erf_polynomial (ops/common/vec_math.h) and prints them.

erf(z) for z in [0, 1] as z P(z^2), P of degree 7 (relative error); for z in [1, 3.9] as Q(s),
s = (2 z - 4.9) / 2.9 in [-1, 1], Q of degree 14 (absolute error). Each fit is the minimax one,
approached by Lawson's iteration (least squares on Chebyshev points, reweighted by the error),
with the coefficients rounded to float32 one at a time from the highest degree, the lower ones
fitted again after each. Needs numpy: /usr/bin/python3 scripts/fit_erf.py
"""
import math

import numpy as np


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
    coefficients = np.array([fixed[i] for i in range(degree + 1)])
    return coefficients, np.abs(basis @ coefficients - target).max()


def report(name, coefficients, error, kind):
    print(f"{name}: max {kind} error {error:.3g} before float32 evaluation; highest degree first:")
    print(", ".join(f"{np.float32(c)!r}f" for c in reversed(coefficients)))


z = chebyshev_points(0.0, 1.0, 3000)
basis = np.stack([(z * z) ** i for i in range(8)], axis=1)
p, error = fit_in_float32(basis, np.array([math.erf(t) / t for t in z]))
report("P (z in [0, 1])", p, error / (2 / math.sqrt(math.pi)), "relative")

z = chebyshev_points(1.0, 3.9, 4000)
s = (2 * z - 4.9) / 2.9
basis = np.stack([s**i for i in range(15)], axis=1)
q, error = fit_in_float32(basis, np.array([math.erf(t) for t in z]))
report("Q (z in [1, 3.9])", q, error, "absolute")
