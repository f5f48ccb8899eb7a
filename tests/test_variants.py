"""Variants chosen by the registry: one method name, one card, and the class that fits the problem's data.

A card names its other classes per data kind (``variants``: on a row-chunked dask X, ``dual-cd`` runs CoCoA+ and
``dykstra``/``dykstra-accelerated`` its margin form) and per form (on a problem with a kernel, the JST methods run
their dual-form classes of ``plans/jst/kernel.py``); the engine picks the class (``card.load(problem)``), no plan's
``compile`` swaps it, and ``describe(method, problem)`` lists the options of the class that runs on that data. The
numba/NumPy switch is the option ``compiled`` ("backend" names where the arrays live only).
"""
import dataclasses

import numpy as np
import pytest

import marginkit as mk
from marginkit.engine.graph import resolve
from marginkit.engine.registry import METHODS, VARIANT_KEYS, MethodCard

pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
pytestmark = pytest.mark.usefixtures("dask_threads")   # conftest.py: dask's threaded scheduler

DATA_KINDS = ("numpy", "array-api", "dask")
VARIANT_CARDS = [c for c in METHODS if c.variants]


def _separable(n=60, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    X[:, 0] += y   # separable through the origin
    return X, y


def _option_names(description):
    return [o.name for o in description.options]


def _config_names(cls):
    return [f.name for f in dataclasses.fields(cls.Config)]


# the registry names the variants --------------------------------------------------------------------------------
def test_the_cards_name_their_dask_classes():
    targets = {(c.name, c.form): dict(c.variants) for c in VARIANT_CARDS}
    assert targets[("dual-cd", "SoftMarginSVM")]["dask"] == "marginkit.plans.svm_cd.cocoa:CoCoAPlus"
    assert (targets[("dykstra", "MinNormFeasibility")]["dask"]
            == "marginkit.plans.raj_bach.cocoa_margin:CoCoADykstra")
    assert (targets[("dykstra-accelerated", "MinNormFeasibility")]["dask"]
            == "marginkit.plans.raj_bach.cocoa_margin:CoCoAAcceleratedDykstra")


@pytest.mark.parametrize("card", VARIANT_CARDS, ids=lambda c: f"{c.name}@{c.form}")
def test_every_variant_has_a_known_key_a_declared_data_kind_and_a_class(card):
    for key, target in card.variants:
        assert key in VARIANT_KEYS
        if key in DATA_KINDS:   # a class for data the card does not declare would never run
            assert key in card.arrays
        module, _, name = target.partition(":")
        cls = getattr(__import__(module, fromlist=[name]), name)
        assert cls.name == card.name and hasattr(cls, "Config")


def test_an_unknown_variant_key_is_a_problem_error():
    card = MethodCard("x", "SoftMarginSVM", "marginkit.plans.svm_cd.svm_coordinate:DualCoordinateDescent",
                      variants=(("gpu", "marginkit.plans.svm_cd.cocoa:CoCoAPlus"),))
    with pytest.raises(mk.ProblemError, match="variant key.*'gpu'.*dask"):
        card.target_for(None)


def test_without_a_problem_or_on_numpy_data_the_card_target_runs():
    X, y = _separable()
    for card in VARIANT_CARDS:
        assert card.target_for(None) == card.target
    svm = mk.SoftMarginSVM(X, y, bias=False)
    card, chain = resolve(svm, "dual-cd")
    assert card.target_for(chain.reduced) == card.target
    assert type(svm.compile("dual-cd")) is card.load()


def test_no_plan_compile_swaps_classes():
    """The engine picks the class: no plan named by a card (target or variant) defines its own ``compile``."""
    for card in METHODS:
        if card.is_reference:
            continue
        for target in (card.target,) + tuple(t for _, t in card.variants):
            module, _, name = target.partition(":")
            cls = getattr(__import__(module, fromlist=[name]), name)
            for klass in cls.__mro__:
                if klass.__module__.startswith("marginkit.plans."):
                    assert "compile" not in vars(klass), (target, klass)


# the engine picks the class ------------------------------------------------------------------------------------
def test_dual_cd_on_dask_compiles_the_cocoa_class():
    from marginkit.plans.svm_cd.cocoa import CoCoAPlus
    X, y = _separable(seed=1)
    problem = mk.SoftMarginSVM(da.from_array(X, chunks=(20, -1)), y, C=0.5, bias=False)
    card, chain = resolve(problem, "dual-cd")
    plan = problem.compile("dual-cd", local_epochs=2, aggregation="average")
    assert type(plan) is CoCoAPlus and type(plan) is card.load(chain.reduced)
    assert plan.method == "dual-cd" and (plan.local_epochs, plan.aggregation) == (2, "average")
    res = plan.run(max_iter=3, seed=0)
    assert res.method == "dual-cd" and res.info["cocoa"]["local_epochs"] == 2
    assert res.info["compiled"] is (res.info["backend"] == "numba")


@pytest.mark.parametrize("method,name", [("dykstra", "CoCoADykstra"),
                                         ("dykstra-accelerated", "CoCoAAcceleratedDykstra")])
def test_dykstra_on_dask_compiles_the_cocoa_margin_class_through_the_reduction(method, name):
    from marginkit.plans.raj_bach import cocoa_margin, coordinate_ascent
    X, y = _separable(seed=2)
    on_dask = mk.MaxMargin(da.from_array(X, chunks=(20, -1)), y, bias=False)
    card, chain = resolve(on_dask, method)
    assert chain.reduced.form == "MinNormFeasibility"
    assert type(on_dask.compile(method)) is getattr(cocoa_margin, name) is card.load(chain.reduced)
    on_numpy = mk.MaxMargin(X, y, bias=False).compile(method)
    assert isinstance(on_numpy, coordinate_ascent.DualCoordinatePlan)
    assert not isinstance(on_numpy, cocoa_margin.CoCoAMargin)


def test_an_option_of_the_other_variant_is_refused_naming_the_options():
    X, y = _separable(seed=3)
    with pytest.raises(mk.ProblemError, match="local_epochs.*its options: shrinking, compiled"):
        mk.SoftMarginSVM(X, y, bias=False).compile("dual-cd", local_epochs=2)
    with pytest.raises(mk.ProblemError, match="output.*its options: local_epochs, aggregation, step, compiled"):
        mk.MaxMargin(da.from_array(X, chunks=(20, -1)), y).compile("dykstra", output="v")


# describe lists the options of the class that runs on the problem's data --------------------------------------
def test_describe_dual_cd_on_dask_lists_the_cocoa_options():
    from marginkit.plans.svm_cd.cocoa import CoCoAPlus
    X, y = _separable(seed=4)
    on_dask = mk.describe("dual-cd", mk.SoftMarginSVM(da.from_array(X, chunks=(20, -1)), y, bias=False))
    assert _option_names(on_dask) == _config_names(CoCoAPlus)
    assert {"local_epochs", "aggregation"} <= set(on_dask.defaults)
    assert on_dask.plan == "marginkit.plans.svm_cd.cocoa:CoCoAPlus"
    assert on_dask.option("aggregation").default == "add" and "'average'" in on_dask.option("aggregation").accepts
    assert "CoCoA+" in on_dask.summary and "variant:" not in str(on_dask)
    on_numpy = mk.describe("dual-cd", mk.SoftMarginSVM(X, y, bias=False))
    assert _option_names(on_numpy) == ["shrinking", "compiled", "screening", "polish"]
    assert "local_epochs" not in on_numpy.defaults and "aggregation" not in on_numpy.defaults


def test_describe_dykstra_on_dask_lists_the_cocoa_margin_options():
    X, y = _separable(seed=5)
    on_dask = mk.describe("dykstra", mk.MaxMargin(da.from_array(X, chunks=(20, -1)), y))
    assert _option_names(on_dask) == ["local_epochs", "aggregation", "step", "compiled"]
    assert on_dask.via == ("MaxMargin", "MinNormFeasibility")
    accelerated = mk.describe("dykstra-accelerated", mk.MaxMargin(da.from_array(X, chunks=(20, -1)), y))
    assert _option_names(accelerated) == ["local_epochs", "aggregation", "output", "compiled"]
    assert _option_names(mk.describe("dykstra", mk.MaxMargin(X, y))) == ["step", "compiled", "screening"]


def test_describe_without_a_problem_names_the_variants():
    text = str(mk.describe("dual-cd"))
    assert "variant:" in text and "on dask data: marginkit.plans.svm_cd.cocoa:CoCoAPlus" in text
    assert "shrinking = True" in text and "local_epochs" not in text
    assert "variant:" not in str(mk.describe("fista", "SoftMarginSVM"))


def test_every_option_of_a_variant_class_has_its_meaning_as_field_metadata():
    """describe() reads an option's meaning from its Config field's metadata (no source is parsed): every field of
    every variant class carries one."""
    for card in VARIANT_CARDS:
        for _, target in card.variants:
            module, _, name = target.partition(":")
            cls = getattr(__import__(module, fromlist=[name]), name)
            for field in dataclasses.fields(cls.Config):
                if field.name in _config_names(cls):
                    assert field.metadata.get("doc"), (target, field.name)


# the kernel form: a "kernel" variant per JST method -----------------------------------------------------------
KERNEL_VARIANTS = {"dual-accelerated": "KernelDualAccelerated",
                   "dual-accelerated-stochastic": "KernelDualAcceleratedStochastic",
                   "batch-perceptron": "KernelBatchPerceptron"}


def _linear_kernel(A, B):
    return np.asarray(A @ B.T)


def test_the_jst_cards_name_their_kernel_classes():
    named = {(c.name, c.form): dict(c.variants).get("kernel") for c in METHODS if "kernel" in dict(c.variants)}
    assert named == {(m, "MaxMargin"): f"marginkit.plans.jst.kernel:{cls}" for m, cls in KERNEL_VARIANTS.items()}


@pytest.mark.parametrize("method", KERNEL_VARIANTS)
def test_a_kernel_problem_compiles_the_kernel_class_and_a_linear_one_the_linear_class(method):
    from marginkit.plans.jst import dual_acceleration, kernel
    X, y = _separable(seed=11)
    kernel_cls = getattr(kernel, KERNEL_VARIANTS[method])
    for problem in (mk.MaxMargin(X, y, kernel="rbf", gamma=0.5), mk.MaxMargin(X, y, kernel=_linear_kernel)):
        card, chain = resolve(problem, method)
        plan = problem.compile(method)
        assert type(plan) is kernel_cls is card.load(chain.reduced) and plan.method == method
        assert plan.kop is not None and plan.Z is None
    linear_cls = kernel_cls.__mro__[1]   # the kernel class subclasses its linear class (name, options, constants)
    assert linear_cls.__module__ == dual_acceleration.__name__ and linear_cls.name == method
    assert kernel_cls.Config is linear_cls.Config
    for problem in (mk.MaxMargin(X, y), mk.MaxMargin(X, y, kernel="linear")):   # "linear" is stored as None
        plan = problem.compile(method)
        assert type(plan) is linear_cls and not hasattr(plan, "kop") and plan.Z is not None


@pytest.mark.parametrize("method", KERNEL_VARIANTS)
def test_the_kernel_read_outs_replace_the_margin_plans(method):
    """A kernel class lists its linear class first: that class must define none of the read-outs, so that those of
    KernelDualForm (on the dual weights) are found before MarginPlan's (on w)."""
    from marginkit.plans.jst import kernel
    cls = getattr(kernel, KERNEL_VARIANTS[method])
    for name in ("setup", "margin", "measure", "snapshot", "solution", "norm_w", "kernel_start", "kernel_bound"):
        owner = next(k for k in cls.__mro__ if name in vars(k))
        assert owner in (kernel.KernelDualForm, cls.__mro__[1]) and owner.__module__.startswith("marginkit.plans.jst")
        if name != "setup":   # the linear class's setup adds its constants and reaches KernelDualForm.setup
            assert owner is kernel.KernelDualForm, (name, owner)
    assert "init" in vars(cls) and "step" in vars(cls)


@pytest.mark.parametrize("method", KERNEL_VARIANTS)
def test_describe_on_a_kernel_problem_names_the_kernel_class_with_the_same_options(method):
    X, y = _separable(seed=12)
    on_kernel = mk.describe(method, mk.MaxMargin(X, y, kernel="rbf"))
    on_linear = mk.describe(method, mk.MaxMargin(X, y))
    assert on_kernel.plan == f"marginkit.plans.jst.kernel:{KERNEL_VARIANTS[method]}"
    assert on_linear.plan.startswith("marginkit.plans.jst.dual_acceleration:")
    assert on_kernel.options == on_linear.options and "dual weights" in on_kernel.summary
    assert f"on kernel problems: marginkit.plans.jst.kernel:{KERNEL_VARIANTS[method]}" in str(mk.describe(method))


# compiled: the numba/NumPy switch ------------------------------------------------------------------------------
def test_compiled_false_runs_the_numpy_epochs_and_says_so():
    X, y = _separable(seed=6)
    problem = mk.SoftMarginSVM(X, y, bias=False)
    plan = problem.compile("dual-cd", compiled=False)
    assert plan.resolved_backend == "numpy" and plan.config.compiled is False
    res = plan.run(max_iter=3, seed=0)
    assert res.info["compiled"] is False and res.info["backend"] == "numpy"
    assert mk.describe("dual-cd").option("compiled").default == "auto"


@pytest.mark.parametrize("method,problem", [("dual-cd", "svm"), ("dual-cd-bias", "svm-bias"), ("dykstra", "mm"),
                                            ("dykstra-accelerated", "minnorm"), ("mirror-descent", "minnorm")])
def test_a_bad_compiled_value_is_a_problem_error_naming_it(method, problem):
    X, y = _separable(seed=7)
    prob = {"svm": mk.SoftMarginSVM(X, y, bias=False), "svm-bias": mk.SoftMarginSVM(X, y, bias=True),
            "mm": mk.MaxMargin(X, y), "minnorm": mk.MinNormFeasibility(X, y)}[problem]
    with pytest.raises(mk.ProblemError, match=r"compiled must be one of 'auto' or a bool; got 'numba'"):
        prob.compile(method, compiled="numba")


@pytest.mark.parametrize("method", ["dual-cd", "fista"])
def test_backend_is_no_option_of_any_plan(method):
    """One name per option: the package was never released, so ``compiled`` has no former name."""
    X, y = _separable(seed=10)
    with pytest.raises(mk.ProblemError, match="unknown option.*'backend'"):
        mk.SoftMarginSVM(X, y, bias=False).compile(method, backend="numpy")


def _variant_problems():
    """One problem per (card, variant key): the variant's class is what runs on it."""
    X, y = _separable(n=40, seed=3)
    Xd = da.from_array(X, chunks=(20, -1))
    out = []
    for card in VARIANT_CARDS:
        for key, _ in card.variants:
            if key == "kernel":
                out.append((card.name, key, lambda: mk.MaxMargin(X, y, kernel="rbf", gamma=0.5)))
            elif key == "dask" and card.form == "SoftMarginSVM":
                out.append((card.name, key, lambda: mk.SoftMarginSVM(Xd, y, C=0.5, bias=False)))
            elif key == "dask":
                out.append((card.name, key, lambda: mk.MinNormFeasibility(Xd, y)))
    return out


@pytest.mark.parametrize("method,key,make", _variant_problems(), ids=lambda v: v if isinstance(v, str) else "")
def test_every_variant_keeps_the_trace_invariance_obligation(method, key, make):
    """The obligation of marginkit.testing for the class a variant runs: trace=None, 1 and 'geometric' give the
    same iterations, status and final iterate (the test instances of test_contract.py run the cards' own classes)."""
    from marginkit.testing import check_obligation
    problem = make()
    plan_class = type(problem.compile(method))
    assert plan_class.__name__.startswith({"kernel": "Kernel", "dask": "CoCoA"}[key])   # the variant's class runs
    check_obligation("trace-invariance", plan_class, problem, method)
