"""The operator of the ellipsoid separation problem (ESP) of Hough & Vavasis, on normalised data.

Reference: M. Hough, S. A. Vavasis, *Data-dependent complexity of first-order methods for binary classification*
(2025), §2.1–2.2: the normalisation (1), the cones of (2)–(4) and the operator 𝒜 of (5). Shared by the
``fista``/``pdhg`` plans,
the CVXPY reference and ``EllipsoidSeparation._assemble``.

* **Normalisation (1)**: ``α = max(max ||c_i||, max ||A_i||, max ||d_i||, max ||B_i||)``; every centre and shape
  is divided by ``α`` (so every point of every ellipsoid has norm <= 2). A hyperplane ``wᵀz̃ = m`` of the
  normalised data is ``wᵀz = α m`` in the user's coordinates.
* **Dual variable** ``x = ((λ_i, p_i)_{i<=j}, (μ_i, q_i)_{i<=l})`` is kept as two arrays ``xc`` (j, d+1) and
  ``xd`` (l, d+1) whose first column is ``λ`` (resp. ``μ``).
* ``𝒜x = (Σλ_i, Σμ_i, Σ_i(λ_i c_i + A_i p_i) − Σ_i(μ_i d_i − B_i q_i))`` and
  ``𝒜ᵀ(s, t, w)`` = rows ``(s + c_iᵀw, A_iᵀw)`` and ``(t − d_iᵀw, B_iᵀw)``; ``b = (1, 1, 0)``.
* Diagonal shapes stay ``(k, d)`` arrays (``A_i p = a_i ∘ p``); they are never expanded to ``d × d`` matrices.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse.linalg as spla

from ..core.linalg import largest_eigenvalue

LANCZOS_INFLATION = 1e-6  # relative safety margin on a Lanczos estimate of ||𝒜||² (it must be an upper bound)


def _spectral_norms(S: np.ndarray, diagonal: bool) -> np.ndarray:
    if diagonal:
        return np.abs(S).max(axis=1) if S.shape[1] else np.zeros(S.shape[0])
    return np.linalg.norm(S, 2, axis=(1, 2))


class ESPOperator:
    """Normalised ESP data of an :class:`~marginkit.EllipsoidSeparation` problem and its linear maps."""

    def __init__(self, problem):
        self.diagonal = problem.diagonal
        raw = (problem.centers_c, problem.shapes_c, problem.centers_d, problem.shapes_d)
        alpha = max(float(np.linalg.norm(raw[0], axis=1).max()), float(_spectral_norms(raw[1], self.diagonal).max()),
                    float(np.linalg.norm(raw[2], axis=1).max()), float(_spectral_norms(raw[3], self.diagonal).max()))
        self.alpha = alpha if alpha > 0 else 1.0  # all ellipsoids are the origin: nothing to normalise
        self.c, self.A, self.dc, self.B = (a / self.alpha for a in raw)
        self.j, self.d = self.c.shape
        self.l = self.dc.shape[0]
        self.b = np.concatenate([[1.0, 1.0], np.zeros(self.d)])
        self._L = None
        # squared diagonal shapes (cached): ``||a_i ∘ w|| = sqrt((a_i²)ᵀ w²)`` turns test (28) into mat-vecs
        self.A2, self.B2 = (self.A ** 2, self.B ** 2) if self.diagonal else (None, None)

    # shape products -------------------------------------------------------------------------------
    def _shape_T(self, S, w):
        """Rows ``S_iᵀ w``."""
        return S * w if self.diagonal else np.einsum("kij,i->kj", S, w)

    def _shape_sum(self, S, P):
        """``Σ_i S_i p_i``."""
        return np.einsum("kj,kj->j", S, P) if self.diagonal else np.einsum("kij,kj->i", S, P)

    # 𝒜 and 𝒜ᵀ ---------------------------------------------------------------------------------
    def forward(self, xc, xd) -> np.ndarray:
        """``𝒜x`` (a vector of length d + 2)."""
        lam, mu = xc[:, 0], xd[:, 0]
        w = lam @ self.c + self._shape_sum(self.A, xc[:, 1:]) - mu @ self.dc + self._shape_sum(self.B, xd[:, 1:])
        return np.concatenate([[lam.sum(), mu.sum()], w])

    def adjoint(self, v):
        """``𝒜ᵀ(s, t, w)`` as the pair of row blocks ``(C-rows, D-rows)``."""
        s, t, w = v[0], v[1], v[2:]
        rc = np.column_stack([s + self.c @ w, self._shape_T(self.A, w)])
        rd = np.column_stack([t - self.dc @ w, self._shape_T(self.B, w)])
        return rc, rd

    def zeros(self):
        return np.zeros((self.j, self.d + 1)), np.zeros((self.l, self.d + 1))

    # step size ------------------------------------------------------------------------------------
    def gram(self) -> np.ndarray:
        """``G = 𝒜𝒜ᵀ`` ((d+2)×(d+2): ``[[j, 0, Σc_iᵀ], [0, l, −Σd_iᵀ], [Σc_i, −Σd_i, Σ(c_ic_iᵀ + A_iA_iᵀ) +
        Σ(d_id_iᵀ + B_iB_iᵀ)]]``, so ``L = ||𝒜||² = λ_max(G)`` without forming 𝒜); diagonal shapes contribute
        ``diag(Σ a_i²)`` only."""
        d = self.d
        G = np.zeros((d + 2, d + 2))
        G[0, 0], G[1, 1] = self.j, self.l
        sc, sd = self.c.sum(axis=0), self.dc.sum(axis=0)
        G[0, 2:] = G[2:, 0] = sc
        G[1, 2:] = G[2:, 1] = -sd
        block = self.c.T @ self.c + self.dc.T @ self.dc
        if self.diagonal:
            block[np.diag_indices(d)] += (self.A ** 2).sum(axis=0) + (self.B ** 2).sum(axis=0)
        else:
            block += np.einsum("kij,klj->il", self.A, self.A) + np.einsum("kij,klj->il", self.B, self.B)
        G[2:, 2:] = block
        return G

    def _gram_operator(self):
        """``v ↦ 𝒜𝒜ᵀv`` without forming the Gram matrix: ``𝒜𝒜ᵀ = MᵀM + diag(0, 0, Σa_i² + Σb_i²)`` with
        ``M = [[1, 0, c_i], [0, 1, −d_i]]`` ((j+l)×(d+2)) for diagonal shapes; ``forward ∘ adjoint`` otherwise."""
        k = self.d + 2
        if self.diagonal:
            M = np.zeros((self.j + self.l, k))
            M[:self.j, 0], M[self.j:, 1] = 1.0, 1.0
            M[:self.j, 2:], M[self.j:, 2:] = self.c, -self.dc
            diag = np.concatenate([[0.0, 0.0], self.A2.sum(axis=0) + self.B2.sum(axis=0)])

            def mv(v):
                v = np.ravel(v)
                return M.T @ (M @ v) + diag * v
        else:
            def mv(v):
                return self.forward(*self.adjoint(np.ravel(v)))
        return spla.LinearOperator((k, k), dtype=float, matvec=mv), mv

    def lipschitz(self) -> float:
        """``L = ||𝒜||² = λ_max(𝒜𝒜ᵀ)`` (cached on the operator, itself cached on the problem). Lanczos (ARPACK,
        tol 1e-8) on the implicit ``𝒜𝒜ᵀ`` (:meth:`_gram_operator`; the Gram matrix is not formed and no full
        spectrum is computed), made an upper bound by adding the Ritz residual ``||Gu − θu||`` (an eigenvalue lies
        within it of the Ritz value θ) and the relative margin ``LANCZOS_INFLATION``. Diagonal shapes and their
        dense expansion use the same rule, so they give the same run. Tiny operators (``d + 2 <= 3``, below
        ARPACK's minimum) or no convergence: the exact top eigenvalue of the Gram matrix."""
        if self._L is None:
            k = self.d + 2
            op, _ = self._gram_operator()
            self._L = largest_eigenvalue(op, k, dense=self.gram, exact_below=3, tol=1e-8, residual=True,
                                         inflation=LANCZOS_INFLATION)
        return self._L

    # separation -----------------------------------------------------------------------------------
    def support(self, w):
        """``(c_iᵀw, ||A_iᵀw||, d_iᵀw, ||B_iᵀw||)`` (Lemma 2.1) on the normalised data."""
        if self.diagonal:   # ||a_i ∘ w|| = sqrt((a_i²)ᵀ(w²)): two mat-vecs, no (k, d) temporaries
            w2 = w * w
            return (self.c @ w, np.sqrt(np.maximum(self.A2 @ w2, 0.0)),
                    self.dc @ w, np.sqrt(np.maximum(self.B2 @ w2, 0.0)))
        return (self.c @ w, np.linalg.norm(self._shape_T(self.A, w), axis=1),
                self.dc @ w, np.linalg.norm(self._shape_T(self.B, w), axis=1))

    def test28(self, v):
        """Test (28) on the residual ``v = (s, t, w)`` with ``m = (t − s)/2``, strict inequalities as printed (no
        slack is added in floating point; the certified margins are returned instead).

        Returns ``(branch, margin_c, margin_d)``: branch 1 (C below, D above), 2 (reversed) or 0 (neither);
        the margins are ``m − max hiC`` and ``min loD − m`` for the branch found (branch 1's when none)."""
        w = v[2:]
        m = 0.5 * (v[1] - v[0])
        cw, rc, dw, rd = self.support(w)
        m1c, m1d = m - float(np.max(cw + rc)), float(np.min(dw - rd)) - m
        if m1c > 0 and m1d > 0:
            return 1, m1c, m1d
        m2c, m2d = float(np.min(cw - rc)) - m, m - float(np.max(dw + rd))
        if m2c > 0 and m2d > 0:
            return 2, m2c, m2d
        return 0, m1c, m1d

    def hyperplane(self, v, branch):
        """The user's-coordinates hyperplane ``(w, b)`` with unit ``w`` and ``wᵀz + b < 0`` on the C-side."""
        w = v[2:]
        nw = float(np.linalg.norm(w))
        m = 0.5 * (v[1] - v[0])
        sign = 1.0 if branch == 1 else -1.0
        return sign * w / nw, -sign * self.alpha * m / nw

    def objective(self, xc, xd) -> float:
        """``f(x) = ½||𝒜x − b||²`` of (5)."""
        r = self.forward(xc, xd) - self.b
        return 0.5 * float(r @ r)

    def lower_bound(self, v) -> float:
        """A certified lower bound on ``f* = ½||v_D||²`` from any residual ``v``: shrink ``s``, ``t`` until ``v`` is
        feasible for the primal (2) (``𝒜ᵀv ∈ −𝒞``), then weak duality with (R2) over the ray ``τ v`` gives
        ``f* >= max_τ τ(s+t) − ½τ²||v||² = (s+t)²/(2||v||²)`` when ``s + t > 0`` (and ``f* >= 0`` always)."""
        w = v[2:]
        cw, rc, dw, rd = self.support(w)
        s = min(float(v[0]), float(np.min(-cw - rc)))
        t = min(float(v[1]), float(np.min(dw - rd)))
        nv2 = s * s + t * t + float(w @ w)
        return 0.5 * (s + t) ** 2 / nv2 if (s + t > 0 and nv2 > 0) else 0.0


def project_soc_rows_xp(X, xp):
    """:func:`~marginkit.operators.projections.project_soc_rows` (every row ``(λ, p)`` onto ``{||p|| <= λ}``, Beck
    Example 6.37) in the array API: the three cases (inside, polar, outside) by ``xp.where``, no boolean-mask
    assignment, no synchronisation; the same arithmetic as the NumPy version (``β = (||p|| + λ)/2``, ``p·β/||p||``)."""
    lam, P = X[:, 0], X[:, 1:]
    a = xp.sqrt(xp.sum(P * P, axis=1))
    polar = a <= -lam
    outside = xp.logical_and(a > lam, xp.logical_not(polar))
    zero, one = xp.zeros_like(lam), xp.ones_like(lam)
    beta = 0.5 * (a + lam)
    scale = xp.where(outside, beta / xp.where(outside, a, one), one)
    scale = xp.where(polar, zero, scale)
    lam_new = xp.where(polar, zero, xp.where(outside, beta, lam))
    return xp.concat([xp.reshape(lam_new, (-1, 1)), P * xp.reshape(scale, (-1, 1))], axis=1)


class DeviceESPOperator(ESPOperator):
    """:class:`ESPOperator` for ellipsoids of another array-API library (torch, CuPy, array-api-strict; issue 13):
    the normalised data, the dual blocks ``xc``/``xd``, ``𝒜x`` and every product stay in that namespace and on that
    device (``xp`` only). Scalars come to the host only where a caller needs a number (``alpha`` at setup; test
    (28), the hyperplane, ``f(x)`` and the lower bound at a stop or at the end of a run), each as ONE small host copy.
    ``||𝒜||²`` is Lanczos on ``v ↦ 𝒜𝒜ᵀv`` with the ``(d+2)``-vector moved to the device and back per product
    (setup only; the same rule as on NumPy, so the same step up to rounding)."""

    def __init__(self, problem):
        bk = problem.backend
        xp = bk.xp
        self.bk, self.xp = bk, xp
        self.diagonal = problem.diagonal
        raw = (problem.centers_c, problem.shapes_c, problem.centers_d, problem.shapes_d)

        def spec(S):
            if self.diagonal:
                return xp.max(xp.abs(S))
            return xp.max(xp.linalg.matrix_norm(S, ord=2))
        tops = bk.host(xp.stack([xp.max(xp.linalg.vector_norm(raw[0], axis=1)), spec(raw[1]),
                                 xp.max(xp.linalg.vector_norm(raw[2], axis=1)), spec(raw[3])]))
        alpha = float(np.max(tops))
        self.alpha = alpha if alpha > 0 else 1.0
        self.c, self.A, self.dc, self.B = (a / self.alpha for a in raw)
        self.j, self.d = self.c.shape
        self.l = self.dc.shape[0]
        self.b = bk.asarray_d(np.concatenate([[1.0, 1.0], np.zeros(self.d)]))
        self._L = None
        self.A2, self.B2 = (self.A ** 2, self.B ** 2) if self.diagonal else (None, None)

    def _shape_T(self, S, w):
        return S * w if self.diagonal else w @ S          # rows S_iᵀw

    def _shape_sum(self, S, P):
        xp = self.xp
        if self.diagonal:
            return xp.sum(S * P, axis=0)
        return xp.sum((S @ xp.reshape(P, (P.shape[0], P.shape[1], 1)))[:, :, 0], axis=0)

    def forward(self, xc, xd):
        xp = self.xp
        lam, mu = xc[:, 0], xd[:, 0]
        w = lam @ self.c + self._shape_sum(self.A, xc[:, 1:]) - mu @ self.dc + self._shape_sum(self.B, xd[:, 1:])
        return xp.concat([xp.stack([xp.sum(lam), xp.sum(mu)]), w])

    def adjoint(self, v):
        xp = self.xp
        s, t, w = v[0], v[1], v[2:]
        rc = xp.concat([xp.reshape(s + self.c @ w, (-1, 1)), self._shape_T(self.A, w)], axis=1)
        rd = xp.concat([xp.reshape(t - self.dc @ w, (-1, 1)), self._shape_T(self.B, w)], axis=1)
        return rc, rd

    def zeros(self):
        bk = self.bk
        return (self.xp.zeros((self.j, self.d + 1), dtype=bk.dtype, device=bk.device),
                self.xp.zeros((self.l, self.d + 1), dtype=bk.dtype, device=bk.device))

    def gram(self) -> np.ndarray:
        """``G = 𝒜𝒜ᵀ`` on the host: the ``d×d`` block is formed on the device and copied once."""
        xp, d = self.xp, self.d
        block = self.c.T @ self.c + self.dc.T @ self.dc
        if self.diagonal:
            extra = xp.sum(self.A2, axis=0) + xp.sum(self.B2, axis=0)
            block = block + extra * xp.eye(d, dtype=block.dtype, device=self.bk.device)
        else:
            for S in (self.A, self.B):   # Σ_k S_k S_kᵀ = P Pᵀ with P = [S_1 ... S_k] (d × kd)
                P = xp.reshape(xp.permute_dims(S, (1, 0, 2)), (d, -1))
                block = block + P @ P.T
        host = self.bk.host
        G = np.zeros((d + 2, d + 2))
        G[0, 0], G[1, 1] = self.j, self.l
        sc, sd = host(xp.sum(self.c, axis=0)), host(xp.sum(self.dc, axis=0))
        G[0, 2:] = G[2:, 0] = sc
        G[1, 2:] = G[2:, 1] = -sd
        G[2:, 2:] = host(block)
        return G

    def _gram_operator(self):
        bk, k = self.bk, self.d + 2

        def mv(v):
            return bk.host(self.forward(*self.adjoint(bk.asarray_d(np.ravel(v)))))
        return spla.LinearOperator((k, k), dtype=float, matvec=mv), mv

    def support(self, w):
        xp = self.xp
        if self.diagonal:
            w2 = w * w
            return (self.c @ w, xp.sqrt(xp.clip(self.A2 @ w2, min=0.0)),
                    self.dc @ w, xp.sqrt(xp.clip(self.B2 @ w2, min=0.0)))
        return (self.c @ w, xp.linalg.vector_norm(self._shape_T(self.A, w), axis=1),
                self.dc @ w, xp.linalg.vector_norm(self._shape_T(self.B, w), axis=1))

    def _host_scalars(self, *values) -> list:
        """0-d device values as Python floats, by one host copy (one synchronisation)."""
        return [float(x) for x in self.bk.host(self.xp.stack(list(values)))]

    def test28(self, v):
        xp = self.xp
        cw, rc, dw, rd = self.support(v[2:])
        m, hi1, lo1, lo2, hi2 = self._host_scalars(0.5 * (v[1] - v[0]), xp.max(cw + rc), xp.min(dw - rd),
                                                    xp.min(cw - rc), xp.max(dw + rd))
        m1c, m1d = m - hi1, lo1 - m
        if m1c > 0 and m1d > 0:
            return 1, m1c, m1d
        m2c, m2d = lo2 - m, m - hi2
        if m2c > 0 and m2d > 0:
            return 2, m2c, m2d
        return 0, m1c, m1d

    def hyperplane(self, v, branch):
        w = v[2:]
        nw, m = self._host_scalars(self.xp.linalg.vector_norm(w), 0.5 * (v[1] - v[0]))
        sign = 1.0 if branch == 1 else -1.0
        return sign * w / nw, -sign * self.alpha * m / nw

    def objective(self, xc, xd) -> float:
        r = self.forward(xc, xd) - self.b
        return 0.5 * self.bk.float(self.xp.sum(r * r))

    def lower_bound(self, v) -> float:
        xp = self.xp
        w = v[2:]
        cw, rc, dw, rd = self.support(w)
        v0, sc, v1, td, ww = self._host_scalars(v[0], xp.min(-cw - rc), v[1], xp.min(dw - rd), xp.sum(w * w))
        s, t = min(v0, sc), min(v1, td)
        nv2 = s * s + t * t + ww
        return 0.5 * (s + t) ** 2 / nv2 if (s + t > 0 and nv2 > 0) else 0.0


def esp_operator(problem) -> ESPOperator:
    """The normalised operator of an ESP problem, cached on the (immutable) problem (:class:`DeviceESPOperator` when
    the ellipsoids live in another array-API library)."""
    if "esp_operator" not in problem._cache:
        on_host = getattr(problem, "backend", None) is None or problem.backend.on_host
        problem._cache["esp_operator"] = (ESPOperator if on_host else DeviceESPOperator)(problem)
    return problem._cache["esp_operator"]


def iteration_bounds(opnorm: float, dist0: float, v_norm: float, M: float) -> dict:
    """Theorem 2.4 ``K_δ = 54√2||𝒜||·||x_0 − x̄||/δ² − 1`` for ``δ = M`` and ``δ = M/2``, and the sharper
    ``K_v = 6√2||𝒜||·||x_0 − x̄||/||v_D||² − 1``; each reported as ``max(1, ceil(K))`` (inf when not separable)."""
    def bound(K):
        return float(max(1, int(np.ceil(K)))) if np.isfinite(K) else np.inf
    num = np.sqrt(2.0) * opnorm * dist0
    K_delta = 54 * num / M ** 2 - 1 if M > 0 else np.inf
    K_both = 54 * num / (0.5 * M) ** 2 - 1 if M > 0 else np.inf
    K_v = 6 * num / v_norm ** 2 - 1 if v_norm > 0 else np.inf
    return {"iteration_bound": bound(K_delta), "iteration_bound_both": bound(K_both), "iteration_bound_v": bound(K_v)}
