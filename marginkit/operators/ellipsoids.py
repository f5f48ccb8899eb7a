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
* Where the ellipsoids live (``problem.backend``, :mod:`marginkit.core.backend`): NumPy, or another array-API
  library (torch, CuPy, array-api-strict), where the normalised data, the dual blocks, ``𝒜x`` and every product stay
  in that namespace and on that device. Scalars come to the host only where a caller needs a number (``α`` at setup;
  test (28), the hyperplane, ``f(x)`` and the lower bound at a stop or at the end of a run), each as one small copy.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse.linalg as spla

from ..core.backend import NUMPY
from ..core.linalg import largest_eigenvalue

LANCZOS_INFLATION = 1e-6  # relative safety margin on a Lanczos estimate of ||𝒜||² (it must be an upper bound)


def _top_spectral_norm(S, diagonal: bool, xp):
    """``max_i ||S_i||₂`` (a 0-d array of ``xp``; diagonal shapes: the largest ``|a_ik|``)."""
    if diagonal:
        return xp.max(xp.abs(S)) if S.shape[1] else 0.0
    return xp.max(xp.linalg.matrix_norm(S, ord=2))


class ESPOperator:
    """Normalised ESP data of an :class:`~marginkit.EllipsoidSeparation` problem and its linear maps, in the namespace
    ``xp`` of the problem's backend ``bk`` (the products with the shapes are the backend's ``stack_rmatvec`` and
    ``stack_matvec_sum``)."""

    def __init__(self, problem):
        self.bk = bk = getattr(problem, "backend", NUMPY)
        xp = bk.xp
        self.diagonal = problem.diagonal
        raw = (problem.centers_c, problem.shapes_c, problem.centers_d, problem.shapes_d)
        tops = bk.floats(xp.max(xp.linalg.vector_norm(raw[0], axis=1)), _top_spectral_norm(raw[1], self.diagonal, xp),
                         xp.max(xp.linalg.vector_norm(raw[2], axis=1)), _top_spectral_norm(raw[3], self.diagonal, xp))
        alpha = max(tops)
        self.alpha = alpha if alpha > 0 else 1.0  # all ellipsoids are the origin: nothing to normalise
        self.c, self.A, self.dc, self.B = (a / self.alpha for a in raw)
        self.j, self.d = self.c.shape
        self.l = self.dc.shape[0]
        self.b = bk.asarray_d(np.concatenate([[1.0, 1.0], np.zeros(self.d)]))
        self._L = None
        # squared diagonal shapes (cached): ``||a_i ∘ w|| = sqrt((a_i²)ᵀ w²)`` turns test (28) into mat-vecs
        self.A2, self.B2 = (self.A ** 2, self.B ** 2) if self.diagonal else (None, None)

    @property
    def xp(self):
        """The namespace of the data (the backend's; not kept on the operator, which is cached on the problem and
        pickles with it: a module does not pickle)."""
        return self.bk.xp

    # 𝒜 and 𝒜ᵀ ---------------------------------------------------------------------------------
    def forward(self, xc, xd):
        """``𝒜x`` (a vector of length d + 2)."""
        xp, bk = self.xp, self.bk
        lam, mu = xc[:, 0], xd[:, 0]
        w = (lam @ self.c + bk.stack_matvec_sum(self.A, xc[:, 1:])
             - mu @ self.dc + bk.stack_matvec_sum(self.B, xd[:, 1:]))
        return xp.concat([bk.sum(xc[:, :1], axis=0), bk.sum(xd[:, :1], axis=0), w])

    def adjoint(self, v):
        """``𝒜ᵀ(s, t, w)`` as the pair of row blocks ``(C-rows, D-rows)``."""
        xp, bk = self.xp, self.bk
        s, t, w = v[0], v[1], v[2:]
        rc = xp.concat([(s + self.c @ w)[:, None], bk.stack_rmatvec(self.A, w)], axis=1)
        rd = xp.concat([(t - self.dc @ w)[:, None], bk.stack_rmatvec(self.B, w)], axis=1)
        return rc, rd

    def zeros(self):
        return self.bk.zeros_d((self.j, self.d + 1)), self.bk.zeros_d((self.l, self.d + 1))

    # step size ------------------------------------------------------------------------------------
    def gram(self) -> np.ndarray:
        """``G = 𝒜𝒜ᵀ`` ((d+2)×(d+2): ``[[j, 0, Σc_iᵀ], [0, l, −Σd_iᵀ], [Σc_i, −Σd_i, Σ(c_ic_iᵀ + A_iA_iᵀ) +
        Σ(d_id_iᵀ + B_iB_iᵀ)]]``, so ``L = ||𝒜||² = λ_max(G)`` without forming 𝒜); diagonal shapes contribute
        ``diag(Σ a_i²)`` only. Formed on host copies of the data (a fallback of :meth:`lipschitz`: tiny operators or
        no Lanczos convergence)."""
        d = self.d
        c, dc, A, B = (self.bk.host(a) for a in (self.c, self.dc, self.A, self.B))
        G = np.zeros((d + 2, d + 2))
        G[0, 0], G[1, 1] = self.j, self.l
        sc, sd = c.sum(axis=0), dc.sum(axis=0)
        G[0, 2:] = G[2:, 0] = sc
        G[1, 2:] = G[2:, 1] = -sd
        block = c.T @ c + dc.T @ dc
        if self.diagonal:
            block[np.diag_indices(d)] += (A ** 2).sum(axis=0) + (B ** 2).sum(axis=0)
        else:
            block += np.einsum("kij,klj->il", A, A) + np.einsum("kij,klj->il", B, B)
        G[2:, 2:] = block
        return G

    def _gram_operator(self):
        """``v ↦ 𝒜𝒜ᵀv`` without forming the Gram matrix: ``𝒜𝒜ᵀ = MᵀM + diag(0, 0, Σa_i² + Σb_i²)`` with
        ``M = [[1, 0, c_i], [0, 1, −d_i]]`` ((j+l)×(d+2)) for diagonal shapes; ``forward ∘ adjoint`` otherwise. The
        products run where the data live, on a ``(d+2)``-vector brought there and back per product (setup only)."""
        bk, xp, k = self.bk, self.xp, self.d + 2
        if self.diagonal:
            one_c, one_d = bk.zeros_d((self.j, 1)) + 1.0, bk.zeros_d((self.l, 1)) + 1.0
            M = xp.concat([xp.concat([one_c, 0.0 * one_c, self.c], axis=1),
                           xp.concat([0.0 * one_d, one_d, -self.dc], axis=1)], axis=0)
            diag = xp.concat([bk.zeros_d(2), xp.sum(self.A2, axis=0) + xp.sum(self.B2, axis=0)])

            def product(v):
                return M.T @ (M @ v) + diag * v
        else:
            def product(v):
                return self.forward(*self.adjoint(v))

        def mv(v):
            return bk.host(product(bk.asarray_d(np.ravel(v))))
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
        xp = self.xp
        if self.diagonal:   # ||a_i ∘ w|| = sqrt((a_i²)ᵀ(w²)): two mat-vecs of non-negative terms, no (k, d) temporaries
            w2 = w * w
            return self.c @ w, xp.sqrt(self.A2 @ w2), self.dc @ w, xp.sqrt(self.B2 @ w2)
        RA, RB = self.bk.stack_rmatvec(self.A, w), self.bk.stack_rmatvec(self.B, w)
        return self.c @ w, xp.sqrt(xp.sum(RA * RA, axis=1)), self.dc @ w, xp.sqrt(xp.sum(RB * RB, axis=1))

    def test28(self, v):
        """Test (28) on the residual ``v = (s, t, w)`` with ``m = (t − s)/2``, strict inequalities as printed (no
        slack is added in floating point; the certified margins are returned instead).

        Returns ``(branch, margin_c, margin_d)``: branch 1 (C below, D above), 2 (reversed) or 0 (neither);
        the margins are ``m − max hiC`` and ``min loD − m`` for the branch found (branch 1's when none)."""
        xp = self.xp
        cw, rc, dw, rd = self.support(v[2:])
        m, hi1, lo1, lo2, hi2 = self.bk.floats(0.5 * (v[1] - v[0]), xp.max(cw + rc), xp.min(dw - rd),
                                               xp.min(cw - rc), xp.max(dw + rd))
        m1c, m1d = m - hi1, lo1 - m
        if m1c > 0 and m1d > 0:
            return 1, m1c, m1d
        m2c, m2d = lo2 - m, m - hi2
        if m2c > 0 and m2d > 0:
            return 2, m2c, m2d
        return 0, m1c, m1d

    def hyperplane(self, v, branch):
        """The user's-coordinates hyperplane ``(w, b)`` with unit ``w`` and ``wᵀz + b < 0`` on the C-side."""
        w = v[2:]
        nw, m = self.bk.norm(w), self.bk.float(0.5 * (v[1] - v[0]))
        sign = 1.0 if branch == 1 else -1.0
        return sign * w / nw, -sign * self.alpha * m / nw

    def objective(self, xc, xd) -> float:
        """``f(x) = ½||𝒜x − b||²`` of (5)."""
        r = self.forward(xc, xd) - self.b
        return 0.5 * self.bk.float(self.bk.vdot(r, r))

    def lower_bound(self, v) -> float:
        """A certified lower bound on ``f* = ½||v_D||²`` from any residual ``v``: shrink ``s``, ``t`` until ``v`` is
        feasible for the primal (2) (``𝒜ᵀv ∈ −𝒞``), then weak duality with (R2) over the ray ``τ v`` gives
        ``f* >= max_τ τ(s+t) − ½τ²||v||² = (s+t)²/(2||v||²)`` when ``s + t > 0`` (and ``f* >= 0`` always)."""
        xp = self.xp
        w = v[2:]
        cw, rc, dw, rd = self.support(w)
        v0, top_c, v1, low_d, ww = self.bk.floats(v[0], xp.min(-cw - rc), v[1], xp.min(dw - rd), self.bk.vdot(w, w))
        s, t = min(v0, top_c), min(v1, low_d)
        nv2 = s * s + t * t + ww
        return 0.5 * (s + t) ** 2 / nv2 if (s + t > 0 and nv2 > 0) else 0.0


def esp_operator(problem) -> ESPOperator:
    """The normalised operator of an ESP problem, cached on the (immutable) problem."""
    if "esp_operator" not in problem._cache:
        problem._cache["esp_operator"] = ESPOperator(problem)
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
