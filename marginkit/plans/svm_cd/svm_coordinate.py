"""Dual coordinate descent for the soft-margin SVM without bias (``dual-cd``).

Papers: Raj & Bach, *Explicit regularization of stochastic gradient methods through duality* (AISTATS 2021),
Algorithm 1 and App. C (randomized dual coordinate ascent = SDCA of Shalev-Shwartz & Zhang 2013, applied here
to the hinge loss), which is exactly the dual coordinate descent of Hsieh, Chang, Lin, Keerthi &
Sundararajan, *A dual coordinate descent method for large-scale linear SVM* (ICML 2008), Algorithm 1, with
the shrinking of their §3.2 (the algorithm inside liblinear / scikit-learn's ``LinearSVC``).

The problem ``min ½||w||² + Σ C_i max(0, 1 − y_i x_iᵀw)`` (``C_i = C·s_i``, the problem's ``box``: one C for
every sample unless ``sample_weight`` is given) has the dual box QP

    max_{0 <= a_i <= C_i}  D(a) = 1ᵀa − ½||w(a)||²,      w(a) = Σ_i a_i y_i x_i,

and maximising ``D`` exactly in one coordinate (Hsieh et al. eqs. (4)–(5); Raj–Bach's proximal coordinate
step with ``Π_Y`` the hinge's box) is

    G = y_i x_iᵀw − 1,      a_i ← clip(a_i − G/Q_ii, 0, C_i),      w ← w + (a_i⁺ − a_i) y_i x_i,

with ``Q_ii = ||x_i||²`` (a zero row has ``G = −1`` and goes straight to ``a_i = C_i``). Each update reads row
``i`` twice (a dot product and an axpy); ``w`` is kept in sync with ``a`` so ``X`` is never multiplied as a
whole inside an epoch. A sample with ``C_i = 0`` has ``a_i = 0`` for ever and is never visited.

Resolved here (each once):

* **One run-loop iteration = one round of epochs of about n coordinate updates.** An epoch visits the active
  coordinates in a fresh random order (sampling without replacement, as Hsieh et al. and liblinear; Raj–Bach's
  analysis samples with replacement, which is slower in practice and has the same fixed point). The compiled
  round (:func:`dcd_round`) runs epochs until it has visited ``max(n, MIN_ROUND)`` coordinates, or liblinear's
  stop test passes, or its gap estimate says a certificate check is due: once shrinking has left a few hundred
  active coordinates (or when n is small) an epoch costs microseconds, and one Python step per epoch would cost
  more than the epoch. Without shrinking a round is exactly one epoch of n updates. The order is drawn
  inside the round by a xorshift64 generator (Marsaglia 2003) seeded from the run's ``seed``, so no
  per-coordinate array crosses from Python to the round.
* **Shrinking** (Hsieh et al. §3.2, as liblinear does it): a coordinate at a bound whose gradient points out of
  the box by more than the previous epoch's extreme projected gradient (``M̄``/``m̄``) leaves the active set
  (swapped to the end of the index array). **Resolved here**: where liblinear restores the full set (the
  projected-gradient range ``M − m`` on the active set below ``eps_pg``) and pays an epoch over all coordinates
  to find the wrongly shrunk ones, this plan computes the certificate, whose product with ``X`` gives every
  ``G_i`` exactly, and re-activates each coordinate that fails the shrinking test at those values
  (:meth:`DualCoordinateDescent.reactivate`); the fixed point and the certificate are those of the full problem.
  ``shrinking=False`` visits every coordinate in every epoch.
* **Certificate** (stop rule): the duality gap ``P(w) − D(a)``, where ``0 <= a <= C_i`` always holds, so
  ``D(a) <= P* <= P(w)``; ``optimal`` when the certified relative gap ``(P(w) − D(a))/D(a) <= tol`` with
  ``D(a) > 0``, which implies ``(P(w) − P*)/P* <= tol``. ``P(w)`` costs one product with ``X`` in storage order
  (a fraction of an epoch in random order); it is computed when the projected-gradient range is below
  ``eps_pg`` (liblinear's own stop test, free during the epoch; ``eps_pg`` starts at liblinear's 0.1 and is
  cut after a check that does not certify ``tol``, by the gap's shortfall kept in [0.1, 0.5]:
  :meth:`DualCoordinateDescent.eps_decay`) or when the round's running estimate of the gap (see :func:`dcd_round`)
  is below ``tol·D`` (the target is halved after such a check fails): the estimate only decides when to check, the
  status comes from the exact values.
* **Gap-safe screening** (option ``screening``, default True): at every certificate check (in ``init`` with a warm
  start, and in ``step``), with ``gap = P(w) − D(a)`` and ``r = √(2·gap)``, a sample whose margin interval
  ``[m_i − r||x_i||, m_i + r||x_i||]`` (``m_i = y_i x_iᵀw``) lies above 1 is proven to have ``a*_i = 0`` and is set to
  0; one whose interval lies below 1 is proven to have ``a*_i = C_i`` and is set to ``C_i``; both leave the epochs for
  good (:meth:`DualCoordinateDescent.screen`). *Proof.* ``P`` is 1-strongly convex (``½||w||²`` plus convex
  hinges), so with ``w*`` its minimiser ``½||w − w*||² <= P(w) − P* <= P(w) − D(a)`` for every ``a`` in the box
  (weak duality), i.e. ``||w − w*|| <= r`` (the Gap Safe sphere of Ndiaye, Fercoq, Gramfort & Salmon, *Gap safe
  screening rules for sparsity enforcing penalties*, JMLR 18(128), 2017, Theorem 6, here for the hinge loss as in
  Zimmert, Schroeder de Witt, Kerdreux & Pokutta, *Safe screening for support vector machines*, NIPS OPT workshop
  2015, §3). By Cauchy–Schwarz ``|y_i x_iᵀw* − m_i| <= r||x_i||``. The KKT conditions of the box dual (Hsieh et
  al. 2008, eq. (6); Ogawa, Suzuki & Takeuchi, *Safe screening of non-support vectors in pathwise SVM computation*,
  ICML 2013, eq. (4)) say that every dual optimum has ``a*_i = 0`` where ``y_i x_iᵀw* > 1`` and ``a*_i = C_i`` where
  ``y_i x_iᵀw* < 1`` (``w*`` is unique, ``w* = Σ a*_j y_j x_j`` for every dual optimum ``a*``). So the screened
  coordinates hold their optimal values, and the problem over the others with these fixed has the same optima. A
  tie (an interval touching 1) is never screened; the rounding of ``m_i`` (at most ``(d + 2)·eps·||x_i||·||w||``)
  and of the gap (:func:`marginkit.core.safe.gap_radius`) widen every interval. **Resolved here**: a decision made
  at iteration ``t`` (from its certificate, so the certificate stays that of the iterate it was computed at) is
  applied at the start of the next round, in the compiled :func:`.screening.dcd_apply_screen` (each screened
  ``a_i`` set to its bound and ``w`` updated by one row axpy); the index array holds the active coordinates, then
  those shrunk, then the screened ones, which no epoch, shrinking or restore visits again. The certificate is
  always that of the full problem (``P(w)`` over every sample, ``D(a)`` at the full ``a``): screening never changes
  what a status means.
  ``certificate["screened"]`` counts them (``{"removed": k, "fixed": m}``); Hsieh's shrinking stays the unsafe
  heuristic it was, undone by the restore, on the samples not screened.
* **Restricted interior-point polish** (option ``polish``, default True; :mod:`.polish`): once the epochs have
  spent about twice its estimated cost and their gap shrinks too slowly, the SVM on the samples the iterate holds as
  support vectors is solved by ``ipm``; its multipliers replace ``a`` only if they raise ``D``.
* **Scale**: every test above reads ``G = y_i x_iᵀw − 1`` or a relative gap, which do not change when ``X`` is
  multiplied by ``c`` and ``C`` divided by ``c²`` (the same problem: ``w' = w/c``, ``a' = a/c²``,
  ``P' = P/c²``); the iterates are those of the unscaled problem mapped by the same rule (up to rounding), so the
  time to a certified gap and the status do not depend on the scale of the data. The step ``1/Q_ii`` is the exact
  coordinate maximiser: it comes from the data, no unit-ball assumption is made.
* **One source, compiled or not** (option ``compiled``: ``"auto"``, ``True``, ``False``): the round below is
  written with the row operations of :mod:`marginkit.plans.common.numba_rows` only; with numba it is compiled
  (``@njit``), otherwise the same function runs as plain Python over the operations' NumPy bodies. Both do the
  same floating-point operations in the same order, so for a seed both give the same iterates (checked
  in ``tests/test_svm_coordinate.py``) on CSR rows; the dot product with a dense row is vectorised in both
  (BLAS ``ddot`` and a reassociated loop, in different orders), so there the iterates agree to rounding. Dense
  ``X`` is read row by row: a Fortran-ordered array is copied once to C order; sparse ``X`` stays CSR
  (``indptr``/``indices``/``data`` read in place) and is never copied.
* **Memory access**: indices are cast to unsigned inside the loops (numba then drops its negative-index test), and
  the row operations are inlined into the round (:mod:`~marginkit.plans.common.numba_rows`). A random visiting
  order makes every row and every ``y_i, C_i, Q_ii, a_i`` a cache miss, so what the update ``PREFETCH_AHEAD``
  places ahead reads is requested before it is needed: its CSR row, its dense row (the first ``HEAD`` entries of a
  long one: the hardware prefetcher follows the rest) and its four values (measured at n = 100,000, d = 10: about
  half the time per update; in cache the requests cost nothing measurable). The iterates are the same either way.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from ...core.params import Boolean
from ...core.solution import Solution
from ...core.warmstart import dual_warm_value, parse_warm_start
from ...engine.runloop import Budget
from .gap import DualityGapPlan
from .polish import RestrictedPolish
from .screening import GapSafeScreening, compiled_apply_screen, compiled_restore, compiled_screen_order
from ..common.numba_rows import (COMPILED, ONE, PREFETCH_AHEAD, available, compiled_info, compiled_once,
                                 dense_axpy, dense_dot, jitable, kernel_rows, prefetch, prefetch_csr_row,
                                 prefetch_dense_head, resolve_compiled, row_storage, sparse_axpy,
                                 sparse_dot)

PG_EPS0 = 0.1        # liblinear's default stop test: projected-gradient range below which P(w) is first computed
PG_EPS_DECAY = 0.5   # eps_pg is multiplied by at most this at every check that does not certify tol
PG_EPS_FLOOR = 0.1   # ... and by at least this (DualCoordinateDescent.eps_decay)
GAP_TARGET_DECAY = 0.5   # the gap estimate's target after an exact check that did not certify tol
MIN_ROUND = 1 << 16  # updates per round at least (with shrinking): the Python step costs ~0.1 ms
PG_ZERO = 1e-12      # |projected gradient| below this: no update (liblinear's test)
XS_A, XS_B, XS_C = np.uint64(13), np.uint64(7), np.uint64(17)   # xorshift64 shifts (Marsaglia 2003)
HALF = np.uint64(32)
SCREEN_WORTH = 0.01  # a screening check that proves at least this fraction of the live samples is repeated next round

numba_available = available  # whether numba exists here


# the round: one source, run as Python or compiled (see the module docstring) --------------------------------
@jitable
def _random_below(seed, m):
    """A draw in ``[0, m)``, ``m < 2³²``, from the xorshift64 generator whose state is ``seed[0]`` (advanced in
    place): the high 32 bits times ``m``, shifted (Lemire's multiply-shift reduction: no division)."""
    x = seed[0]
    x ^= x << XS_A
    x ^= x >> XS_B
    x ^= x << XS_C
    seed[0] = x
    return np.int64(((x >> HALF) * np.uint64(m)) >> HALF)


@jitable
def projected_gradient(G, ai, C, pg_max_old, pg_min_old):
    """The projected gradient of coordinate ``i`` in the box ``[0, C]`` (Hsieh et al. 2008, eq. (10)), or NaN when
    Hsieh's shrinking test (§3.2: at a bound, the gradient pointing out beyond last epoch's extremes) says to take it
    out of the active set; the one test of ``dual-cd`` and ``dual-cd-bias``."""
    if ai <= 0.0:
        if G > pg_max_old:
            return np.nan
        return 0.0 if G > 0.0 else G
    if ai >= C:
        if G < pg_min_old:
            return np.nan
        return 0.0 if G < 0.0 else G
    return G


@jitable
def _prefetch_coordinate(y, box, qii, a, i):
    """Request ``y_i, C_i, Q_ii, a_i`` (nothing in Python)."""
    prefetch(y, i)
    prefetch(box, i)
    prefetch(qii, i)
    prefetch(a, i)


def dcd_round(X, data, indices, indptr, y, box, qii, a, w, index, active, pg_max_old, pg_min_old, seed, eps,
              budget, shrinking, sums, gap_target):
    """Epochs of Hsieh et al. Alg. 1 with the shrinking of §3.2 on ``a``, ``w`` (in place) over ``index[:active]``
    (the active coordinates; shrunk ones are swapped behind them), until ``budget`` coordinates are visited, or
    the projected-gradient range ``M − m`` of an epoch is ``<= eps`` (liblinear's stop test; on a shrunk set, the
    point where liblinear restores the full set), or the epoch's estimate of the duality gap is
    ``<= gap_target·D``. The last two end the round for an exact check by the caller.

    The estimate: ``P(w) − D(a) = Σ_i (a_i G_i + C_i max(0, −G_i))`` (from ``||w||² = Σ a_i (G_i + 1)``), every term
    ``>= 0`` and 0 right after coordinate ``i`` is maximised; the epoch sums each active coordinate's term just
    before its update (a shrunk one, ``a_i = 0 < G_i`` or ``a_i = C_i``, ``G_i < 0``, is taken as 0), so the sum is
    the gap as the epoch found it, a lagging guess of the gap after it. ``sums = [Σ a_i, ||w||²]`` are carried
    through the updates (``||w + δ y_i x_i||² = ||w||² + 2δ(G_i + 1) + δ² Q_ii``) for ``D = Σ a_i − ½||w||²``.
    The estimate only decides when the exact certificate is computed.

    Returns ``(active, pg_max_old, pg_min_old, pg_range, epochs, visits, converged, estimate)``: the shrinking
    state for the next round, the last epoch's projected-gradient range, the epochs run and coordinates visited,
    whether the stop test passed and the last epoch's gap estimate."""
    done = 0
    epochs = 0
    converged = False
    pg_range = np.inf
    sum_a = sums[0]
    norm2 = sums[1]
    estimate = np.inf
    while True:
        for k in range(active - 1):   # a fresh random order of the active coordinates (Fisher-Yates)
            j = k + _random_below(seed, active - k)
            tmp = index[k]
            index[k] = index[j]
            index[j] = tmp
        done += active
        pg_max, pg_min = -np.inf, np.inf
        estimate = 0.0
        k = 0
        while k < active:
            if k + PREFETCH_AHEAD < active:   # request what the update PREFETCH_AHEAD places ahead reads
                ahead = np.uint64(index[k + PREFETCH_AHEAD])
                if X is None:
                    prefetch_csr_row(data, indices, indptr, ahead)
                    if k + 2 * PREFETCH_AHEAD < active:
                        prefetch(indptr, np.uint64(index[k + 2 * PREFETCH_AHEAD]))
                else:
                    prefetch_dense_head(X, ahead)
                _prefetch_coordinate(y, box, qii, a, ahead)
            ii = index[k]
            i = np.uint64(ii)   # unsigned indices skip numba's negative-index test
            # ``X is None`` (CSR data) is decided when numba compiles (its dead-branch pruning): no test in the loop
            if X is None:
                G = y[i] * sparse_dot(data, indices, np.uint64(indptr[i]), np.uint64(indptr[i + ONE]), w) - 1.0
            else:
                G = y[i] * dense_dot(X, i, w) - 1.0
            ai = a[i]
            C = box[i]
            pg = projected_gradient(G, ai, C, pg_max_old, pg_min_old)
            if pg != pg:   # shrink: swap behind the active part, visit the swapped-in one next
                active -= 1
                index[k] = index[active]
                index[active] = ii
                continue
            pg_max = max(pg_max, pg)
            pg_min = min(pg_min, pg)
            estimate += ai * G + C * max(0.0, -G)
            if abs(pg) > PG_ZERO:
                q = qii[i]
                new = C if q <= 0.0 else min(max(ai - G / q, 0.0), C)
                if new != ai:
                    delta = new - ai
                    if X is None:
                        sparse_axpy(delta * y[i], data, indices, np.uint64(indptr[i]), np.uint64(indptr[i + ONE]), w)
                    else:
                        dense_axpy(delta * y[i], X, i, w)
                    a[i] = new
                    sum_a += delta
                    norm2 += delta * (2.0 * (G + 1.0) + delta * q)
            k += 1
        epochs += 1
        pg_range = pg_max - pg_min if pg_max >= pg_min else 0.0
        if pg_range <= eps:   # converged on the active set: the caller checks the full set
            converged = True
            break
        if shrinking:
            pg_max_old = pg_max if pg_max > 0.0 else np.inf
            pg_min_old = pg_min if pg_min < 0.0 else -np.inf
        dual = sum_a - 0.5 * norm2
        if done >= budget or (dual > 0.0 and estimate <= gap_target * dual):
            break
    return active, pg_max_old, pg_min_old, pg_range, epochs, done, converged, estimate


compiled_round = compiled_once(dcd_round)


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
        shrinking: bool = field(default=True, metadata={"doc": "Hsieh et al. §3.2"})
        compiled: bool | str = field(
            default="auto",
            metadata={"doc": 'the round compiled by numba (True; "auto": when installed) or in NumPy'})
        screening: bool = field(
            default=True, metadata={"doc": "gap-safe screening at every certificate check (Ndiaye et al. 2017)"})
        polish: bool = field(default=True, metadata={"doc": "the restricted interior-point polish (.polish)"})
        constraints: ClassVar[dict] = {"shrinking": [Boolean()], "compiled": COMPILED, "screening": [Boolean()],
                                       "polish": [Boolean()]}

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
