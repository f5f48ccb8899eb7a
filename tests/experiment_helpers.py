"""Shared by the experiment tests (tests/test_experiments_*.py): load a script of experiments/ as a module, run it at
the quick size (and at full size under ``-m slow``), and check the claims it states (each script's
``CLAIMS``/``check_claims``/``claims_table``)."""
import importlib.util
import os
import sys

import pytest

EXPERIMENTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "experiments")


def load_file(path, name):
    """The Python file ``path`` executed as a fresh module named ``name`` (not entered in ``sys.modules``)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_experiment(name):
    """``experiments/<name>.py`` imported as a fresh module (its folder on the path, as when the script is run: the
    scripts share ``experiments/_claims.py``)."""
    if EXPERIMENTS not in sys.path:
        sys.path.insert(0, EXPERIMENTS)
    return load_file(os.path.join(EXPERIMENTS, f"{name}.py"), f"{name}_experiment")


# a test run at the quick size by default and at full size under -m slow (its argument ``quick``)
QUICK_AND_FULL = pytest.mark.parametrize("quick", [True, pytest.param(False, marks=pytest.mark.slow)],
                                         ids=["quick", "full"])


def run_experiment(name, quick, outdir):
    """``experiments/<name>.py``'s ``main`` run into ``outdir``: ``(module, its output)``, once its figure is checked
    written (a non-empty ``out["png"]``)."""
    exp = load_experiment(name)
    out = exp.main(quick=quick, outdir=str(outdir))
    assert os.path.getsize(out["png"]) > 0
    return exp, out


def assert_claims(exp, out, printed, full=False):
    """Each claim of ``exp.CLAIMS`` is checked by the script, named in its docstring and printed with its verdict;
    a "holds" claim (and at full size a "full size only" one) holds, a "not reproduced" one is reported FAIL."""
    verdicts = exp.check_claims(out)
    assert out["claims"] == verdicts and list(verdicts) == [key for key, *_ in exp.CLAIMS]
    assert exp.claims_table(verdicts) in printed
    for key, text, where, expect in exp.CLAIMS:
        assert f"``{key}``" in exp.__doc__, key
        assert expect == "holds" or expect.startswith(("full size only: ", "not reproduced: ")), key
        if expect == "holds" or (full and expect.startswith("full size only")):
            assert verdicts[key], f"{key} ({where}) no longer holds: {text}"
        elif expect.startswith("not reproduced"):
            assert not verdicts[key], f"{key} ({where}) now reproduces: update CLAIMS and the docstring"
