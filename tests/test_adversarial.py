"""The adversarial suite: bad input enumerated per entry point × argument × kind of badness.

Every case must end in one of: a ``ProblemError`` naming the argument (``"error"``), a correct result (``"ok"``),
or either of the two (``"either"``: odd but possibly valid input; then the result must be honest: a finite
iterate, or the status ``solver_error``). Anything else (a raw exception from deep inside, a non-finite iterate
under a success status) fails. Inputs that could abort the process (corrupt sparse structure) run in a
subprocess. The command line's cases are in ``test_cli_adversarial``.
"""
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import scipy.sparse as sp

import marginkit as mk
from marginkit import ProblemError
from marginkit.core.params import config_fields
from marginkit.engine.registry import METHODS

RNG = np.random.default_rng(0)
X0 = RNG.standard_normal((12, 3))
Y0 = np.where(X0[:, 0] > 0, 1.0, -1.0)
X0 = X0 + 0.3 * Y0[:, None] * np.array([1.0, 0.0, 0.0])


def _sparse_bad_index():
    A = sp.csr_matrix(X0)
    A.indices[0] = 7
    return A


# kinds of bad data for a (n, d) matrix argument: name -> (value, expected)
MATRIX_KINDS = {
    "none": (None, "error"), "scalar": (3.0, "error"), "string": ("abc", "error"),
    "strings": ([["a", "b", "c"]] * 12, "error"), "1-D": (X0[:, 0], "error"), "3-D": (X0[None], "error"),
    "no rows": (np.zeros((0, 3)), "error"), "no columns": (np.zeros((12, 0)), "error"),
    "nan": (np.where(np.eye(12, 3) > 0, np.nan, X0), "error"),
    "inf": (np.where(np.eye(12, 3) > 0, np.inf, X0), "error"),
    "-inf": (np.where(np.eye(12, 3) > 0, -np.inf, X0), "error"), "complex": (X0 + 1j, "error"),
    "object with None": (np.array([[None, 1.0, 2.0]] * 12, dtype=object), "error"),
    "ragged": ([[1.0, 2.0], [1.0]], "error"), "dict": ({"a": 1}, "error"), "wrong rows": (X0[:5], "error"),
    "sparse nan": (sp.csr_matrix(np.where(np.eye(12, 3) > 0, np.nan, X0)), "error"),
    "sparse complex": (sp.csr_matrix(X0 + 1j), "error"),
    "bool": (X0 > 0, "either"), "int": (np.round(3 * X0).astype(int), "either"),
    "float32": (X0.astype(np.float32), "ok"), "fortran": (np.asfortranarray(X0), "ok"),
    "csc": (sp.csc_matrix(X0), "ok"), "coo": (sp.coo_matrix(X0), "ok"),
    "list": (X0.tolist(), "ok"), "zeros": (np.zeros((12, 3)), "either"), "huge": (X0 * 1e150, "either"),
    "tiny": (X0 * 1e-150, "either"), "duplicate rows": (np.vstack([X0[:6], X0[:6]]), "either"),
}
LABEL_KINDS = {
    "none": (None, "error"), "2-D": (Y0[:, None], "error"), "short": (Y0[:5], "error"),
    "one class": (np.ones(12), "error"), "three classes": (np.arange(12) % 3, "error"),
    "nan": (np.where(np.arange(12) == 0, np.nan, Y0), "error"),
    "inf": (np.where(np.arange(12) == 0, np.inf, Y0), "error"), "complex": (Y0 + 1j, "error"),
    "mixed types": (np.array([1 if v > 0 else "a" for v in Y0], dtype=object), "error"),
    "None inside": (np.array([1 if v > 0 else None for v in Y0], dtype=object), "error"),
    "sparse": (sp.csr_matrix(Y0), "error"), "scalar": (1.0, "error"), "string": ("ab", "error"),
    "0/1": ((Y0 > 0).astype(int), "ok"), "strings": (np.where(Y0 > 0, "cat", "dog"), "ok"), "bools": (Y0 > 0, "ok"),
    "floats": (np.where(Y0 > 0, 2.5, -7.0), "ok"), "list": (Y0.tolist(), "ok"),
}
POSITIVE_SCALAR_KINDS = {
    "none": (None, "error"), "string": ("1", "error"), "nan": (np.nan, "error"), "inf": (np.inf, "error"),
    "negative": (-1.0, "error"), "zero": (0.0, "error"), "complex": (1 + 1j, "error"), "list": ([1.0], "error"),
    "array": (np.array([1.0, 2.0]), "error"), "bool": (True, "error"), "float32": (np.float32(2.0), "ok"),
    "int": (3, "ok"), "int64": (np.int64(3), "ok"), "tiny": (1e-300, "either"), "huge": (1e300, "either"),
}
BOOL_KINDS = {"none": (None, "error"), "string": ("yes", "error"), "int": (2, "error"), "float": (1.0, "error"),
              "numpy bool": (np.bool_(True), "ok"), "true": (True, "ok")}
KERNEL_KINDS = {"bogus": ("poly", "error"), "number": (3, "error"), "rbf": ("rbf", "ok"), "linear": ("linear", "ok"),
                "callable not psd": (lambda A, B=None: -np.eye(A.shape[0]) if B is None else -A @ B.T, "error"),
                "callable raising": (lambda A, B=None: 1 / 0, "error"),
                "callable wrong shape": (lambda A, B=None: np.ones((2, 2)), "error")}


def outcome(fn):
    """Run ``fn``; ``"error"`` for a ProblemError, else the value. Any other exception fails the test."""
    try:
        return fn()
    except ProblemError:
        return "error"


def check(expected, got, what):
    if expected == "error":
        assert isinstance(got, str) and got == "error", f"{what}: expected a ProblemError, got {got!r}"
    elif expected == "ok":
        assert not (isinstance(got, str) and got == "error"), f"{what}: valid input was rejected"
    if isinstance(got, mk.Result):
        honest(got, what)


def honest(res, what):
    assert res.status in mk.core.result.STATUSES, what
    if res.status != "solver_error":
        for v in (res.w, res.dual_coef):
            if v is not None:
                assert np.all(np.isfinite(v)), f"{what}: non-finite iterate under status {res.status}"


CONSTRUCTORS = {
    "MaxMargin": lambda X=X0, y=Y0, **kw: mk.MaxMargin(X, y, **kw),
    "MinNormFeasibility": lambda X=X0, y=Y0, **kw: mk.MinNormFeasibility(X, y, **kw),
    "SoftMarginSVM": lambda X=X0, y=Y0, **kw: mk.SoftMarginSVM(X, y, **kw),
    "PerturbedSVMDual": lambda X=X0, y=Y0, **kw: mk.PerturbedSVMDual(X, y, **kw),
}
CASES = []
for cls in CONSTRUCTORS:
    CASES += [(cls, "X", kind, v, e) for kind, (v, e) in MATRIX_KINDS.items()]
    CASES += [(cls, "y", kind, v, e) for kind, (v, e) in LABEL_KINDS.items()]
for cls, arg in (("SoftMarginSVM", "C"), ("PerturbedSVMDual", "gamma"), ("PerturbedSVMDual", "mu"),
                 ("MinNormFeasibility", "p")):
    default_none = cls == "PerturbedSVMDual"   # None there means the paper's default
    CASES += [(cls, arg, kind, v, "ok" if (kind == "none" and default_none) else e)
              for kind, (v, e) in POSITIVE_SCALAR_KINDS.items()]
CASES += [("MinNormFeasibility", "p", "one", (1.0, "error")[0], "error"),
          ("MinNormFeasibility", "p", "below one", 0.5, "error")]
for cls in ("MaxMargin", "SoftMarginSVM"):
    CASES += [(cls, "bias", kind, v, e) for kind, (v, e) in BOOL_KINDS.items()]
    CASES += [(cls, "kernel", kind, v, e) for kind, (v, e) in KERNEL_KINDS.items()]
    CASES += [(cls, "gamma", kind, v, e) for kind, (v, e) in POSITIVE_SCALAR_KINDS.items()
              if kind not in ("none",)]
CASES += [("MinNormFeasibility", "constraint", k, v, e) for k, v, e in
          (("bogus", "bogus", "error"), ("none", None, "error"), ("number", 3, "error"),
           ("interpolation", "interpolation", "ok"))]
CASES += [("MinNormFeasibility", "w0", k, v, e) for k, v, e in
          (("short", np.ones(2), "error"), ("nan", np.array([np.nan, 0, 0]), "error"),
           ("2-D", np.ones((3, 1)), "error"), ("string", "abc", "error"), ("ok", np.ones(3), "ok"))]


@pytest.mark.parametrize("cls,arg,kind,value,expected", CASES,
                         ids=[f"{c}-{a}-{k}" for c, a, k, _, _ in CASES])
def test_problem_constructors(cls, arg, kind, value, expected):
    kwargs = {arg: value}
    if arg == "gamma" and cls in ("MaxMargin", "SoftMarginSVM"):
        kwargs["kernel"] = "rbf"
    if arg == "y" and cls == "MinNormFeasibility" and kind in ("strings", "bools"):
        expected = "ok"
    X_before = None if arg != "X" or not isinstance(value, np.ndarray) else value.copy()
    got = outcome(lambda: CONSTRUCTORS[cls](**kwargs))
    check(expected, got, f"{cls}({arg}={kind})")
    if X_before is not None:
        np.testing.assert_array_equal(value, X_before)
    if got != "error" and arg in ("X", "y"):   # a valid but odd problem solves honestly, or says why not
        m = "dual-accelerated" if cls == "MaxMargin" and "dual-accelerated" in mk.methods(got) else None
        if m:
            check("either", outcome(lambda: got.solve(m, max_iter=30)), f"{cls}({arg}={kind}).solve")


ELLIPSE = ([[0.0, 0.0]], [[1.0, 1.0]], [[5.0, 0.0]], [[1.0, 1.0]])
ESP_KINDS = {"none": (None, "error"), "nan": ([[np.nan, 0.0]], "error"), "3-D centres": ([[[0.0, 0.0]]], "error"),
             "empty": (np.zeros((0, 2)), "error"), "string": ("a", "error"),
             "wrong width": ([[0.0, 0.0, 0.0]], "error"), "complex": ([[1j, 0.0]], "error"),
             "inf": ([[np.inf, 0.0]], "error")}
ESP_CASES = [(i, k, v, e) for i in range(4) for k, (v, e) in ESP_KINDS.items()]
ESP_CASES += [(1, "dense wrong shape", np.ones((1, 3, 3)), "error"), (1, "4-D", np.ones((1, 2, 2, 2)), "error"),
              (1, "mixed dense and diagonal", np.eye(2)[None], "error"), (1, "dense", np.eye(2)[None], "error")]


@pytest.mark.parametrize("index,kind,value,expected", ESP_CASES, ids=[f"arg{i}-{k}" for i, k, _, _ in ESP_CASES])
def test_ellipsoid_separation(index, kind, value, expected):
    args = list(ELLIPSE)
    args[index] = value
    check(expected, outcome(lambda: mk.EllipsoidSeparation(*args)), f"EllipsoidSeparation(arg {index}={kind})")


RUN_KINDS = {
    "max_iter": {"negative": (-1, "error"), "float": (2.5, "error"), "string": ("10", "error"), "none": (None, "ok"),
                 "bool": (True, "error"), "int64": (np.int64(5), "ok"), "zero": (0, "ok")},
    "tol": {"negative": (-1e-3, "error"), "nan": (np.nan, "error"), "string": ("1e-3", "error"),
            "float32": (np.float32(1e-3), "ok"), "zero": (0.0, "ok"), "inf": (np.inf, "error")},
    "time_limit": {"nan": (np.nan, "error"), "zero": (0.0, "error"), "negative": (-1.0, "error"),
                   "string": ("1", "error"), "small": (1e-9, "ok")},
    "callback": {"not callable": (3, "error"), "stops": (lambda s: True, "ok")},
    "seed": {"negative": (-1, "error"), "string": ("abc", "error"), "float": (1.5, "error"),
             "generator": (np.random.default_rng(1), "ok"), "big": (2 ** 70, "ok")},
    "verbose": {"string": ("yes", "error"), "negative": (-1, "error")},
    "check_every": {"zero": (0, "error"), "float": (1.5, "error"), "negative": (-2, "error")},
    "warm_start": {"nan": (np.full(3, np.nan), "error"), "short": (np.ones(2), "error"), "string": ("w", "error"),
                   "2-D": (np.ones((3, 3)), "error"), "inf": (np.full(3, np.inf), "error")},
    "trace": {"zero": (0, "error"), "string": ("every", "error"), "negative": (-3, "error"), "none": (None, "ok")},
    "test_set": {"not a pair": (X0, "error"), "wrong width": ((X0[:, :2], Y0), "error"), "scalar": (3, "error")},
    "no_such_option": {"any": (1, "error")},
}
FO_CARDS = [c for c in METHODS if not c.is_reference and c.form in ("MaxMargin", "SoftMarginSVM", "MinNormFeasibility")]


def _problem_for(card):
    if card.form == "MaxMargin":
        return mk.MaxMargin(X0, Y0)
    if card.form == "MinNormFeasibility":
        return mk.MinNormFeasibility(X0, Y0)
    return mk.SoftMarginSVM(X0, Y0, bias=not any(r == "no_bias" for r, _ in card.requires))


RUN_CASES = [(c, opt, k, v, e) for c in FO_CARDS for opt, kinds in RUN_KINDS.items() for k, (v, e) in kinds.items()]


@pytest.mark.parametrize("card,option,kind,value,expected", RUN_CASES,
                         ids=[f"{c.form}:{c.name}-{o}-{k}" for c, o, k, _, _ in RUN_CASES])
def test_run_options_of_every_method(card, option, kind, value, expected):
    problem = _problem_for(card)
    opts = {"max_iter": 5, option: value} if option != "max_iter" else {option: value}
    if option == "warm_start" and card.form == "SoftMarginSVM" and card.name != "dual-cd":
        expected = "either"   # a dual method may read the warm start's dual point instead
    check(expected, outcome(lambda: problem.solve(card.name, **opts)), f"{card.name}({option}={kind})")


BAD_PARAMETER_VALUES = {"object": object(), "string": "bogus", "nan": np.nan, "inf": np.inf, "negative": -1.0,
                        "complex": 1j, "list": [1, 2]}
PARAM_CASES = []
for c in [c for c in METHODS if not c.is_reference]:
    cls = c.load()
    for f in config_fields(cls.Config) if hasattr(cls, "Config") else []:
        PARAM_CASES += [(c, f, k, v) for k, v in BAD_PARAMETER_VALUES.items()]


def _instance(card):
    from test_contract import make_instance
    return make_instance(card)[0]


@pytest.mark.parametrize("card,field,kind,value", PARAM_CASES,
                         ids=[f"{c.form}:{c.name}-{f}-{k}" for c, f, k, _ in PARAM_CASES])
def test_method_parameters_never_crash(card, field, kind, value):
    problem = _instance(card)
    got = outcome(lambda: problem.solve(card.name, max_iter=5, **{field: value}))
    check("either", got, f"{card.name}({field}={kind})")


def test_result_predict_and_decision_function():
    res = mk.MaxMargin(X0, Y0).solve("dual-accelerated", max_iter=20)
    for bad in (X0[:, :2], np.full((2, 3), np.nan), "abc", None, X0[0]):
        assert outcome(lambda: res.predict(bad)) == "error"
    assert res.predict(X0).shape == (12,)


def test_entry_points_refuse_what_is_not_a_problem():
    for bad in ("MaxMargin", None, 3, X0):
        assert outcome(lambda: mk.methods(bad)) == "error"
        assert outcome(lambda: mk.cross_validate(bad)) == "error"


def test_cross_validate_arguments():
    P = mk.MaxMargin(X0, Y0)
    assert outcome(lambda: mk.cross_validate(P, methods=3)) == "error"
    assert outcome(lambda: mk.cross_validate(P, methods=["nope"])) == "error"
    assert outcome(lambda: mk.cross_validate(P, method_options=[1])) == "error"
    rep = mk.cross_validate(P, methods="dual-accelerated", max_iter=20)
    assert [r["method"] for r in rep.rows] == ["cvxpy", "dual-accelerated"]


def test_datasets_arguments(tmp_path):
    from marginkit import datasets as ds
    assert outcome(lambda: ds.load_libsvm(str(tmp_path))) == "error"
    assert outcome(lambda: ds.load_libsvm(str(tmp_path / "missing"))) == "error"
    (tmp_path / "bad.txt").write_text("this is not svmlight\n")
    assert outcome(lambda: ds.load_libsvm(str(tmp_path / "bad.txt"))) == "error"
    assert outcome(lambda: ds.mnist_pair(0, 1, scale="bogus")) == "error"
    assert outcome(lambda: ds.mnist_pair(0, 1, test_fraction=1.0)) == "error"
    assert outcome(lambda: ds.mnist_pair(0, 0)) == "error"


def test_shared_arrays_are_read_only_and_stay_so_through_pickling():
    import pickle
    P = mk.SoftMarginSVM(X0, Y0, kernel="rbf")
    for arr in (P.X, P.y, P.row_norms(), P.gram(), P.reference().dual_coef):
        assert not arr.flags.writeable
    Q = pickle.loads(pickle.dumps(P))
    for arr in (Q.X, Q.y, Q.row_norms(), Q.gram()):
        assert not arr.flags.writeable


CORRUPT_SPARSE = {
    "column index out of range": "A.indices[0] = 7",
    "negative column index": "A.indices[0] = -1",
    "indptr not monotone": "A.indptr[2], A.indptr[3] = A.indptr[3], A.indptr[2]",
    "indptr past the data": "A.indptr[-1] = A.indptr[-1] + 5",
    "row index out of range (COO)": "A = A.tocoo(); A.row[0] = 99",
}


def test_corrupt_sparse_input_is_an_error_never_an_abort():
    """Each corruption in its own subprocess: a crash would be a signal, not an exception."""
    for kind, corrupt in CORRUPT_SPARSE.items():
        code = textwrap.dedent(f"""
            import numpy as np, scipy.sparse as sp, marginkit as mk
            rng = np.random.default_rng(0); X = rng.standard_normal((12, 3)); y = np.where(X[:, 0] > 0, 1.0, -1.0)
            A = sp.csr_matrix(X)
            {corrupt}
            try:
                P = mk.MaxMargin(A, y)
                P.reference(); P.solve("dual-accelerated", max_iter=5)
                print("accepted")
            except mk.ProblemError as exc:
                print("ProblemError", exc)
        """)
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, f"{kind}: exit {out.returncode}: {out.stderr[-300:]}"
        assert out.stdout.startswith("ProblemError"), f"{kind}: {out.stdout} {out.stderr[-300:]}"


def _npz(tmp_path, name, **fields):
    path = tmp_path / name
    np.savez(path, **fields)
    return str(path)


def cli_cases(tmp_path):
    """(argv, what) pairs that must each exit 2 with one line on stderr and no traceback."""
    ok = _npz(tmp_path, "ok.npz", X=X0, y=Y0)
    trunc = tmp_path / "trunc.npz"
    trunc.write_bytes(open(ok, "rb").read()[:200])
    (tmp_path / "adir").mkdir()
    (tmp_path / "afile").write_text("x")
    single = tmp_path / "single.npy"
    np.save(single, X0)
    files = {
        "no y": _npz(tmp_path, "noy.npz", X=X0), "no X": _npz(tmp_path, "nox.npz", y=Y0),
        "truncated": str(trunc), "sparse parts missing": _npz(tmp_path, "sp.npz", X_data=X0.ravel(), y=Y0),
        "sparse parts inconsistent": _npz(tmp_path, "sp2.npz", X_data=np.ones(3), X_indices=np.array([0, 5, 1]),
                                          X_indptr=np.array([0, 3]), X_shape=np.array([1, 3]), y=np.array([1.0])),
        "unknown problem class": _npz(tmp_path, "cls.npz", X=X0, y=Y0, problem="Result"),
        "array-valued C": _npz(tmp_path, "c.npz", X=X0, y=Y0, problem="SoftMarginSVM", C=np.array([1.0, 2.0])),
        "negative C": _npz(tmp_path, "c2.npz", X=X0, y=Y0, problem="SoftMarginSVM", C=-1.0),
        "nan in X": _npz(tmp_path, "nan.npz", X=np.where(np.eye(12, 3) > 0, np.nan, X0), y=Y0),
        "one class": _npz(tmp_path, "one.npz", X=X0, y=np.ones(12)),
        "a directory": str(tmp_path / "adir"), "a single array": str(single),
        "a text file": str(tmp_path / "afile"), "missing": str(tmp_path / "missing.npz"),
    }
    cases = [(["solve", f, "--method", "dual-accelerated"], what) for what, f in files.items()]
    cases += [
        (["solve", ok, "--method", "nope"], "unknown method"),
        (["solve", ok, "--method", "dual-accelerated", "--seed", "-1"], "negative seed"),
        (["solve", ok, "--method", "dual-accelerated", "--max-iter", "-5"], "negative max-iter"),
        (["solve", ok, "--method", "dual-accelerated", "--max-iter", "abc"], "non-integer max-iter"),
        (["solve", ok, "--method", "dual-accelerated", "--tol", "nan"], "nan tol"),
        (["solve", ok, "--method", "dual-accelerated", "--tol", "-1"], "negative tol"),
        (["solve", ok, "--method", "cvxpy", "--solver", "NOPE"], "unknown solver"),
        (["solve", "no-such-problem"], "unknown catalog name"),
        (["compare", ok, "--methods", "dual-accelerated,nope"], "unknown method in a list"),
        (["compare", ok, "--methods", ""], "empty method list"),
        (["compare", ok, "--plot", str(tmp_path / "missing" / "f.png")], "plot into a missing directory"),
        (["compare", ok, "--plot", str(tmp_path / "afile" / "f.png")], "plot under a file"),
        (["nope"], "unknown command"), ([], "no command"), (["solve"], "missing name"),
        (["bench", "--quick", "--output", str(tmp_path / "afile" / "r.json")], "bench output under a file"),
        (["bench", "--quick", "--output", str(tmp_path / "adir")], "bench output is a directory"),
        (["bench", "--quick", "--only", "no-such-row"], "unknown bench row"),
        (["certify", ok, "--weights", str(tmp_path / "missing.npy")], "certify without a weights file"),
    ]
    return cases


def test_cli_adversarial(tmp_path, capsys):
    from marginkit.api.cli import main
    for argv, what in cli_cases(tmp_path):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code
        err = capsys.readouterr().err.strip()
        assert code == 2, f"{what}: exit {code}"
        assert err and len(err.splitlines()) == 1 and "Traceback" not in err, f"{what}: {err!r}"


DEGENERATE = {
    "all-zero X": np.zeros((12, 3)),
    "a zero column": np.hstack([X0, np.zeros((12, 1))]),
    "duplicate rows": np.vstack([X0[:6], X0[:6]]),
    "one nonzero entry": np.where(np.eye(12, 3) > 0, 1.0, 0.0),
    "sparse all-zero": sp.csr_matrix((12, 3)),
}
DEGENERATE_CASES = [(c, k) for c in METHODS if not c.is_reference
                    and c.form in ("MaxMargin", "SoftMarginSVM", "MinNormFeasibility", "PerturbedSVMDual")
                    for k in DEGENERATE]


@pytest.mark.parametrize("card,kind", DEGENERATE_CASES, ids=[f"{c.form}:{c.name}-{k}" for c, k in DEGENERATE_CASES])
def test_degenerate_but_valid_data_get_an_honest_status(card, kind):
    X = DEGENERATE[kind]
    y = Y0 if X.shape[0] == 12 else Y0[: X.shape[0]]
    if card.form == "MaxMargin":
        problem = mk.MaxMargin(X, y)
    elif card.form == "MinNormFeasibility":
        problem = mk.MinNormFeasibility(X, y)
    elif card.form == "PerturbedSVMDual":
        problem = mk.PerturbedSVMDual(X, y)
    else:
        problem = mk.SoftMarginSVM(X, y, bias=not any(r == "no_bias" for r, _ in card.requires))
    res = problem.solve(card.name, max_iter=50, seed=0)
    honest(res, f"{card.name} on {kind}")
    if kind.startswith("all-zero") or kind == "sparse all-zero":
        assert not (res.status == "optimal" and problem.form == "MaxMargin"), "zero data cannot be separated"


def count_kinds(tmp_path) -> dict:
    """How many bad-input kinds this suite enumerates, per entry point (reported in the closing note)."""
    return {"constructors": len(CASES), "ellipsoids": len(ESP_CASES), "run options": len(RUN_CASES),
            "method parameters": len(PARAM_CASES), "degenerate data": len(DEGENERATE_CASES),
            "corrupt sparse": len(CORRUPT_SPARSE), "command line": len(cli_cases(tmp_path)),
            "predict, methods, cross_validate, datasets, read-only": 5 + 8 + 4 + 6 + 9}


def test_the_suite_enumerates_well_over_250_kinds(tmp_path):
    assert sum(count_kinds(tmp_path).values()) > 1000


@pytest.mark.parametrize("method", ["batch-perceptron", "dual-accelerated", "dual-accelerated-stochastic"])
@pytest.mark.parametrize("gamma, scale", [(None, 1.0), (10.0, 1.0), (1.0, 100.0)])
def test_rbf_kernel_with_one_point_under_both_labels_ends_honestly(method, gamma, scale):
    """Issue 25: the same point with opposite labels (n = 40, d = 30, max_iter = 30) raised an OverflowError in a
    probe; every kernel method ends with an honest status (the set is not separable: never optimal)."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 30)) * scale
    y = np.where(rng.standard_normal(40) > 0, 1.0, -1.0)
    X[1], y[0], y[1] = X[0], 1.0, -1.0
    res = mk.MaxMargin(X, y, kernel="rbf", gamma=gamma).solve(method, max_iter=30)
    assert res.status in ("solver_error", "infeasible", "infeasible_inaccurate", "user_limit")
    honest(res, method)
