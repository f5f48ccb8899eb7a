"""One trace schema (docs/TRACE.md): the same column for the same quantity in every method, relative gaps under the
bare name and absolute ones with ``_abs`` (as in cross_validate's table), gap columns whether or not the reference
came first, iterates only when asked, ``to_pandas``, and ``Result.save``/``load``."""
import contextlib
import io
import sys
from pathlib import Path

import cvxpy as cp
import numpy as np
import pytest

import marginkit as mk
from marginkit.core.result import GAP_COLUMNS, TRACE_COLUMNS
from marginkit.engine.registry import METHODS

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).parent))
from test_contract import make_instance  # noqa: E402  (the contract's instance of every form)

CARDS = [c for c in METHODS if not c.is_reference]


def _separable(seed=0, n=50, d=6):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    w = rng.standard_normal(d)
    y = np.sign(X @ w)
    return X + 0.2 * y[:, None] * w / np.linalg.norm(w), y


def _cvxpy_max_margin(X, y) -> float:
    """γ* = 1/||w*|| of the hard-margin problem, from an independent CVXPY model."""
    w = cp.Variable(X.shape[1])
    cp.Problem(cp.Minimize(cp.sum_squares(w)), [cp.multiply(y, X @ w) >= 1]).solve(solver="CLARABEL")
    return 1.0 / float(np.linalg.norm(w.value))


def _cvxpy_svm_value(X, y, C) -> float:
    w, b = cp.Variable(X.shape[1]), cp.Variable()
    obj = 0.5 * cp.sum_squares(w) + C * cp.sum(cp.pos(1 - cp.multiply(y, X @ w + b)))
    return float(cp.Problem(cp.Minimize(obj)).solve(solver="CLARABEL"))


@pytest.mark.parametrize("card", CARDS, ids=[f"{c.form}:{c.name}" for c in CARDS])
def test_every_method_records_only_columns_of_the_schema(card):
    problem, _ = make_instance(card)
    res = problem.compile(card.name).run(max_iter=20, tol=0.0, seed=0)
    keys = res.trace.keys()
    assert keys[:2] == ["iteration", "time"]
    unknown = set(keys) - set(TRACE_COLUMNS)
    assert not unknown, f"{card.name} records columns outside docs/TRACE.md: {sorted(unknown)}"


def test_the_docs_page_lists_every_column():
    page = (ROOT / "docs" / "TRACE.md").read_text()
    assert all(f"| `{name}` |" in page for name in TRACE_COLUMNS)


@pytest.mark.parametrize("data", ["random", "digits"])
def test_margin_gap_is_relative_and_margin_gap_abs_absolute_against_an_independent_model(data, digits01):
    X, y = _separable() if data == "random" else digits01
    gamma = _cvxpy_max_margin(X, y)
    P = mk.MaxMargin(X, y)
    P.reference()
    res = P.solve("dual-accelerated", max_iter=200, tol=0.0)
    tr = res.trace
    np.testing.assert_allclose(tr["margin_gap_abs"], gamma - tr["margin"], rtol=1e-5, atol=1e-7 * gamma)
    np.testing.assert_allclose(tr["margin_gap"], (gamma - tr["margin"]) / gamma, rtol=1e-5, atol=1e-7)
    # the last record is the returned classifier: the same number as cross_validate's table
    row = mk.cross_validate(P, methods=["dual-accelerated"], max_iter=200, tol=0.0).rows[-1]
    assert tr["margin_gap"][-1] == pytest.approx(row["margin_gap"], rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("data", ["random", "digits"])
def test_objective_gap_of_the_svm_matches_an_independent_model(data, digits01):
    X, y = _separable(seed=3) if data == "random" else digits01
    if data == "random":
        y = y.copy()
        y[:5] *= -1   # not separable: the hinge is active
    C = 0.1
    fstar = _cvxpy_svm_value(X, y, C)
    P = mk.SoftMarginSVM(X, y, C=C)
    P.reference()
    res = P.solve("fista", max_iter=300, tol=0.0)
    tr = res.trace
    np.testing.assert_allclose(tr["objective_gap_abs"], tr["objective"] - fstar, rtol=1e-5, atol=1e-6 * fstar)
    np.testing.assert_allclose(tr["objective_gap"], (tr["objective"] - fstar) / fstar, rtol=1e-5, atol=1e-6)
    assert tr["objective"][-1] == pytest.approx(res.value, rel=1e-9)


def test_gap_columns_appear_when_the_reference_comes_after_the_run_and_solve_never_starts_it():
    X, y = _separable(seed=1)
    first = mk.MaxMargin(X, y)
    res_before = first.solve("normalized-gd", max_iter=150, tol=0.0)
    assert first.cached_reference() is None           # solve() did not start a CVXPY solve
    assert "margin_gap" not in res_before.trace
    with pytest.raises(KeyError, match="reference"):
        res_before.trace["margin_gap"]
    first.reference()
    assert "margin_gap" in res_before.trace            # filled on the next read
    second = mk.MaxMargin(X, y)
    second.reference()
    res_after = second.solve("normalized-gd", max_iter=150, tol=0.0)
    for key in ("margin_gap", "margin_gap_abs"):
        np.testing.assert_allclose(res_before.trace[key], res_after.trace[key], rtol=1e-12, atol=1e-15)


def test_iterates_are_kept_only_when_asked_and_angle_gaps_need_them_after_the_run():
    X, y = _separable(seed=2)
    P = mk.MaxMargin(X, y)
    plain = P.solve("dual-accelerated", max_iter=100, tol=0.0)
    kept = P.solve("dual-accelerated", max_iter=100, tol=0.0, keep_iterates=True)
    with pytest.raises(AttributeError, match="keep_iterates=True"):
        plain.trace.iterates
    assert len(kept.trace.iterates) == len(kept.trace)
    assert all(np.shape(v) == (X.shape[1],) for v in kept.trace.iterates)
    ref = P.reference()
    assert "angle_gap" not in plain.trace and "margin_gap" in plain.trace
    assert "angle_gap" in kept.trace and "dist_to_opt" in kept.trace
    # computed during the run when the reference was known first: the same numbers, without the iterates
    during = P.solve("dual-accelerated", max_iter=100, tol=0.0)
    np.testing.assert_allclose(during.trace["angle_gap"], kept.trace["angle_gap"], rtol=1e-9, atol=1e-14)
    np.testing.assert_allclose(during.trace["dist_to_opt"], kept.trace["dist_to_opt"], rtol=1e-9)
    w = kept.trace.iterates[-1]
    cos = w @ ref.w / (np.linalg.norm(w) * np.linalg.norm(ref.w))
    assert kept.trace["angle_gap"][-1] == pytest.approx(1 - cos, abs=1e-12)


def test_test_set_gives_a_test_error_column_without_keeping_iterates():
    X, y = _separable(seed=4, n=80)
    P = mk.MaxMargin(X[:60], y[:60])
    res = P.solve("normalized-gd", max_iter=50, tol=0.0, test_set=(X[60:], y[60:]))
    assert "test_error" in res.trace and res.trace.keep_iterates is False
    assert res.trace["test_error"][-1] == pytest.approx(np.mean(res.predict(X[60:]) != y[60:]))
    with pytest.raises(mk.ProblemError, match="test_set"):
        P.solve("normalized-gd", max_iter=5, test_set=(X[60:, :3], y[60:]))


def test_a_column_has_one_name():
    """The package was never released: a column has its canonical name only (no alias of an earlier name)."""
    X, y = _separable()
    res = mk.MaxMargin(X, y).solve("gd", max_iter=10)
    assert "margin_upper" in res.trace.keys()
    with pytest.raises(KeyError, match="no trace column 'dual_bound'"):
        res.trace["dual_bound"]


def test_to_pandas_has_the_same_columns_and_values():
    pd = pytest.importorskip("pandas")
    X, y = _separable()
    P = mk.MaxMargin(X, y)
    P.reference()
    res = P.solve("dual-accelerated", max_iter=50)
    df = res.trace.to_pandas()
    assert isinstance(df, pd.DataFrame) and list(df.columns) == res.trace.keys()
    for key in res.trace.keys():
        np.testing.assert_array_equal(df[key].to_numpy(), res.trace[key])


def test_to_pandas_without_pandas_says_what_to_install(monkeypatch):
    X, y = _separable()
    res = mk.MaxMargin(X, y).solve("gd", max_iter=5)
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match="pip install pandas"):
        res.trace.to_pandas()


def test_verbose_log_prints_each_row_once():
    X, y = _separable()
    for max_iter in (30, 7):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            mk.MaxMargin(X, y).solve("gd", max_iter=max_iter, tol=0.0, verbose=True)
        its = [int(line.split()[0]) for line in buf.getvalue().splitlines() if line.strip()[:1].isdigit()]
        assert its[-1] == max_iter and len(its) == len(set(its))


def _same_result(a, b):
    assert (a.status, a.method, a.iterations) == (b.status, b.method, b.iterations)
    for key in ("value", "margin", "b", "time", "setup_time", "solve_time"):
        assert getattr(a, key) == getattr(b, key) or (np.isnan(getattr(a, key)) and np.isnan(getattr(b, key)))
    for key in ("w", "dual_coef", "classes_"):
        x, z = getattr(a, key), getattr(b, key)
        assert (x is None) == (z is None)
        if x is not None:
            np.testing.assert_array_equal(x, z)
    assert a.certificate.keys() == b.certificate.keys()
    for key, val in a.certificate.items():
        np.testing.assert_array_equal(val, b.certificate[key])
    if a.trace is not None:
        assert a.trace.keys() == b.trace.keys()
        for key in a.trace.keys():
            np.testing.assert_array_equal(a.trace[key], b.trace[key])


@pytest.mark.parametrize("method", ["dual-accelerated", "cvxpy"])
def test_result_save_load_round_trip(method, tmp_path, digits01):
    X, y = digits01
    labels = np.where(y > 0, "one", "zero")      # the user's own labels come back
    P = mk.MaxMargin(X, labels)
    P.reference()
    res = P.solve(method, **({"max_iter": 100, "keep_iterates": True} if method != "cvxpy" else {}))
    path = tmp_path / "result.npz"
    assert res.save(path) == str(path)
    back = mk.Result.load(path)
    _same_result(res, back)
    np.testing.assert_array_equal(back.predict(X), res.predict(X))
    if method != "cvxpy":
        for a, b in zip(res.trace.iterates, back.trace.iterates):
            np.testing.assert_array_equal(a, b)


def test_kernel_result_round_trip_keeps_its_decision_function(tmp_path):
    X, y = _separable(seed=5, n=30, d=3)
    res = mk.MaxMargin(X, y, kernel="rbf", gamma=0.5).solve("dual-accelerated", max_iter=50)
    back = mk.Result.load(res.save(tmp_path / "k.npz"))
    np.testing.assert_allclose(back.decision_function(X[:7]), res.decision_function(X[:7]))


def test_loading_something_else_names_the_path(tmp_path):
    np.save(tmp_path / "w.npy", np.ones(3))
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    for name in ("w.npy", "junk.npz", "missing.npz"):
        with pytest.raises(mk.ProblemError, match="path"):
            mk.Result.load(tmp_path / name)
    X, y = _separable()
    rep = mk.cross_validate(mk.MaxMargin(X, y), methods=["gd"], max_iter=5)
    rep.save(tmp_path / "rep.npz")
    with pytest.raises(mk.ProblemError, match="Report"):
        mk.Result.load(tmp_path / "rep.npz")


def test_gap_columns_are_listed_in_the_schema():
    assert set(GAP_COLUMNS) <= set(TRACE_COLUMNS)


def test_a_result_with_a_pending_gap_fill_still_pickles():
    import pickle
    X, y = _separable()
    P = mk.MaxMargin(X, y)
    res = P.solve("gd", max_iter=20)
    back = pickle.loads(pickle.dumps(res))
    np.testing.assert_array_equal(back.trace["margin"], res.trace["margin"])
    np.testing.assert_array_equal(back.w, res.w)
