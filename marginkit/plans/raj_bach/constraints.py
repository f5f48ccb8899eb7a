"""Constraint systems: the operator protocol every Raj–Bach epoch runs over (the model of this family).

RB's problem ``min D_ψ(θ, θ0)`` subject to ``a_iᵀθ ∈ Y_i`` (``ψ = ½||·||_p²``) has the dual
``D(λ) = −Σ_i σ_{Y_i}(−λ_i) − ψ*(u0 + Σ_i a_iλ_i) + ψ*(u0)``. The algorithms -- RB Algorithm 1 (Lemma 1's proximal
coordinate step), Algorithm 2 (APCG), stochastic mirror descent eq. (10) and the perceptron -- touch the constraints
only through a few operations on one coordinate ``i``, and the certificate through a few global ones. A
*constraint system* provides exactly these; the epochs (:mod:`.epochs`, :mod:`.epochs_numba`) and the plans
(:mod:`.coordinate_ascent`) never ask which problem they solve. Two systems exist:

* :class:`RowConstraints`: ``a_i = s_i x_i`` (one scalar ``λ_i`` per row of X), for
  :class:`~marginkit.MinNormFeasibility`: margins (``s = y``, ``Y_i = [1, ∞)``, ``λ >= 0``) or interpolation
  (``s = 1``, ``Y_i = {y_i}``, ``λ`` free);
* :class:`SetConstraints`: ``a_i = I`` (one vector ``λ_i ∈ R^d`` per set), for
  :class:`~marginkit.ProjectionOntoIntersection` over simple sets ``K_i`` with a projection.

**Why one epoch serves both problems.** In every algorithm the constraint enters an iteration in two places only:
the step ``Δλ_i`` computed from ``m = a_iᵀθ`` (RB Lemma 1: ``λ_i⁺ = λ_i + τ[Π_{Y_i}(m − λ_i/τ) − m]``), and the
update ``u ← u + a_iΔλ_i`` of the mirror point ``u = u0 + Σ a_iλ_i`` (``θ = ∇ψ*(u)``). For rows both are scalar
operations on a row of X; for sets ``Δλ_i`` is a vector and ``a_i Δλ_i = Δλ_i``. Written as ``dot``,
``prox_delta`` and ``add``, Algorithm 1 is one code over both problems, and Dykstra's algorithm (sets, p = 2, τ = 1)
falls out as its special case. A new kind of constraint is a new system; the algorithms do not change.

**What a system provides.**

* attributes: ``n`` (constraints), ``d``, ``L`` (RB Lemma 1's coordinate constants ``L_i = ||a_i||²_{2→q}/(p − 1)``),
  ``lam_shape`` (``(n,)`` or ``(n, d)``), ``margin`` (the dual domain is ``λ >= 0`` and the perceptron applies),
  ``farkas_rows`` (constraints no θ can meet: a Farkas certificate each), ``distance_scale`` (distance from θ0 to
  the farthest single constraint: the scale of the infeasibility test) and ``violation_scale``;
* one coordinate: ``dot(i, θ) = a_iᵀθ``, ``dot2(i, w, w2, π) = a_iᵀ(w + π w2)``, ``add(i, coef, u)``
  (``u += a_i coef`` in place), ``prox_delta(i, λ_i, m, τ)`` (Lemma 1's ``Δλ_i``), ``smd_delta(i, m, h)``
  (``h (Π_{Y_i}(m) − m)``);
* whole epochs, which a system may run compiled: ``epoch(rule, step, idx, lam, u, q, runner)`` and
  ``apcg_epoch(Linv, idx, alpha, ehat, ua, ue, scal, q, runner, n=None)`` (``n``: how many coordinates the indices
  are drawn from, all by default; the NumPy ones are generic over the one-coordinate operations above; rows also
  have numba twins; ``runner`` is ``"numba"`` or ``"numpy"``, as the plan's option ``compiled`` resolved);
* the certificate: ``rmatvec(λ) = Σ a_iλ_i``, ``check_dual(λ, name)`` (a warm start in the dual domain),
  ``repair(λ, u)`` (λ moved exactly into the dual domain, ``u`` updated), ``linear_part(λ) = −Σ σ_{Y_i}(−λ_i)``,
  ``farkas_numerator(λ, x0)`` and ``evaluate(θ, objective, a=None)`` (``primal``, ``max_violation``; for margins also a
  feasible rescaled ``point``).
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ...core.mirror import lp_norm
from ...core.validation import ProblemError
from ...operators.sets import Box, HalfSpace, Hyperplane
from .epochs import numpy_apcg_epoch, numpy_coordinate_epoch

_KERNELS = None


def compiled_kernels():
    """The compiled epochs of row systems (:mod:`.epochs_numba`), or None when numba is not installed (imported once,
    lazily: the first time a plan runs with numba)."""
    global _KERNELS
    if _KERNELS is None:
        from ..common.numba_rows import available
        if available():
            from . import epochs_numba
            _KERNELS = epochs_numba
        else:
            _KERNELS = False
    return _KERNELS or None


BLOCK_ELEMENTS = 1 << 16  # entries of X per block of the row norms (bounds their temporaries to 0.5 MiB)


def _row_lq_norms(X, q: float) -> np.ndarray:
    """``||x_i||_q`` for every row, max-scaled per row (no overflow for large q), sparse kept sparse.

    Computed in blocks of rows of about :data:`BLOCK_ELEMENTS` entries (nonzeros for CSR), so the temporaries
    are O(n + d), never of the size of X (``np.abs(X)`` and its scaled power were three copies of X)."""
    n = X.shape[0]
    m, S = np.zeros(n), np.zeros(n)
    if sp.issparse(X):
        X = X.tocsr()  # a no-op for the validated problems
        indptr = X.indptr
        r0 = 0
        while r0 < n:
            # rows [r0, r1) hold about BLOCK_ELEMENTS nonzeros (at least one row)
            r1 = int(np.searchsorted(indptr, indptr[r0] + BLOCK_ELEMENTS, side="right")) - 1
            r1 = min(n, max(r1, r0 + 1))
            p0, p1 = int(indptr[r0]), int(indptr[r1])
            counts = np.diff(indptr[r0:r1 + 1])
            rows = np.repeat(np.arange(r1 - r0), counts)
            a = np.abs(X.data[p0:p1])
            mb = np.zeros(r1 - r0)
            np.maximum.at(mb, rows, a)
            scale = np.where(mb > 0, 1.0 / np.where(mb > 0, mb, 1.0), 0.0)
            a *= scale[rows]
            a **= q
            m[r0:r1] = mb
            S[r0:r1] = np.bincount(rows, weights=a, minlength=r1 - r0)
            r0 = r1
    else:
        block = max(1, BLOCK_ELEMENTS // max(X.shape[1], 1))
        for r0 in range(0, n, block):
            A = np.abs(X[r0:r0 + block])
            mb = A.max(axis=1) if A.shape[1] else np.zeros(A.shape[0])
            scale = np.where(mb > 0, 1.0 / np.where(mb > 0, mb, 1.0), 0.0)
            A *= scale[:, None]
            A **= q
            m[r0:r0 + block] = mb
            S[r0:r0 + block] = A.sum(axis=1)
    return m * S ** (1.0 / q)


def _readonly(a):
    a = np.ascontiguousarray(a)
    a.setflags(write=False)
    return a


class RowConstraints:
    """``a_iᵀθ ∈ Y_i`` with ``a_i = s_i x_i``: margins (``s = y``, ``Y_i = [1, ∞)``, ``λ >= 0``) or
    interpolation (``s = 1``, ``Y_i = {y_i}``, ``λ`` free). ``X`` is used as stored (dense C-ordered or CSR)."""

    def __init__(self, form, x0, q):
        X = form.X
        self.sparse = sp.issparse(X)
        self.X = X if self.sparse else np.ascontiguousarray(X)
        self.n, self.d = X.shape
        self.margin = form.constraint == "margin"
        self.s = np.array(form.y if self.margin else np.ones(self.n), dtype=float)
        self.c = np.array(np.ones(self.n) if self.margin else form.y, dtype=float)
        norms = _row_lq_norms(self.X, q)
        with np.errstate(over="ignore", under="ignore"):
            self.L = norms ** 2 / (form.p - 1.0)
        # a nonzero row whose squared norm under- or overflows is not a zero row (which no θ can meet): the steps
        # 1/L_i of RB Lemma 1 do not exist in double precision there, so the data must be rescaled, not certified
        lost = ((self.L == 0.0) & (norms > 0.0)) | (~np.isfinite(self.L) & np.isfinite(norms))
        if lost.any():
            i = int(np.flatnonzero(lost)[0])
            raise ProblemError(f"X: row {i} has norm {norms[i]:.3g}, whose square is beyond double precision (the "
                               "coordinate steps 1/||a_i||² of Raj & Bach's Lemma 1 do not exist); rescale X, "
                               "which scales the solution by the inverse factor")
        self.lam_shape = (self.n,)
        zero = self.L == 0.0
        unmeetable = zero & ((self.c != 0.0) if not self.margin else True)
        self.farkas_rows = np.flatnonzero(unmeetable)
        # distance from θ0 to the farthest single constraint (the scale of the infeasibility test)
        self.c_shift = self.c - self.matvec(x0)
        gap = np.maximum(self.c_shift, 0.0) if self.margin else np.abs(self.c_shift)
        rq = np.sqrt(self.L * (form.p - 1.0))
        self.distance_scale = float(np.max(np.where(zero, 0.0, gap / np.where(zero, 1.0, rq)), initial=0.0))
        # the data's own scale of a violation: 1 for margins (right-hand side 1), max|y| for interpolation
        cmax = float(np.max(np.abs(self.c), initial=0.0))
        self.violation_scale = 1.0 if self.margin or not cmax > 0 else cmax
        empty_i, empty_f = _readonly(np.zeros(0, dtype=np.int32)), _readonly(np.zeros(0))
        if self.sparse:
            self._kernel_data = (_readonly(np.zeros((0, 0))), _readonly(self.X.data), _readonly(self.X.indices),
                                 _readonly(self.X.indptr), False)
        else:
            self._kernel_data = (_readonly(self.X), empty_f, empty_i, empty_i, True)

    # linear algebra ------------------------------------------------------------------------------
    def matvec(self, theta):
        return self.s * np.asarray(self.X @ theta).ravel()

    def rmatvec(self, lam):
        return np.asarray(self.X.T @ (self.s * lam)).ravel()

    def _row(self, i):
        if self.sparse:
            a, b = self.X.indptr[i], self.X.indptr[i + 1]
            return self.X.indices[a:b], self.X.data[a:b]
        return slice(None), self.X[i]

    # one coordinate (the NumPy epochs) -------------------------------------------------------------
    def dot(self, i, theta):
        cols, vals = self._row(i)
        return self.s[i] * float(vals @ theta[cols])

    def dot2(self, i, w, w2, pi):
        cols, vals = self._row(i)
        return self.s[i] * (float(vals @ w[cols]) + pi * float(vals @ w2[cols]))

    def add(self, i, coef, u):
        cols, vals = self._row(i)
        u[cols] += (coef * self.s[i]) * vals

    def prox_delta(self, i, lam_i, m, tau):
        """Proximal coordinate step (RB Lemma 1): ``λ_i⁺ = λ_i + τ[Π_{Y_i}(m − λ_i/τ) − m]``, i.e.
        ``max(λ_i + τ(1 − m), 0)`` for margins and ``λ_i + τ(y_i − m)`` for interpolation."""
        delta = tau * (self.c[i] - m)
        if self.margin and delta < -lam_i:
            delta = -lam_i
        return delta

    def smd_delta(self, i, m, h):
        r = self.c[i] - m
        if self.margin and r < 0.0:
            r = 0.0
        return h * r

    def epoch(self, rule, step, idx, lam, u, q, runner):
        if runner == "numba":
            X2, data, indices, indptr, dense = self._kernel_data
            return float(compiled_kernels().coordinate_epoch(X2, data, indices, indptr, dense, self.d, self.s,
                                                             self.c, self.margin, rule, step, idx, lam, u, q))
        return numpy_coordinate_epoch(self, rule, step, idx, lam, u, q)

    def apcg_epoch(self, Linv, idx, alpha, ehat, ua, ue, scal, q, runner, n=None):
        n = self.n if n is None else n   # the coordinates sampled from (fewer once screening removed some)
        if runner == "numba":
            X2, data, indices, indptr, dense = self._kernel_data
            return float(compiled_kernels().apcg_epoch(X2, data, indices, indptr, dense, self.d, self.s, self.c,
                                                       self.margin, Linv, idx, alpha, ehat, ua, ue, scal, q, n))
        return numpy_apcg_epoch(self, Linv, idx, alpha, ehat, ua, ue, scal, q, n)

    # certificate ---------------------------------------------------------------------------------
    def check_dual(self, lam, name):
        if self.margin and np.any(lam < 0):
            raise ProblemError(f"{name} must be >= 0 for margin constraints (the dual domain)")

    def repair(self, lam, u):
        """``(λ', u')`` with ``λ'`` exactly in the dual domain (``λ' >= 0`` for margins) and
        ``u' = u + Σ a_i(λ'_i − λ_i)``: undoes rounding in the accelerated sequence ``v``."""
        if not self.margin or lam.min(initial=0.0) >= 0.0:
            return lam, u
        neg = np.flatnonzero(lam < 0)
        lam_f = np.maximum(lam, 0.0)
        u_f = u.copy()
        block = max(1, BLOCK_ELEMENTS // max(self.d, 1))  # X[rows] copies its rows: bounded blocks
        for b in range(0, len(neg), block):
            rows = neg[b:b + block]
            u_f += np.asarray(self.X[rows].T @ (self.s[rows] * (lam_f[rows] - lam[rows]))).ravel()
        return lam_f, u_f

    def linear_part(self, lam) -> float:
        """``−Σ σ_{Y_i}(−λ_i) = cᵀλ`` (for λ in the dual domain)."""
        return float(self.c @ lam)

    def farkas_numerator(self, lam, x0) -> float:
        return float(self.c_shift @ lam)

    def evaluate(self, theta, objective, a=None) -> dict:
        """The certificate's primal half at ``θ``; ``a``: the margins ``a_iᵀθ`` when the caller has them."""
        a = self.matvec(theta) if a is None else a
        if not self.margin:
            return {"primal": objective(theta), "max_violation": float(np.max(np.abs(a - self.c)))}
        amin = float(a.min())
        out = {"max_violation": max(0.0, 1.0 - amin), "mistakes": float(np.count_nonzero(a <= 0.0)),
               "separates": amin > 0.0}
        nt = float(np.linalg.norm(theta))
        out["margin"] = amin / nt if nt > 0 else 0.0
        if amin > 0.0:  # θ/min_i a_iᵀθ is feasible: its objective bounds ψ(θ*) from above
            point = theta / amin
            primal = objective(point)
            if amin >= 1.0 and objective(theta) < primal:
                point, primal = theta, objective(theta)
            out["point"] = point  # the feasible point the certificate's primal value belongs to
        else:
            primal = np.inf
        out["primal"] = primal
        return out


class SetConstraints:
    """``θ ∈ K_i`` for simple sets (``a_i = I``, ``k = d``): each coordinate ``λ_i`` is a vector of R^d and
    ``L_i = 1/(p − 1)`` (``||I||_{2→q} = 1`` for q >= 2)."""

    def __init__(self, form, x0, q):
        self.sets = form.sets
        self.n, self.d = len(form.sets), form.d
        self.margin = False
        self.L = np.full(self.n, 1.0 / (form.p - 1.0))
        self.lam_shape = (self.n, self.d)
        self.farkas_rows = np.zeros(0, dtype=int)
        self.x0 = x0
        self.distance_scale = max(lp_norm(x0 - K.project(x0), form.p) for K in self.sets)
        xmax = float(np.max(np.abs(x0), initial=0.0))   # the point's own scale (1 if it is 0)
        self.violation_scale = xmax if xmax > 0 else 1.0

    def rmatvec(self, lam):
        return lam.sum(axis=0)

    def dot(self, i, theta):
        return theta

    def dot2(self, i, w, w2, pi):
        return w + pi * w2

    def add(self, i, coef, u):
        u += coef

    def prox_delta(self, i, lam_i, m, tau):
        """RB Lemma 1 with ``x_i = I``: ``λ_i⁺ = τ[Π_{K_i}(v) − v]``, ``v = m − λ_i/τ`` (Moreau form: ``−λ_i⁺``
        is exactly a normal vector of ``K_i`` at ``Π_{K_i}(v)``). For p = 2, τ = 1 this is Dykstra's step."""
        v = m - lam_i / tau
        return tau * (self.sets[i].project(v) - v) - lam_i

    def smd_delta(self, i, m, h):
        return h * (self.sets[i].project(m) - m)

    def epoch(self, rule, step, idx, lam, u, q, runner):
        return numpy_coordinate_epoch(self, rule, step, idx, lam, u, q)

    def apcg_epoch(self, Linv, idx, alpha, ehat, ua, ue, scal, q, runner, n=None):
        return numpy_apcg_epoch(self, Linv, idx, alpha, ehat, ua, ue, scal, q, n)

    def check_dual(self, lam, name):
        pass

    def repair(self, lam, u):
        lam_f = np.array([-K.dual_domain_projection(-li) for K, li in zip(self.sets, lam)])
        return lam_f, u + (lam_f - lam).sum(axis=0)

    def linear_part(self, lam) -> float:
        return -float(sum(K.support(-li) for K, li in zip(self.sets, lam)))

    def farkas_numerator(self, lam, x0) -> float:
        return self.linear_part(lam) - float(lam.sum(axis=0) @ x0)

    def evaluate(self, theta, objective, a=None) -> dict:
        return {"primal": objective(theta), "max_violation": max(K.distance(theta) for K in self.sets)}

    def farkas_certificate(self, lam) -> dict | None:
        """A rounding-level proof that ``∩K_i = ∅``, or None: multipliers ``μ_i`` in the dual domain with
        ``Σμ_i = 0`` and ``g = −Σσ_{K_i}(−μ_i) > 0`` (for θ in every ``K_i``, ``−σ_{K_i}(−μ_i) <= μ_iᵀθ``; summing
        gives ``g <= 0``). Two routes:

        * from the run's dual point ``λ`` (which diverges along such a direction while ``Σλ_i`` stays bounded,
          RB Conclusion (2)): the residual ``s = Σλ_i`` is moved onto a bounded set ``K_j`` (whose ``σ`` is finite
          everywhere), ``μ_j = λ_j − s``; the floating-point residual ``r = Σμ_i`` is then bounded by
          ``|rᵀθ| <= ||r||·ρ_j`` on ``K_j`` (``ρ_j = max_{x ∈ K_j} ||x||``), so the proof needs
          ``g > ||r||ρ_j`` plus the rounding error of ``g``;
        * when every set is polyhedral (half-spaces, hyperplanes, boxes): the Farkas LP over their rows
          ``min Σc_r b_r`` s.t. ``Σc_r a_r = 0``, ``c_r >= 0`` on inequalities, ``|c_r| <= 1`` (HiGHS through
          SciPy), its support polished by least squares and accepted when ``||Σc_r a_r||`` is at rounding level
          relative to ``Σ|c_r|·||a_r||`` while ``Σc_r b_r < 0`` beyond rounding.

        Returns ``{"farkas_lambda": μ (n, d) or the LP's row multipliers, "farkas_value": g, ...}``."""
        proof = self._shifted_farkas(np.asarray(lam, dtype=float))
        return proof if proof is not None else self._polyhedral_farkas()

    def _shifted_farkas(self, lam):
        eps = np.finfo(float).eps
        s = lam.sum(axis=0)
        best = None
        for j, K in enumerate(self.sets):
            rho = _radius(K)
            if not np.isfinite(rho):
                continue
            mu = lam.copy()
            mu[j] = lam[j] - s
            sig = np.array([K_i.support(-m) for K_i, m in zip(self.sets, mu)])
            if not np.all(np.isfinite(sig)):
                continue
            g = -float(sig.sum())
            r = float(np.linalg.norm(mu.sum(axis=0)))
            err = 4.0 * (self.n + self.d) * eps * (float(np.abs(sig).sum()) + float(np.abs(mu).sum()) * rho)
            slack = g - r * rho - err
            if slack > 0 and (best is None or slack > best[0]):
                best = (slack, {"farkas_lambda": mu, "farkas_value": g, "farkas_residual": r,
                                "farkas_route": f"dual point shifted onto set {j}"})
        return None if best is None else best[1]

    def _polyhedral_farkas(self):
        rows, rhs, free = [], [], []
        for K in self.sets:
            if isinstance(K, (HalfSpace, Hyperplane)):
                rows.append(K.a), rhs.append(K.b), free.append(isinstance(K, Hyperplane))
            elif isinstance(K, Box):
                eye = np.eye(self.d)
                for k in np.flatnonzero(np.isfinite(K.hi)):
                    rows.append(eye[k]), rhs.append(K.hi[k]), free.append(False)
                for k in np.flatnonzero(np.isfinite(K.lo)):
                    rows.append(-eye[k]), rhs.append(-K.lo[k]), free.append(False)
            else:
                return None
        if not rows:
            return None
        try:
            from scipy.optimize import linprog
        except ImportError:  # pragma: no cover
            return None
        A, b, free = np.array(rows, float), np.array(rhs, float), np.array(free)
        bounds = [(-1.0, 1.0) if f else (0.0, 1.0) for f in free]
        try:
            lp = linprog(b, A_eq=A.T, b_eq=np.zeros(self.d), bounds=bounds, method="highs")
        except (ValueError, RuntimeError):
            return None
        if lp.status != 0 or lp.x is None or not lp.fun < 0:
            return None
        c = np.where(free, lp.x, np.clip(lp.x, 0.0, None))
        support = np.flatnonzero(c != 0)
        polished = c.copy()
        # the least-squares correction of the support that zeroes Σ c_r a_r (minimal norm)
        if len(support):
            polished[support] -= np.linalg.lstsq(A[support].T, A[support].T @ c[support], rcond=None)[0]
        for cand in (polished, c):
            if np.any(cand[~free] < 0):
                continue
            eps = np.finfo(float).eps
            scale = float(np.abs(cand) @ np.linalg.norm(A, axis=1))
            res = float(np.linalg.norm(A.T @ cand))
            val = float(cand @ b)
            if scale > 0 and res <= 64 * (len(cand) + self.d) * eps * scale \
                    and val < -4 * len(cand) * eps * float(np.abs(cand) @ np.abs(b)):
                return {"farkas_rows": A, "farkas_lambda": cand, "farkas_value": -val, "farkas_residual": res,
                        "farkas_route": "Farkas LP over the polyhedral rows"}
        return None


def _radius(K) -> float:
    """``max_{x ∈ K} ||x||`` for bounded sets (balls, boxes with finite bounds), ``inf`` otherwise."""
    center = getattr(K, "center", None)
    if center is not None:
        return float(np.linalg.norm(center)) + float(K.radius)
    lo, hi = getattr(K, "lo", None), getattr(K, "hi", None)
    if lo is not None and np.all(np.isfinite(lo)) and np.all(np.isfinite(hi)):
        return float(np.linalg.norm(np.maximum(np.abs(lo), np.abs(hi))))
    return np.inf

