"""Everything pickles (issue 38, part 5): problems (unsolved and solved, with their caches: the ESP operator, backends,
references, constants), results (trace and certificate included), compiled plans and fitted estimators survive
``pickle``, ``copy.copy`` and ``copy.deepcopy`` on every problem class and data kind (NumPy, CSR, array-api-strict,
row-chunked dask on the threaded scheduler), and the copy computes what the original computes: the same seeded run
bit for bit, the same predictions.

The regression: a problem solved with ``fista`` cached its ESP operator, which kept the namespace module (``numpy``)
as an attribute ("cannot pickle 'module' object"); the array-API and dask backends kept their namespaces likewise."""
import copy
import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import marginkit as mk
from marginkit import (Ball, EllipsoidSeparation, HalfSpace, MaxMargin, MinNormFeasibility, PerturbedSVMDual,
                       ProjectionOntoIntersection, SoftMarginSVM)
from marginkit.core.backend import NUMPY

ROUNDTRIPS = {"pickle": lambda o: pickle.loads(pickle.dumps(o)), "copy": copy.copy, "deepcopy": copy.deepcopy}
#: the cheapest first-order method of a problem, in this order, where ``marginkit.methods`` lists it
CHEAP = ("batch-perceptron", "dykstra-accelerated", "dual-cd", "dual-cd-bias", "fista", "dual-accelerated", "dykstra")
RUN = {"seed": 0, "max_iter": 20}
RUN_DASK = {"seed": 0, "max_iter": 3}   # an iteration on dask costs a few task graphs (~0.1 s): three show the iterate


def _run(case):
    return RUN_DASK if case.endswith("/dask") else RUN


@pytest.fixture(autouse=True)
def _threads():
    """dask on its threaded scheduler (no cluster); quiet about small-problem performance hints."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mk.PerformanceWarning)
        try:
            import dask
        except ImportError:
            yield
            return
        with dask.config.set(scheduler="threads"):
            yield


# data -------------------------------------------------------------------------------------------------------------
def _data(n=24, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    return X, np.sign(X @ rng.standard_normal(d))


def _kind(kind, X, y):
    """``(X, y)`` as the data kind ``kind``."""
    if kind == "numpy":
        return X, y
    if kind == "csr":
        return sp.csr_matrix(X), y
    if kind == "strict":
        xps = pytest.importorskip("array_api_strict")
        return xps.asarray(X), xps.asarray(y)
    da = pytest.importorskip("dask.array")
    return da.from_array(X, chunks=(X.shape[0] // 2, X.shape[1])), da.from_array(y, chunks=X.shape[0] // 2)


def _ellipsoids(diagonal, seed=1, d=3):
    rng = np.random.default_rng(seed)
    cc = rng.normal(size=(3, d)) * 0.5
    cd = rng.normal(size=(4, d)) * 0.5 + 1.5 * np.eye(d)[0]
    if diagonal:
        return cc, rng.uniform(0, 0.2, (3, d)), cd, rng.uniform(0, 0.2, (4, d))
    return cc, rng.normal(size=(3, d, d)) * 0.2, cd, rng.normal(size=(4, d, d)) * 0.2


LABELLED = {   # name -> (constructor, data kinds it accepts)
    "max-margin": (lambda X, y: MaxMargin(X, y), ("numpy", "csr", "strict", "dask")),
    "max-margin-bias": (lambda X, y: MaxMargin(X, y, bias=True), ("numpy", "csr", "strict")),
    "max-margin-rbf": (lambda X, y: MaxMargin(X, y, kernel="rbf", gamma=0.5), ("numpy", "csr")),
    "min-norm": (lambda X, y: MinNormFeasibility(X, y), ("numpy", "csr", "dask")),
    "min-norm-p1.5": (lambda X, y: MinNormFeasibility(X, y, p=1.5), ("numpy",)),
    "soft-margin": (lambda X, y: SoftMarginSVM(X, y, C=2.0), ("numpy", "csr", "strict")),   # dask: without bias
    "soft-margin-nobias": (lambda X, y: SoftMarginSVM(X, y, C=2.0, bias=False), ("numpy", "csr", "strict", "dask")),
    "soft-margin-rbf": (lambda X, y: SoftMarginSVM(X, y, kernel="rbf", gamma=0.5), ("numpy", "csr")),
    "perturbed-dual": (lambda X, y: PerturbedSVMDual(X, y), ("numpy", "csr", "strict", "dask")),
}


def _esp(diagonal, kind):
    arrays = _ellipsoids(diagonal)
    if kind == "strict":
        xps = pytest.importorskip("array_api_strict")
        arrays = [xps.asarray(a) for a in arrays]
    return EllipsoidSeparation(*arrays)


def _poi():
    return ProjectionOntoIntersection(np.array([2.0, 1.5, -0.5]), [Ball(np.zeros(3), 1.0),
                                                                    HalfSpace(np.array([1.0, 0.0, 0.0]), 0.5)])


CASES = ([f"{name}/{kind}" for name, (_, kinds) in LABELLED.items() for kind in kinds]
         + [f"esp-{shape}/{kind}" for shape in ("dense", "diagonal") for kind in ("numpy", "strict")]
         + ["intersection/numpy"])


def build(case):
    name, kind = case.split("/")
    if name.startswith("esp-"):
        return _esp(name == "esp-diagonal", kind)
    if name == "intersection":
        return _poi()
    make, _ = LABELLED[name]
    return make(*_kind(kind, *_data()))


def first_order(problem):
    methods = [m for m in mk.methods(problem) if m not in ("cvxpy", "ipm")]
    return next((m for m in CHEAP if m in methods), methods[0])


# comparisons ------------------------------------------------------------------------------------------------------
def host(a):
    """A NumPy copy of an array of any of the data kinds (None stays None)."""
    if a is None or isinstance(a, (float, int, np.floating, np.integer)):
        return a
    if hasattr(a, "compute"):
        a = a.compute()
    if sp.issparse(a):
        return a.toarray()
    if isinstance(a, np.ndarray):
        return a
    return np.from_dlpack(a).copy()


def assert_same_run(res, ref):
    """Two runs of the same seeded method: the same iterate bit for bit, the same status and iteration count."""
    assert res.status == ref.status
    assert res.iterations == ref.iterations
    assert res.method == ref.method
    np.testing.assert_array_equal(host(res.w), host(ref.w))
    np.testing.assert_array_equal(host(res.dual_coef), host(ref.dual_coef))
    assert (res.b == ref.b) or (np.isnan(res.b) and np.isnan(ref.b))
    assert (res.certificate is None) == (ref.certificate is None)
    if ref.certificate is not None:
        assert set(res.certificate) == set(ref.certificate)


def _points(problem):
    """Rows to evaluate a classifier on: the training data (its own kind) and a few NumPy rows."""
    if isinstance(problem, EllipsoidSeparation):
        z = np.random.default_rng(3).normal(size=(5, problem.d))
        return [z]
    if isinstance(problem, ProjectionOntoIntersection):
        return []
    return [problem.X, np.random.default_rng(3).normal(size=(5, problem.d))]


def assert_same_result(res, ref, problem):
    """A result and its copy: equal fields, trace, certificate, and the same predictions."""
    assert_same_run(res, ref)
    assert type(res) is type(ref)
    for name in ("value", "margin", "time", "setup_time", "solve_time"):
        np.testing.assert_equal(getattr(res, name), getattr(ref, name))
    np.testing.assert_equal(res.certificate, ref.certificate)
    np.testing.assert_array_equal(res.classes_, ref.classes_)
    if ref.trace is None:
        assert res.trace is None
    else:
        assert res.trace.keys() == ref.trace.keys() and len(res.trace) == len(ref.trace) > 0
        np.testing.assert_equal(res.trace.as_dict(), ref.trace.as_dict())
    if ref.w is None and ref.dual_coef is None:
        return
    for Z in _points(problem):
        np.testing.assert_array_equal(host(res.decision_function(Z)), host(ref.decision_function(Z)))
        if problem.is_classification:
            np.testing.assert_array_equal(host(res.predict(Z)), host(ref.predict(Z)))


def assert_same_backend(clone, problem):
    bk = getattr(problem, "backend", NUMPY)
    if bk is NUMPY:
        assert getattr(clone, "backend", NUMPY) is NUMPY     # the one NumPy backend: pickled by reference
    else:
        assert type(clone.backend) is type(bk) and clone.backend.xp is bk.xp


# problems ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", CASES)
def test_problem_roundtrip(case):
    """An unsolved and a solved problem (its caches filled: the ESP operator, row norms, host copies) copied three
    ways: each copy solves to the original's result bit for bit, and the original's result survives the same trips
    with its trace, certificate and predictions."""
    problem, run = build(case), _run(case)
    method = first_order(problem)
    # copy.copy of an unsolved problem shares its (empty) cache: the copy of the solved problem below covers it
    fresh = {how: ROUNDTRIPS[how](problem) for how in ("pickle", "deepcopy")}
    # a run may read what an earlier one cached (a kernel run reads a cached Gram matrix, else evaluates rows: other
    # rounding), so each copy is compared with a run of the original from the same state of the cache
    first = {how: clone.solve(method, **run) for how, clone in fresh.items()}
    ref0 = problem.solve(method, **run)
    ref = problem.solve(method, **run)
    solved = {how: trip(problem) for how, trip in ROUNDTRIPS.items()}
    for how in ROUNDTRIPS:
        for clone in (fresh.get(how), solved[how]):
            if clone is None:
                continue
            assert type(clone) is type(problem) and clone.shape == problem.shape
            assert_same_backend(clone, problem)
            with pytest.raises(AttributeError, match="immutable"):
                clone.C = 3.0    # still frozen
        if how in first:
            assert_same_run(first[how], ref0)
        assert set(solved[how]._cache) == set(problem._cache)
        assert_same_run(solved[how].solve(method, **run), ref)
        assert_same_result(ROUNDTRIPS[how](ref), ref, problem)


def test_esp_fista_regression():
    """The reported failure: an EllipsoidSeparation solved with fista, and its Result, pickle; the unpickled problem's
    cached operator computes as the original's."""
    problem = _esp(False, "numpy")
    ref = problem.solve("fista")
    assert ref.status in ("optimal", "optimal_inaccurate") and ref.info["separates_all"]
    clone = pickle.loads(pickle.dumps(problem))
    op, op2 = problem._cache["esp_operator"], clone._cache["esp_operator"]
    assert op2.xp is np and op2.bk is NUMPY
    assert op2.lipschitz() == op.lipschitz()
    v = np.random.default_rng(0).normal(size=problem.d + 2)
    np.testing.assert_array_equal(np.concatenate(op2.adjoint(v)), np.concatenate(op.adjoint(v)))
    assert_same_run(clone.solve("fista"), ref)
    res = pickle.loads(pickle.dumps(ref))
    assert_same_result(res, ref, problem)
    hi_c, lo_d = clone.support_values(res.w)
    assert (hi_c + res.b < 0).all() and (lo_d + res.b > 0).all()   # still separates


NUMPY_METHOD_CASES = [(case, m) for case in CASES if case.endswith("/numpy")
                      for m in mk.methods(build(case)) if m != "cvxpy"]


@pytest.mark.parametrize("case,method", NUMPY_METHOD_CASES, ids=[f"{c}-{m}" for c, m in NUMPY_METHOD_CASES])
def test_every_method_result_pickles(case, method):
    """Every method of every problem on NumPy data: its result and the problem it leaves behind (the caches the method
    filled) pickle; the unpickled problem runs the method to the same iterate."""
    problem = build(case)
    ref = problem.solve(method, **RUN)
    assert_same_result(pickle.loads(pickle.dumps(ref)), ref, problem)
    assert_same_result(copy.deepcopy(ref), ref, problem)
    clone = pickle.loads(pickle.dumps(problem))
    assert_same_run(clone.solve(method, **RUN), problem.solve(method, **RUN))   # both from the filled cache


# references and constants -----------------------------------------------------------------------------------------
REFERENCE_CASES = ["max-margin/numpy", "max-margin-bias/csr", "min-norm/numpy", "soft-margin/numpy",
                   "soft-margin-rbf/numpy", "perturbed-dual/numpy", "esp-dense/numpy", "esp-diagonal/numpy",
                   "intersection/numpy"]
CHEAP_CONSTANTS = ("max-margin/numpy", "soft-margin/numpy", "perturbed-dual/numpy")


@pytest.mark.parametrize("case", REFERENCE_CASES)
def test_reference_and_constants_pickle(case):
    """The certified CVXPY reference (cached on the problem) and the constants survive with the problem: the copy
    answers from its cache (no new solve) with equal values, and the reference result keeps its certificate."""
    pytest.importorskip("cvxpy")
    problem = build(case)
    ref = problem.reference()
    assert {"primal", "dual", "duality_gap", "max_violation", "solver"} <= set(ref.certificate)
    consts = problem.constants() if case in CHEAP_CONSTANTS else None
    for how, trip in ROUNDTRIPS.items():
        clone = trip(problem)
        cached = clone.cached_reference()
        assert cached is not None and clone.reference() is cached
        assert_same_result(cached, ref, problem)
        if consts is not None:
            np.testing.assert_equal(clone.cached_constants(), consts)
            assert clone.constants().keys() == consts.keys()
        assert_same_result(trip(ref), ref, problem)


# compiled plans ---------------------------------------------------------------------------------------------------
PLAN_CASES = [c for c in CASES if not c.endswith("/csr")] + ["soft-margin/csr"]


@pytest.mark.parametrize("case", PLAN_CASES)
def test_compiled_plan_roundtrip(case):
    """``problem.compile(first-order method)`` copied three ways runs (``run(seed=0, max_iter=20)``) to the
    original plan's result bit for bit."""
    problem, run = build(case), _run(case)
    plan = problem.compile(first_order(problem))
    ref = plan.run(**run)
    assert_same_run(copy.copy(plan).run(**run), ref)
    blob = pickle.dumps(plan)
    for clone in (pickle.loads(blob), copy.deepcopy(plan)):
        assert type(clone) is type(plan) and clone.method == plan.method
        assert_same_run(clone.run(**run), ref)


# estimators -------------------------------------------------------------------------------------------------------
ESTIMATOR_CASES = [("soft-margin", "numpy", 2, {}), ("soft-margin", "numpy", 3, {}), ("soft-margin", "csr", 3, {}),
                   ("soft-margin", "strict", 2, {}), ("soft-margin", "strict", 3, {}),
                   ("max-margin", "numpy", 2, {}), ("max-margin", "csr", 2, {}),
                   ("perturbed-dual", "numpy", 3, {}), ("perturbed-dual", "strict", 2, {}),
                   ("soft-margin", "dask", 2, {"bias": False, "method": "dual-cd"})]


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")   # max_iter=50: a budget stop is fine
@pytest.mark.parametrize("problem,kind,k,opts", ESTIMATOR_CASES,
                         ids=[f"{p}-{kind}-{k}class" for p, kind, k, _ in ESTIMATOR_CASES])
def test_fitted_estimator_roundtrip(problem, kind, k, opts):
    """A fitted MarginClassifier (binary, or one-vs-rest with a result per class) copied three ways predicts as the
    original, with equal coefficients and results."""
    X, y = _data(n=30, d=3)
    if k == 3:
        y = np.argsort(np.argsort(X[:, 0])) * 3 // X.shape[0]   # three bands along the first feature, 10 each
    Xk, yk = _kind(kind, X, y)
    clf = mk.MarginClassifier(problem=problem, max_iter=50, **opts).fit(Xk, yk)
    Z = np.random.default_rng(4).normal(size=(6, 3))
    results = clf.result_ if isinstance(clf.result_, list) else [clf.result_]
    assert len(results) == (k if k > 2 else 1)
    for how, trip in ROUNDTRIPS.items():
        est = trip(clf)
        np.testing.assert_array_equal(est.classes_, clf.classes_)
        np.testing.assert_array_equal(host(est.coef_), host(clf.coef_))
        np.testing.assert_array_equal(host(est.intercept_), host(clf.intercept_))
        for data in (Xk, Z):
            np.testing.assert_array_equal(host(est.predict(data)), host(clf.predict(data)))
            np.testing.assert_array_equal(host(est.decision_function(data)), host(clf.decision_function(data)))
        assert est.score(Xk, yk) == clf.score(Xk, yk)
        copies = est.result_ if isinstance(est.result_, list) else [est.result_]
        for res, ref in zip(copies, results):
            assert_same_run(res, ref)
