"""Issue 38, part 4: every option is honoured or refused. ``tol=0`` runs the whole budget on every method and form,
``max_iter`` bounds what ``solve("auto")`` reports over all its runs, the CVXPY reference maps the run options to its
solvers' settings, ``auto`` takes the run options on every form and picks a marginkit method wherever one applies
(by a cost model on the hard margin too), and a kernel set-up that cannot fit ``time_limit`` is refused up front."""
import time

import numpy as np
import pytest

import marginkit as mk
from marginkit import Ball, Box, HalfSpace
from marginkit.engine import choice


def _labels(X, w):
    return np.where(X @ w > 0, 1.0, -1.0)


def _forms(seed=0):
    """One small instance of every problem form (and the variants that change the methods listed)."""
    rng = np.random.default_rng(seed)
    n, d = 24, 4
    X = rng.standard_normal((n, d))
    ys = _labels(X, rng.standard_normal(d))
    yn = ys.copy()
    yn[rng.random(n) < 0.15] *= -1.0
    Xb = X.copy()
    Xb[:, 0] += 2.0
    sets = [HalfSpace(rng.standard_normal(d), 0.3) for _ in range(3)] + [Ball(np.zeros(d), 1.5),
                                                                         Box(-np.ones(d), np.full(d, np.inf))]
    return {
        "max-margin": mk.MaxMargin(X, ys), "max-margin-bias": mk.MaxMargin(Xb, ys, bias=True),
        "max-margin-kernel": mk.MaxMargin(X, ys, kernel="rbf"),
        "min-norm-p2": mk.MinNormFeasibility(X, ys), "min-norm-p1.5": mk.MinNormFeasibility(X, ys, p=1.5),
        "min-norm-p3": mk.MinNormFeasibility(X, ys, p=3.0),
        "svm": mk.SoftMarginSVM(X, yn, bias=False), "svm-bias": mk.SoftMarginSVM(X, yn),
        "svm-kernel": mk.SoftMarginSVM(X, yn, kernel="rbf"), "perturbed": mk.PerturbedSVMDual(X, yn),
        "ellipsoids": mk.EllipsoidSeparation(rng.normal(size=(3, d)) * 0.5, rng.normal(size=(3, d, d)) * 0.25,
                                             rng.normal(size=(4, d)) * 0.5 + 2 * np.eye(d)[0],
                                             rng.normal(size=(4, d, d)) * 0.25),
        "intersection": mk.ProjectionOntoIntersection(3 * rng.standard_normal(d), sets),
    }


def _proven_end(res, max_iter) -> str | None:
    """Why a ``tol=0`` run may end before ``max_iter`` (None: it may not): a proof of infeasibility, a certified gap of
    exactly 0 (to rounding: weak duality makes a computed gap <= 0 a zero gap), or the CVXPY reference's solver
    ending at its own numerical limit (the contract's ``optimal_inaccurate``: it cannot be made to run on)."""
    cert = res.certificate or {}
    if res.status == "infeasible":
        return "infeasible"
    if res.status == "optimal" and cert.get("relative_gap", np.inf) <= 0.0:
        return "zero gap"
    if res.method == "cvxpy" and res.status == "optimal_inaccurate" and res.iterations < max_iter:
        return "solver's own end"
    return None


@pytest.mark.parametrize("form", list(_forms()))
def test_tol_zero_runs_the_whole_budget_on_every_method(form):
    P = _forms()[form]
    for method in list(mk.methods(P)) + ["auto"]:
        for max_iter in (3, 9):
            res = P.solve(method, max_iter=max_iter, tol=0)
            assert res.iterations == max_iter or _proven_end(res, max_iter), (method, max_iter, res)
            if res.iterations == max_iter and _proven_end(res, max_iter) is None:
                assert res.status == "user_limit", (method, res)


def _raw_svm(seed):
    """Raw gamma-scaled columns and random labels, 6 to 60 samples: where tol=0 reached the division by zero."""
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(6, 60)), int(rng.integers(2, 8))
    return rng.standard_normal((n, d)) * rng.gamma(0.5, 10, size=d), np.where(rng.random(n) < 0.5, 1.0, -1.0)


def test_tol_zero_reaches_the_polish_rule_without_dividing_by_zero(monkeypatch):
    """The polish of ``dual-cd`` extrapolates the rate to ``tol`` (core.costs.work_to_tol): at ``tol=0`` that
    divided by zero. Here the rule is reached (spied) and the run goes on to its budget."""
    from marginkit.plans.svm_cd import polish
    seen = []
    original = polish.work_to_tol
    monkeypatch.setattr(polish, "work_to_tol", lambda *a: seen.append(a[-1]) or original(*a))
    X, y = _raw_svm(41)
    res = mk.SoftMarginSVM(X, y, bias=False).solve("dual-cd", max_iter=50, tol=0, seed=0)
    assert seen == [0.0] and choice.work_to_tol(0.0, 1.0, 1.0, 0.5, 0.0) == np.inf
    assert res.status == "user_limit" and res.iterations == 50
    for seed in (26, 41):   # auto's probe extrapolates the same way
        X, y = _raw_svm(seed)
        for bias in (False, True):
            res = mk.SoftMarginSVM(X, y, bias=bias).solve("auto", max_iter=50, tol=0)
            assert res.iterations == 50 or _proven_end(res, 50), res


@pytest.mark.parametrize("max_iter", [30, 300])
def test_auto_max_iter_bounds_the_iterations_of_all_its_runs(max_iter):
    """Tiny problems with an offset: smo's probe, then dual-cd-bias (or ipm), used to run 2,364 to 10,000 iterations
    on max_iter=30 or 300 (the run after the probe got its own default budget)."""
    for seed in range(12):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(6, 29))
        X = rng.standard_normal((n, 3)) * (10.0 if seed % 2 else 1.0)
        y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
        y[:2] = (1.0, -1.0)
        for tol in (None, 1e-10):
            res = mk.SoftMarginSVM(X, y, C=float(10.0 ** (seed % 4))).solve("auto", max_iter=max_iter, tol=tol)
            runs = res.info["chosen"].get("runs", [{"iterations": res.iterations}])
            assert res.iterations == sum(r["iterations"] for r in runs) <= max_iter, res.info["chosen"]


def test_the_reference_maps_max_iter_and_tol_to_its_solvers():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 5))
    y = np.sign(X @ rng.normal(size=5) + 0.3 * rng.normal(size=40))
    P = mk.SoftMarginSVM(X, y)
    for solver in (None, "ECOS", "SCS"):
        res = P.solve("cvxpy", max_iter=3, solver=solver)
        assert res.status == "user_limit" and res.iterations == 3 and res.info["stopped_by"] == "max_iter"
        assert len(res.info["attempts"]) == 1   # the budget is spent: no fallback runs past it
    res = P.solve("cvxpy", tol=1e-3)
    assert res.status == "optimal" and res.certificate["relative_gap"] <= 1e-3
    tight = P.solve("cvxpy", tol=1e-9)
    assert tight.status == "optimal" and tight.certificate["relative_gap"] <= 1e-9
    assert P.solve("cvxpy", seed=3).w == pytest.approx(P.solve("cvxpy").w)   # deterministic: any seed, one answer
    for bad, name in ((dict(callback=print), "callback"), (dict(trace=1), "trace"), (dict(max_iter=-1), "max_iter"),
                      (dict(tol=-1.0), "tol"), (dict(warm_start=res), "warm_start"),
                      (dict(solver="HIGHS", max_iter=3), "max_iter"), (dict(solver="HIGHS", tol=1e-3), "tol")):
        with pytest.raises(mk.ProblemError, match=name):
            P.solve("cvxpy", **bad)


def test_auto_takes_the_run_options_on_every_form_and_prefers_marginkit_methods():
    reference_only = {"min-norm-p3"}   # p > 2: only the reference applies
    for name, P in _forms(1).items():
        res = P.solve("auto", tol=1e-3, max_iter=40, time_limit=30.0, seed=0)
        chosen = res.info["chosen"]["method"]
        assert (chosen == "cvxpy") == (name in reference_only), (name, chosen)
        assert chosen in mk.methods(P) and res.iterations <= 40
        if chosen == "cvxpy":
            assert res.certificate["relative_gap"] <= 1e-3 or res.status != "optimal"
    P = _forms(1)["min-norm-p2"]
    res = P.solve("auto", tol=1e-3)   # the reported failure: the reference was picked and refused 'tol'
    assert res.info["chosen"]["method"] in ("dykstra", "dykstra-accelerated") and res.status == "optimal"
    with pytest.raises(mk.ProblemError, match="callback"):   # the reference refuses what it cannot honour
        _forms(1)["min-norm-p3"].solve("auto", callback=lambda st: False)


def _thin(n, d, delta, seed=0):
    """Gaussian rows, labels of a random unit ``w``, the points within ``delta`` of its hyperplane removed: a hard
    margin of about ``delta`` against ``R`` about ``√d`` (30,000 x 500 at delta 0.05: γ*/R ≈ 0.0026)."""
    rng = np.random.default_rng(seed)
    w = rng.standard_normal(d)
    w /= np.linalg.norm(w)
    X = rng.standard_normal((int(1.3 * n) + 10, d))
    m = X @ w
    keep = np.abs(m) >= delta
    return X[keep][:n], np.where(m[keep][:n] > 0, 1.0, -1.0)


def test_auto_weighs_ipm_against_accelerated_dykstra_on_a_thin_hard_margin(monkeypatch):
    X, y = _thin(1500, 200, 0.05)
    P = mk.MaxMargin(X, y)
    c = choice.margin_costs(P, 1e-4)
    assert c["dykstra"] > c["ipm"] and c["conditioning"] > 10
    res = P.solve("auto", tol=1e-4)
    assert res.method == "ipm" and res.status == "optimal" and "R/||mean" in res.info["chosen"]["why"]
    assert P.solve("auto", tol=0, max_iter=5).method == "ipm"   # tol=0: accelerated Dykstra never certifies
    # where the model lets accelerated Dykstra run, it has T_ipm of its modelled epochs, then ipm
    monkeypatch.setattr(choice, "RB_EPOCHS", 0.01)
    method, _, _, cap = choice._decide(P, tol=1e-4)
    assert method == "dykstra-accelerated" and cap == np.ceil(c["ipm"] / c["epoch"])
    res = P.solve("auto", tol=1e-4)
    runs = res.info["chosen"]["runs"]
    assert res.method == "ipm" and res.status == "optimal" and "fallback" in res.info["chosen"]
    assert runs[0] == {"method": "dykstra-accelerated", "iterations": cap, "status": "user_limit"}
    res = P.solve("auto", tol=1e-4, max_iter=int(cap) + 4)   # the user's budget is shared: ipm gets 4 iterations
    assert res.iterations == cap + 4 and res.info["chosen"]["runs"][1]["iterations"] == 4


def test_well_conditioned_hard_margins_run_accelerated_dykstra_first():
    """Digits 0 vs 1 and MNIST 0 vs 1 (R/||mean y_i x_i|| under 4): the model's fewest epochs of accelerated Dykstra
    cost less than T_ipm, so it runs first; on MNIST (784 columns, where ipm's d x d matrix is dear) it certifies
    within its share; wherever it does not, ipm follows and certifies."""
    from sklearn.datasets import load_digits
    X, y = load_digits(return_X_y=True)
    keep = y < 2
    problems = [mk.MaxMargin(X[keep] / 16.0, np.where(y[keep] == 0, 1.0, -1.0))]
    try:
        problems.append(mk.MaxMargin(*mk.datasets.mnist_pair(0, 1)[:2]))
    except (mk.ProblemError, ImportError, OSError):   # the MNIST sample ships with an optional package
        pass
    results = [P.solve("auto", tol=1e-4) for P in problems]
    for res in results:
        first = res.info["chosen"].get("runs", [{"method": res.method}])[0]["method"]
        assert first == "dykstra-accelerated" and res.status == "optimal"
    assert results[0].margin == pytest.approx(problems[0].solve("ipm", tol=1e-8).margin, rel=1e-3)
    if len(problems) == 2:
        assert results[1].method == "dykstra-accelerated"


@pytest.mark.parametrize("problem, method", [("svm", "fista"), ("svm-bias", "fista"),
                                             ("max-margin", "dual-accelerated")])
def test_a_kernel_setup_that_cannot_fit_the_time_limit_is_refused_up_front(problem, method):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((1600, 8))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    P = {"svm": lambda: mk.SoftMarginSVM(X, y, kernel="rbf", bias=False),
         "svm-bias": lambda: mk.SoftMarginSVM(X, y, kernel="rbf"),
         "max-margin": lambda: mk.MaxMargin(X, y, kernel="rbf")}[problem]()
    P.solve(method, max_iter=1, time_limit=60.0)   # the modules loaded; the Gram matrix now cached on P
    Q = type(P)(X, y, **({"bias": P.bias} if problem != "max-margin" else {}), kernel="rbf")
    begin = time.perf_counter()
    with pytest.raises(mk.ProblemError, match=r"time_limit.*GiB|GiB.*time_limit"):
        Q.solve(method, time_limit=1e-4)
    assert time.perf_counter() - begin < 5.0   # one timed block of the Gram matrix, not all of it (loose: shared CI)
    begin = time.perf_counter()
    res = type(P)(X, y, **({"bias": P.bias} if problem != "max-margin" else {}), kernel="rbf").solve(
        method, time_limit=1.5, max_iter=10 ** 6, tol=1e-12)   # it fits: the set-up and the iterations within 1.5 s
    assert res.status == "user_limit" and res.info["stopped_by"] == "time_limit" and res.iterations > 0
    assert time.perf_counter() - begin <= 1.5 + 2.0   # within the limit but for the machine's noise


def test_a_gram_matrix_beyond_memory_is_refused(monkeypatch):
    from marginkit.core import kernels
    monkeypatch.setattr(kernels, "_physical_memory", lambda: 1e6)
    X = np.random.default_rng(0).standard_normal((400, 3))
    with pytest.raises(mk.ProblemError, match="GiB"):
        mk.SoftMarginSVM(X, np.where(X[:, 0] > 0, 1.0, -1.0), kernel="rbf").solve("fista")
