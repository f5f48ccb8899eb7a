"""Options are discoverable: ``marginkit.describe``, ``marginkit list --method``, the numba fallback warning, and the
documentation site (its build is ``slow``; CI builds it anyway).

Every description is checked against the source of truth it is generated from (the plan's ``Config`` dataclass,
its declared constraints, the registry card, the run loop's signature), so a new option or a changed default
shows up here without a test edit, and a description that drifts from the code fails.
"""
import dataclasses
import inspect
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import marginkit as mk
from marginkit.api.cli import main
from marginkit.engine.registry import METHODS
from marginkit.engine.runloop import RUN_OPTIONS

ROOT = Path(__file__).resolve().parents[1]
PLAN_CARDS = [c for c in METHODS if not c.is_reference]


@pytest.mark.parametrize("card", PLAN_CARDS, ids=lambda c: f"{c.name}@{c.form}")
def test_describe_matches_the_frozen_config_of_every_plan(card):
    d = mk.describe(card.name, card.form)
    config = card.load().Config
    fields = {f.name: f for f in dataclasses.fields(config)}
    assert [o.name for o in d.options] == list(fields)
    for o in d.options:
        f = fields[o.name]
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
        assert o.default == default
        kinds = getattr(config, "constraints", {}).get(o.name)
        if kinds:   # the accepted values are the declared constraint, which rejects what it says it rejects
            for k in kinds:
                assert ("None" if k is None else str(k)) in o.accepts
    assert [o.name for o in d.run_options] == list(RUN_OPTIONS)
    assert d.defaults["max_iter"] == card.load().default_max_iter and d.defaults["tol"] == card.load().default_tol
    assert all(o.meaning for o in d.run_options), "every run option has a meaning"
    assert (d.paper, d.rate, d.algorithm) == (card.paper, card.rate, card.algorithm)


def test_option_meanings_come_from_the_config_field_metadata():
    d = mk.describe("dual-accelerated")
    assert "θ" in d.option("theta").meaning and d.option("theta").default == 1.0
    assert "'exp'" in d.option("loss").accepts and "'logistic'" in d.option("loss").accepts
    inertial = mk.describe("diagonal-inertial")   # an inherited field keeps the metadata of its base Config
    assert "λ_t" in inertial.option("schedule").meaning and "α" in inertial.option("alpha").meaning
    assert "numba" in mk.describe("dual-cd").option("compiled").meaning


def test_meanings_by_metadata_then_shared_names_and_nothing_else():
    from marginkit.api.describe import SHARED_OPTION_DOCS, config_options

    @dataclasses.dataclass(frozen=True)
    class Config:
        """rho: a docstring line is not a meaning"""
        rho: float = 1.0   # nor is a comment
        eta: float = dataclasses.field(default=0.5, metadata={"doc": "the step η"})
        compiled: bool | str = "auto"
        bare: int = 3

    @dataclasses.dataclass(frozen=True)
    class Derived(Config):
        kappa: float = dataclasses.field(default=2.0, metadata={"doc": "the ratio κ"})
    opts = {o.name: o for o in config_options(Derived)}
    assert opts["rho"].meaning == "" and opts["bare"].meaning == "" and opts["bare"].default == 3
    assert opts["eta"].meaning == "the step η" and opts["kappa"].meaning == "the ratio κ"
    assert opts["compiled"].meaning == SHARED_OPTION_DOCS["compiled"]


def _builtin_plan_classes():
    """Every plan class defined under marginkit/plans (the cards' classes, their variants and their bases)."""
    import importlib
    import pkgutil

    import marginkit.plans
    from marginkit.engine.runloop import IterationPlan
    found = {}
    for info in pkgutil.walk_packages(marginkit.plans.__path__, "marginkit.plans."):
        module = importlib.import_module(info.name)
        for obj in vars(module).values():
            if isinstance(obj, type) and issubclass(obj, IterationPlan) and obj.__module__ == info.name:
                found[f"{obj.__module__}:{obj.__qualname__}"] = obj
    return found


def test_every_field_of_every_builtin_plan_has_a_meaning():
    """The meaning of an option is data of its ``Config`` field (``metadata={"doc": ...}``, or a shared name such
    as ``compiled``): describe reads no source, so a field without one would be described with no meaning."""
    from marginkit.api.describe import config_options
    plans = _builtin_plan_classes()
    for card in PLAN_CARDS:   # the walk found every class a card can run
        for target in (card.target, *(t for _, t in card.variants)):
            if isinstance(target, str):
                assert target in plans, target
    missing = [f"{name}.Config.{o.name}" for name, cls in plans.items()
               for o in config_options(getattr(cls, "Config", None)) if not o.meaning.strip()]
    assert not missing, "Config fields without field(metadata={'doc': ...}): " + ", ".join(missing)


def test_import_and_a_first_solve_parse_no_source():
    """``import marginkit`` and a first solve import nothing of describe and call no source reader from marginkit's
    code (``ast``, ``tokenize`` and ``inspect`` are in ``sys.modules`` anyway: ``dataclasses`` imports them)."""
    code = """
import ast, inspect, sys, tokenize
calls = []
def spy(module, name):
    original = getattr(module, name)
    def wrapper(*args, **kwargs):
        if sys._getframe(1).f_globals.get("__name__", "").startswith("marginkit"):
            calls.append(f"{module.__name__}.{name}")
        return original(*args, **kwargs)
    setattr(module, name, wrapper)
for module, name in ((ast, "parse"), (tokenize, "tokenize"), (tokenize, "generate_tokens"),
                     (inspect, "getsource"), (inspect, "getsourcelines"), (inspect, "findsource")):
    spy(module, name)
import numpy as np
import marginkit as mk
rng = np.random.default_rng(0)
X = rng.standard_normal((30, 4))
y = np.where(X[:, 0] > 0, 1.0, -1.0)
X[:, 0] += y
res = mk.MaxMargin(X, y).solve("dual-accelerated", max_iter=5)
print(res.iterations, "marginkit.api.describe" in sys.modules, sorted(set(calls)))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split("\n")[-2] == "5 False []", out


def test_the_documented_defaults_are_the_ones_a_solve_uses():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 4))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    X[:, 0] += y   # separable through the origin
    problem = mk.MaxMargin(X, y)
    d = mk.describe("dual-accelerated", problem)
    plan = problem.compile("dual-accelerated")
    for o in d.options:
        assert getattr(plan.config, o.name) == o.default
    res = problem.solve("dual-accelerated", tol=0.0)   # cannot be certified: the budget ends it
    assert res.iterations == d.defaults["max_iter"]


def test_a_name_on_several_forms_is_described_per_form():
    both = mk.describe("fista")
    assert {d.form for d in both} == {"SoftMarginSVM", "EllipsoidSeparation", "PerturbedSVMDual"}
    one = mk.describe("fista", mk.SoftMarginSVM)
    assert one.form == "SoftMarginSVM" and "restart" in one.defaults
    assert "fista on EllipsoidSeparation" in str(both)
    # through a reduction: MaxMargin is solved by dykstra on MinNormFeasibility
    red = mk.describe("dykstra", "MaxMargin")
    assert red.form == "MinNormFeasibility" and red.via == ("MaxMargin", "MinNormFeasibility")
    ref = mk.describe("cvxpy", "SoftMarginSVM")
    assert ref.run_options == () and ref.option("solver").default is None


def test_bad_names_raise_problem_error_listing_the_choices():
    with pytest.raises(mk.ProblemError, match="dual-accelerated"):
        mk.describe("nope")
    with pytest.raises(mk.ProblemError, match="SoftMarginSVM"):
        mk.describe("fista", "NoSuchForm")
    with pytest.raises(mk.ProblemError, match="does not exist on EllipsoidSeparation"):
        mk.describe("dual-cd", "EllipsoidSeparation")
    with pytest.raises(mk.ProblemError, match="method"):
        mk.describe(3)
    with pytest.raises(mk.ProblemError, match="no option 'nope'.*theta"):
        mk.describe("dual-accelerated").option("nope")
    X = np.array([[1.0, 0.0], [-1.0, 0.0], [2.0, 1.0]])
    with pytest.raises(mk.ProblemError, match="bias"):   # the requirement's reason, as solve would say it
        mk.describe("dual-accelerated", mk.MaxMargin(X, [1, -1, 1], bias=True))


def test_describe_is_public_and_help_points_to_it():
    assert "describe" in dir(mk) and "describe" in mk.__all__ and callable(mk.describe)
    assert "describe" in (mk.MaxMargin.solve.__doc__ or "")
    assert "PerformanceWarning" in dir(mk) and issubclass(mk.PerformanceWarning, UserWarning)


def test_cli_list_method(capsys):
    assert main(["list", "--method", "fista", "--problem", "SoftMarginSVM"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("fista on SoftMarginSVM") and "restart = 'function'" in out and "max_iter" in out
    assert main(["list", "--method", "dykstra", "--problem", "toy-2d"]) == 0   # a catalog name
    assert "through MaxMargin -> MinNormFeasibility" in capsys.readouterr().out
    assert main(["list", "--method", "nope"]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["list", "--problem", "SoftMarginSVM"]) == 2


def test_import_marginkit_loads_no_numba_and_no_plan():
    code = ("import sys, marginkit; marginkit.describe; "
            "print(any(m == 'numba' or m.startswith('marginkit.plans.') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_numpy_fallback_warns_once_per_process(monkeypatch):
    from marginkit.plans.common import numba_rows
    monkeypatch.setattr(numba_rows, "_NUMBA", False)     # as on a platform without numba
    monkeypatch.setattr(numba_rows, "_WARNED", False)
    rng = np.random.default_rng(1)
    X = rng.standard_normal((20, 3))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    problem = mk.SoftMarginSVM(X, y, bias=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        plans = [problem.compile("dual-cd"), problem.compile("dual-cd"),
                 mk.MinNormFeasibility(X, y).compile("dykstra")]
    fallback = [w for w in caught if issubclass(w.category, mk.PerformanceWarning)]
    assert len(fallback) == 1 and "numba" in str(fallback[0].message)
    assert all(p.resolved_backend == "numpy" for p in plans)
    with warnings.catch_warnings(record=True) as caught:   # an explicit choice is not a fallback
        warnings.simplefilter("always")
        monkeypatch.setattr(numba_rows, "_WARNED", False)
        problem.compile("dual-cd", compiled=False)
    assert not [w for w in caught if issubclass(w.category, mk.PerformanceWarning)]
    with pytest.raises(mk.ProblemError, match="compiled=True needs numba"):
        problem.compile("dual-cd", compiled=True)


def test_numba_is_a_runtime_dependency():
    import tomllib
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert any(dep.split(">")[0].strip() == "numba" for dep in meta["project"]["dependencies"])
    assert "docs" in meta["project"]["optional-dependencies"]
    assert (ROOT / "marginkit" / "py.typed").is_file()
    assert "py.typed" in meta["tool"]["setuptools"]["package-data"]["marginkit"]


def test_public_api_is_annotated():
    from marginkit import datasets
    from marginkit.engine import solve as engine_solve
    for fn in (mk.describe, mk.methods, engine_solve.solve, engine_solve.compile_method, datasets.mnist_pair,
               mk.MaxMargin.solve, mk.MaxMargin.compile, mk.MaxMargin.reference, mk.MaxMargin.constants):
        sig = inspect.signature(fn)
        assert sig.return_annotation is not inspect.Signature.empty, fn.__qualname__


@pytest.mark.slow
def test_documentation_site_builds_with_warnings_as_errors(tmp_path):
    mkdocs = pytest.importorskip("mkdocs")
    assert mkdocs
    if shutil.which("mkdocs") is None:
        pytest.skip("mkdocs is not installed (pip install -e '.[docs]')")
    env = {"NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}
    import os
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=ROOT, capture_output=True, text=True, env={**os.environ, **env}, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    site = tmp_path / "site"
    methods = (site / "methods" / "index.html").read_text()
    for card in METHODS:
        assert card.name in methods
    for script in (ROOT / "experiments").glob("*.py"):   # the gallery lists the directory (not its `_` helpers)
        if script.stem.startswith("_"):
            continue
        assert (site / "gallery" / script.stem / "index.html").is_file()
    for nb in (ROOT / "tutorials").glob("*.ipynb"):
        assert (site / "tutorials" / nb.stem / "index.html").is_file()
    assert "MarginClassifier" in (site / "api" / "index.html").read_text()


def test_help_on_a_plan_class_shows_its_docstring_as_written():
    """No hook rewrites a plan's docstring: ``help(PlanClass)`` shows the class as written, ``describe`` the options."""
    from marginkit.engine import runloop
    assert not hasattr(runloop, "set_doc_hook")
    for card in PLAN_CARDS:
        cls = card.load()
        assert "Options (generated" not in (cls.__doc__ or ""), card.name
        assert "_documented" not in vars(cls), card.name
