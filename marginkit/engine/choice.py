"""``solve("auto")`` (and ``method=None`` in the estimator and ``path``): the fast certified method for the data.

A cost model estimates each candidate's time in seconds and the cheaper one runs (only the ratio matters; the model in
full, the values of its constants and their calibration: docs/design/auto-choice.md).

**The soft margin.** Dual coordinate ascent (``dual-cd``, ``dual-cd-bias``; Hsieh et al., ICML 2008) costs one pass
over the nonzeros per epoch, ``T_cd ≈ CD_FIXED + E·nnz/CD_EPOCH_RATE`` (``+ CD_OFFSET`` for the exact offset), with
``E ≈ 30 + κ + κ²/300`` epochs (``CD_EPOCHS``, ``CD_KAPPA2``; divided by 5 along a warm-started path) growing with
the conditioning ``κ = max_i C_i ||x_i||²`` (the largest diagonal entry of the dual's Hessian against the unit step
of a coordinate). The interior-point method (``ipm``; Ferris & Munson 2003) takes a dozen to a few dozen iterations
whatever ``κ`` (the model counts ``IPM_ITERATIONS = 20``), each a Gram product of ``X`` with a diagonal, a ``d × d``
Cholesky factorisation and about thirty length-n vector operations, up to ``IPM_MAX_COLUMNS`` (3000) columns::

    T_ipm ≈ IPM_FIXED + IPM_ITERATIONS·(IPM_PER_ITERATION + n·IPM_PER_SAMPLE + Gram + d³/2e11)
    Gram  = n·d²/6e10 + n·d/5e8          (dense: blocks of rows scaled by √D, then dsyrk)
          = 3e-9·nnz²/n + 7e-9·d²         (below 30 % nonzeros: one sparse product and its dense d × d copy)

(by the nonzeros for a NumPy array and a CSR matrix alike, so the same data get the same method). Sequential minimal
optimisation (``smo``, for an offset; Platt 1998, Fan, Chen & Lin 2005) forms the ``n × n`` Gram matrix and takes pair
steps: ``T_smo ≈ SMO_FIXED + n·nnz/5e9 + SMO_STEPS·n·n·SMO_STEP``, for ``n <= SMO_MAX_SAMPLES`` and
``κ <= SMO_KAPPA``; where it beats the other choice it runs as a probe with that choice's time, less its Gram
matrix, as its budget. ``ipm`` is picked only under half the coordinate method's estimate (:data:`IPM_MARGIN`).

**The probe.** Where the model picks ``ipm`` for a soft margin, the coordinate method runs first until :class:`Probe`
finds, from ``PROBE_FROM·T_ipm`` of work on, that its certified gap's rate would not reach ``tol`` within ``T_ipm``
(:func:`work_to_tol`), or at ``T_ipm``; ``ipm`` then runs cold (``info["chosen"]["probe"]``; none with a callback).

**The hard margin without an offset** (``dykstra-accelerated`` against ``ipm``). RB 2021 eq. (8) (after Lin, Lu &
Xiao's APCG) bounds the gap after ``t`` coordinate steps by ``(2n/(2n + t))²·(gap(0) + ½Σ_i L_i λ*_i²)``,
``L_i = ||x_i||²``, ``Σλ*_i = 1/γ*²``: the epochs grow with ``R/γ*`` (``R = max||x_i||``) and ``tol^(-1/2)``. Any
convex combination of the signed rows bounds ``γ*`` from above (Gordan), so ``R/||mean_i y_i x_i||`` bounds ``R/γ*``
from below, and ``E_low = RB_EPOCHS·(R/||mean||)·(tol/1e-4)^(−RB_TOL_POWER)`` epochs at ``RB_EPOCH + n·RB_ROW +
nnz·RB_ENTRY`` each is a lower envelope of the method's. Where that exceeds ``T_ipm``, or at ``tol=0``, ``ipm`` runs;
otherwise ``dykstra-accelerated`` runs for at most ``T_ipm`` of its modelled epochs, then ``ipm``.

**Other forms.** ``MaxMargin`` with an offset: ``ipm``. ``MinNormFeasibility`` (``p <= 2``): ``dykstra`` where
``n <= d`` (the dual is then strongly concave and plain Dykstra linear, RB §4 remark (c)), else
``dykstra-accelerated``. Otherwise the listed method of the smallest ``preference`` (:class:`Roles`); the CVXPY
reference only where no method of marginkit applies. The runs share the user's budgets (:class:`Runs`).
"""
from __future__ import annotations

import math
import time

import numpy as np
import scipy.sparse as sp

from ..core.costs import (CD_RATE, IPM_FIXED, IPM_ITERATIONS, IPM_PER_ITERATION, IPM_PER_SAMPLE,  # noqa: F401
                          SMO_FIXED, SMO_STEP, SMO_STEPS, ipm_seconds, work_to_tol)
from ..core.linalg import scaled_row_norms
from .graph import method_spec, methods
from .options import RUN_OPTIONS

IPM_MAX_COLUMNS = 3000
IPM_MARGIN = 2.0   # ipm only where its estimate is this many times below the coordinate method's
CD_FIXED = 1e-3   # seconds of a coordinate run's fixed cost (setup, certificates)
CD_EPOCHS, CD_KAPPA2 = 30.0, 300.0   # the coordinate model's epochs: CD_EPOCHS + κ + κ²/CD_KAPPA2 (module docstring)
CD_OFFSET = 1e-3   # seconds the exact offset adds to a coordinate run (its multiplier loop; module docstring)
CD_EPOCH_RATE = 1e9   # nonzeros per second of a coordinate run, in full-epoch equivalents (module docstring)
RB_EPOCH, RB_ROW, RB_ENTRY = 1e-4, 4.5e-8, 1.5e-9   # seconds an accelerated Dykstra epoch costs (its checks), and
#                                                     a row and a stored entry of it (the hard margin's model)
RB_EPOCHS, RB_TOL_POWER = 10.0, 0.19   # its fewest epochs per unit of R/||mean y_i x_i|| at tol 1e-4, and their growth
RB_DEFAULT_TOL = 1e-6   # the tol of dykstra-accelerated when none is given (the plan's default)


class Roles:
    """The methods ``problem`` lists, known to the model by their cards (never by name): ``first``, the listed method
    of the smallest positive ``preference`` (the reference where none has one); ``ipm`` (tag ``"interior-point"``),
    ``coordinate`` (``"svm-coordinate"``: ``dual-cd`` or ``dual-cd-bias``, whichever the offset allows),
    ``pairwise`` (``"pairwise"``: ``smo``), ``dykstra`` and ``accelerated`` (``"dykstra"`` without and with
    ``"accelerated"``); None where the problem lists no such method."""

    def __init__(self, problem):
        self.listed = methods(problem)
        self.cards = {name: method_spec(problem, name) for name in self.listed}
        ranked = sorted((c.preference, i, n) for i, (n, c) in enumerate(self.cards.items()) if c.preference > 0)
        fallback = next((n for n, c in self.cards.items() if c.is_reference), self.listed[0] if self.listed else None)
        self.first = ranked[0][2] if ranked else fallback
        self.ipm = self.tagged("interior-point")
        self.coordinate = self.tagged("svm-coordinate")
        self.pairwise = self.tagged("pairwise")
        self.dykstra = self.tagged("dykstra", without="accelerated")
        self.accelerated = self.tagged("dykstra", "accelerated")

    def tagged(self, *tags: str, without: str | None = None) -> str | None:
        """The first listed method whose card carries every tag of ``tags`` (and not ``without``)."""
        return next((n for n, c in self.cards.items() if set(tags) <= set(c.tags) and without not in c.tags), None)


SAMPLE_ABOVE, SAMPLE_STEP = 1 << 17, 8   # entries above which the nonzeros are counted on every 8th row


def _nonzeros(X) -> int:
    """The nonzeros of ``X``, counted the same way for a NumPy array and a CSR matrix (the same data get the same
    choice): exactly up to :data:`SAMPLE_ABOVE` entries, else on every :data:`SAMPLE_STEP`-th row and scaled."""
    n, d = X.shape
    step = 1 if n * d <= SAMPLE_ABOVE else SAMPLE_STEP
    if sp.issparse(X):
        counted = int(np.diff(sp.csr_matrix(X).indptr)[::step].sum()) if step > 1 else int(X.nnz)
    else:
        counted = int(np.count_nonzero(X[::step]))
    return counted if step == 1 else counted * n // len(range(0, n, step))


def row_kappas(problem) -> np.ndarray:
    """``C_i||x_i||²`` for every sample (the diagonal of the dual's Hessian against a coordinate's unit step): their
    maximum is the model's ``kappa``, a quantile :func:`typical_kappa`."""
    sq = problem.row_norms_squared() if hasattr(problem, "row_norms_squared") else None   # cached, shared
    if sq is None or not np.all(np.isfinite(sq)):   # squares that overflowed: the scaled norms
        sq = scaled_row_norms(problem.X) ** 2
    C = np.asarray(problem.box, dtype=float) if hasattr(problem, "box") else 1.0
    return np.asarray(C * sq, dtype=float)


def costs(problem, warm: bool = False) -> dict:
    """The cost model's numbers for a linear soft-margin problem: ``kappa``, ``nnz``, and the estimates ``cd`` and
    ``ipm`` in seconds (module docstring)."""
    X = problem.X
    n, d = X.shape
    nnz = _nonzeros(X)
    kappa = float(np.max(row_kappas(problem))) if n else 0.0
    bias = bool(getattr(problem, "bias", False))
    epochs = CD_EPOCHS + kappa + kappa * kappa / CD_KAPPA2
    cd = CD_FIXED + (CD_OFFSET if bias else 0.0) + epochs * nnz / CD_EPOCH_RATE / (5.0 if warm else 1.0)
    return {"kappa": kappa, "nnz": nnz, "cd": cd, "ipm": ipm_seconds(n, d + int(bias), nnz, d)}


def margin_costs(problem, tol: float | None = None) -> dict:
    """The hard margin's model (module docstring): ``conditioning`` (``R/||mean_i y_i x_i||``, a lower bound on
    ``R/γ*``), ``epochs`` (the fewest epochs of ``dykstra-accelerated`` to ``tol``), ``epoch`` and ``dykstra`` (its
    seconds per epoch and in all) and ``ipm`` (``T_ipm``)."""
    X, y = problem.X, np.asarray(problem.y, dtype=float)
    n, d = X.shape
    nnz = _nonzeros(X)
    R = float(np.max(problem.row_norms())) if n else 0.0
    mean = float(np.linalg.norm(np.asarray(X.T @ y).ravel())) / max(n, 1)
    conditioning = R / mean if mean > 0 else math.inf
    tol = RB_DEFAULT_TOL if tol is None else float(tol)
    epochs = RB_EPOCHS * conditioning * (tol / 1e-4) ** -RB_TOL_POWER if tol > 0 else math.inf
    epoch = RB_EPOCH + n * RB_ROW + (X.nnz if sp.issparse(X) else n * d) * RB_ENTRY
    return {"conditioning": conditioning, "epochs": epochs, "epoch": epoch, "dykstra": epochs * epoch,
            "ipm": ipm_seconds(n, d, nnz, d)}


SMO_KAPPA = 200.0      # smo only where kappa = max C_i||x_i||² is at most this (its steps crawl beyond, as any dual
SMO_MAX_SAMPLES = 600    # coordinate method's) and n at most this: beyond, its Gram matrix costs more than the
#                          coordinate method's whole run


def smo_gram_seconds(n: int, nnz: int) -> float:
    """The model's set-up time of ``smo``: its fixed cost and the Gram matrix ``XXᵀ`` (``n·nnz`` multiply-adds at
    5e9 a second, a BLAS product)."""
    return SMO_FIXED + n * nnz / 5e9


def smo_seconds(n: int, nnz: int) -> float:
    """The model's ``T_smo`` (module docstring): :func:`smo_gram_seconds`, then ``SMO_STEPS·n`` pair steps of ``n``
    reads each."""
    return smo_gram_seconds(n, nnz) + SMO_STEPS * n * n * SMO_STEP


def choose(problem, warm: bool = False, tol: float | None = None) -> tuple[str, str]:
    """``(method, why)``: the method ``"auto"`` means for ``problem`` and the reason, in words (``warm``: for a path
    of warm-started solves; ``tol``: the run's, where the model depends on it)."""
    return _decide(problem, warm, tol)[:2]


def _ipm_applies(problem, roles: Roles) -> bool:
    X = getattr(problem, "X", None)
    return roles.ipm is not None and getattr(problem, "kernel", None) is None and \
        (isinstance(X, np.ndarray) or sp.issparse(X)) and X.shape[1] + 1 <= IPM_MAX_COLUMNS


def _decide(problem, warm: bool = False, tol: float | None = None,
            roles: Roles | None = None) -> tuple[str, str, str | None, float]:
    """``(method, why, probe, budget)``: :func:`choose`'s answer; for a soft margin where it is ``ipm``, the coordinate
    method a probe runs first and the model's ``T_ipm``; where it is ``smo``, the method that follows it when its
    probe stops, and that method's modelled time less ``smo``'s set-up; where it is ``dykstra-accelerated`` on the
    hard margin, the epochs it may run before ``ipm`` (``probe`` None). ``budget`` is 0.0 where nothing follows."""
    r = Roles(problem) if roles is None else roles
    first, ipm = r.first, r.ipm
    default = f"{first}: the first fast certified method listed for this problem"
    if problem.form == "MinNormFeasibility" and r.dykstra is not None and problem.n <= problem.X.shape[1]:
        return r.dykstra, (f"{r.dykstra}: n = {problem.n} <= d = {problem.X.shape[1]}: the dual is strongly concave "
                           "and plain Dykstra converges linearly"), None, 0.0
    if not _ipm_applies(problem, r):
        return first, default, None, 0.0
    if problem.form == "MaxMargin" and (problem.bias or first != r.accelerated):
        return ipm, f"{ipm}: the hard margin with an offset has no faster certified method", None, 0.0
    if problem.form == "MaxMargin":
        c = margin_costs(problem, tol)
        why = (f"R/||mean y_i x_i|| = {c['conditioning']:.3g} (a lower bound on R/margin), {problem.n} x "
               f"{problem.X.shape[1]}: at least {c['dykstra']:.3g} s for {first}, {c['ipm']:.3g} s for {ipm}")
        if not c["dykstra"] < c["ipm"]:
            return ipm, f"{ipm}: " + why, None, 0.0
        return first, f"{first}: {why} ({ipm} after {first} if it has not certified within {ipm}'s time)", None, \
            max(1.0, math.ceil(c["ipm"] / c["epoch"]))
    if problem.form != "SoftMarginSVM" or first != r.coordinate:
        return first, default, None, 0.0
    c = costs(problem, warm)
    why = (f"kappa = max C_i||x_i||^2 = {c['kappa']:.3g}, {problem.n} x {problem.X.shape[1]}, nnz {c['nnz']}: "
           f"estimated {c['cd']:.3g} s for {first}, {c['ipm']:.3g} s for {ipm}")
    method, cost = (ipm, c["ipm"]) if IPM_MARGIN * c["ipm"] < c["cd"] else (first, c["cd"])
    if not warm and r.pairwise is not None and c["kappa"] <= SMO_KAPPA and problem.n <= SMO_MAX_SAMPLES:
        t_smo = smo_seconds(problem.n, c["nnz"])
        if t_smo < cost:   # the probe counts the steps and checks (SMOState.total_work): the Gram matrix is off
            limit = max(cost - smo_gram_seconds(problem.n, c["nnz"]), 0.1 * cost)   # its budget
            return r.pairwise, (f"{r.pairwise}: {why}, {t_smo:.3g} s for {r.pairwise} (n <= {SMO_MAX_SAMPLES}, "
                                f"kappa <= {SMO_KAPPA:g}; {method} after it if its probe stops)"), method, limit
    if method == ipm:
        probe = first if c["ipm"] >= PROBE_MIN or typical_kappa(problem) <= PROBE_KAPPA else None
        return ipm, f"{ipm}: " + why, probe, c["ipm"]
    return first, f"{first}: " + why, None, c["ipm"]


def describe_choice(problem) -> str:
    """What ``solve("auto")`` runs for ``problem`` and why, in one line (the last line of ``compare``'s table)."""
    roles = Roles(problem)
    method, why, probe, _ = _decide(problem, roles=roles)
    if method == roles.pairwise:
        return why
    return why + (f" (after a probe of {probe}, which is kept where it certifies first)" if probe else "")


PROBE_FROM = 0.1    # a probe may stop once its work is this fraction of T_ipm (module docstring)
PROBE_MIN = 0.01    # seconds: below this T_ipm, no probe (its fixed costs would weigh as much as what it can save)
PROBE_KAPPA = 60.0  # ... unless the typical row's C_i||x_i||² (typical_kappa) is at most this
TYPICAL = 0.9       # the quantile of C_i||x_i||² that typical_kappa takes


def typical_kappa(problem) -> float:
    """The :data:`TYPICAL` quantile of ``C_i||x_i||²`` over the samples: the conditioning of most coordinates, where
    ``kappa`` (their maximum) may come from one outlying row."""
    values = row_kappas(problem)
    return float(np.quantile(values, TYPICAL)) if values.size else 0.0


class Probe:
    """The callback of a probing coordinate run (module docstring): ``probe(state)`` is True (stop) once the run's
    coordinate work ``state.total_work`` (model seconds) reaches ``T_ipm``, or from ``PROBE_FROM·T_ipm`` on, when the
    last two certificate checks (the plan's ``gap_of(state)`` at each new ``state.checked``) and the last two
    improvements of the best gap so far, each extrapolated at its rate (:func:`work_to_tol`) from the last check, do
    not reach ``state.tol`` within ``T_ipm`` (the best gap as well as the last: ``dual-cd-bias``'s gap is not monotone,
    its offset and multiplier move), nor the plan's restricted polish within it (``polish_eta``). ``stopped`` says
    whether it stopped the run, ``work`` is the work at its last call, ``checks`` holds ``(work, relative gap)`` at
    each check it saw and ``best`` those that lowered the best gap. The work is the coordinate visits in the model's
    seconds, as the plans' polish counts them: deterministic.

    No probe runs with a user's callback, with ``polish=False``, or where ``T_ipm`` is under ``PROBE_MIN`` unless the
    90th percentile of ``C_i||x_i||²`` (:func:`typical_kappa`) is at most ``PROBE_KAPPA``; ``ipm`` then runs
    outright."""

    def __init__(self, t_ipm: float, gap_of, polish_eta=None):
        self.budget, self.gap_of, self.polish_eta = float(t_ipm), gap_of, polish_eta
        self.checks: list = []
        self.best: list = []   # the checks that lowered the best gap so far (its envelope)
        self.seen = -1
        self.work = 0.0   # the work at the last call
        self.stopped = False

    def __call__(self, st) -> bool:
        work = self.work = float(st.total_work)
        if st.checked >= 0 and st.checked != self.seen:
            self.seen = st.checked
            self.checks.append((work, float(self.gap_of(st))))
            if np.isfinite(self.checks[-1][1]) and (not self.best or self.checks[-1][1] < self.best[-1][1]):
                self.best.append(self.checks[-1])
        if work < PROBE_FROM * self.budget:
            return False
        if work < self.budget and len(self.checks) >= 2:
            if not self.checks[-1][1] > st.tol:   # the stop test certifies this iterate
                return False
            pairs = [self.checks[-2:]] + ([self.best[-2:]] if len(self.best) >= 2 else [])
            for (w0, g0), (w1, g1) in pairs:
                if np.isfinite(g1) and g0 > g1 > 0.0 and w1 > w0 and \
                        self.checks[-1][0] + work_to_tol(w0, g0, w1, g1, st.tol) <= self.budget:
                    return False
            if self.polish_eta is not None and work + self.polish_eta(st) <= self.budget:
                return False   # the plan's polish can still finish within the budget: its rate does not show it
        self.stopped = True   # at T_ipm, or no rate that reaches tol within it
        return True


class Runs:
    """The runs of one ``solve("auto")`` sharing the user's ``max_iter`` and ``time_limit``.

    The user's ``max_iter`` bounds the iterations of all the runs together: each run is given what the runs before it
    left (a run left with none is not started), and ``Result.iterations`` is their total (``info["chosen"]`` lists
    each run). Without ``max_iter`` each run has its own default budget. A ``time_limit`` covers every run, each
    given what is left. A run that ends on its budget (``user_limit`` not caused by the time limit, a callback or
    ``stop_when``) is followed by ``ipm`` where it applies (``info["chosen"]["fallback"]``); ``tol=0`` ("run the
    whole budget") is therefore honoured by the runs together. Options of the chosen method go to its first run
    only; the runs after it get the run options."""

    def __init__(self, options: dict):
        self.options, self.begin, self.runs = options, time.perf_counter(), []
        self.spent = ""   # which of the user's budgets next() found spent

    def add(self, method: str, res) -> None:
        self.runs.append({"method": method, "iterations": int(res.iterations), "status": res.status})

    def used(self) -> int:
        return sum(r["iterations"] for r in self.runs)

    def next(self) -> dict | None:
        """The run options of the next run (the method's own options and ``warm_start`` stay with the first), or
        None when the user's ``max_iter`` or ``time_limit`` is spent."""
        rest = {k: v for k, v in self.options.items() if k in RUN_OPTIONS and k not in ("warm_start", "resume")}
        if rest.get("max_iter") is not None:
            rest["max_iter"] = int(rest["max_iter"]) - self.used()
            if rest["max_iter"] <= 0:
                self.spent = "max_iter"
                return None
        if rest.get("time_limit") is not None:
            rest["time_limit"] = rest["time_limit"] - (time.perf_counter() - self.begin)
            if rest["time_limit"] <= 0.0:
                self.spent = "time limit"
                return None
        return rest

    def finish(self, res, chosen: dict):
        """``res`` (the last run's result) with ``info["chosen"]`` and the iterations of every run."""
        if len(self.runs) > 1:
            res.iterations = self.used()
            chosen["runs"] = list(self.runs)
        res.info["chosen"] = chosen
        return res


def _budget_stop(res) -> bool:
    """Whether a run ended on its iteration budget (not the time limit, a callback or ``stop_when``)."""
    return res.status == "user_limit" and res.info.get("stopped_by") is None


def solve_auto(problem, solve, compile_method, **options):
    """The method of :func:`choose` for ``problem`` with ``info["chosen"]``; where that is ``ipm`` for a soft margin,
    the coordinate method's probe first (module docstring; the run of ``compile_method(problem, method, **options)``,
    whose plan gives the probe its ``relative_gap``); ``dykstra-accelerated`` on the hard margin for at most
    ``T_ipm`` of its modelled epochs; and ``ipm`` after a run that ended on its budget, where ``ipm`` applies. The
    user's ``max_iter`` bounds the iterations of all the runs together (``Result.iterations`` is their total), each
    run given what the runs before it left; ``time_limit`` covers every run. ``solve`` and ``compile_method`` are
    :mod:`.solve`'s (passed in: that module imports this one)."""
    roles = Roles(problem)
    method, why, probe_method, budget = _decide(problem, tol=options.get("tol"), roles=roles)
    runs = Runs(options)
    ipm = roles.ipm

    def probe_then(first, then, why_first):
        """Run ``first`` with a :class:`Probe` of ``budget`` (model seconds), then ``then`` if the probe stops it or it
        ends on its budget; ``info["chosen"]`` records both."""
        plan = compile_method(problem, first, **options)   # what solve(...) runs, kept for its relative_gap
        probe = Probe(budget, plan.relative_gap, getattr(plan, "polish_eta", None))
        res = plan.run(callback=probe)
        runs.add(first, res)
        record = {"method": first, "work": probe.work, "budget": budget,
                  "relative_gap": res.certificate.get("relative_gap"), "iterations": res.iterations}
        handover = probe.stopped or _budget_stop(res)
        rest = runs.next() if handover else None
        if rest is None:   # finished, stopped by the user's limits, or no budget left for the other method
            kept = f"the {runs.spent} is spent: kept" if handover else f"{res.status}: kept"
            return runs.finish(res, {"method": first, "why": why_first, "probe": {**record, "outcome": kept}})
        within = "T_ipm" if then == ipm else f"the model's time for {then}"
        outcome = (f"its certified gap's rate would not reach tol within {within}: {then}" if probe.stopped else
                   f"it ended on its budget: {then}")
        again = solve(problem, then, **rest)
        runs.add(then, again)
        return runs.finish(again, {"method": then, "why": why, "probe": {**record, "outcome": outcome}})

    if method == roles.pairwise:
        if options.get("callback") is None and set(options) <= set(RUN_OPTIONS):
            return probe_then(method, probe_method, why)
        method, probe_method = probe_method, None   # a callback or a method's own option: the model's other choice
    if probe_method is not None and options.get("callback") is None and options.get("polish", True) is not False:
        return probe_then(probe_method, ipm, probe_method + why[len(ipm):])
    first_options = dict(options)
    capped = problem.form == "MaxMargin" and method == roles.accelerated and budget > 0 and \
        options.get("callback") is None
    if capped:   # at most T_ipm of its modelled epochs (and the user's max_iter), then ipm
        cap = int(budget)
        first_options["max_iter"] = cap if options.get("max_iter") is None else min(cap, int(options["max_iter"]))
    res = solve(problem, method, **first_options)
    runs.add(method, res)
    chosen = {"method": method, "why": why}
    if method != ipm and _budget_stop(res) and _ipm_applies(problem, roles) and \
            options.get("callback") is None and (rest := runs.next()) is not None:
        again = solve(problem, ipm, **rest)
        runs.add(ipm, again)
        return runs.finish(again, {"method": ipm, "why": why, "fallback": f"{method} ended on its budget "
                                   f"({res.iterations} iterations, relative gap "
                                   f"{res.certificate.get('relative_gap')})"})
    return runs.finish(res, chosen)


class AutoPlan:
    """``compile("auto")``: the compiled chooser (the card of ``auto`` in the registry's CHOOSERS); ``run()`` makes the
    choice and its runs (:func:`solve_auto`) with the options given at compile time."""

    def __init__(self, problem, options: dict, method: str = "auto"):
        self.problem, self.options, self.method = problem, dict(options), method

    @classmethod
    def compile(cls, problem, options: dict, method: str = "auto") -> AutoPlan:
        return cls(problem, options, method)

    def run(self, **options):
        from .solve import compile_method, solve   # the engine's front door (it imports this module's card lazily)
        return solve_auto(self.problem, solve, compile_method, **{**self.options, **options})

