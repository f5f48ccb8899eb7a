"""The restricted interior-point polish of ``dual-cd`` and ``dual-cd-bias`` (option ``polish``, default True).

Dual coordinate ascent identifies the support vectors long before it settles the multipliers of the free ones
(Hsieh et al., ICML 2008, §3.2, the premise of shrinking), while an interior-point method takes a few dozen iterations
whatever the conditioning (Ferris & Munson, *Interior-point methods for massive support vector machines*, SIAM J.
Optim. 13(3), 2003). The polish combines them: the epochs identify, the interior-point method resolves.

**The restricted problem.** At the iterate ``(a, w)`` with margins ``m_i = y_i x_iᵀw`` (from a certificate check),
``R = {i : C_i > 0 and (a_i > 0 or m_i < 1)}``, widened to every sample the gap ball does not prove off the margin
(``m_i − r||x_i|| < 1``, ``r = √(2·gap)``; Ndiaye et al., JMLR 18, 2017, Theorem 6) where that costs at most
``WIDEN`` times as much, and the SVM on ``R`` alone, whose dual

    max_{0 <= a_R <= C_R}  1ᵀa_R − ½||X_Rᵀ(y_R ∘ a_R)||²

is the full box dual with ``a_i = 0`` outside ``R`` (with the offset: also ``y_Rᵀa_R = 0``, and the restricted offset
becomes the plan's multiplier ``λ``). It is solved by the registry's interior-point method for the form (the card
tagged ``interior-point``), compiled by the engine, at a relative gap ``SUB_TOL`` times the run's ``tol`` (at most
``LOOSEST``). Its multipliers, clipped into the box and padded with zeros, are a point ``a'`` of the full dual's box
(first the *crossover* vertex they point at, :meth:`RestrictedPolish.vertex`, then the interior point itself), so
``D(a') <= P*`` whatever ``R`` is; screened samples are set back to their proven values. ``a'`` replaces ``a`` only
if its certified lower bound beats the iterate's, so the plan stays a dual ascent, and the certificate is computed on
all samples as at every check: a status means what it meant without the polish.

**When** (deterministic: a seed gives the same iterates). The epochs' work is charged in seconds of the cost model
(:mod:`marginkit.core.costs`): :func:`~marginkit.core.costs.ipm_seconds` for the restricted solve ``T``, and
``VISIT_FIXED`` plus the row's nonzeros at ``VISIT_RATE`` for a coordinate visit. A *look* (a certificate, which also
screens) comes after ``LOOK·T`` of work (and at least ``LOOK_EPOCHS`` epochs' worth). At a look that does not prove
``tol``, ``R`` and ``T`` are recomputed, and a polish is tried when the work since the last try is at least
``PAID·T`` and the last two looks' gaps, extrapolated at their rate (:func:`~marginkit.core.costs.work_to_tol`), say
the epochs would need more than ``SLOWER·T`` to reach ``tol`` (``MAX_COLUMNS`` columns at most). So a polish costs at
most about half the work before it in the model. ``info["polished"]`` counts the accepted polishes. The measurements
behind the rule and its constants: docs/design/svm_cd.md.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ...core.costs import ipm_seconds, work_to_tol
from ...core.errors import ProblemError
from ...core.safe import gap_radius
from ...engine import registry
from ...engine.solve import compile_method

# the cost model's term for this rule (measured, one BLAS thread): a coordinate visit costs VISIT_FIXED plus its
# row's nonzeros at VISIT_RATE (100,000 rows of 10, 50 and 300 dense features: 7.4, 62 and 230 ns a visit, against
# 20, 100 and 600 at the cost model's CD_RATE); the restricted solve is charged core.costs.ipm_seconds
VISIT_FIXED, VISIT_RATE = 5e-9, 1.2e9
SUB_TOL = 0.1          # the restricted solve's relative gap, as a fraction of the run's tol
LOOSEST = 1e-4         # ... and never looser than this
MAX_COLUMNS = 3000     # ipm's default max_columns: wider data are never polished
LOOK = 0.25            # a look (a certificate) after this fraction of the polish's estimated cost in coordinate work
LOOK_EPOCHS = 8        # ... and after at least this many epochs' worth of work (a look costs about a third of one)
PAID = 2.0             # polish once the work since the last polish is this many times the polish's estimated cost
SNAPS = (1e-6, 1e-4, 1e-2)   # crossover: a restricted multiplier this close to a bound (relative to C_i) is put on it
WIDEN = 2.0            # R is widened to every sample not proven off the margin where that costs at most this factor
SLOWER = 2.0           # polish only where the epochs would take this many times the polish's cost to reach tol


class RestrictedPolish:
    """The polish of one coordinate plan (module docstring): ``dual-cd`` (:mod:`.svm_coordinate`) or ``dual-cd-bias``
    (:mod:`.svm_bias`, ``bias=True``: the restricted SVM has the offset too). ``visit`` is the model's seconds per
    coordinate visit, ``first_cost`` the model's ``T_ipm`` on every sample.

    The plan provides ``form``, ``y``, ``box``, ``Xop``, ``use_screening``, ``screened_sets(st)``,
    ``relative_gap(st)``, ``look(st)`` (certify ``st``; returns ``G_i = y_i(x_iᵀw + b) − 1``) and
    ``adopt(st, a, b)`` (make ``a`` and the offset ``b`` the iterate of ``st`` if its certified lower bound beats
    ``st.dual``; returns the new ``G`` or None); its state carries ``polish_work``, ``look_work``, ``total_work``,
    ``polish_cost``, ``trend`` and ``polished``."""

    def __init__(self, plan, bias: bool = False):
        X = plan.form.X
        self.X, self.y, self.box, self.bias = X, plan.y, plan.box, bias
        self.norms = np.sqrt(plan.qii)
        self.n, self.d = X.shape
        self.row_nnz = np.diff(X.indptr) if sp.issparse(X) else None
        nnz = X.nnz if sp.issparse(X) else self.n * self.d
        self.visit = VISIT_FIXED + nnz / max(self.n, 1) / VISIT_RATE
        self.epoch = self.n * self.visit
        self.first_cost = self.cost(self.n, nnz)

    @staticmethod
    def applies(plan, bias: bool = False) -> bool:
        """Whether ``plan`` polishes: option ``polish``, at most ``MAX_COLUMNS`` columns (the offset's included),
        NumPy or CSR data."""
        X = plan.form.X
        return (bool(plan.config.polish) and plan.d + int(bias) <= MAX_COLUMNS
                and (isinstance(X, np.ndarray) or sp.issparse(X)))

    def cost(self, m: int, nnz: int) -> float:
        """The model's ``T_ipm`` on ``m`` samples with ``nnz`` nonzeros."""
        return ipm_seconds(m, self.d + int(self.bias), nnz, self.d)

    def rows_cost(self, rows: np.ndarray) -> float:
        """:meth:`cost` on the samples ``rows``."""
        m = rows.shape[0]
        return self.cost(m, int(self.row_nnz[rows].sum()) if self.row_nnz is not None else m * self.d)

    def restricted_solve(self, rows: np.ndarray, tol: float):
        """``(a, b)``: the multipliers of the SVM on ``rows`` (clipped into their box) and its offset (0 without a
        bias), or None when it cannot be posed (one class only) or solved."""
        from ...formulations.classification import SoftMarginSVM   # the engine's problem, its card in the registry
        box = self.box[rows]
        same = bool(np.all(box == box[0]))
        X = self.X if rows.shape[0] == self.n else self.X[rows]
        try:
            sub = SoftMarginSVM(X, self.y[rows], C=float(box[0]) if same else 1.0, bias=self.bias,
                                sample_weight=None if same else box)
            method = next(c.name for c in registry.cards(sub.form, tag="interior-point"))
            res = compile_method(sub, method, tol=max(min(tol, LOOSEST) * SUB_TOL, 1e-12), trace=None).run()
        except (ProblemError, np.linalg.LinAlgError, FloatingPointError, ValueError):
            return None
        a = np.asarray(res.dual["a"], dtype=np.float64)
        b = float(res.b or 0.0)
        return (np.clip(a, 0.0, box), b) if np.all(np.isfinite(a)) and np.isfinite(b) else None

    def restricted_rows(self, st, G) -> tuple[np.ndarray, float]:
        """``R`` (module docstring): the samples the iterate holds as support vectors or margin violators, widened to
        every sample the gap ball does not prove off the margin (``G_i − r||x_i|| < 0``, a superset of the support
        vectors of every optimum without an offset, :mod:`.svm_coordinate`'s screening rule) when that costs at most
        ``WIDEN`` times as much in the model. Returns ``R`` and its cost."""
        movable = self.box > 0.0
        small = ((st.a > 0.0) | (G < 0.0)) & movable
        r = gap_radius({"primal": st.primal, "dual": st.dual})
        wide = (small | (G - r * self.norms < 0.0)) & movable
        rows, more = np.flatnonzero(small), np.flatnonzero(wide)
        cost, cost_more = self.rows_cost(rows), self.rows_cost(more)
        return (more, cost_more) if cost_more <= WIDEN * cost else (rows, cost)

    def eta(self, st) -> float:
        """The work from ``st`` until a polish could be tried (the look and the ``PAID`` work of :meth:`after_round`)
        plus its estimated cost: the earliest the polish can finish the run."""
        cost = st.polish_cost
        return max(PAID * cost - st.polish_work, LOOK * cost - st.look_work, 0.0) + cost

    def after_round(self, plan, st, nxt, visits: int):
        """Charge a round's ``visits`` to ``nxt`` and look, polish or not (module docstring). Returns ``(G, kind)``:
        ``(None, None)`` when there was no look; else ``G`` of ``nxt`` (certified at its iteration by ``plan.look``)
        and ``kind`` ``"look"`` or ``"polish"`` (a polish was tried)."""
        spent = visits * self.visit
        nxt.polish_work, nxt.look_work = st.polish_work + spent, st.look_work + spent
        nxt.total_work, nxt.polish_cost, nxt.trend = st.total_work + spent, st.polish_cost, st.trend
        if nxt.look_work < max(LOOK * st.polish_cost, LOOK_EPOCHS * self.epoch):
            return None, None
        nxt.look_work = 0.0
        G = plan.look(nxt)
        gap = plan.relative_gap(nxt)
        if not gap > nxt.tol:
            return G, "look"
        rows, nxt.polish_cost = self.restricted_rows(nxt, G)
        (w0, g0), nxt.trend = st.trend, (nxt.total_work, gap)
        if nxt.polish_work < PAID * nxt.polish_cost or not (np.isfinite(gap) and g0 > gap):
            return G, "look"
        if work_to_tol(w0, g0, nxt.total_work, gap, nxt.tol) < SLOWER * nxt.polish_cost:   # the last two looks' rate
            return G, "look"
        return self.run(plan, nxt, G, rows), "polish"

    def crossover(self, rows, a_rows):
        """:meth:`vertex` with the snaps of ``SNAPS``, tightest first (a multiplier of a non-support vector that the
        interior point has not yet driven to its bound reads as free and puts the solution out of the box)."""
        for snap in SNAPS:
            out = self.vertex(rows, a_rows, snap)
            if out is not None:
                return out
        return None

    def vertex(self, rows, a_rows, snap):
        """The vertex the interior point points at (crossover, as interior-point LP solvers end): the restricted
        multipliers within ``snap`` of a bound are put on it, and the free ones ``F`` solved so that their margins are
        exactly 1 (with the offset ``b``, also ``yᵀa = 0``)::

            [ A Aᵀ  y_F ] [a_F]   [ 1 − A w_C      ]
            [ y_Fᵀ   0  ] [ b ] = [ −Σ_{a_i=C_i} y_i C_i ],   A = diag(y_F) X_F,  w_C = Σ_{a_i=C_i} C_i y_i x_i

        (without the offset, the first block alone). Returns ``(a, b)`` padded to length n, or None when more than
        ``d + 1`` are free or the solution leaves the box (then the identification was wrong)."""
        box = self.box[rows]
        upper, free = a_rows >= box * (1.0 - snap), (a_rows > box * snap) & (a_rows < box * (1.0 - snap))
        F, top = rows[free], rows[upper]
        k = F.shape[0]
        if k > self.d + 1:
            return None
        a = np.zeros(self.n)
        a[top] = self.box[top]
        w_c = np.asarray(self.X[top].T @ (self.y[top] * self.box[top])).ravel() if top.size else np.zeros(self.d)
        XF = self.X[F]
        A = self.y[F, None] * (XF.toarray() if sp.issparse(XF) else XF)
        rhs = 1.0 - A @ w_c
        M = A @ A.T
        if self.bias:
            yF = self.y[F]
            M = np.block([[M, yF[:, None]], [yF[None, :], np.zeros((1, 1))]])
            rhs = np.append(rhs, -float(self.y[top] @ self.box[top]))
        try:
            sol = np.linalg.lstsq(M, rhs, rcond=None)[0] if M.size else np.zeros(0)
        except np.linalg.LinAlgError:
            return None
        a_f = sol[:k]
        slack = 1e-9 * self.box[F]
        if not (np.all(np.isfinite(sol)) and np.all(a_f >= -slack) and np.all(a_f <= self.box[F] + slack)):
            return None
        a[F] = np.clip(a_f, 0.0, self.box[F])
        return a, (float(sol[k]) if self.bias else 0.0)

    def run(self, plan, st, G, rows) -> np.ndarray:
        """Polish ``st`` (certified at this iteration, with ``G``) on the samples ``rows``: the crossover point first,
        then the interior point if it is better still; returns the ``G`` of the state it leaves (the new iterate's when
        a polish is kept)."""
        st.polish_work = 0.0
        if rows.shape[0] == 0:
            return G
        solved = self.restricted_solve(rows, st.tol)
        if solved is None:
            return G
        a_ipm = np.zeros(self.n)
        a_ipm[rows] = solved[0]
        vertex = self.crossover(rows, solved[0])
        removed, fixed = plan.screened_sets(st) if plan.use_screening else (None, None)
        kept = None
        for a, b in ([] if vertex is None else [vertex]) + [(a_ipm, solved[1])]:
            if removed is not None:   # the screened samples hold their proven values
                a[removed] = 0.0
                a[fixed] = self.box[fixed]
            G_new = plan.adopt(st, a, b)   # kept only if its certified lower bound beats the state's
            if G_new is not None:
                kept = G_new
                if not plan.relative_gap(st) > st.tol:
                    break
        if kept is None:   # not a better dual point (a loose restricted solve): the epochs' iterate stays
            return G
        st.polished += 1
        return kept
