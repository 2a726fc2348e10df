"""Oracles for cluster-robust standard errors and their degrees of freedom, written
from the definitions with dense matrices (slow, obviously right).

- CR1: statsmodels' ``OLS(values, 1).fit(cov_type="cluster")`` (its small-sample
  factor ``G / (G - 1) * (N - 1) / (N - K)`` is ``G / (G - 1)`` with ``K = 1``).
- CR2: Bell and McCaffrey (2002, Survey Methodology 28:169-181) for an intercept,
  ``(X'X)^-1 sum_g (X_g' (I - H_gg)^-1/2 e_g)^2 (X'X)^-1``, the inverse square root
  by an eigendecomposition of each cluster's block of the hat matrix.
- The Satterthwaite degrees of freedom ``tr(C)^2 / tr(C^2)`` of ``C = Q' Omega Q``
  with ``Omega = alpha I + beta (a block of ones per cluster)``, formed with N x N
  matrices (Imbens & Kolesar 2016; ``alpha = 0, beta = 1`` is dartboard's working
  model, a cluster effect alone).
"""

from __future__ import annotations

import numpy as np
import statsmodels.api as sm


def statsmodels_se(values: np.ndarray, cluster: np.ndarray) -> float:
    """CR1 SE of the mean of ``values`` from statsmodels' cluster-robust OLS."""
    fit = sm.OLS(np.asarray(values, dtype=float), np.ones((len(values), 1))).fit(
        cov_type="cluster", cov_kwds={"groups": cluster})
    return float(fit.bse[0])


def bell_mccaffrey_se(values: np.ndarray, cluster: np.ndarray) -> float:
    """CR2 SE of the mean of ``values`` from the hat matrix of an intercept."""
    values = np.asarray(values, dtype=float)
    n = values.shape[0]
    hat = np.full((n, n), 1.0 / n)
    resid = values - values.mean()
    total = 0.0
    for c in np.unique(cluster):
        rows = cluster == c
        eig, vectors = np.linalg.eigh(np.eye(int(rows.sum())) - hat[np.ix_(rows, rows)])
        adjust = vectors @ np.diag(eig ** -0.5) @ vectors.T
        total += float(np.ones(int(rows.sum())) @ adjust @ resid[rows]) ** 2
    return float(np.sqrt(total) / n)


def satterthwaite_df(cluster: np.ndarray, alpha: float = 0.0, beta: float = 1.0) -> float:
    """Degrees of freedom of the CR2 variance of a mean under the working model."""
    _, codes = np.unique(cluster, return_inverse=True)
    sizes = np.bincount(codes)
    n = int(sizes.sum())
    maker = np.eye(n) - np.ones((n, n)) / n
    q = np.column_stack([maker @ (codes == g) / np.sqrt(1 - sizes[g] / n)
                         for g in range(sizes.shape[0])])
    omega = alpha * np.eye(n) + beta * (codes[:, None] == codes[None, :])
    c = q.T @ omega @ q
    return float(np.trace(c) ** 2 / np.trace(c @ c))
