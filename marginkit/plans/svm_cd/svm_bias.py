"""Exact-bias dual coordinate descent for the soft-margin SVM with a free offset (``dual-cd-bias``).

The problem ``min_{w,b} ½||w||² + Σ C_i max(0, 1 − y_i(x_iᵀw + b))`` (``C_i = C·s_i``, ``problem.box``) has the dual

    max_{0 <= a <= C}  D(a) = 1ᵀa − ½||w(a)||²   s.t.  yᵀa = 0,      w(a) = Σ_i a_i y_i x_i,

whose equality constraint stops the coordinate steps of ``dual-cd``. This plan runs the **method of multipliers**
(Hestenes 1969, Powell 1969; Rockafellar, Math. Oper. Res. 1(2), 1976, §4, the proximal point method on the offset):
with the multiplier ``λ`` of ``yᵀa = 0`` (the offset ``b``) and ``ρ > 0``, one epoch of Hsieh et al.'s dual coordinate
descent (ICML 2008, Alg. 1 with the shrinking of §3.2) on

    min_{0 <= a <= C}  ½||w(a)||² − 1ᵀa + λ yᵀa + (ρ/2)(yᵀa)²                                   (AL)

then ``λ ← λ + ρ yᵀa`` (:mod:`.svm_bias_numba`). (AL) is the dual of ``min P(w, b) + (b − λ)²/(2ρ)``: nothing is
regularised at the fixed point. ``ρ = rho · mean_i ||x_i||²``, so ``c·X`` with ``C/c²`` runs the same iterates up to
rounding. One run-loop iteration is one compiled round of epochs and multiplier steps.

**Certificate.** At a check (``f = Xw``, one product): the primal value ``P(w, b̂)`` at the best offset, and a lower
bound from ``a`` moved inside the box onto ``yᵀa' = 0`` along the coordinates that lose least (:func:`repair_equality`,
a fractional knapsack on ``f_i − y_i``): ``D(a') >= D(a) + gain − ½(R·|yᵀa|)²``, ``R = max_i ||x_i||``, less
``|yᵀa'|(1 + R√(2P(w, b̂)))`` for rounding (some optimal offset has ``|b*| <= 1 + R||w*||``). ``optimal`` iff
``(P − D)/D <= tol`` with ``D > 0``. Checks come after a full-set epoch whose stationarity ``max(M − m, ρ|yᵀa|)`` is
below ``eps_pg`` (lowered by :func:`next_check_factor` after a failed check) and, as a fallback, when the visits
since the last check exceed half of those before it (and ``FALLBACK_WORK·n``).

**Gap-safe screening** (option ``screening``). ``P̃(w) = min_b P(w, b)`` is 1-strongly convex, so with the certified
gap ``||w − w*|| <= r = √(2(P(w, b̂) − L))`` (Ndiaye, Fercoq, Gramfort & Salmon, JMLR 18(128), 2017, Theorem 6);
every optimal offset lies in :func:`marginkit.core.safe.offset_interval`, hence every ``y_i(x_iᵀw* + b*)`` in
:func:`~marginkit.core.safe.margin_intervals`; by the KKT conditions (Ogawa, Suzuki & Takeuchi, ICML 2013, eq. (4))
an interval above 1 proves ``a*_i = 0`` and one below 1 ``a*_i = C_i``. Screened samples leave the epochs for good;
the certificate stays that of the full problem. The test runs only where a first look finds ``SCREEN_WORTH`` of
the live samples far from the margin.

**Restricted interior-point polish** (option ``polish``; :mod:`.polish`), with the offset. The derivations and the
measurements behind these choices: docs/design/svm_cd.md.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from ...core.params import Interval
from ...core.safe import EPS, gap_radius, margin_intervals, offset_interval
from ...core.solution import Solution
from ...core.validation import ProblemError
from ...core.warmstart import parse_warm_start
from ...engine.runloop import Budget
from ...operators.hinge import best_offset
from ..common.numba_rows import available, compiled_info, kernel_rows, resolve_compiled, row_storage
from .gap import EPOCH_CONSTRAINTS, DualityGapPlan, compiled_option, polish_option, screening_option, shrinking_option
from .polish import RestrictedPolish
from .screening import compiled_apply_screen, screened_sets
from .svm_bias_numba import compiled_round

PG_EPS0 = 1.0        # first stationarity threshold for a certificate check (as dual-cd)
PG_EPS_DECAY = (1 / 16, 2 / 3)   # range of the factor applied to the threshold after a check that fails tol
SCREEN_WORTH = 0.01  # a screening test runs only where a first look finds at least this fraction of live samples
WARM_WORK = 16       # a warm start's fallback checks start as after this many epochs (its gap aims the first check)
MIN_ROUND = 1 << 16  # coordinate visits per step at least (with shrinking): the Python step costs ~0.1 ms
FALLBACK_WORK = 16   # the fallback's first check comes after this many epochs' visits at least (module docstring)


def next_check_factor(gap: float, tol: float) -> float:
    """The factor of the next check's threshold: ``0.8 (tol/gap)^0.6``, within :data:`PG_EPS_DECAY`. Measured on
    the bench's data, the certified gap falls like the stationarity measure to a power between 1.6 (a9a-like)
    and 2 (dense Gaussian), so this aims the next check at the first threshold expected to certify ``tol``
    (one failed check costs about one product with ``X``; a threshold set too low costs the epochs in between)."""
    if not np.isfinite(gap) or gap <= 0:
        return PG_EPS_DECAY[0]
    return float(np.clip(0.8 * (tol / gap) ** 0.6, *PG_EPS_DECAY))


numba_available = available


def weighted_offset(scores, y, box) -> float:
    """``argmin_b Σ C_i max(0, 1 − y_i(scores_i + b))``: the slope is ``−Σ_{y=+1} C_i`` below every breakpoint
    ``y_i − scores_i`` and grows by ``C_i`` at each, so the first breakpoint where it turns non-negative is a
    minimiser. One C for all: :func:`~marginkit.operators.hinge.best_offset` (O(n))."""
    box = np.asarray(box)
    if box.size and np.all(box == box[0]):
        return best_offset(scores, y, float(box[0]), 0.0)
    t = y - scores
    order = np.argsort(t, kind="stable")
    slope = -float(box[y > 0].sum()) + np.cumsum(box[order])
    k = min(int(np.searchsorted(slope, 0.0)), t.size - 1)
    return float(t[order[k]])


def _leading(cand, key, room, need):
    """``cand`` sorted by ``key`` (stable), cut after the first entries whose ``room`` reaches ``need`` (all of them
    if none does): near the optimum ``|yᵀa|`` is small and a few coordinates carry it, so the leading ``k`` are
    selected in O(n) (``argpartition``) and only they are sorted, ``k`` doubled until their room suffices. The
    prefix is that of the full stable sort (ties at the cut are taken whole, in index order)."""
    k = 64
    while k < cand.size:
        part = np.argpartition(key, k)[:k]
        cut = key[part].max()
        part = np.flatnonzero(key <= cut)            # every tie of the cut: the stable order's prefix
        if room[part].sum() >= need:
            return cand[part[np.argsort(key[part], kind="stable")]]
        k *= 4
    return cand[np.argsort(key, kind="stable")]


def repair_equality(a, y, box, f):
    """``(a', gain, moved)``: ``a`` moved inside the box onto ``yᵀa' = 0`` (in exact arithmetic) along the
    coordinates of largest gain, with ``D(a') >= D(a) + gain − ½ (R·moved)²`` (module docstring).

    With ``r = yᵀa > 0``, ``a'_i = a_i − y_i u_i`` for ``0 <= u_i <= room_i`` (``a_i`` for ``y_i = +1``,
    ``C_i − a_i`` for ``y_i = −1``; their sum is at least ``r``) and ``Σ u_i = r``; then
    ``D(a') − D(a) = Σ u_i (f_i − y_i) − ½||Σ u_i x_i||²`` with ``f = Xw``, so the ``u_i`` go to the largest
    ``f_i − y_i`` first (a fractional knapsack); ``r < 0`` is the mirror image. ``moved = Σ u_i = |r|``."""
    r = float(y @ a)
    if r == 0.0:
        return a.copy(), 0.0, 0.0
    sign = 1.0 if r > 0 else -1.0
    up = (y > 0) if r > 0 else (y < 0)           # coordinates whose a_i goes down
    room = np.where(up, a, box - a)
    key = sign * (f - y)
    cand = np.flatnonzero(room > 0)
    if cand.size == 0:   # only rounding can leave r != 0 without room: the caller charges |r| as a residual
        return a.copy(), 0.0, 0.0
    order = _leading(cand, -key[cand], room[cand], abs(r))
    cum = np.cumsum(room[order])
    k = min(int(np.searchsorted(cum, abs(r))), order.size - 1)
    idx = order[:k + 1]
    u = room[idx].copy()
    u[-1] = abs(r) - (cum[k - 1] if k > 0 else 0.0)
    u = np.clip(u, 0.0, room[idx])
    a_rep = a.copy()
    a_rep[idx] = np.clip(a[idx] - sign * y[idx] * u, 0.0, box[idx])
    return a_rep, float(u @ key[idx]), float(u.sum())


def offset_certificate(y, box, R, a, w, f):
    """``(P(w, b̂), lower bound on P*, b̂, a')`` for a dual point ``a`` of the box with ``w = Σ a_i y_i x_i`` and
    ``f = Xw`` (module docstring, **Certificate**): the primal value at the best offset, and the dual value of ``a``
    moved onto ``yᵀa' = 0`` by :func:`repair_equality` with what the move and rounding may cost subtracted
    (``R = max_i ||x_i||``). Shared by ``dual-cd-bias`` and ``smo``."""
    b = weighted_offset(f, y, box)
    half = 0.5 * float(w @ w)
    primal = half + float(box @ np.maximum(0.0, 1.0 - y * (f + b)))
    a_rep, gain, moved = repair_equality(a, y, box, f)
    residual = abs(float(y @ a_rep))
    bound_b = 1.0 + R * np.sqrt(2.0 * max(primal, 0.0))
    dual = float(a.sum()) - half + gain - 0.5 * (R * moved) ** 2 - residual * bound_b
    return primal, dual, b, a_rep


@dataclass
class BiasCDState:
    t: int
    a: np.ndarray            # dual iterate in [0, C]^n
    w: np.ndarray            # Σ a_i y_i x_i, kept in sync with a
    s: float                 # yᵀa, carried through the epochs
    lam: float               # the multiplier of yᵀa = 0 (the offset estimate)
    index: np.ndarray        # the coordinates with C_i > 0: index[:active] visited next, then shrunk, then screened
    seed: np.ndarray         # state of the xorshift64 generator of the visiting order (uint64, length 1)
    active: int = 0
    live: int = 0            # index[live:] are screened (proven at their bound at every optimum) for good
    tol: float = 0.0
    pg_max: float = np.inf   # extreme projected gradients of the last epoch (M̄, m̄ of Hsieh et al. §3.2)
    pg_min: float = -np.inf
    pg_range: float = np.inf
    eps_pg: float = PG_EPS0
    primal: float = np.nan   # the certificate at the last check (iteration ``checked``)
    dual: float = np.nan
    b: float = 0.0           # best offset of w at the last check
    a_cert: np.ndarray = None  # the dual point of the last check's bound (a repaired onto yᵀa = 0)
    checked: int = -1
    lam_ref: float = 0.0     # the multiplier when the full set was last visited (the shrinking decisions' offset)
    work: int = 0            # coordinate visits (plus WARM_WORK·n after a warm start), at the last check too
    work_checked: int = 0
    epochs: int = 0
    pending: tuple = (0, 0)  # screened at the last check, not yet applied: index[live:live+p0] -> 0, next p1 -> C_i
    removed: int = 0         # screened so far: proven a*_i = 0, and a*_i = C_i
    fixed: int = 0
    polish_work: float = 0.0  # the restricted interior-point polish (.polish): coordinate work (model seconds) since
    look_work: float = 0.0    # the last polish, the last look and in all, the polish's estimated cost, (total work,
    total_work: float = 0.0   # relative gap) at the last look, polishes kept
    polish_cost: float = np.inf
    trend: tuple = (0.0, np.inf)
    polished: int = 0


class BiasDualCoordinateDescent(DualityGapPlan):
    """Dual coordinate descent with multiplier steps on the offset, for ``SoftMarginSVM(bias=True)`` (see the
    module docstring). Parameters: ``rho`` (penalty over the mean squared row norm, default 0.1), ``shrinking``
    (default True), ``compiled`` (``"auto"``, ``True``: numba, or ``False``: the same loop in plain Python, slow, for
    checking). ``step`` copies ``a`` and ``w`` before the epoch updates them, so a state never changes once made."""

    name = "dual-cd-bias"
    default_max_iter = 10000   # an iteration is one epoch over the active set, often a small fraction of n
    log_columns = ("objective", "dual_objective", "duality_gap", "offset")

    @dataclass(frozen=True)
    class Config:
        rho: float = field(
            default=0.1, metadata={"doc": "ρ = rho · mean ||x_i||² (penalty of the augmented Lagrangian)"})
        shrinking: bool = shrinking_option()
        compiled: bool | str = compiled_option()
        screening: bool = screening_option()
        polish: bool = polish_option()
        constraints: ClassVar[dict] = {"rho": [Interval(float, 0, None, closed="neither")], **EPOCH_CONSTRAINTS}

    def setup(self):
        form = self.form
        if getattr(form, "kernel", None) is not None or not getattr(form, "bias", True):
            raise ProblemError(f"{self.method}: linear SoftMarginSVM with bias=True only")
        self.resolved_backend = resolve_compiled(self.config.compiled, self.method)
        self.use_shrinking = bool(self.config.shrinking)   # read every step: an attribute, not a config lookup
        self.y = np.ascontiguousarray(form.y, dtype=np.float64)
        self.box = np.ascontiguousarray(form.box, dtype=np.float64)
        self.n, self.d = form.X.shape
        self.X, self.csr, self.Xop = row_storage(form.X)
        self.qii = np.array(form.row_norms_squared())   # shared with the cost model; a writable copy for numba
        self.support = np.flatnonzero(self.box > 0).astype(np.int64)   # C_i = 0: a_i = 0 forever
        q = self.qii[self.support]
        mean_q = float(q.mean()) if q.size else 0.0
        self.rho_abs = self.config.rho * mean_q if mean_q > 0 else self.config.rho
        self.R = float(np.sqrt(q.max())) if q.size else 0.0
        self.round = compiled_round.of(self.resolved_backend)
        self.rows = kernel_rows(self.X, self.csr)
        self.budget = max(self.n, MIN_ROUND) if self.use_shrinking else 1   # visits per step: one epoch unshrunk
        self.use_screening = bool(self.config.screening)
        if self.use_screening:
            self.apply_screen = compiled_apply_screen.of(self.resolved_backend)
            self.norms = np.sqrt(self.qii)
        self.polisher = RestrictedPolish(self, bias=True) if RestrictedPolish.applies(self, bias=True) else None

    # certificate ----------------------------------------------------------------------------------------------
    def values(self, a, w, f=None):
        """``(P(w, b̂), lower bound on P*, b̂, a')`` with ``a'`` the repaired dual point (module docstring); one
        product with ``X`` (``f = Xw`` when given)."""
        f = np.asarray(self.Xop @ w).ravel() if f is None else f
        return offset_certificate(self.y, self.box, self.R, a, w, f)

    def certify(self, st, f=None, values=None) -> np.ndarray:
        """The certificate of ``st`` (and its screening); returns ``f = Xw``. ``f`` and ``values`` (what
        :meth:`values` returns for ``st``), when given, are not computed again."""
        f = np.asarray(self.Xop @ st.w).ravel() if f is None else f
        st.primal, st.dual, st.b, st.a_cert = self.values(st.a, st.w, f) if values is None else values
        st.s = float(self.y @ st.a)
        st.checked, st.work_checked = st.t, st.work
        if self.use_screening:
            self.screen(st, f)
        return f

    def look(self, st) -> np.ndarray:
        """The polish's look (:mod:`.polish`): the certificate of ``st``; returns ``G = y ∘ (Xw + b̂) − 1``."""
        f = self.certify(st)
        return self.y * (f + st.b) - 1.0

    def adopt(self, st, a, b):
        """Make ``a`` (a point of the box, ``yᵀa = 0`` up to the restricted solve) with the offset ``b`` the iterate
        of ``st`` (as its multiplier ``λ``) if its certified lower bound beats ``st.dual``; returns its ``G`` (None:
        ``st`` unchanged). Every live coordinate is visited again by the next epoch."""
        w = np.asarray(self.Xop.T @ (a * self.y)).ravel()
        f = np.asarray(self.Xop @ w).ravel()
        values = self.values(a, w, f)
        if not values[1] > st.dual:
            return None
        st.a, st.w, st.lam, st.lam_ref = a, w, float(b), float(b)
        self.certify(st, f, values)
        st.active, st.pg_max, st.pg_min = st.live, np.inf, -np.inf
        return self.y * (f + st.b) - 1.0

    def start(self, warm_start):
        """``(a, λ)`` from a warm start: a ``Result`` of an SVM dual method (``dual["a"]``, its ``b``) or a vector
        ``a`` of length n; clipped into the box."""
        if warm_start is None:
            return np.zeros(self.n), 0.0
        dual = getattr(warm_start, "dual", None)
        lam = getattr(warm_start, "b", None)
        if isinstance(dual, dict) and "a" in dual:
            value = dual["a"]
        elif dual is not None:
            raise ProblemError("warm_start: this result carries no dual iterate a (run 'dual-cd-bias', 'fista' "
                               "or 'cvxpy' first)")
        else:
            value, lam = warm_start, None
        a = np.clip(parse_warm_start(value, self.n), 0.0, self.box)
        lam = float(lam) if lam is not None and np.isfinite(lam) else 0.0
        return a, lam

    # hooks ----------------------------------------------------------------------------------------------------
    def init(self, rng, warm_start, budget=None):
        budget = Budget(self.default_max_iter, self.default_tol) if budget is None else budget
        a, lam = self.start(warm_start)
        w = np.asarray(self.Xop.T @ (a * self.y)).ravel() if a.any() else np.zeros(self.d)
        seed = np.array([rng.integers(1, 2 ** 63)], dtype=np.uint64)   # xorshift64 needs a nonzero state
        m = self.support.shape[0]
        st = BiasCDState(t=0, a=a, w=w, s=float(self.y @ a), lam=lam, index=self.support.copy(), seed=seed, active=m,
                         live=m, tol=budget.tol, lam_ref=lam,
                         polish_cost=np.inf if self.polisher is None else self.polisher.first_cost)
        self.certify(st)   # with a warm start, its gap may already screen samples
        gap = self.relative_gap(st)
        if warm_start is not None and gap > st.tol:   # a warm start's gap aims its first check (as a failed check)
            st.eps_pg = PG_EPS0 * next_check_factor(gap, st.tol)
            # its first checks come from that aim: the fallback's doubling starts as after WARM_WORK epochs
            st.work = st.work_checked = WARM_WORK * self.n
        return st

    def step(self, st):
        a, w, index, seed = st.a.copy(), st.w.copy(), st.index.copy(), st.seed.copy()   # updated in place
        s = st.s
        p0, p1 = st.pending
        if p0 or p1:   # the last check's screening decision: the screened a_i go to their bound (yᵀa follows)
            moved = index[st.live:st.live + p0 + p1]
            target = np.concatenate([np.zeros(p0), self.box[moved[p0:]]])
            s += float(self.y[moved] @ (target - a[moved]))
            self.apply_screen(*self.rows, self.y, self.box, a, w, index, st.live, p0, p1)
        old_max, old_min = (st.pg_max, st.pg_min) if self.use_shrinking else (np.inf, -np.inf)
        check_after = max(FALLBACK_WORK * self.n, st.work_checked // 2) - (st.work - st.work_checked)
        (active, pg_max, pg_min, pg_range, station, lam, lam_ref, s, epochs, visits, stationary, due) = self.round(
            *self.rows, self.y, self.box, self.qii, a, w, index, st.active, st.live, old_max, old_min,
            seed, st.lam, st.lam_ref, self.rho_abs, s, st.eps_pg, self.budget, self.use_shrinking, 0, check_after)
        nxt = BiasCDState(t=st.t + 1, a=a, w=w, s=float(s), lam=float(lam), index=index, seed=seed, active=int(active),
                          live=st.live, tol=st.tol, pg_max=float(pg_max), pg_min=float(pg_min),
                          pg_range=float(pg_range), eps_pg=st.eps_pg, primal=st.primal, dual=st.dual, b=st.b,
                          a_cert=st.a_cert, checked=st.checked, lam_ref=float(lam_ref), work=st.work + int(visits),
                          work_checked=st.work_checked, epochs=st.epochs + int(epochs), removed=st.removed,
                          fixed=st.fixed, polished=st.polished)
        kind = None if self.polisher is None else self.polisher.after_round(self, st, nxt, int(visits))[1]
        if stationary or due or kind:
            # a full-set epoch was stationary (liblinear's stop test), or the geometric fallback: a check whenever
            # the work since the last one exceeds half the work before it (a check costs about one product with X);
            # or the polish looked (and certified this iterate)
            if kind is None:
                self.certify(nxt)
            gap = self.relative_gap(nxt)
            if stationary and gap > st.tol:   # not yet: aim the next check lower
                nxt.eps_pg = min(st.eps_pg, float(station)) * next_check_factor(gap, st.tol)
        return nxt

    def screen(self, st, f) -> None:
        """Gap-safe screening at a certificate check (module docstring): with ``r`` the gap ball's radius, the
        offsets ``[b_lo, b_hi]`` it allows (:func:`marginkit.core.safe.offset_interval`) and the margin intervals
        of ``y_i(x_iᵀw* + b*)`` (:func:`~marginkit.core.safe.margin_intervals`), the live coordinates whose interval
        lies above 1 (``a*_i = 0``) or below 1 (``a*_i = C_i``) move behind ``live`` (``pending``, applied by the next
        step). ``f = Xw`` is the certificate's product."""
        r = gap_radius({"primal": st.primal, "dual": st.dual})
        if not np.isfinite(r) or st.live == 0:
            return
        # the rounding of f_i: |fl(x_iᵀw) − x_iᵀw| <= (d + 2)·eps·||x_i||·||w||, taken into the radius
        r += (self.d + 2) * EPS * float(np.sqrt(st.w @ st.w))
        idx = st.index[:st.live]
        # a cheap look first (two sorts of n values cost more than an epoch on sparse data): the margins at the best
        # offset, 2r||x_i|| away from 1 (the ball's width twice, a guess at the offset's); skipping proves nothing
        far = np.abs(self.y[idx] * (f[idx] + st.b) - 1.0) > 2.0 * r * self.norms[idx]
        if np.count_nonzero(far) < SCREEN_WORTH * st.live:
            return
        b_range = offset_interval(f, self.norms, self.y, self.box, r)
        if not (np.isfinite(b_range[0]) and np.isfinite(b_range[1])):
            return
        lo, hi = margin_intervals(f[idx], self.norms[idx], self.y[idx], r, b_range)
        slack = 4 * EPS * (1.0 + np.abs(f[idx]) + max(abs(b_range[0]), abs(b_range[1])))   # the additions above
        removed = lo - slack > 1.0
        fixed = hi + slack < 1.0
        out = removed | fixed
        k = int(np.count_nonzero(out))
        if k == 0:
            return
        head, tail = idx[:st.active], idx[st.active:]
        keep_head, keep_tail = head[~out[:st.active]], tail[~out[st.active:]]
        p0, p1 = st.pending   # a check in init or right after another: the earlier decision is still pending
        st.index = np.concatenate([keep_head, keep_tail, idx[removed], idx[fixed], st.index[st.live:]])
        if p0 or p1:   # keep the pending ones' places: removed ones first, then fixed
            rest = st.index[st.live - k:]
            new_removed, new_fixed = idx[removed], idx[fixed]
            old = rest[k:]
            st.index = np.concatenate([keep_head, keep_tail, new_removed, old[:p0], new_fixed, old[p0:]])
        st.active = int(keep_head.shape[0])
        st.live -= k
        st.pending = (p0 + int(np.count_nonzero(removed)), p1 + int(np.count_nonzero(fixed)))
        st.removed += int(np.count_nonzero(removed))
        st.fixed += int(np.count_nonzero(fixed))

    def screened_sets(self, st) -> tuple[np.ndarray, np.ndarray]:
        """The samples screened so far: ``(removed, fixed)`` (:func:`.screening.screened_sets`)."""
        return screened_sets(st)

    def finite(self, st) -> bool:
        """The run loop's guard, on what a step creates: ``w``, ``yᵀa`` and the multiplier (a NaN in ``a`` reaches
        ``yᵀa``; ``a`` is clipped into the box otherwise); cheaper than scanning every array of the state."""
        return bool(np.isfinite(st.s) and np.isfinite(st.lam) and np.isfinite(st.w).all())

    def measure(self, st) -> dict:
        if st.checked != st.t:
            primal, dual, b, _ = self.values(st.a, st.w)
        else:
            primal, dual, b = st.primal, st.dual, st.b
        return {"objective": primal, "dual_objective": dual, "duality_gap": primal - dual, "offset": b,
                "equality_violation": abs(st.s), "active": float(st.active), "pg_range": st.pg_range,
                "epochs": float(st.epochs), "screened": float(st.removed + st.fixed)}

    def solution(self, st, status) -> Solution:
        cert = self.gap_certificate(st)
        cert["max_violation"] = abs(float(self.y @ st.a_cert))   # |yᵀa| of the certified dual point
        if self.use_screening:
            cert["screened"] = {"removed": int(st.removed), "fixed": int(st.fixed)}
        return Solution(w=st.w.copy(), b=st.b, status=status, certificate=cert, dual={"a": st.a_cert.copy()},
                        info={**compiled_info(self.resolved_backend), "shrinking": self.shrinking, "rho": self.rho_abs,
                              "multiplier": st.lam, "epochs": st.epochs, "polished": st.polished})
