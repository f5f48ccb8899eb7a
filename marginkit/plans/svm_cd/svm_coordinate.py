"""Dual coordinate descent for the soft-margin SVM without bias (``dual-cd``).

Papers: Hsieh, Chang, Lin, Keerthi & Sundararajan, *A dual coordinate descent method for large-scale linear SVM*
(ICML 2008), Algorithm 1 with the shrinking of §3.2 (the algorithm inside liblinear and scikit-learn's
``LinearSVC``), which is Raj & Bach's randomized dual coordinate ascent (AISTATS 2021, Algorithm 1 and App. C; SDCA of
Shalev-Shwartz & Zhang 2013) for the hinge loss. The problem ``min ½||w||² + Σ C_i max(0, 1 − y_i x_iᵀw)``
(``C_i = C·s_i``, the problem's ``box``) has the box dual

    max_{0 <= a_i <= C_i}  D(a) = 1ᵀa − ½||w(a)||²,      w(a) = Σ_i a_i y_i x_i,

maximised one coordinate at a time (eqs. (4)–(5)) by the compiled round of
:mod:`marginkit.plans.common.coordinate_round`, ``w`` kept in sync with ``a``. One run-loop iteration is one round
of epochs of about ``max(n, MIN_ROUND)`` coordinate visits (without shrinking: one epoch of n updates).

* **Certificate** (stop rule): the duality gap ``P(w) − D(a)``, ``0 <= a <= C`` always, so ``D(a) <= P* <= P(w)``;
  ``optimal`` when ``(P(w) − D(a))/D(a) <= tol`` with ``D(a) > 0``, which implies ``(P(w) − P*)/P* <= tol``. ``P(w)``
  (one product with ``X``) is computed when the projected-gradient range is below ``eps_pg`` (liblinear's test,
  from 0.1, cut after a check that fails ``tol`` by :meth:`DualCoordinateDescent.eps_decay`) or when the round's
  estimate of the gap is below ``tol·D``: the estimate decides when to check, the status comes from exact values.
* **Shrinking restored from a check** (:meth:`DualCoordinateDescent.reactivate`): the exact ``G_i = y_i x_iᵀw − 1``
  of a certificate re-activates every coordinate that fails Hsieh's shrinking test, instead of an epoch over all.
* **Gap-safe screening** (option ``screening``): ``P`` is 1-strongly convex, so ``||w − w*|| <= r = √(2·gap)``
  (Ndiaye, Fercoq, Gramfort & Salmon, JMLR 18(128), 2017, Theorem 6), and by the KKT conditions (Hsieh et al.
  eq. (6); Ogawa, Suzuki & Takeuchi, ICML 2013, eq. (4)) a sample whose margin interval ``y_i x_iᵀw ± r||x_i||``
  lies above 1 has ``a*_i = 0``, below 1 ``a*_i = C_i``: set there and never visited again (:mod:`.screening`).
  The certificate stays that of the full problem.
* **Restricted interior-point polish** (option ``polish``; :mod:`.polish`).
* **Scale**: ``X → cX`` with ``C → C/c²`` (``w/c``, ``a/c²``) leaves ``G`` and every relative test unchanged: the same
  iterates up to rounding, at every scale of the data.

On a row-chunked dask ``X`` the card runs :class:`.cocoa.CoCoAPlus`. The derivations and measurements behind these
choices: docs/design/svm_cd.md.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ...core.solution import Solution
from ...core.warmstart import dual_warm_value, parse_warm_start
from ...engine.runloop import Budget
from ..common.coordinate_round import compiled_round
from ..common.numba_rows import available, compiled_info, kernel_rows, resolve_compiled, row_storage
from .gap import EPOCH_CONSTRAINTS, DualityGapPlan, compiled_option, polish_option, screening_option, shrinking_option
from .polish import RestrictedPolish
from .screening import GapSafeScreening, compiled_apply_screen, compiled_restore, compiled_screen_order

PG_EPS0 = 0.1        # liblinear's default stop test: projected-gradient range below which P(w) is first computed
PG_EPS_DECAY = 0.5   # eps_pg is multiplied by at most this at every check that does not certify tol
PG_EPS_FLOOR = 0.1   # ... and by at least this (DualCoordinateDescent.eps_decay)
GAP_TARGET_DECAY = 0.5   # the gap estimate's target after an exact check that did not certify tol
MIN_ROUND = 1 << 16  # updates per round at least (with shrinking): the Python step costs ~0.1 ms
SCREEN_WORTH = 0.01  # a screening check that proves at least this fraction of the live samples is repeated next round

numba_available = available  # whether numba exists here


# the plan ------------------------------------------------------------------------------------------------
@dataclass
class DualCDState:
    t: int
    a: np.ndarray            # dual iterate, 0 <= a_i <= C_i
    w: np.ndarray            # Σ a_i y_i x_i, kept in sync with a
    index: np.ndarray        # the coordinates with C_i > 0; the first ``active`` are visited by the next epoch
    seed: np.ndarray         # state of the xorshift64 generator of the visiting order (uint64, length 1)
    active: int = 0
    tol: float = 0.0         # the run's tol: a check that does not certify it lowers eps_pg
    pg_max: float = np.inf   # M̄, m̄ of Hsieh et al. §3.2 for the next epoch's shrinking test
    pg_min: float = -np.inf
    pg_range: float = np.inf
    epochs: int = 0          # epochs run so far
    visits: int = 0          # coordinates visited so far (updated or shrunk)
    eps_pg: float = PG_EPS0  # projected-gradient range below which the duality gap is computed
    gap_target: float = 0.0  # a round stops when its gap estimate is below gap_target·D (tol, halved on a miss)
    estimate: float = np.inf  # the last epoch's estimate of the duality gap
    primal: float = np.nan   # P(w) and D(a) at the last certificate check (iteration ``checked``)
    dual: float = np.nan
    checked: int = -1
    live: int = -1           # index[:live] may move; index[live:] are screened (proven at their bound) for good
    pending: tuple = (0, 0)  # screened at the last check, not yet applied: index[live:live+p0] -> 0, next p1 -> C_i
    removed: int = 0         # screened so far: proven a*_i = 0, and a*_i = C_i
    fixed: int = 0
    screen_at: int = 1       # the iteration of the next check made for screening only, and the rounds between two
    screen_every: int = 1
    polish_work: float = 0.0  # coordinate work (model seconds, .polish) since the last polish, the last look, in all
    look_work: float = 0.0
    total_work: float = 0.0
    polish_cost: float = np.inf   # the polish's estimated cost, and (total_work, relative gap) at the last look
    trend: tuple = (0.0, np.inf)
    polished: int = 0        # polishes kept


class DualCoordinateDescent(GapSafeScreening, DualityGapPlan):
    """Randomized dual coordinate descent on the box dual of the soft-margin SVM without bias (see the module
    docstring). Parameters: ``shrinking`` (default True) and ``compiled`` (``"auto"``: numba when installed,
    ``True``: numba, or ``False``: the same loop in plain Python, slow, for checking).

    On a row-chunked dask ``X`` the engine runs :class:`.cocoa.CoCoAPlus` instead (the registry card's variant for
    dask data).

    ``step`` copies ``a``, ``w`` and the index array (O(n + d), a memory copy) before the round updates them in
    place, so a state never changes once made and the states of ``plan.iterate`` are the iterates of ``run``."""

    name = "dual-cd"

    @dataclass(frozen=True)
    class Config:
        shrinking: bool = shrinking_option()
        compiled: bool | str = compiled_option()
        screening: bool = screening_option()
        polish: bool = polish_option()
        constraints: ClassVar[dict] = dict(EPOCH_CONSTRAINTS)

    def setup(self):
        form = self.form
        self.resolved_backend = resolve_compiled(self.config.compiled, self.method)   # "numba" | "numpy"
        self.y = np.ascontiguousarray(form.y, dtype=np.float64)
        self.box = np.ascontiguousarray(form.box, dtype=np.float64)   # C_i = C·s_i
        self.n, self.d = form.X.shape
        self.X, self.csr, self.Xop = row_storage(form.X)
        self.qii = np.array(form.row_norms_squared())   # shared with the cost model; a writable copy for numba
        self.movable = np.flatnonzero(self.box > 0.0).astype(np.int64)   # C_i = 0: a_i = 0 for ever
        self.budget = max(self.n, MIN_ROUND) if self.config.shrinking else self.n   # updates per round
        self.round = compiled_round.of(self.resolved_backend)
        self.restore = compiled_restore.of(self.resolved_backend)
        self.rows = kernel_rows(self.X, self.csr)
        self.use_screening = bool(self.config.screening)
        if self.use_screening:
            self.apply_screen = compiled_apply_screen.of(self.resolved_backend)
            self.screen_order = compiled_screen_order.of(self.resolved_backend)
            self.norms = np.sqrt(self.qii)
        self.polisher = RestrictedPolish(self) if RestrictedPolish.applies(self) else None

    # helpers ---------------------------------------------------------------------------------------------
    def margins(self, w) -> np.ndarray:
        """``y_i x_iᵀw`` (one product with X)."""
        return self.y * np.asarray(self.Xop @ w).ravel()

    def values(self, a, w):
        """``(P(w), D(a), G)``: primal ``½||w||² + Σ C_i hinge_i``, dual ``1ᵀa − ½||w||²`` and the gradient
        ``G_i = y_i x_iᵀw − 1`` of ``−D`` (one product with X)."""
        half = 0.5 * float(w @ w)
        G = self.margins(w)
        G -= 1.0
        hinge = np.maximum(0.0, -G)
        # not box @ hinge: a long BLAS dot may start threads (15 ms instead of 0.05 on a busy machine)
        hinge *= self.box
        return half + float(hinge.sum()), float(a.sum()) - half, G

    def certify(self, st):
        """Store ``P(w)`` and ``D(a)`` in ``st`` (checked at its iteration); returns ``G``."""
        st.primal, st.dual, G = self.values(st.a, st.w)
        st.checked = st.t
        return G

    def start_a(self, warm_start):
        if warm_start is None:
            return np.zeros(self.n)
        value = dual_warm_value(warm_start)
        return np.clip(parse_warm_start(value, self.n), 0.0, self.box)

    # hooks -------------------------------------------------------------------------------------------------
    def init(self, rng, warm_start, budget=None):
        budget = Budget(self.default_max_iter, self.default_tol) if budget is None else budget
        a = self.start_a(warm_start)
        w = np.asarray(self.Xop.T @ (a * self.y)).ravel() if a.any() else np.zeros(self.d)
        seed = np.array([rng.integers(1, 2 ** 63)], dtype=np.uint64)   # xorshift64 needs a nonzero state
        st = DualCDState(t=0, a=a, w=w, index=self.movable.copy(), seed=seed, active=self.movable.shape[0],
                         tol=budget.tol, gap_target=budget.tol, live=self.movable.shape[0],
                         polish_cost=np.inf if self.polisher is None else self.polisher.first_cost)
        given = getattr(warm_start, "screened", None) if self.use_screening else None
        if given is not None:   # proven by marginkit.path's sequential rule for this C (api/path.py)
            self.start_screened(st, *given)
        if a.any():
            G = self.certify(st)
            if self.use_screening:   # a warm start's gap already proves samples (the path's sequential rule)
                self.screen(st, G)
        else:   # w = 0: every margin is 0, P = Σ C_i and D = 0 without a product with X
            st.primal, st.dual, st.checked = float(self.box.sum()), 0.0, 0
        return st

    def step(self, st):
        a, w, index, seed = st.a.copy(), st.w.copy(), st.index.copy(), st.seed.copy()   # updated in place
        if st.pending[0] or st.pending[1]:   # the last check's screening decision (module docstring)
            self.apply_screen(*self.rows, self.y, self.box, a, w, index, st.live, st.pending[0], st.pending[1])
        old_max, old_min = (st.pg_max, st.pg_min) if self.shrinking else (np.inf, -np.inf)
        sums = np.array([a.sum(), w @ w])   # exact at the start of every round
        active, pg_max, pg_min, pg_range, epochs, visits, converged, estimate = self.round(
            *self.rows, self.y, self.box, self.qii, a, w, index, st.active, old_max, old_min, seed,
            st.eps_pg, self.budget, self.shrinking, sums, st.gap_target)
        nxt = DualCDState(t=st.t + 1, a=a, w=w, index=index, seed=seed, active=int(active), tol=st.tol,
                          pg_max=float(pg_max), pg_min=float(pg_min), pg_range=float(pg_range),
                          epochs=st.epochs + int(epochs), visits=st.visits + int(visits), eps_pg=st.eps_pg,
                          gap_target=st.gap_target, estimate=float(estimate), primal=st.primal, dual=st.dual,
                          checked=st.checked, live=st.live, removed=st.removed, fixed=st.fixed,
                          polished=st.polished)
        dual = float(sums[0] - 0.5 * sums[1])
        estimated = dual > 0.0 and estimate <= st.gap_target * dual
        G, kind = (None, None) if self.polisher is None else self.polisher.after_round(self, st, nxt, int(visits))
        due = self.use_screening and nxt.t >= st.screen_at
        nxt.screen_at, nxt.screen_every = st.screen_at, st.screen_every
        if kind == "look" and not (converged or estimated):   # a look of the polish (.polish): it stops the run if
            if self.use_screening:                              # it proves tol, and screens like a check
                self.screen(nxt, G)
            return nxt
        if due and not (converged or estimated or kind):
            # a check for screening only (the stop rule's schedule is left as it is): after one round, then after
            # twice as many rounds as last time while a check proves less than SCREEN_WORTH of the live samples,
            # so that where nothing can be screened the checks cost O(log rounds) products with X
            live = nxt.live
            self.screen(nxt, self.certify(nxt))
            nxt.screen_every = 1 if live - nxt.live >= SCREEN_WORTH * live else 2 * st.screen_every
            nxt.screen_at = nxt.t + nxt.screen_every
        if converged or estimated or kind:
            G = self.certify(nxt) if G is None else G
            if self.use_screening:
                self.screen(nxt, G)
            if self.relative_gap(nxt) > st.tol:   # not yet: ask more of the next check
                if converged:
                    nxt.eps_pg = min(st.eps_pg, nxt.pg_range) * self.eps_decay(nxt)
                if estimated:
                    nxt.gap_target = st.gap_target * GAP_TARGET_DECAY
                if self.shrinking:
                    self.reactivate(nxt, G, pg_max, pg_min)
        return nxt

    @staticmethod
    def eps_decay(st) -> float:
        """The factor on ``eps_pg`` after a check of ``st`` that did not certify ``tol``: the gap's shortfall
        ``tol·D/(P − D)``, kept in ``[PG_EPS_FLOOR, PG_EPS_DECAY]``. Near the end the gap shrinks about as the
        projected-gradient range does (measured on MNIST 4 vs 9: gap/range 0.3-0.8 over eight checks), so the next
        range test falls near the range that certifies, instead of one halving per check; each check costs a
        product with ``X`` and a full-set epoch after the restore. Measured against halving (one BLAS thread,
        eleven instances of the svm rows and the real sets): 8 to 9 checks fewer on MNIST 4 vs 9 at 1e-6, up to 14 %
        less time on the small sets, and within noise elsewhere."""
        gap, want = st.primal - st.dual, st.tol * st.dual
        if not (gap > 0.0 and want > 0.0):
            return PG_EPS_DECAY
        return min(max(want / gap, PG_EPS_FLOOR), PG_EPS_DECAY)

    def finite(self, st) -> bool:
        """The run loop's guard: ``a`` and ``w``, the state's floating-point arrays (``index`` and ``seed`` are
        integers), are finite."""
        return bool(np.isfinite(st.a).all()) and bool(np.isfinite(st.w).all())

    def look(self, st) -> np.ndarray:
        """The polish's look (:mod:`.polish`): the certificate of ``st``; returns ``G = y ∘ Xw − 1``."""
        return self.certify(st)

    def adopt(self, st, a, b=0.0):
        """Make ``a`` (a point of the box) the iterate of ``st`` if ``D(a) > D`` of ``st``'s certificate; returns its
        ``G`` (None: ``st`` unchanged). Every live coordinate is visited again by the next epoch."""
        w = np.asarray(self.Xop.T @ (a * self.y)).ravel()
        primal, dual, G = self.values(a, w)
        if not dual > st.dual:
            return None
        st.a, st.w, st.primal, st.dual, st.checked = a, w, primal, dual, st.t
        st.active, st.pg_max, st.pg_min = st.live, np.inf, -np.inf
        return G

    def reactivate(self, st, G, pg_max, pg_min) -> None:
        """Hsieh et al. §3.2's restore of the full set, from the exact ``G_i = y_i x_iᵀw − 1`` of a certificate check
        instead of an epoch over all coordinates (a product with X in storage order costs a fraction of an epoch in
        random order): a coordinate stays shrunk only if it is at a bound with its gradient beyond the last epoch's
        extreme projected gradients (``a_i = 0``, ``G_i > max(M, 0)``; ``a_i = C_i``, ``G_i < min(m, 0)``), the test
        of the shrinking itself; the next epoch shrinks nothing (``M̄ = ∞``, ``m̄ = −∞``), as after liblinear's
        restore."""
        # in place on the state ``step`` is building; the screened coordinates (behind ``live``) stay out
        st.active = int(self.restore(G, st.a, self.box, st.index, st.live, max(pg_max, 0.0), min(pg_min, 0.0)))
        st.pg_max, st.pg_min = np.inf, -np.inf

    def measure(self, st) -> dict:
        if st.checked != st.t:
            primal, dual, _ = self.values(st.a, st.w)
        else:
            primal, dual = st.primal, st.dual
        return {"objective": primal, "dual_objective": dual, "duality_gap": primal - dual,
                "active": float(st.active), "pg_range": st.pg_range, "epochs": float(st.epochs),
                "visits": float(st.visits), "gap_estimate": st.estimate, "screened": float(st.removed + st.fixed)}

    def solution(self, st, status) -> Solution:
        certificate = self.gap_certificate(st)
        if self.use_screening:
            certificate["screened"] = {"removed": int(st.removed), "fixed": int(st.fixed)}
        return Solution(w=st.w.copy(), status=status, certificate=certificate, dual={"a": st.a.copy()},
                        info={**compiled_info(self.resolved_backend), "shrinking": self.shrinking,
                              "epochs": st.epochs, "polished": st.polished})
