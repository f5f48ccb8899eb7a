"""``solve("auto")`` (and ``method=None`` in the estimator and ``path``): the fast certified method for the data.

**The cost model** (seconds, a 2-core laptop-class machine; only the ratio matters).

* Dual coordinate ascent (``dual-cd``, ``dual-cd-bias``; Hsieh et al., ICML 2008) costs one pass over the nonzeros per
  epoch, ``T_cd ≈ CD_FIXED + E·nnz / CD_EPOCH_RATE`` (``1e9`` nonzeros a second: an epoch with the vectorised row dot,
  its shrinking and its certificate checks, in full-epoch equivalents), and its epochs grow with the conditioning
  ``κ = max_i C_i ||x_i||²`` (the largest diagonal entry of the dual's Hessian against the unit step of a coordinate):
  ``E ≈ 30 + κ + κ²/300``; the exact offset adds ``CD_OFFSET`` (1 ms: its multiplier loop, measured 0.4-1.4 ms on the
  small sets, where ``dual-cd-bias`` took 2-3 times ``dual-cd``'s 0.2-0.5 ms) and 10-50 % to the epochs at scale
  (100,000 × 50: 0.44 s against 0.36 s), which ``IPM_MARGIN`` covers. On rows of unit norm at ``C = 1`` that is a few
  dozen epochs; on raw features ``κ`` is in the thousands to millions, and the coordinate methods crawl (20,000 × 100
  with gamma column scales: no 1e-2 gap in 120 s without the polish). Along a path (``warm=True``) the warm starts
  divide it by 5 (measured: 20 points of a 100,000-row path cost 25 times less than 20 cold solves; the interior-point
  method starts cold). Calibrated (2026-11-28, one BLAS thread, to 1e-4) on 84 instances with and without the offset:
  the 56 sets of ``benchmarks/small_sets.py``, the 18 of ``benchmarks/auto_choice.py`` and Gaussian 5,000 × 20 to
  100,000 × 50 (labels independent of X, or classes pushed apart with 2 % flipped). The equivalents
  ``(T − 0.2 ms)·1e9/nnz`` of the measured ``dual-cd`` runs were 20-200 for ``κ <= 200`` (100,000 × 50, ``κ = 111``:
  111, ``dual-cd`` 0.56 s against ``ipm``'s 0.74 s), and from ``κ`` about 1,000 on anywhere from ``0.01κ`` (digits,
  where shrinking leaves few rows) to ``6κ`` (raw KEEL tae, 151 rows); beyond ``κ = 1e4`` the restricted polish keeps
  them at 1e3-3e4 (1.5e5 on raw wine with the offset). The quadratic term keeps the model on the safe side there: a
  wrong ``ipm`` costs at most a few times the coordinate method's time (and the probe below recovers most of it), a
  wrong coordinate method up to 10-50 times ``ipm``'s. The previous model, ``30 + 10κ`` epochs at ``5e8`` nonzeros a
  second, was 20 times too slow at ``κ`` about 100 and picked ``ipm`` on well-conditioned 100,000 × 50 Gaussian data,
  where the probe's early rate handed over to it: ``auto`` 0.71-0.92 s against the coordinate method's 0.37-0.60 s. On
  the 168 problems (``auto`` with its probes, over the faster of ``ipm`` and the coordinate method, each timed alone):
  geometric mean 1.12 -> 1.08, over 1.3x on 27 -> 17, over 2x on 8 -> 6, worst 2.94x -> 2.56x; the 100,000 × 50
  Gaussian cases 0.67-0.88 s -> 0.39-0.64 s, within 6 % of the coordinate method.
* The interior-point method (``ipm``; Ferris & Munson 2003) takes a dozen to a few dozen iterations whatever
  ``κ`` (10 to 22 at 10 % flipped labels, 35 to 58 on separable data; the model counts 20), each one a Gram product
  of ``X`` with a diagonal, a ``d × d`` Cholesky factorisation and about thirty length-n vector operations::

      T_ipm ≈ 1 ms + 20·(0.2 ms + n/9e6 + Gram + d³/2e11)
      Gram  = n·d²/6e10 + n·d/5e8          (dense: blocks of rows scaled by √D, then dsyrk)
            = 3e-9·nnz²/n + 7e-9·d²         (below 30 % nonzeros: one sparse product and its dense d × d copy)

  (seconds; calibrated 2026-11-28 with one BLAS thread on dense 500 × 10 to 100,000 × 10, 20,000 × 50 and × 100,
  5,000 × 300, 1,000 × 784, 2,000 × 1,500, and CSR 20,000 × 1,000 at 1 %, 50,000 × 2,000 at 0.2 %, 5,000 × 500 at
  5 %: each iteration within 30 % of the measured one, where the previous model, ``25·n·d²/1e10`` plus 6 ms, was
  10 times too low at d = 10 and 4 to 7 times too high at d >= 300). The nonzeros decide between the two Gram
  terms for a NumPy array and a CSR matrix alike, so the same data get the same method. ``ipm`` is offered up to
  its ``max_columns`` (3000).

* Sequential minimal optimisation (``smo``, for an offset; Platt 1998, Fan, Chen & Lin 2005) forms the ``n × n``
  Gram matrix and takes pair steps over all samples: ``T_smo ≈ 0.2 ms + n·nnz/5e9 + n·n·6e-9`` (the Gram product at
  BLAS rates, then about ``n`` steps of ``n`` reads each). It is considered only for ``n <= SMO_MAX_SAMPLES`` (600)
  and ``κ <= SMO_KAPPA`` (200): its steps crawl on badly conditioned data as any dual coordinate method's, and from
  about a thousand samples the Gram matrix costs more than ``dual-cd-bias``'s whole run (measured on 33 small real
  sets, one BLAS thread, to 1e-4: iris setosa 0.35 ms against 2.1 ms for ``dual-cd-bias`` and 2.6 ms for ``ipm``,
  sonar 0.65 / 1.8 / 2.3 ms, MNIST 4 vs 9 21 / 8.4 ms, river's phishing 4.3 / 1.6 ms). Where its estimate beats the
  model's other choice, ``solve("auto")`` runs ``smo`` as a probe (below) with that choice's modelled time as its
  budget, the Gram matrix taken off it, and runs the other choice if the probe stops.

``ipm`` is picked only when its estimate is under half the coordinate method's (:data:`IPM_MARGIN`): on
well-conditioned data the two are close (100,000 × 50 above) and the default must never be slower than the coordinate
method it replaces. ``Result.info["chosen"]`` says which and why.

**The probe** (``solve("auto")``). The coordinate estimate is an upper bound, often a loose one: shrinking makes the
epochs of separable or nearly separable data cheap whatever ``κ`` (raw 10,000 × 10 with ``κ = 151``: 5.7 ms for
``dual-cd``, 28 ms for ``ipm``; raw 50,000 × 5: 13 ms against 170 ms). So where the model picks ``ipm`` for a soft
margin, ``solve("auto")`` first runs the coordinate method as a probe and switches only when its certified gap stops
shrinking fast enough. The probe's work is counted in the model's seconds (the coordinate visits, as the plans'
polish counts them: deterministic, so a seed gives the same result on any machine). Once it has done
``PROBE_FROM·T_ipm``, it stops at the first certificate check whose rate, extrapolated from the last two checks,
says it would not reach ``tol`` within ``T_ipm`` of work in all (unless the plan's restricted polish could still be
tried and finish within ``T_ipm``: ``polish_eta``; a rate of the epochs does not foresee it: on raw gamma-scaled
5,000 × 20 with an offset the gap stalls near 0.1 until the polish solves the problem, 15 ms against 47 ms for the
probe then ``ipm``), and at ``T_ipm`` in any case; ``ipm`` then runs from a cold start (``info["chosen"]["probe"]``
records the probe; a ``time_limit`` covers both runs). Where ``ipm``
was the right choice, the probe cost 10 to 77 % of its time on the instances of ``benchmarks/auto_choice.py`` (most
often about 20 %); where it was not, the run is the coordinate method's (raw 50,000 × 5: 14 ms, where the model alone
took 183 ms). No probe with a user's callback, with ``polish=False``, or where ``T_ipm`` is under ``PROBE_MIN`` (its
fixed costs would weigh as much as what it can save) unless most rows are well conditioned: the 90th percentile of
``C_i||x_i||²`` (:func:`typical_kappa`) at most ``PROBE_KAPPA``, where ``kappa`` comes from a few outlying rows
(z-scored data). Measured on the 112 problems of ``benchmarks/small_sets.py`` (one BLAS thread, to 1e-4; ``T_ipm``
overestimates ``ipm`` there by 2-3x: 7-10 iterations where the model counts 20): 15 ran faster, by up to 5.5x
(KEEL segment z-scored with an offset 15.7 -> 2.9 ms, breast cancer z-scored 4.0 -> 0.8 ms, KEEL wisconsin z-scored
with an offset 4.2 -> 1.2 ms), 3 slower where the probe lost (KEEL segment z-scored without an offset 5.3 -> 14.0 ms,
KEEL australian z-scored 1.35x), the geometric mean of the times 0.87x; the threshold 20 gave 0.95x with 5 faster
and none slower. ``PROBE_MIN`` was then lowered from 20 to 10 ms for scikit-learn's digits (1,797 × 64, ``T_ipm``
16 ms, ``kappa`` 2.3e3 to 5.9e3, where ``dual-cd``/``dual-cd-bias`` certify 1e-4 in 2.4-5 ms and ``ipm`` takes
7-15 ms): of the 112 problems, 6 changed, digits raw with and without the offset and z-scored with it
16.9 -> 5.1, 15.3 -> 3.0 and 15.7 -> 2.5 ms, digits z-scored without it 8.2 -> 10.2 ms and KEEL segment raw
(2,310 × 19) 18.4 -> 19.9 and 15.2 -> 18.7 ms (the probe lost); ``auto`` over the fastest of its own methods,
geometric mean 1.25 -> 1.18 and worst 6.4x -> 2.8x; on ``benchmarks/auto_choice.py`` no instance changed its choice
or its probe. A coordinate run that ends on its budget (``user_limit``: its certified gap stopped shrinking fast
enough) is followed by ``ipm`` where that method applies (``info["chosen"]["fallback"]``). The estimator's
``method=None`` probes too when it has no warm start; ``path`` takes the model's choice without a probe (its warm
starts are per method). Other problems take the first of the estimator's preferred methods that ``methods(problem)``
lists, else the CVXPY reference.
"""
from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp

from ..core.linalg import scaled_row_norms
from .graph import methods
from .options import RUN_OPTIONS

#: the fast certified methods tried first for each (form, bias), in order; a method the problem does not list (a
#: kernel, an offset, sample weights it does not handle) is skipped, then the CVXPY reference is the fallback
PREFERRED = {
    ("SoftMarginSVM", True): ("dual-cd-bias", "fista"),
    ("SoftMarginSVM", False): ("dual-cd", "fista"),
    # dykstra-accelerated certifies 1e-4 in about half the iterations of dual-accelerated (measured on random and
    # digits 0-vs-1 data); it has no kernel form, dual-accelerated has. With an offset the interior-point method
    # (below) or the slow 'homotopic' besides CVXPY.
    ("MaxMargin", False): ("dykstra-accelerated", "dual-accelerated"),
    ("MaxMargin", True): (),
    ("PerturbedSVMDual", True): ("fista",),
}
IPM_MAX_COLUMNS = 3000
IPM_MARGIN = 2.0   # ipm only where its estimate is this many times below the coordinate method's
CD_FIXED = 1e-3   # seconds of a coordinate run's fixed cost (setup, certificates)
CD_EPOCHS, CD_KAPPA2 = 30.0, 300.0   # the coordinate model's epochs: CD_EPOCHS + κ + κ²/CD_KAPPA2 (module docstring)
CD_OFFSET = 1e-3   # seconds the exact offset adds to a coordinate run (its multiplier loop; module docstring)
CD_EPOCH_RATE = 1e9   # nonzeros per second of a coordinate run, in full-epoch equivalents (module docstring)
IPM_FIXED, IPM_ITERATIONS, IPM_PER_ITERATION = 1e-3, 20, 2e-4   # ipm's setup, iterations, Python work per iteration
IPM_PER_SAMPLE = 1.0 / 9e6   # seconds per sample and iteration: ipm's length-n vector operations
CD_RATE = 5e8   # nonzeros per second of a product with X in smo's work model (svm_smo: a certificate is two)


def _preferred(problem, listed) -> str:
    for name in PREFERRED.get((problem.form, bool(getattr(problem, "bias", True))), ()):
        if name in listed:
            return name
    return "cvxpy" if "cvxpy" in listed or not listed else listed[0]


SAMPLE_ABOVE, SAMPLE_STEP = 1 << 17, 8   # entries above which the nonzeros are counted on every 8th row


def _nonzeros(X) -> int:
    """The nonzeros of ``X``, counted the same way for a NumPy array and a CSR matrix (the same data get the same
    choice): exactly up to :data:`SAMPLE_ABOVE` entries, else on every :data:`SAMPLE_STEP`-th row and scaled (a
    count over all of a dense ``X`` cost 0.3 ms on MNIST 4 vs 9, 1,000 × 784, whose solve takes 7 ms)."""
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


def ipm_seconds(n: int, dd: int, nnz: int, d: int | None = None) -> float:
    """The model's ``T_ipm`` (module docstring) for ``n`` rows with ``nnz`` nonzeros in ``d`` columns (``dd``: with
    the offset's column); also what the restricted interior-point polish of the coordinate plans is charged
    (:mod:`marginkit.plans.raj_bach.polish`)."""
    d = dd if d is None else d
    if nnz < 0.3 * n * d:   # a sparse Gram product beats the dense one below about 30 % density
        gram = 3e-9 * nnz * nnz / max(n, 1) + 7e-9 * dd * dd
    else:
        gram = n * dd * dd / 6e10 + n * dd / 5e8
    iteration = IPM_PER_ITERATION + n * IPM_PER_SAMPLE + gram + dd ** 3 / 2e11
    return IPM_FIXED + IPM_ITERATIONS * iteration


SMO_KAPPA = 200.0      # smo only where kappa = max C_i||x_i||² is at most this (its steps crawl beyond, as any dual
SMO_MAX_SAMPLES = 600    # coordinate method's) and n at most this: its Gram matrix costs about n/10 epochs of the
#                          coordinate method (measured: smo 2-6x faster than dual-cd-bias up to n = 500, slower from
#                          n = 1,000: MNIST 4 vs 9 21 ms / 8.4 ms, river's phishing 4.3 ms / 1.6 ms)
SMO_FIXED, SMO_STEPS, SMO_STEP = 2e-4, 1.0, 6e-9   # seconds of setup; pair steps per sample; seconds per sample a
#                        step reads (its selection and the update of n scores)


def smo_gram_seconds(n: int, nnz: int) -> float:
    """The model's set-up time of ``smo``: its fixed cost and the Gram matrix ``XXᵀ`` (``n·nnz`` multiply-adds at
    5e9 a second, a BLAS product)."""
    return SMO_FIXED + n * nnz / 5e9


def smo_seconds(n: int, nnz: int) -> float:
    """The model's ``T_smo`` (module docstring): :func:`smo_gram_seconds`, then ``SMO_STEPS·n`` pair steps of ``n``
    reads each."""
    return smo_gram_seconds(n, nnz) + SMO_STEPS * n * n * SMO_STEP


def choose(problem, warm: bool = False) -> tuple[str, str]:
    """``(method, why)``: the method ``"auto"`` means for ``problem`` and the reason, in words (``warm``: for a path
    of warm-started solves)."""
    return _decide(problem, warm)[:2]


def _decide(problem, warm: bool = False) -> tuple[str, str, str | None, float]:
    """``(method, why, probe, budget)``: :func:`choose`'s answer; where it is ``ipm`` for a soft margin, the coordinate
    method a probe runs first and the model's ``T_ipm``; where it is ``smo``, the method that follows it when its
    probe stops, and that method's modelled time less ``smo``'s set-up (``probe`` None: no probe)."""
    listed = methods(problem)
    first = _preferred(problem, listed)
    linear = getattr(problem, "kernel", None) is None
    host = isinstance(getattr(problem, "X", None), np.ndarray) or sp.issparse(getattr(problem, "X", None))
    if "ipm" not in listed or not linear or not host or problem.X.shape[1] + 1 > IPM_MAX_COLUMNS:
        return first, f"{first}: the first fast certified method listed for this problem", None, 0.0
    if problem.form == "MaxMargin" and first in ("cvxpy", "homotopic"):
        return "ipm", "ipm: the hard margin with an offset has no faster certified method", None, 0.0
    if problem.form != "SoftMarginSVM" or first not in ("dual-cd", "dual-cd-bias"):
        return first, f"{first}: the first fast certified method listed for this problem", None, 0.0
    c = costs(problem, warm)
    why = (f"kappa = max C_i||x_i||^2 = {c['kappa']:.3g}, {problem.n} x {problem.X.shape[1]}, nnz {c['nnz']}: "
           f"estimated {c['cd']:.3g} s for {first}, {c['ipm']:.3g} s for ipm")
    method, cost = ("ipm", c["ipm"]) if IPM_MARGIN * c["ipm"] < c["cd"] else (first, c["cd"])
    if not warm and first == "dual-cd-bias" and "smo" in listed and c["kappa"] <= SMO_KAPPA and \
            problem.n <= SMO_MAX_SAMPLES:
        t_smo = smo_seconds(problem.n, c["nnz"])
        if t_smo < cost:   # the probe counts the steps and checks (SMOState.total_work): the Gram matrix is off
            limit = max(cost - smo_gram_seconds(problem.n, c["nnz"]), 0.1 * cost)   # its budget
            return "smo", (f"smo: {why}, {t_smo:.3g} s for smo (n <= {SMO_MAX_SAMPLES}, kappa <= {SMO_KAPPA:g}; "
                           f"{method} after it if its probe stops)"), method, limit
    if method == "ipm":
        probe = first if c["ipm"] >= PROBE_MIN or typical_kappa(problem) <= PROBE_KAPPA else None
        return "ipm", "ipm: " + why, probe, c["ipm"]
    return first, f"{first}: " + why, None, c["ipm"]


def describe_choice(problem) -> str:
    """What ``solve("auto")`` runs for ``problem`` and why, in one line (the last line of ``compare``'s table)."""
    method, why, probe, _ = _decide(problem)
    if method == "smo":
        return why
    return why + (f" (after a probe of {probe}, which is kept where it certifies first)" if probe else "")


PROBE_FROM = 0.1    # a probe may stop once its work is this fraction of T_ipm (module docstring)
PROBE_MIN = 0.01    # seconds: below this T_ipm, no probe (its fixed costs would weigh as much as what it can save)
PROBE_KAPPA = 60.0  # ... unless the typical row's C_i||x_i||² (typical_kappa) is at most this
TYPICAL = 0.9       # the quantile of C_i||x_i||² that typical_kappa takes


def typical_kappa(problem) -> float:
    """The :data:`TYPICAL` quantile of ``C_i||x_i||²`` over the samples: the conditioning of most coordinates, where
    ``kappa`` (their maximum) may come from one outlying row (z-scored data: 422 against 57 on breast cancer, 942
    against 35 on KEEL segment)."""
    values = row_kappas(problem)
    return float(np.quantile(values, TYPICAL)) if values.size else 0.0


def work_to_tol(w0: float, g0: float, w1: float, g1: float, tol: float) -> float:
    """The work still needed to bring the relative gap from ``g1`` down to ``tol`` at the rate of two certificate
    checks (gap ``g0`` after work ``w0``, ``g1`` after ``w1``; linear convergence, ``0 < g1 < g0``, ``g1 > tol``):
    ``(w1 − w0)·log(g1/tol)/log(g0/g1)``. The polish of the coordinate plans and the probe below both decide by it."""
    return (w1 - w0) * np.log(g1 / tol) / np.log(g0 / g1)


class Probe:
    """The callback of a probing coordinate run (module docstring): ``probe(state)`` is True (stop) once the run's
    coordinate work ``state.total_work`` (model seconds) reaches ``T_ipm``, or from ``PROBE_FROM·T_ipm`` on, when the
    last two certificate checks (the plan's ``gap_of(state)`` at each new ``state.checked``) and the last two
    improvements of the best gap so far, each extrapolated at its rate (:func:`work_to_tol`) from the last check, do
    not reach ``state.tol`` within ``T_ipm``. The best gap as well as the last: on raw 100,000 x 10 with 20 % flipped
    labels and the offset, `dual-cd-bias`'s gap went 128 -> 104 -> 208 -> 227 -> 164 -> 53 over six checks and it
    certified 1e-4 in 0.11 s, but the rise stopped the probe (the last two checks had no rate) and ``ipm`` took
    0.26 s in all; the last two checks alone keep a probe whose gap rose and falls back fast. ``stopped`` says
    whether it stopped the run, ``work`` is the work at its last call, ``checks`` holds ``(work, relative gap)`` at
    each check it saw and ``best`` those that lowered the best gap."""

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
            # the rate of the last two checks, or of the best gap's last two improvements (dual-cd-bias's gap is not
            # monotone: its offset and multiplier move), from the last check on
            pairs = [self.checks[-2:]] + ([self.best[-2:]] if len(self.best) >= 2 else [])
            for (w0, g0), (w1, g1) in pairs:
                if np.isfinite(g1) and g0 > g1 > 0.0 and w1 > w0 and \
                        self.checks[-1][0] + work_to_tol(w0, g0, w1, g1, st.tol) <= self.budget:
                    return False
            if self.polish_eta is not None and work + self.polish_eta(st) <= self.budget:
                return False   # the plan's polish can still finish within the budget: its rate does not show it
        self.stopped = True   # at T_ipm, or no rate that reaches tol within it
        return True


def solve_auto(problem, solve, compile_method, **options):
    """``solve(problem, choose(problem)[0], **options)`` with ``info["chosen"]``; where that is ``ipm`` for a soft
    margin, the coordinate method's probe first (module docstring; the run of ``compile_method(problem, method,
    **options)``, whose plan gives the probe its ``relative_gap``); and ``ipm`` after a coordinate run that ended on
    its budget where ``ipm`` applies. ``solve`` and ``compile_method`` are :mod:`.solve`'s (passed in: that module
    imports this one)."""
    method, why, probe_method, budget = _decide(problem)
    begin = time.perf_counter()

    def to_ipm():
        """The options of the run that follows a coordinate run or a probe (None: the time limit is spent)."""
        rest = {k: v for k, v in options.items() if k not in ("max_iter", "warm_start")}
        if rest.get("time_limit") is not None:   # the user's time limit covers both runs
            rest["time_limit"] = rest["time_limit"] - (time.perf_counter() - begin)
            if rest["time_limit"] <= 0.0:
                return None
        return rest

    def probe_then(first, then, why_first):
        """Run ``first`` with a :class:`Probe` of ``budget`` (model seconds), then ``then`` if the probe stops it or it
        ends on its budget; ``info["chosen"]`` records both."""
        plan = compile_method(problem, first, **options)   # what solve(...) runs, kept for its relative_gap
        probe = Probe(budget, plan.relative_gap, getattr(plan, "polish_eta", None))
        res = plan.run(callback=probe)
        record = {"method": first, "work": probe.work, "budget": budget,
                  "relative_gap": res.certificate.get("relative_gap"), "iterations": res.iterations}
        ended = res.status == "user_limit" and res.info.get("stopped_by") is None   # its own budget
        rest = to_ipm() if probe.stopped or ended else None
        if rest is None:   # finished, stopped by the user's limits, or no time left for the other method
            kept = "the time limit is spent: kept" if probe.stopped or ended else f"{res.status}: kept"
            res.info["chosen"] = {"method": first, "why": why_first, "probe": {**record, "outcome": kept}}
            return res
        within = "T_ipm" if then == "ipm" else f"the model's time for {then}"
        outcome = (f"its certified gap's rate would not reach tol within {within}: {then}" if probe.stopped else
                   f"it ended on its budget: {then}")
        again = solve(problem, then, **rest)
        again.info["chosen"] = {"method": then, "why": why, "probe": {**record, "outcome": outcome}}
        return again

    if method == "smo":
        if options.get("callback") is None and set(options) <= set(RUN_OPTIONS):
            return probe_then("smo", probe_method, why)
        method, probe_method = probe_method, None   # a callback or a method's own option: the model's other choice
    if probe_method is not None and options.get("callback") is None and options.get("polish", True) is not False:
        return probe_then(probe_method, "ipm", probe_method + why[len("ipm"):])
    res = solve(problem, method, **options)
    chosen = {"method": method, "why": why}
    if method in ("dual-cd", "dual-cd-bias") and res.status == "user_limit" and \
            res.info.get("stopped_by") is None and "ipm" in methods(problem) and \
            problem.X.shape[1] + 1 <= IPM_MAX_COLUMNS and options.get("callback") is None and \
            (rest := to_ipm()) is not None:
        again = solve(problem, "ipm", **rest)
        again.info["chosen"] = {"method": "ipm", "why": why, "fallback": f"{method} ended on its budget "
                                f"({res.iterations} iterations, relative gap {res.certificate.get('relative_gap')})"}
        return again
    res.info["chosen"] = chosen
    return res

