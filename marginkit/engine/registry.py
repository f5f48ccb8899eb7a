"""The registry: one explicit table of every method marginkit has (CVXPY's ``reductions/solvers/defines.py`` idea).

Each :class:`~marginkit.engine.cards.MethodCard` names a method, the problem form it accepts, where its class lives
(``"module:Class"``, imported only when the method is compiled), the classes it runs instead on some data
(``variants``), what it admits beyond the narrowest form and what it requires (the reason a user reads), its place in
``solve("auto")``'s order, and what the methods page says of it (paper, algorithm, proven rate, the documented
agreement tolerance at the default comparison budget, tags). Nothing registers itself by being imported: a method
exists because it has a line here, and ``tests/test_contract.py`` checks every line. The card itself, and the
vocabularies its fields draw on, are :mod:`.cards`.

The reductions between forms are the second table, :data:`REDUCTIONS`; the methods that choose another for the data
(``auto``) the third, :data:`CHOOSERS`. The reduction graph of :mod:`marginkit.engine.graph` is built from them.
"""
from __future__ import annotations

from dataclasses import replace

from ..core.validation import ProblemError
from .cards import (CHECKS, FEATURES, GRAM_MAX_SAMPLES, VARIANT_KEYS, MethodCard, ReductionCard,  # noqa: F401
                    Theorem, _array_kind)

_NO_KERNEL_PRIMAL = ("no_kernel",
                     "this plan works on the primal iterate w, not with a kernel (use 'diagonal' or 'cvxpy')")
LINEAR_HOMOGENEOUS = (_NO_KERNEL_PRIMAL,
                      ("no_bias", "the paper's method and theorems are for homogeneous classifiers (bias=False)"))
# the JST plans that also run on the dual weights of a kernel problem (their cards' "kernel" variant, JST §3.2's
# dual form): homogeneous only
DUAL_FORM_HOMOGENEOUS = LINEAR_HOMOGENEOUS[1:]
HINGE_DUAL = (("no_bias", "the dual of AP (4.9) has no constraint yᵀa = 0: bias=False only "
                          "(use 'homotopic' for a post-hoc bias, or 'cvxpy')"),)
PRIMAL_W = (("no_kernel", "the homotopic subgradient method works on the primal w (no kernel; use 'diagonal')"),)
BOX_DUAL = (("no_kernel", "dual coordinate descent keeps the primal w = Σ a_i y_i x_i: linear problems only "
                          "(no kernel)"),
            ("no_bias", "the box dual 0 <= a <= C has no constraint yᵀa = 0: bias=False only "
                        "(use 'fista' or 'cvxpy' with a bias)"))
LP_AT_MOST_2 = (("p_at_most_2", "RB's dual coordinate methods need ψ = ½||·||_p² to be (p−1)-strongly convex, "
                                "which holds for 1 < p <= 2 only: for p > 2 it has zero curvature on the axes "
                                "(along e_2 at e_1), ψ* is not smooth and the steps 1/L_i of RB Lemma 1 do not exist; "
                                "use 'cvxpy'"),)

# the CVXPY reference runs on a NumPy copy of data that live elsewhere, and says so (Result.info["host_copy"])
HOST_COPY = ("numpy", "array-api", "dask")
# the batch plans written against core/backend: vectors stay where X lives
EVERYWHERE = ("numpy", "array-api", "dask")

UNWEIGHTED = (("unweighted", "this method solves the problem with one C for every sample: no sample_weight "
                             "(use a method listed by methods(problem))"),)

# the bounds that marginkit.bounds evaluates (the papers' statements and the typos resolved: its docstring)
JST_3_1 = Theorem("Ji, Srebro & Telgarsky (2021), Theorem 3.1(1)", "marginkit.api.bounds:jst_checks",
                  "marginkit.api.bounds:jst_records", ("margin", "R"))
AP_5_1 = Theorem("Apidopoulos, Poggio, Rosasco & Villa (2022), Theorem 5.1 (Prop. 5.1, Lemma 5.2)",
                 "marginkit.api.bounds:ap_linear_checks", "marginkit.api.bounds:ap_linear_records",
                 ("margin", "lambda_star", "hoffman_dual", "norm_w"))
AP_5_2 = Theorem("Apidopoulos, Poggio, Rosasco & Villa (2022), Theorem 5.2 (Lyapunov energy (A.63) from E_1)",
                 "marginkit.api.bounds:ap_inertial_checks", "marginkit.api.bounds:ap_inertial_records",
                 ("margin", "lambda_star"))
RB_8 = Theorem("Raj & Bach (2021), eq. (8) as corrected (APCG of Lin, Lu & Xiao 2015, mu = 0)",
               "marginkit.api.bounds:rb_checks", "marginkit.api.bounds:rb_records", ("w", "duality_gap"))
HV_A_2 = Theorem("Hough & Vavasis (2025), Theorem A.2 with Beck's FISTA rate (Thm 10.34)",
                 "marginkit.api.bounds:hv_checks", "marginkit.api.bounds:hv_records",
                 ("opnorm_A", "L", "v_D", "x_bar_norm", "delta_normalized", "separable"))

def reference(form: str, target: str, arrays: tuple = ("numpy",)) -> MethodCard:
    """The card of the CVXPY reference of ``form`` (``target``: its class)."""
    return MethodCard("cvxpy", form, target, paper="CVXPY reference", algorithm="interior point (Clarabel/ECOS) or SCS",
                      converges_to="certified optimum", rate="-", tolerance=1e-06, tags=("reference",), arrays=arrays,
                      admits=tuple(FEATURES))


# the Raj–Bach cards serve two forms: the general intersection of simple sets and, with row constraints,
# MinNormFeasibility (whose dask data run CoCoA+ with RB's Algorithm 1 / 2 on every row chunk, margins with p = 2)
_RB = 'marginkit.plans.raj_bach.coordinate_ascent:'
_RB_DYKSTRA = MethodCard(
    'dykstra', 'ProjectionOntoIntersection', _RB + 'RandomizedDykstra',
    paper='Raj & Bach (2021)', algorithm='Algorithm 1 (proximal randomized dual coordinate ascent, Lemma 1)',
    converges_to='the min-ψ feasible point θ* (RB eq. 2)',
    rate='E[gap] = O(n L_max / t) (eq. 5); linear when XXᵀ is invertible (observed, §4 (c))',
    tolerance=0.0001, requires=LP_AT_MOST_2, preference=2, tags=('coordinate', 'dykstra'))
_RB_ACCELERATED = MethodCard(
    'dykstra-accelerated', 'ProjectionOntoIntersection', _RB + 'AcceleratedDykstra',
    paper='Raj & Bach (2021)', algorithm='Algorithm 2 (APCG of Lin, Lu & Xiao 2015 with μ = 0)',
    converges_to='the Bregman projection of the point onto the intersection (returns θ(v_t))',
    rate='E[gap(v_t)] <= (2n/(2n+t))² [gap(α_0) + ½ Σ L_i ||λ*_i − α_0,i||²] (eq. 8, corrected)',
    tolerance=0.001, requires=LP_AT_MOST_2, preference=1, tags=('coordinate', 'dykstra', 'accelerated'),
    theorem=RB_8)
_RB_MIRROR = MethodCard(
    'mirror-descent', 'ProjectionOntoIntersection', 'marginkit.plans.raj_bach.mirror_descent:StochasticMirrorDescent',
    paper='Raj & Bach (2021)', algorithm='§2.5 eq. (10), sign corrected (Vaswani et al. 2018 for p = 2)',
    converges_to='a zero of F (eq. 9): the min-ψ point for interpolation (Lemma 2), some feasible point '
                 'otherwise (not the min-ψ one in general)',
    rate='E[F(θ̄_t)] <= L_max D_ψ(θ*, θ0)/t for the average (Thm 1); the last iterate is returned',
    tolerance=0.001, requires=LP_AT_MOST_2, preference=3, tags=('coordinate', 'stochastic'))
_ON_DASK = ("numpy", "dask")


def cocoa_margin_form(problem) -> tuple[bool, str]:
    """What the dask variant of the Dykstra cards (CoCoA+ over row chunks) solves: ``p = 2`` margin constraints
    without sample weights (its blocks' updates add up only where ``θ(λ)`` is linear in ``λ``); NumPy data: any."""
    if _array_kind(problem) != "dask":
        return True, ""
    if float(getattr(problem, "p", 2.0)) != 2.0 or getattr(problem, "constraint", "margin") != "margin":
        return False, ("on dask data the Dykstra methods run CoCoA+ (Ma et al. 2015), which needs p = 2 and margin "
                       "constraints: use p=2, or X.compute() for the NumPy plan")
    return True, ""
# the interior-point cards (one plan family on two forms): d × d normal equations, NumPy/SciPy data
_IPM = dict(paper='Ferris & Munson (2003); Gertz & Wright (2003, OOQP); Mehrotra (1992)',
            algorithm='primal–dual interior point, Mehrotra predictor–corrector; normal equations I + XᵀDX '
                      '(d × d, bordered with a bias) by Cholesky, dense (BLAS) or CSR',
            rate='O(√n log(1/ε)) iterations for short-step path following on convex QPs (Monteiro & Adler 1989, '
                 'Part II); none proven for Mehrotra\'s rule (stop by the certified gap)',
            requires=(("no_kernel", "the interior-point method works on the primal w: linear problems only "
                                    "(no kernel)"),),
            # the normal matrix by the backend's weighted Gram product (dask: summed across the row chunks), its
            # Cholesky factor on the host
            arrays=EVERYWHERE)


# the order of the table is the order of ``methods(problem)`` (after the reference)
METHODS: tuple[MethodCard, ...] = (
    MethodCard('dual-accelerated', 'MaxMargin', 'marginkit.plans.jst.dual_acceleration:DualAccelerated',
               paper='Ji, Srebro & Telgarsky (2021)',
               algorithm='Algorithm 1 (eq. 1.1)',
               converges_to='max-margin direction ū',
               rate='margin gap Õ(1/t²) (Thm 3.1)', rate_law=('power', 2.0),
               tolerance=0.001, requires=DUAL_FORM_HOMOGENEOUS, admits=("kernel",),
               preference=2, tags=('jst', 'accelerated'), arrays=EVERYWHERE,
               variants=(("kernel", "marginkit.plans.jst.kernel:KernelDualAccelerated"),), theorem=JST_3_1),
    MethodCard('dual-accelerated-stochastic', 'MaxMargin',
               'marginkit.plans.jst.dual_acceleration:DualAcceleratedStochastic',
               paper='Ji, Srebro & Telgarsky (2021)',
               algorithm='Algorithm 2',
               converges_to='max-margin direction ū',
               rate='theory variant: γ̄ − ε w.p. 1−δ after O(ln n/(γ̄²ε²)) steps (Thm 4.1); momentum variant: no proof',
               tolerance=0.02, requires=DUAL_FORM_HOMOGENEOUS, admits=("kernel",), tags=('jst', 'stochastic'),
               arrays=("numpy", "array-api"),   # dask: one row per step, not a batch method
               variants=(("kernel", "marginkit.plans.jst.kernel:KernelDualAcceleratedStochastic"),)),
    MethodCard('normalized-gd', 'MaxMargin', 'marginkit.plans.jst.dual_acceleration:NormalizedGD',
               paper='Ji, Srebro & Telgarsky (2021)',
               algorithm='baseline (Ji & Telgarsky 2019; Nacson et al. 2018)',
               converges_to='max-margin direction ū',
               rate='margin gap O(1/t) (θ=1); Õ(1/√t) (θ_t=1/√(t+1))', rate_law=('power', 1.0),
               tolerance=0.5, requires=LINEAR_HOMOGENEOUS, tags=('jst', 'baseline'), arrays=EVERYWHERE),
    MethodCard('gd', 'MaxMargin', 'marginkit.plans.jst.dual_acceleration:GradientDescent',
               paper='Ji, Srebro & Telgarsky (2021)',
               algorithm='baseline (Soudry et al. 2018), App. F',
               converges_to='max-margin direction ū',
               rate='margin gap O(1/log t)', rate_law=('log', 1.0),
               tolerance=1.0, requires=LINEAR_HOMOGENEOUS, tags=('jst', 'baseline'), arrays=EVERYWHERE),
    MethodCard('batch-perceptron', 'MaxMargin', 'marginkit.plans.jst.dual_acceleration:BatchPerceptron',
               paper='Ji, Srebro & Telgarsky (2021)',
               algorithm='baseline (Cotter, Shalev-Shwartz & Srebro 2012)',
               converges_to='max-margin direction ū',
               rate='margin gap O(1/√t) (projected subgradient)', rate_law=('power', 0.5),
               tolerance=0.1, requires=DUAL_FORM_HOMOGENEOUS, admits=("kernel",),
               tags=('jst', 'baseline'), arrays=EVERYWHERE,
               variants=(("kernel", "marginkit.plans.jst.kernel:KernelBatchPerceptron"),)),
    MethodCard('diagonal', 'MaxMargin', 'marginkit.plans.diagonal.diagonal:DiagonalDescent',
               paper='Apidopoulos, Poggio, Rosasco & Villa (2022)',
               algorithm='Algorithm 1 (eqs. 4.1-4.3), linear or kernel (Remark 4.1)',
               converges_to='hard-margin solution w* (min-norm separator), for any λ_t decreasing to 0',
               rate='dual gap r_t <= r_0 q^t, linear (Thm 5.1, if λ(0)‖u*‖_∞ <= 1); ‖w_t − w*‖ <= sqrt(2 r_t)',
               rate_law=('linear',),
               tolerance=0.1, requires=HINGE_DUAL, admits=("kernel",),
               tags=('hinge', 'diagonal'), arrays=EVERYWHERE, theorem=AP_5_1),
    MethodCard('diagonal-inertial', 'MaxMargin', 'marginkit.plans.diagonal.diagonal:InertialDiagonalDescent',
               paper='Apidopoulos, Poggio, Rosasco & Villa (2022)',
               algorithm='Algorithm 2 (eqs. 4.4-4.7), linear or kernel (Remark 4.1)',
               converges_to='hard-margin solution w* (min-norm separator), for any λ_t decreasing to 0',
               rate='‖w_t − w*‖ <= sqrt(2E_1)/(t+α-1), O(1/t) (Thm 5.2: α >= 3, λ(0)‖u*‖_∞ <= 1)',
               rate_law=('power', 1.0),
               tolerance=0.001, requires=HINGE_DUAL, admits=("kernel",),
               tags=('hinge', 'diagonal', 'accelerated'), arrays=EVERYWHERE,
               theorem=AP_5_2),
    MethodCard('homotopic', 'MaxMargin', 'marginkit.plans.homotopic.homotopic:HomotopicSubgradient',
               paper='Molitor, Needell & Ward (2021)',
               algorithm='Algorithm 1 (homotopic averaged subgradient, or best iterate (§6.4); geometric schedules '
                         '[RECON]; λ0 = σnγ̄² >= λ* from a certified margin bound); bias: post-hoc b of §6.5',
               converges_to='hard-margin solution w* (with bias: w*, b*)',
               rate='‖w̃_K − w*‖ and margin gap O(T^(-1/(4+δ))) = O(T^(-1/6)) at the default δ = 2, in subgradient '
                    'evaluations T (Thm 3.1, Lemma 3.4 [RECON])', rate_law=('power', 1 / 6),
               # a documented cap (2,000 steps, ~1 s), not the budget the rate needs: T^(-1/6) needs 10^6 times the
               # steps per decade of accuracy (mnist-0-vs-1 would need ~1e16 steps; the toy sets agree within 3·10^4
               # with λ0 = 2λ*, c = 16, tests/test_homotopic.py; crossval's note states the prediction)
               tolerance=0.02, budget=2000, requires=PRIMAL_W, admits=("bias",),
               tags=('hinge', 'subgradient'), arrays=EVERYWHERE),
    MethodCard('ipm', 'MaxMargin', 'marginkit.plans.ipm.margin:MaxMarginIPM', **_IPM,
               admits=("bias",), preference=3,
               converges_to='hard-margin solution (w*, b*) (with or without bias); non-separable: infeasible with '
                            'the exact hull proof', tolerance=0.0001, tags=('interior-point',)),
    reference('MaxMargin', 'marginkit.reference.margin:MaxMarginReference', arrays=HOST_COPY),
    MethodCard('diagonal', 'SoftMarginSVM', 'marginkit.plans.diagonal.diagonal:SoftMarginDiagonal',
               paper='Apidopoulos, Poggio, Rosasco & Villa (2022)',
               algorithm='Algorithm 1 with the constant schedule λ_t = 1/C (projected gradient on the dual (4.9))',
               converges_to='soft-margin SVM solution (bias=False), C = 1/λ',
               rate="dual objective O(1/t) (projected gradient, γ <= 1/‖Q‖); linear under Lemma 5.4's error bound",
               tolerance=0.0001, requires=HINGE_DUAL + UNWEIGHTED, admits=("kernel",), tags=('hinge', 'diagonal'),
               arrays=EVERYWHERE),
    MethodCard('fista', 'SoftMarginSVM', 'marginkit.plans.hough_vavasis.svm_dual:SoftMarginFista',
               paper='Beck & Teboulle (2009) FISTA on the SVM dual (12); knapsack projection of Hough & Vavasis (2025)',
               algorithm='FISTA with function restart on the dual (12), projection onto Ω (13)–(14) (§2.6)',
               converges_to='the soft-margin SVM optimum (w*, b*) (dual coefficients with a kernel)',
               rate='dual objective O(1/k²) (Beck Thm 10.34); linear with mu > 0 (V-FISTA, of the perturbed problem)',
               tolerance=1e-06, requires=(), admits=("kernel", "bias", "weights"),
               preference=2, tags=('fista', 'accelerated', 'svm'), arrays=EVERYWHERE),
    MethodCard('dual-cd', 'SoftMarginSVM', 'marginkit.plans.svm_cd.svm_coordinate:DualCoordinateDescent',
               paper='Raj & Bach (2021), App. C; Hsieh et al. (2008)',
               algorithm='randomized dual coordinate ascent on the hinge dual (Raj–Bach Alg. 1 / App. C = '
                         'Hsieh et al. Alg. 1 with shrinking), numba epochs; gap-safe screening; the support '
                         'vectors it identifies solved by ipm (Ferris & Munson 2003) once the epochs have paid for it',
               converges_to='soft-margin SVM solution (bias=False)',
               rate='linear convergence of the dual (Hsieh et al. Thm 1; global: Wang & Lin 2014)',
               tolerance=0.0001, requires=BOX_DUAL, admits=("weights",),
               preference=1, tags=('coordinate', 'svm', 'svm-coordinate', 'path-rescaled', 'path-screened'),
               arrays=("numpy", "dask"),
               # dask: CoCoA+ (Ma et al. 2015) with this round on every row chunk
               variants=(("dask", "marginkit.plans.svm_cd.cocoa:CoCoAPlus"),)),
    MethodCard('dual-cd-bias', 'SoftMarginSVM', 'marginkit.plans.svm_cd.svm_bias:BiasDualCoordinateDescent',
               paper='Hsieh et al. (2008) dual CD with shrinking; method of multipliers (Hestenes 1969, '
                     'Powell 1969; Rockafellar 1976)',
               algorithm='one dual coordinate epoch on the augmented Lagrangian of yᵀa = 0, then the multiplier '
                         '(offset) step; numba epochs, dense or CSR',
               converges_to='soft-margin SVM solution (w*, b*) with a free offset (bias=True)',
               rate='no proven rate for one epoch per multiplier step (stop by the certified duality gap)',
               tolerance=0.0001,
               requires=(("no_kernel", "dual coordinate descent keeps the primal w = Σ a_i y_i x_i: linear "
                                       "problems only (no kernel)"),
                         ("bias", "the multiplier step is for the offset: bias=True only "
                                  "(use 'dual-cd' without a bias)")),
               admits=("bias", "weights"), preference=1, tags=('coordinate', 'svm', 'svm-coordinate', 'path-rescaled')),
    MethodCard('smo', 'SoftMarginSVM', 'marginkit.plans.svm_cd.svm_smo:PairwiseSMO',
               paper='Platt (1998) SMO; Keerthi et al. (2001) maximal violating pair; Fan, Chen & Lin (2005) '
                     'second-order working-set selection',
               algorithm='pair steps on the dual that keep yᵀa = 0, each pair chosen over all samples with the '
                         'gradient kept from the cached n × n Gram matrix XXᵀ (numba); small n',
               converges_to='soft-margin SVM solution (w*, b*) with a free offset (bias=True)',
               rate='convergence of SMO-type decomposition with second-order selection (Chen, Fan & Lin, '
                    'IEEE TNN 2006); stop by the certified duality gap',
               tolerance=0.0001,
               requires=(("no_kernel", "smo here forms the Gram matrix of the linear kernel (no kernel)"),
                         ("bias", "the pair steps keep yᵀa = 0, the offset's constraint: bias=True only "
                                  "(use 'dual-cd' without a bias)"),
                         ("gram_fits", "smo forms the n × n Gram matrix, up to n = 4,000 samples: use "
                                       "'dual-cd-bias' or 'ipm' for more")),
               admits=("bias", "weights"), tags=('coordinate', 'svm', 'pairwise')),
    MethodCard('ipm', 'SoftMarginSVM', 'marginkit.plans.ipm.svm:SoftMarginIPM', **_IPM,
               admits=("bias", "weights"),
               converges_to='soft-margin SVM solution (w*, b*) (with or without bias, sample weights)',
               tolerance=1e-06, tags=('interior-point', 'svm')),
    reference('SoftMarginSVM', 'marginkit.reference.svm:SoftMarginReference', arrays=HOST_COPY),
    MethodCard('fista', 'EllipsoidSeparation', 'marginkit.plans.hough_vavasis.esp:ESPFista',
               paper='Hough & Vavasis (2025)',
               algorithm='FISTA on the least-squares reformulation (5) over a product of SOCs (§4.1), test (28)',
               converges_to="a strictly separating hyperplane (stop='early'); the residual v_D of (5) (stop='tol')",
               rate='separator within 54√2‖𝒜‖‖x0−x̄‖/δ_𝒜² − 1 iterations (Thm 2.4); '
                    'f(x_k) − f* <= 2L‖x0−x̄‖²/(k+1)², ‖v_k − v_D‖ <= 2‖𝒜‖‖x0−x̄‖/(k+1) (Thm A.2)',
               tolerance=0.0, requires=(), preference=1, tags=('fista', 'accelerated'), arrays=("numpy", "array-api"),
               theorem=HV_A_2),
    MethodCard('pdhg', 'EllipsoidSeparation', 'marginkit.plans.hough_vavasis.esp:ESPPdhg',
               paper='Hough & Vavasis (2025)',
               algorithm='PDHG (29) on {𝒜x = b, x ∈ 𝒞} (App. A), test (28) on the dual displacement',
               converges_to='a strictly separating hyperplane (the displacement y_k − y_{k+1} -> v_D, Thm 2.1)',
               rate='O(1/k) (no iteration bound is proved for the separator)',
               tolerance=0.0, requires=(), preference=2, tags=('fista', 'primal-dual'), arrays=("numpy", "array-api")),
    reference('EllipsoidSeparation', 'marginkit.reference.conic:EllipsoidSeparationReference',
              arrays=("numpy", "array-api")),   # host copy
    MethodCard('fista', 'PerturbedSVMDual', 'marginkit.plans.hough_vavasis.svm_dual:PerturbedDualFista',
               paper='Hough & Vavasis (2025)',
               algorithm='V-FISTA on the perturbed dual (15), early stopping of §4.2 (guarded stall rule), '
                         'offset by bisection (27)',
               converges_to='the unique maximiser r* of (15) and (w*, t*) of (20)',
               rate='‖r_k − r*‖² <= (1 − 1/√κ)^k (2g*/μ + ‖r*‖²) (Beck Thm 10.42); '
                    '‖r_{k+1} − r*‖ <= (2L/μ)G_k (Thm 3.2)',
               tolerance=0.01, requires=(), preference=1, tags=('fista', 'accelerated'), arrays=EVERYWHERE),
    reference('PerturbedSVMDual', 'marginkit.reference.conic:PerturbedSVMDualReference'),
    reference('PerturbedSVMPrimal', 'marginkit.reference.conic:PerturbedSVMPrimalReference'),
    _RB_DYKSTRA, _RB_ACCELERATED, _RB_MIRROR,
    reference('ProjectionOntoIntersection', 'marginkit.reference.intersection:IntersectionReference'),
    replace(_RB_DYKSTRA, form='MinNormFeasibility', arrays=_ON_DASK, supports=cocoa_margin_form,
            variants=(("dask", "marginkit.plans.raj_bach.cocoa_margin:CoCoADykstra"),)),
    replace(_RB_ACCELERATED, form='MinNormFeasibility', arrays=_ON_DASK, supports=cocoa_margin_form,
            converges_to='the min-ψ feasible point θ* (returns θ(v_t))',
            rate='E[gap(v_t)] <= (2n/(2n+t))² [gap(α_0) + ½ Σ L_i (λ*_i − α_0,i)²] (eq. 8, corrected)',
            variants=(("dask", "marginkit.plans.raj_bach.cocoa_margin:CoCoAAcceleratedDykstra"),)),
    replace(_RB_MIRROR, form='MinNormFeasibility'),
    # on a host copy; MinNormFeasibility refuses array-API data at construction
    reference('MinNormFeasibility', 'marginkit.reference.minnorm:MinNormReference', arrays=("numpy", "dask")),
)

REDUCTIONS: tuple[ReductionCard, ...] = (
    ReductionCard("MaxMargin", "MinNormFeasibility", "marginkit.engine.reductions:MaxMarginToMinNorm"),
    ReductionCard("PerturbedSVMPrimal", "PerturbedSVMDual", "marginkit.engine.reductions:PerturbedPrimalToDual"),
)


# the methods that choose another for the problem at hand, on every form: not listed by ``methods(problem)`` (they
# are no method of their own), resolved by ``solve``/``compile`` before the table above
CHOOSERS: tuple[MethodCard, ...] = (
    MethodCard('auto', '*', 'marginkit.engine.choice:AutoPlan', paper='marginkit',
               algorithm='the fast certified method for the data, chosen by a cost model of the methods a problem '
                         'lists (their cards\' tags and preference), with probes and fallbacks',
               converges_to='what the chosen method converges to', rate='the chosen method\'s',
               admits=tuple(FEATURES), arrays=EVERYWHERE, tags=('chooser',)),
)


def chooser_card(name) -> MethodCard | None:
    """The card of the method ``name`` when it is a chooser (:data:`CHOOSERS`), else None."""
    return next((c for c in CHOOSERS if c.name == name), None)


def cards(form: str | None = None, tag: str | None = None) -> list[MethodCard]:
    """The method cards, optionally of one form and/or carrying ``tag`` (the benchmark picks competitors so)."""
    return [c for c in METHODS if (form is None or c.form == form) and (tag is None or tag in c.tags)]


def reference_card(form: str) -> MethodCard:
    """The CVXPY reference of ``form`` (``ProblemError`` when there is none)."""
    for c in METHODS:
        if c.is_reference and c.form == form:
            return c
    raise ProblemError(f"no CVXPY reference for {form} yet")
