"""Minimum-Bregman feasibility by randomized dual coordinate ascent (Raj & Bach, AISTATS 2021).

Reference: ../shared/papers/dual-acceleration-and-dykstra.md, Part B. The problem (RB eq. 2) is
``min D_ψ(θ, θ0)`` with ``ψ = ½||·||_p²`` (1 < p <= 2) subject to ``a_iᵀθ ∈ Y_i``; it covers
:class:`~marginkit.MinNormFeasibility` (rows ``a_i = y_i x_i``, ``Y_i = [1, ∞)``, or ``a_i = x_i``,
``Y_i = {y_i}``) and :class:`~marginkit.ProjectionOntoIntersection` (``a_i = I``, ``Y_i = K_i``).

**Dual, in the λ-scaling of the digest** (``λ = −α/n`` of RB's main text; RB's step ``n/L_i`` of Lemma 1 is
``1/L_i`` here, and RB's App. B uses this scaling):
``D(λ) = −Σ_i σ_{Y_i}(−λ_i) − ψ*(u) + ψ*(u0)``, ``u = u0 + Σ_i a_i λ_i``, ``u0 = ∇ψ(θ0)``, ``θ(λ) = ∇ψ*(u)``,
with ``ψ*(u) = ½||u||_q²`` and coordinate constants ``L_i = ||a_i||_q² / (p − 1)`` (RB Lemma 1). Every plan
here keeps ``u`` (the mirror point, O(d)) and ``λ`` (or the accelerated sequences) and never forms ``X``'s
Gram matrix.

**One iteration of the run loop is one epoch** of ``n`` coordinate updates with indices drawn uniformly (with
replacement) by the plan's NumPy generator; the epoch itself runs compiled (numba, the ``fast`` extra) or in
NumPy, with the same index sequence and the same arithmetic up to the order of the sums.

**Certificate** (what ``stop`` uses, reported in ``Result.certificate``), at the dual point ``λ`` whose primal
image ``θ(λ)`` is returned:

* ``dual`` = ``D(λ)`` (λ first moved exactly into the dual domain, e.g. ``max(λ, 0)``: a rounding repair),
* ``primal`` = the objective at a feasible point when one is at hand: for margins ``θ(λ)/min_i a_iᵀθ(λ)``
  when ``θ(λ)`` separates, so ``duality_gap = primal − dual >= ψ(θ*) − D(λ) >= D_ψ(θ*, θ(λ))`` (RB Prop. 1);
  for interpolation and sets no feasible point is computed and ``primal`` is the objective at ``θ(λ)``
  itself (the ε-feasible, ε-optimal certificate that interior-point solvers and the CVXPY reference use),
* ``max_violation`` of ``θ(λ)``;
* ``distance_lower_bound`` = ``(−Σσ_{Y_i}(−λ_i) − ⟨Σ a_iλ_i, θ0⟩) / ||Σ a_iλ_i||_q``, a certified lower bound on
  ``||θ − θ0||_p`` over the feasible set (weak alternative: for feasible θ,
  ``−σ_{Y_i}(−λ_i) <= λ_iᵀa_iᵀθ``). When the constraints are infeasible the dual is unbounded, λ diverges and
  this ratio grows without bound (RB Conclusion (2)).

``optimal`` is reported when ``max_violation <= tol·violation_scale`` (``max(1, |c|_∞)`` for rows,
``max(1, |point|_∞)`` for sets) and ``|duality_gap| <= tol·max(1, |primal|)`` (the gap at an infeasible θ
can be negative);
``infeasible`` when a zero row carries a constraint no θ can meet (a Farkas certificate ``e_i``), or when
``distance_lower_bound`` exceeds ``1/tol`` times the distance from ``θ0`` to the farthest single constraint set
(the constraints are then inconsistent to relative tolerance ``tol``; for margins this is "not separable to
tolerance tol", as for :class:`~marginkit.plans.margin_base.MarginPlan`) while ``θ(λ)`` does not separate.

The certificate costs one product with X (about a third of an epoch); ``stop`` computes its dual half
(O(n + d), enough for the infeasibility test's trigger) at every call and the full certificate only when the
epoch's largest coordinate residual says it may succeed (see :meth:`DualCoordinatePlan.stop`), so the statuses
are decided by the full certificate exactly as before, an epoch costs its ~2-2.5 mat-vecs only, and the stop
may come a few epochs later than the first epoch the certificate would have accepted.

When the problem's CVXPY reference is already cached (``problem.reference()``), ``solution`` adds
``reference_gap = ψ(θ*) − D(λ)`` and ``bregman_to_reference = D_ψ(θ*, θ(λ))`` (RB Prop. 1: the latter is at
most the former).

The reduction ``MaxMargin(bias=False, kernel=None) -> MinNormFeasibility(p=2, "margin")`` registered at the
end of this module lists these methods on ``MaxMargin`` (the solution ``w`` is the same vector).
"""
from __future__ import annotations

import importlib
import time as _time
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ...core.validation import ProblemError
from ...core.mirror import bregman_lp, conjugate_exponent, grad_conjugate, grad_half_sq_norm, lp_norm
from ...engine.runloop import IterationPlan
from ...core.solution import Solution

RB = "Raj & Bach (2021)"
RCD, SMD, PERCEPTRON = 0, 1, 2  # coordinate rules shared with the compiled kernels

# -------------------------------------------------------------------------------------------------
# backends
# -------------------------------------------------------------------------------------------------
_KERNELS = None


def compiled_kernels():
    """The numba kernels module, or None when numba is not installed (imported once, lazily)."""
    global _KERNELS
    if _KERNELS is None:
        try:
            _KERNELS = importlib.import_module("marginkit.plans._coordinate_kernels")
        except ImportError:
            _KERNELS = False
    return _KERNELS or None


def _resolve_backend(backend, system) -> str:
    if backend not in ("auto", "numba", "numpy"):
        raise ProblemError(f"backend must be 'auto', 'numba' or 'numpy'; got {backend!r}")
    compilable = isinstance(system, RowConstraints)
    if backend == "numba":
        if not compilable:
            raise ProblemError("backend='numba' is only available for row constraints (MinNormFeasibility); "
                               "set projections run in NumPy")
        if compiled_kernels() is None:
            raise ProblemError("backend='numba' needs numba: pip install 'marginkit[fast]'")
        return "numba"
    if backend == "auto" and compilable and compiled_kernels() is not None:
        return "numba"
    return "numpy"


def _mirror(u, q):
    """``θ = ∇ψ*(u)``; for p = 2 the identity (returns ``u`` itself, not a copy)."""
    return u if q == 2.0 else grad_half_sq_norm(u, q)


# -------------------------------------------------------------------------------------------------
# the NumPy epochs (the reference implementation of the compiled ones; shared by rows and sets)
# -------------------------------------------------------------------------------------------------
def numpy_coordinate_epoch(system, rule, step, idx, lam, u, q):
    """``len(idx)`` updates of RB Algorithm 1 (``RCD``), of SMD eq. (10) (``SMD``) or of the perceptron,
    in place on ``lam`` and ``u``; returns the largest coordinate residual ``|Δλ_i|_∞ / step_i`` met."""
    res = 0.0
    for i in idx:
        h = step[i]
        if h == 0.0:
            continue
        m = system.dot(i, _mirror(u, q))
        if rule == RCD:
            delta = system.prox_delta(i, lam[i], m, h)
        elif rule == SMD:
            delta = system.smd_delta(i, m, h)
        else:
            delta = 1.0 if m <= 0.0 else 0.0
        if np.any(delta != 0.0):
            res = max(res, float(np.max(np.abs(delta))) / h)
            lam[i] += delta
            system.add(i, delta, u)
    return res


def numpy_apcg_epoch(system, Linv, idx, alpha, ehat, ua, ue, scal, q):
    """``len(idx)`` steps of RB Algorithm 2 in the variables ``(α, ê, π, γ)`` (see :class:`AcceleratedDykstra`);
    returns the largest coordinate residual ``|Δα_i|_∞ / τ_i`` met."""
    n = system.n
    res = 0.0
    gamma, pi = float(scal[0]), float(scal[1])
    if pi != 1.0:
        ehat *= pi
        ue *= pi
        pi = 1.0
    for i in idx:
        h = Linv[i]
        if h != 0.0:
            if q == 2.0:
                m = system.dot2(i, ua, ue, pi)
            else:
                m = system.dot(i, grad_half_sq_norm(ua + pi * ue, q))
            tau = h / (n * gamma)
            delta = system.prox_delta(i, alpha[i], m, tau)
            if np.any(delta != 0.0):
                res = max(res, float(np.max(np.abs(delta))) / tau)
                coef = (n * gamma - 1.0) * delta / pi
                alpha[i] += delta
                ehat[i] += coef
                system.add(i, delta, ua)
                system.add(i, coef, ue)
        g_next = 2.0 * gamma / (np.sqrt(gamma * gamma + 4.0) + gamma)
        pi *= 1.0 - g_next
        gamma = g_next
    scal[0], scal[1] = gamma, pi
    return res


# -------------------------------------------------------------------------------------------------
# constraint systems: rows a_i = s_i x_i (k = 1) and simple sets (a_i = I)
# -------------------------------------------------------------------------------------------------
_BLOCK_ELEMENTS = 1 << 16  # entries of X per block of the row norms (bounds their temporaries to 0.5 MiB)


def _row_lq_norms(X, q: float) -> np.ndarray:
    """``||x_i||_q`` for every row, max-scaled per row (no overflow for large q), sparse kept sparse.

    Computed in blocks of rows of about :data:`_BLOCK_ELEMENTS` entries (nonzeros for CSR), so the temporaries
    are O(n + d), never of the size of X (``np.abs(X)`` and its scaled power were three copies of X)."""
    n = X.shape[0]
    m, S = np.zeros(n), np.zeros(n)
    if sp.issparse(X):
        X = X.tocsr()  # a no-op for the validated problems
        indptr = X.indptr
        r0 = 0
        while r0 < n:
            # rows [r0, r1) hold about _BLOCK_ELEMENTS nonzeros (at least one row)
            r1 = int(np.searchsorted(indptr, indptr[r0] + _BLOCK_ELEMENTS, side="right")) - 1
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
        block = max(1, _BLOCK_ELEMENTS // max(X.shape[1], 1))
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
        self.L = _row_lq_norms(self.X, q) ** 2 / (form.p - 1.0)
        self.lam_shape = (self.n,)
        zero = self.L == 0.0
        unmeetable = zero & ((self.c != 0.0) if not self.margin else True)
        self.farkas_rows = np.flatnonzero(unmeetable)
        # distance from θ0 to the farthest single constraint (the scale of the infeasibility test)
        self.c_shift = self.c - self.matvec(x0)
        gap = np.maximum(self.c_shift, 0.0) if self.margin else np.abs(self.c_shift)
        rq = np.sqrt(self.L * (form.p - 1.0))
        self.distance_scale = float(np.max(np.where(zero, 0.0, gap / np.where(zero, 1.0, rq)), initial=0.0))
        self.violation_scale = max(1.0, float(np.max(np.abs(self.c))))
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

    def epoch(self, rule, step, idx, lam, u, q, backend):
        if backend == "numba":
            X2, data, indices, indptr, dense = self._kernel_data
            return float(compiled_kernels().coordinate_epoch(X2, data, indices, indptr, dense, self.d, self.s, self.c,
                                                             self.margin, rule, step, idx, lam, u, q))
        return numpy_coordinate_epoch(self, rule, step, idx, lam, u, q)

    def apcg_epoch(self, Linv, idx, alpha, ehat, ua, ue, scal, q, backend):
        if backend == "numba":
            X2, data, indices, indptr, dense = self._kernel_data
            return float(compiled_kernels().apcg_epoch(X2, data, indices, indptr, dense, self.d, self.s, self.c,
                                                       self.margin, Linv, idx, alpha, ehat, ua, ue, scal, q))
        return numpy_apcg_epoch(self, Linv, idx, alpha, ehat, ua, ue, scal, q)

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
        block = max(1, _BLOCK_ELEMENTS // max(self.d, 1))  # X[rows] copies its rows: bounded blocks
        for b in range(0, len(neg), block):
            rows = neg[b:b + block]
            u_f += np.asarray(self.X[rows].T @ (self.s[rows] * (lam_f[rows] - lam[rows]))).ravel()
        return lam_f, u_f

    def linear_part(self, lam) -> float:
        """``−Σ σ_{Y_i}(−λ_i) = cᵀλ`` (for λ in the dual domain)."""
        return float(self.c @ lam)

    def farkas_numerator(self, lam, x0) -> float:
        return float(self.c_shift @ lam)

    def evaluate(self, theta, objective) -> dict:
        a = self.matvec(theta)
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
        self.violation_scale = max(1.0, float(np.max(np.abs(x0))))

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

    def epoch(self, rule, step, idx, lam, u, q, backend):
        return numpy_coordinate_epoch(self, rule, step, idx, lam, u, q)

    def apcg_epoch(self, Linv, idx, alpha, ehat, ua, ue, scal, q, backend):
        return numpy_apcg_epoch(self, Linv, idx, alpha, ehat, ua, ue, scal, q)

    def check_dual(self, lam, name):
        pass

    def repair(self, lam, u):
        lam_f = np.array([-K.dual_domain_projection(-li) for K, li in zip(self.sets, lam)])
        return lam_f, u + (lam_f - lam).sum(axis=0)

    def linear_part(self, lam) -> float:
        return -float(sum(K.support(-li) for K, li in zip(self.sets, lam)))

    def farkas_numerator(self, lam, x0) -> float:
        return self.linear_part(lam) - float(lam.sum(axis=0) @ x0)

    def evaluate(self, theta, objective) -> dict:
        return {"primal": objective(theta), "max_violation": max(K.distance(theta) for K in self.sets)}


# -------------------------------------------------------------------------------------------------
# plans
# -------------------------------------------------------------------------------------------------
def supports_lp_feasibility(problem):
    if problem.p > 2:
        return False, ("RB's dual coordinate methods need ψ = ½||·||_p² to be (p−1)-strongly convex, which holds "
                       "for 1 < p <= 2 only: for p > 2 it has zero curvature on the axes (along e_2 at e_1), "
                       "ψ* is not smooth and the steps 1/L_i of RB Lemma 1 do not exist; use 'cvxpy'")
    return True, ""


@dataclass
class DualState:
    t: int                 # coordinate steps done (epochs × n)
    lam: np.ndarray        # λ (Alg. 1, SMD, perceptron) or α (Alg. 2)
    u: np.ndarray          # u0 + Σ a_i λ_i, so θ(λ) = ∇ψ*(u)
    cache: dict = field(default_factory=dict, repr=False)
    residual: float = np.inf      # largest coordinate residual |Δλ_i|/step_i of the epoch that made this state
    check_below: float = np.inf   # the full certificate is computed once ``residual`` is at most this ...
    check_at: int = 0             # ... or at this epoch (a safeguard); both set by ``stop`` after a failed check


@dataclass
class AcceleratedState(DualState):
    e_hat: np.ndarray = None   # ê with z = α + π ê and v = α + π/(1−γ) ê
    u_e: np.ndarray = None     # Σ a_i ê_i
    gamma: float = 0.0         # γ_t of Alg. 2
    pi: float = 1.0            # π_t = Π_{s<=t} (1 − γ_s), folded into ê at each epoch start


class DualCoordinatePlan(IterationPlan):
    """Shared state, certificate, stop rule and solution of the RB plans (see the module docstring)."""

    default_max_iter = 1000
    default_tol = 1e-6
    log_columns = ("objective", "dual", "duality_gap", "max_violation")

    def __init__(self, form, backend="auto"):
        super().__init__(form)
        self.p = float(form.p)
        self.q = conjugate_exponent(self.p)
        if form.form == "MinNormFeasibility":
            self.x0 = np.zeros(form.d) if form.w0 is None else np.asarray(form.w0, float)
            self.system = RowConstraints(form, self.x0, self.q)
        else:
            self.x0 = np.asarray(form.point, float)
            self.system = SetConstraints(form, self.x0, self.q)
        self.u0 = grad_half_sq_norm(self.x0, self.p)
        self.psi_star_u0 = 0.5 * lp_norm(self.u0, self.q) ** 2
        self.backend = _resolve_backend(backend, self.system)
        L = self.system.L
        self.Linv = np.where(L > 0, 1.0 / np.where(L > 0, L, 1.0), 0.0)
        self.L_max = float(L.max())

    # hooks ---------------------------------------------------------------------------------------
    def start_lambda(self, warm_start):
        shape = self.system.lam_shape
        if warm_start is None:
            return np.zeros(shape)
        lam = warm_start.dual.get("lambda") if hasattr(warm_start, "dual") else warm_start
        if lam is None:
            raise ProblemError(f"warm_start for {self.name!r} must be a Result with a dual 'lambda' (from "
                               "'dykstra', 'dykstra-accelerated', 'mirror-descent' or 'cvxpy') or an array of shape "
                               f"{shape}")
        lam = np.array(lam, dtype=float)
        if lam.shape != shape or not np.all(np.isfinite(lam)):
            raise ProblemError(f"warm_start dual 'lambda' must be a finite array of shape {shape}; got {lam.shape}")
        self.system.check_dual(lam, "warm_start dual 'lambda'")
        return lam

    def init(self, rng, warm_start, budget=None):
        self.rng = rng
        lam = self.start_lambda(warm_start)
        u = self.u0 + self.system.rmatvec(lam)
        return self.initial_state(lam, u)

    def initial_state(self, lam, u):
        return DualState(t=0, lam=lam, u=u)

    def step(self, state):
        """One epoch: ``n`` coordinate updates with indices drawn uniformly by the plan's generator."""
        n = self.system.n
        return self.epoch(state, self.rng.integers(0, n, size=n))

    def epoch(self, state, idx):
        raise NotImplementedError

    def dual_point(self, state):
        """``(λ, u0 + Σ a_iλ_i)``: the dual point whose primal image ``θ(λ)`` is returned."""
        return state.lam, state.u

    def primal_point(self, state):
        return grad_conjugate(self.dual_point(state)[1], self.p)

    def objective(self, theta) -> float:
        return self.form.objective(theta)

    def dual_value(self, lam, u) -> float:
        """``D(λ) = −Σσ_{Y_i}(−λ_i) − ½||u||_q² + ½||u0||_q²`` for λ in the dual domain."""
        return self.system.linear_part(lam) - 0.5 * lp_norm(u, self.q) ** 2 + self.psi_star_u0

    def dual_certificate(self, state) -> dict:
        """The dual half of the certificate, O(n + d) (no product with X): ``u``, the repaired ``λ``, ``D(λ)``
        and ``distance_lower_bound``."""
        if "dual_certificate" in state.cache:
            return state.cache["dual_certificate"]
        lam, u = self.dual_point(state)
        lam_f, u_f = self.system.repair(lam, u)
        dual = self.dual_value(lam_f, u_f)
        norm_Alam = lp_norm(u_f - self.u0, self.q)
        num = self.system.farkas_numerator(lam_f, self.x0)
        dlb = max(num, 0.0) / norm_Alam if norm_Alam > 0 else (np.inf if num > 0 else 0.0)
        out = {"u": u, "lam": lam_f, "dual": dual, "distance_lower_bound": dlb}
        state.cache["dual_certificate"] = out
        return out

    def certificate(self, state) -> dict:
        if "certificate" in state.cache:
            return state.cache["certificate"]
        dc = self.dual_certificate(state)
        theta = grad_conjugate(dc["u"], self.p)
        cert = self.system.evaluate(theta, self.objective)  # the one product with X
        cert.update(theta=theta, lam=dc["lam"], dual=dc["dual"], duality_gap=cert["primal"] - dc["dual"],
                    distance_lower_bound=dc["distance_lower_bound"])
        state.cache["certificate"] = cert
        return cert

    def measure(self, state) -> dict:
        c = self.certificate(state)
        out = {"objective": self.objective(c["theta"]), "dual": c["dual"], "duality_gap": c["duality_gap"],
               "max_violation": c["max_violation"]}
        if "margin" in c:
            out.update(margin=c["margin"], mistakes=c["mistakes"])
        return out

    def stop(self, state, budget=None):
        """The statuses come from the full certificate only. It costs one product with X (a third of an
        epoch), so it is computed only when it can decide: ``infeasible`` needs ``distance_lower_bound``,
        which is O(n + d) and checked at every call; ``optimal`` is tested when the epoch's largest coordinate
        residual (returned by the epoch, free) has fallen below ``check_below``, or at epoch ``check_at``.
        After a check that does not certify ``tol``, ``check_below`` becomes the residual times the fraction
        of the violation/gap still to remove (between 1/4 and 3/4), and ``check_at`` lies max(4, epochs/8)
        epochs ahead (a safeguard in case the residual stalls). A residual of exactly 0 (no coordinate moved)
        is not checked again before ``check_at``."""
        if len(self.system.farkas_rows):
            return "infeasible"
        scale = self.system.distance_scale
        full = "certificate" in state.cache  # e.g. computed by ``measure`` for the trace: free
        if budget.tol > 0 and scale > 0 and self.dual_certificate(state)["distance_lower_bound"] * budget.tol >= scale:
            c = self.certificate(state)
            if not c.get("separates", False):
                return "infeasible"
            full = True
        epoch = state.t // max(self.system.n, 1)
        if not full and state.residual >= state.check_below and epoch < state.check_at:
            return None
        c = self.certificate(state)
        vtol = budget.tol * self.system.violation_scale
        gtol = budget.tol * max(1.0, abs(c["primal"]))
        if c["max_violation"] <= vtol and abs(c["duality_gap"]) <= gtol:
            return "optimal"
        # not yet: schedule the next check (this state is the one the next epoch starts from)
        need = min(vtol / c["max_violation"] if c["max_violation"] > vtol else 1.0,
                   gtol / abs(c["duality_gap"]) if abs(c["duality_gap"]) > gtol else 1.0)
        if not np.isfinite(need):
            need = 0.0
        state.check_below = state.residual * min(0.75, max(0.25, need))
        state.check_at = epoch + max(4, epoch // 8)
        return None

    def snapshot(self, state):
        return self.certificate(state)["theta"].copy()

    def solution(self, state, status) -> Solution:
        c = self.certificate(state)
        cert = {k: c[k] for k in ("primal", "dual", "duality_gap", "max_violation", "distance_lower_bound")}
        cert["violation_scale"] = self.system.violation_scale
        if len(self.system.farkas_rows):
            i = int(self.system.farkas_rows[0])
            cert.update(primal=np.inf, duality_gap=np.nan, distance_lower_bound=np.inf,
                        farkas_lambda=np.eye(1, self.system.n, i).ravel())
        ref = self.form.cached_reference()
        if ref is not None and ref.status in ("optimal", "optimal_inaccurate") and ref.w is not None:
            cert["reference_gap"] = float(ref.value) - c["dual"]
            cert["bregman_to_reference"] = bregman(ref.w, c["theta"], self.p)
        info = {"backend": self.backend, "coordinate_steps": state.t, "epochs": state.t // max(self.system.n, 1)}
        # return the point the certificate speaks of: for margins, θ(λ) rescaled onto the feasible set
        w = np.array(c.get("point", c["theta"]), dtype=float)
        return Solution(w=w, status=status, certificate=cert, dual={"lambda": np.array(c["lam"])}, info=info)


def bregman(a, b, p) -> float:
    """``D_ψ(a, b)`` for ``ψ = ½||·||_p²`` (``½||a − b||²`` for p = 2, without cancellation)."""
    if p == 2.0:
        diff = np.asarray(a, float) - b
        return 0.5 * float(diff @ diff)
    return bregman_lp(np.asarray(a, float), np.asarray(b, float), p)


_DYKSTRA_INFO = dict(paper=RB, algorithm="Algorithm 1 (proximal randomized dual coordinate ascent, Lemma 1)",
                     converges_to="the min-ψ feasible point θ* (RB eq. 2)",
                     rate="E[gap] = O(n L_max / t) (eq. 5); linear when XXᵀ is invertible (observed, §4 (c))",
                     tolerance=1e-4)


class RandomizedDykstra(DualCoordinatePlan):
    """RB Algorithm 1 (Lemma 1), in λ-scaling: pick ``i`` uniformly, ``m = a_iᵀθ``,
    ``λ_i ← λ_i + (1/L_i)[Π_{Y_i}(m − L_iλ_i) − m]``, ``u ← u + a_i Δλ_i``, ``θ = ∇ψ*(u)``.

    Special cases: Hildreth's algorithm (margins, p = 2), randomized Kaczmarz (interpolation, p = 2, limit
    ``X⁺y``), and for sets with p = 2 exactly Dykstra's algorithm in random order (λ_i is minus Dykstra's
    increment). For p ≠ 2 it is a Bregman/Dykstra-type method; the name is kept for all p (digest B5.12).
    ``step="per-sample"`` uses ``1/L_i`` (Lemma 1), ``"max"`` uses ``1/L_max`` ("L_i can simply be replaced by
    max_i L_i"). Cost per coordinate: O(nnz(x_i)) for p = 2, O(d) for p ≠ 2 (``∇ψ*`` couples every
    coordinate through ``||u||_q``).
    """

    name = "dykstra"

    def __init__(self, form, step: str = "per-sample", backend: str = "auto"):
        super().__init__(form, backend=backend)
        if step not in ("per-sample", "max"):
            raise ProblemError(f"step must be 'per-sample' or 'max'; got {step!r}")
        self.step_sizes = self.Linv if step == "per-sample" else np.where(self.Linv > 0, 1.0 / self.L_max, 0.0)

    def epoch(self, state, idx):
        lam, u = state.lam.copy(), state.u.copy()
        res = self.system.epoch(RCD, self.step_sizes, idx, lam, u, self.q, self.backend)
        return DualState(t=state.t + len(idx), lam=lam, u=u, residual=res, check_below=state.check_below,
                         check_at=state.check_at)


class AcceleratedDykstra(DualCoordinatePlan):
    """RB Algorithm 2: accelerated proximal coordinate ascent on the dual (APCG, μ = 0), ``γ_0 = 1/n``::

        z_t = (1 − γ_t) v_t + γ_t α_t                         (gradient point, θ(z_t) = ∇ψ*(u0 + Σ a_i z_t,i))
        α_{t+1} = α_t except α_{t+1,i} = prox step from α_{t,i} with τ = 1/(n γ_t L_i), gradient at z_t
        v_{t+1} = z_t + n γ_t (α_{t+1} − α_t)
        γ_{t+1}² = (1 − γ_{t+1}) γ_t²

    **Output** (resolved): RB's pseudo-code returns ``θ(α_{T+1})``, but the APCG theorem bounds the ``v``
    sequence, and ``θ(α_t)`` is much worse late in the run (digest B2.3); ``output="v"`` (default) returns
    ``θ(v_t)``, ``output="alpha"`` the paper's literal ``θ(α_t)``. The certificate is evaluated at the
    returned point.

    **Rate** (resolved): eq. (8) as printed has an inconsistent n-scaling and is stated for α; the APCG bound
    used here (and tested) is ``E[ψ(θ*) − D(v_t)] <= (2n/(2n+t))² [ψ(θ*) − D(α_0) + ½ Σ_i L_i (λ*_i − α_0,i)²]``.
    The paper's box is garbled in the text (its Algorithm 4, the update of ``Xᵀz_{t+1}``, is split across
    lines); the recursion above is APCG's, which the box restates in RB's notation (digest B2.3).

    **O(nnz(x_i)) per step for p = 2, O(d) for p ≠ 2** (our change of variables, in the spirit of Lin et al.
    §4): the dense update of ``z`` over all n coordinates is avoided by ``z = α + π ê``, ``v = α + π/(1−γ) ê`` with
    ``π_t = Π_{s=1}^t (1 − γ_s)`` and the one-coordinate update ``ê_i += (nγ_t − 1)Δ/π_t``; π is folded back into
    ``ê`` at every epoch start. ``γ_{t+1}`` is computed as ``2γ/(√(γ²+4) + γ)`` (the paper's
    ``½(√(γ⁴+4γ²) − γ²)`` without cancellation).
    """

    name = "dykstra-accelerated"

    def __init__(self, form, output: str = "v", backend: str = "auto"):
        super().__init__(form, backend=backend)
        if output not in ("v", "alpha"):
            raise ProblemError(f"output must be 'v' (the sequence the APCG theorem covers) or 'alpha'; got {output!r}")
        self.output = output

    def initial_state(self, lam, u):
        return AcceleratedState(t=0, lam=lam, u=u, e_hat=np.zeros_like(lam), u_e=np.zeros_like(u),
                                gamma=1.0 / self.system.n, pi=1.0)

    def epoch(self, state, idx):
        alpha, ua = state.lam.copy(), state.u.copy()
        ehat, ue = state.e_hat.copy(), state.u_e.copy()
        scal = np.array([state.gamma, state.pi])
        res = self.system.apcg_epoch(self.Linv, idx, alpha, ehat, ua, ue, scal, self.q, self.backend)
        return AcceleratedState(t=state.t + len(idx), lam=alpha, u=ua, residual=res, check_below=state.check_below,
                                check_at=state.check_at, e_hat=ehat, u_e=ue, gamma=float(scal[0]),
                                pi=float(scal[1]))

    def dual_point(self, state):
        if self.output == "alpha" or state.t == 0:
            return state.lam, state.u
        w = state.pi / (1.0 - state.gamma)
        return state.lam + w * state.e_hat, state.u + w * state.u_e

    def gradient_point(self, state):
        """``(z_t, u0 + Σ a_i z_t,i)``, where Alg. 2 evaluates the gradient."""
        return state.lam + state.pi * state.e_hat, state.u + state.pi * state.u_e


_SMD_INFO = dict(paper=RB, algorithm="§2.5 eq. (10), sign corrected (Vaswani et al. 2018 for p = 2)",
                 converges_to="a zero of F (eq. 9): the min-ψ point for interpolation (Lemma 2), "
                              "some feasible point otherwise (not the min-ψ one in general)",
                 rate="E[F(θ̄_t)] <= L_max D_ψ(θ*, θ0)/t for the average (Thm 1); the last iterate is returned",
                 tolerance=1e-3)


class StochasticMirrorDescent(DualCoordinatePlan):
    """Stochastic mirror descent on ``F(θ) = (1/2n) Σ_i d(a_iᵀθ, Y_i)²`` (RB eq. 9), the primal baseline::

        ∇ψ(θ_t) = ∇ψ(θ_{t−1}) − γ a_i (m − Π_{Y_i}(m)),   m = a_iᵀθ_{t−1}

    **Sign typo** (resolved): RB eq. (10) prints ``− γ x_i(Π(m) − m)``, which is gradient *ascent*; the descent
    step above is the correct one. For margins it is SGD on the squared hinge ``½(1 − a_iᵀθ)_+²``
    (``u ← u + γ(1 − m)_+ a_i``), for interpolation on least squares; with ``step="per-sample"`` (``γ = 1/L_i``)
    the interpolation iterates equal those of ``dykstra`` for the same indices (RB Lemma 2). ``step="max"``
    (default) is Theorem 1's ``γ = μ / sup_i ||x_i||²_{2→*} = 1/L_max``; a positive number sets γ. The last
    iterate is returned (RB's experiments: "non-averaged SGD, which works much better than averaged").

    ``loss="perceptron"`` (margins only) is the classical perceptron ``u ← u + a_i`` when ``a_iᵀθ <= 0``
    (mirror descent on ``max(0, −a_iᵀθ)`` with unit step; the ℓp perceptron of Grove et al. for p ≠ 2), the
    baseline of RB Fig. 1.

    The accumulated steps are a dual point (``λ_i += γ (Π_{Y_i}(m) − m)``, which stays in the dual domain),
    so the same certificate as for ``dykstra`` applies; it proves optimality only when the iterate happens to
    be the min-ψ point (interpolation).
    """

    name = "mirror-descent"

    def __init__(self, form, loss: str = "squared-distance", step="max", backend: str = "auto"):
        super().__init__(form, backend=backend)
        if loss not in ("squared-distance", "perceptron"):
            raise ProblemError(f"loss must be 'squared-distance' or 'perceptron'; got {loss!r}")
        if loss == "perceptron" and not self.system.margin:
            raise ProblemError("loss='perceptron' applies to margin constraints only")
        nonzero = self.Linv > 0
        if loss == "perceptron":
            self.rule, self.step_sizes = PERCEPTRON, np.where(nonzero, 1.0, 0.0)
        elif isinstance(step, str):
            if step not in ("max", "per-sample"):
                raise ProblemError(f"step must be 'max', 'per-sample' or a positive number; got {step!r}")
            self.rule = SMD
            self.step_sizes = self.Linv if step == "per-sample" else np.where(nonzero, 1.0 / self.L_max, 0.0)
        elif isinstance(step, (int, float)) and not isinstance(step, bool) and np.isfinite(step) and step > 0:
            self.rule, self.step_sizes = SMD, np.where(nonzero, float(step), 0.0)
        else:
            raise ProblemError(f"step must be 'max', 'per-sample' or a positive number; got {step!r}")
        self.loss = loss

    def epoch(self, state, idx):
        lam, u = state.lam.copy(), state.u.copy()
        res = self.system.epoch(self.rule, self.step_sizes, idx, lam, u, self.q, self.backend)
        return DualState(t=state.t + len(idx), lam=lam, u=u, residual=res, check_below=state.check_below,
                         check_at=state.check_at)


# -------------------------------------------------------------------------------------------------
# cost of one epoch against one mat-vec (for ``marginkit bench``)
# -------------------------------------------------------------------------------------------------
def epoch_cost_ratio(n: int = 20000, d: int = 500, seed: int = 0, method: str = "dykstra", p: float = 2.0,
                     repeats: int = 5, backend: str = "auto") -> dict:
    """Median time of one epoch (``n`` coordinate updates) of ``method`` over the median time of one
    mat-vec ``X @ w`` with the same dense Gaussian ``X`` (n × d), in this process, ``repeats`` times each,
    after one warm-up epoch (numba compilation).

    Epochs alternate with single-threaded mat-vecs while BLAS is limited to one thread (``threadpoolctl``,
    shipped with scikit-learn): idle OpenBLAS workers busy-wait after a threaded call and would take a core
    from the sequential epoch. The mat-vecs with NumPy's default threads are timed afterwards, in a block.
    ``ratio`` compares with the default-threaded mat-vec, ``ratio_single_thread`` with the single-threaded one.
    """
    from ...formulations import MinNormFeasibility
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X @ rng.standard_normal(d) >= 0, 1.0, -1.0)
    plan = MinNormFeasibility(X, y, p=p).compile(method, backend=backend)
    w = rng.standard_normal(d)
    Xp = plan.form.X
    try:
        from threadpoolctl import threadpool_limits
        single = threadpool_limits(limits=1, user_api="blas")
    except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn
        single = None

    def timed(fn):
        t0 = _time.perf_counter()
        fn()
        return _time.perf_counter() - t0

    try:
        state = plan.step(plan.init(np.random.default_rng(seed), None))
        t_epoch, t_mv1 = [], []
        for _ in range(repeats):
            t_epoch.append(timed(lambda: plan.step(state)))
            t_mv1.append(timed(lambda: Xp @ w))
    finally:
        if single is not None:
            single.restore_original_limits()
    t_mv = [timed(lambda: Xp @ w) for _ in range(repeats + 1)][1:]
    e, m, m1 = float(np.median(t_epoch)), float(np.median(t_mv)), float(np.median(t_mv1))
    return {"ratio": e / m, "ratio_single_thread": e / m1 if single is not None else np.nan, "epoch_seconds": e,
            "matvec_seconds": m, "matvec_single_thread_seconds": m1 if single is not None else np.nan,
            "backend": plan.backend, "method": method, "n": n, "d": d, "p": p}
