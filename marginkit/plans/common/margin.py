"""What every first-order plan for ``MaxMargin`` shares: the data operator, the certified margin bounds,
the stop rule and the solution.

**Certificate.** For any ``q`` in the simplex, weak duality gives ``γ̄ <= ||Σ_i q_i y_i x_i||``
(the dual of the hard margin: Ji, Srebro & Telgarsky, *Fast margin maximization via dual acceleration*,
ICML 2021, §2, eq. (2.1) and the duality γ̄ = min over the simplex of ||Zᵀq||). The margin of the iterate is a
lower bound. So every plan keeps

* ``margin = min_i y_i x_iᵀw / ||w||``                  (achieved, lower bound on γ̄)
* ``dual_bound = min over seen q of ||Σ q_i y_i x_i||``  (certified upper bound on γ̄)

and reports ``optimal`` only when the certified relative gap ``(dual_bound − margin)/dual_bound <= tol``
(scale-free: both bounds scale with the data); ``certificate["relative_gap"]`` is that number. The status
never claims more than the certificate proves. When ``dual_bound <= tol · R`` while the iterate does not
separate, no separator has a margin above ``tol · R`` (Gordan's alternative to tolerance ``tol``): the plan
then tries to *prove* non-separability by an exact hull point (:func:`marginkit.core.hull.exact_proof`: a
non-negative least-squares solve over the simplex, dense data of moderate size only) and reports ``infeasible`` only
when ``||Σ q_i y_i x_i|| <= 1e-12 · sqrt(n) · Σ q_i ||x_i||`` (a convex-hull certificate at the level of rounding,
whatever the rows' scales), else ``infeasible_inaccurate`` (separability not excluded).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.backend import NUMPY
from ...core.hull import exact_proof
from ...core.linalg import SignedData
from ...core.validation import read_only
from ...core.warmstart import parse_warm_start
from ...engine.runloop import IterationPlan
from ...core.solution import Solution



def data_cached(form, key: str, compute):
    """``compute()`` once per problem: a proof that depends on the data only (not on a run) is kept in the problem's
    own cache, beside its row norms, so ``stop`` and ``solution`` do not solve for it twice."""
    cache = getattr(form, "_cache", None)
    if cache is None:
        return compute()
    if key not in cache:
        cache[key] = read_only(compute())   # shared by every run on the problem
    return cache[key]


@dataclass
class MarginState:
    t: int
    w: np.ndarray          # primal iterate (scaled-data coordinates; same direction as for the raw data)
    s: np.ndarray          # Z w with JST's Z = -diag(y) X / R, so y_i x_i^T w = -R s_i
    dual_bound: float      # best certified upper bound on γ̄ seen so far (raw data units)


class MarginPlan(IterationPlan):
    """Base for the JST-family plans. Works on ``Z = -diag(y)X/R`` with ``R = max_i ||x_i||`` so that
    ``||z_i|| <= 1`` (JST §2 assume it: their unit steps and constants need it); margins are reported in the
    units of the user's data."""

    default_max_iter = 1000
    default_tol = 1e-4
    log_columns = ("margin", "margin_upper", "gap_bound")
    bk = NUMPY   # the backend (setup sets the problem's; the kernel form runs on NumPy)

    def setup(self):
        form = self.form
        self.bk = getattr(form, "backend", NUMPY)   # where X lives (core/backend); NumPy code runs unchanged
        R = form.max_row_norm()
        self.R = R if R > 0.0 else 1.0
        self.Z = SignedData(form.X, form.y, sign=-1.0, scale=self.R, backend=self.bk)
        self.n, self.d = form.X.shape

    def start_w(self, warm_start):
        w0 = parse_warm_start(warm_start, self.d)
        return self.bk.zeros_d(self.d) if w0 is None else self.bk.asarray_d(w0)

    # certified quantities --------------------------------------------------------------------
    def margin(self, state) -> float:
        bk = self.bk
        nw = bk.norm(state.w)
        return 0.0 if nw == 0.0 else -self.R * bk.float(bk.xp.max(state.s)) / nw

    def bound_from_weights(self, v_norm: float, mass: float) -> float:
        """Upper bound ``R ||Zᵀa|| / ||a||_1`` for non-negative weights ``a`` (raw units)."""
        return self.R * v_norm / mass if mass > 0 else np.inf

    def weights_bound(self, v_norm, weights):
        """:meth:`bound_from_weights` with the mass ``Σ weights`` taken where ``weights`` live: a 0-d array on an
        array-API device (``inf`` for a zero mass, as on NumPy), so a step never waits for the device."""
        return self.bk.ratio(self.R * v_norm, self.bk.lazy_sum(weights))

    def measure(self, state) -> dict:
        m = self.margin(state)
        ub = self.bk.float(state.dual_bound)
        return {"margin": m, "margin_upper": ub, "gap_bound": ub - m, "norm_w": self.bk.norm(state.w)}

    def stop(self, state, budget):
        m = self.margin(state)
        ub = self.bk.float(state.dual_bound)
        if np.isfinite(ub) and ub > 0 and m > 0 and ub - m <= budget.tol * ub:
            return "optimal"
        if ub <= budget.tol * self.R and m <= 0:
            return "infeasible" if self.hull_proof() is not None else "infeasible_inaccurate"
        return None

    def hull_proof(self):
        """``(q, ||Σ q_i y_i x_i||)`` when an exact hull point proves the data not separable (at rounding level:
        ``<= 1e-12·√n·Σ q_i ||x_i||``, :mod:`marginkit.core.hull`), else ``None``."""
        form = self.form
        if getattr(form, "kernel", None) not in (None, "linear"):   # data of another library: no proof either
            return None
        bias = bool(getattr(form, "bias", False))
        cert = data_cached(form, "hull_proof", lambda: exact_proof(form.X, form.y, bias))
        return None if cert is None else cert[:2]

    @staticmethod
    def relative_gap(m: float, ub: float) -> float:
        """The certified relative gap ``(γ̄ − γ)/γ̄`` (``inf`` without a positive finite bound)."""
        return (ub - m) / ub if np.isfinite(ub) and ub > 0 else np.inf

    def add_hull_proof(self, cert: dict, status: str) -> None:
        if status == "infeasible":
            proof = self.hull_proof()
            if proof is not None:
                cert.update(hull_weights=proof[0], hull_distance=proof[1], margin_upper=min(cert["margin_upper"],
                                                                                             proof[1]))

    def snapshot(self, state):
        """The iterate kept with a trace record: a NumPy copy (a host copy of a d-vector at record times only)."""
        return self.bk.host(self.bk.copy(state.w))

    def solution(self, state, status) -> Solution:
        m = self.margin(state)
        ub = self.bk.float(state.dual_bound)
        rel = self.relative_gap(m, ub)
        cert = {"margin_lower": m, "margin_upper": ub, "gap_bound": ub - m, "relative_gap_bound": rel,
                "relative_gap": rel}
        self.add_hull_proof(cert, status)
        return Solution(w=self.bk.xd.asarray(state.w, copy=True), status=status, certificate=cert)


def softmax(s, xp=np):
    """Stable ``softmax(s)`` (subtract the max; updating a stored q multiplicatively underflows); ``xp``: the
    namespace."""
    e = xp.exp(s - xp.max(s))
    return e / xp.sum(e)


def logsumexp(s, xp=np):
    """``log Σ exp(s_i)``: a Python float on NumPy, a 0-d array of ``xp`` elsewhere (no synchronisation)."""
    if xp is np:
        m = float(s.max())
        return m + float(np.log(np.exp(s - m).sum()))
    m = xp.max(s)
    return m + xp.log(xp.sum(xp.exp(s - m)))
