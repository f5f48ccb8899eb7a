"""Shared by the experiment tests (tests/test_experiments_*.py): load a script of experiments/ as a module, and
check the claims it states (each script's ``CLAIMS``/``check_claims``/``claims_table``)."""
import importlib.util
import os
import sys

EXPERIMENTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "experiments")


def load_experiment(name):
    """``experiments/<name>.py`` imported as a fresh module (its folder on the path, as when the script is run: the
    scripts share ``experiments/_claims.py``)."""
    if EXPERIMENTS not in sys.path:
        sys.path.insert(0, EXPERIMENTS)
    spec = importlib.util.spec_from_file_location(f"{name}_experiment", os.path.join(EXPERIMENTS, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
