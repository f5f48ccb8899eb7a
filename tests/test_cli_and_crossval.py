"""Command line (exit codes, one-line errors) and cross-validation reports."""
import subprocess
import sys

import numpy as np
import pytest

import marginkit as mk
from marginkit import catalog
from marginkit.api.cli import main


def test_list_shows_catalog_and_methods(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for name in ("mnist-0-vs-1", "digits-0-vs-1", "toy-2d", "breast-cancer", "synthetic-separable"):
        assert name in out
    assert "dual-accelerated" in out


def test_compare_quick_prints_agreeing_table_and_plot(tmp_path, capsys):
    fig = tmp_path / "fig.png"
    assert main(["compare", "mnist-0-vs-1", "--quick", "--plot", str(fig)]) == 0
    out = capsys.readouterr().out
    assert "dual-accelerated" in out and "agrees" in out
    assert fig.exists() and fig.stat().st_size > 10000


def test_solve_prints_result_and_certificate(capsys):
    assert main(["solve", "toy-2d", "--method", "cvxpy"]) == 0
    out = capsys.readouterr().out
    assert "optimal" in out and "duality_gap" in out


@pytest.mark.parametrize("argv", [["solve", "no-such-problem"], ["compare", "toy-2d", "--methods", "nope"],
                                  ["solve", "toy-2d", "--method", "dual-accelerated", "--max-iter", "-3"],
                                  ["frobnicate"], []])
def test_bad_arguments_exit_2_with_one_line_and_no_traceback(argv):
    proc = subprocess.run([sys.executable, "-m", "marginkit", *argv], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip().count("\n") == 0 or proc.stderr.startswith("usage")


def test_instance_file_round_trip(tmp_path):
    X, y = mk.datasets.toy_four_support_vectors()
    path = tmp_path / "toy.npz"
    np.savez(path, X=X, y=y, problem="MaxMargin")
    P = catalog.load(str(path))
    assert isinstance(P, mk.MaxMargin) and P.n == 80
    assert main(["solve", str(path), "--method", "dual-accelerated"]) == 0


def test_cross_validate_rows_have_contract_keys(small_separable):
    P = mk.MaxMargin(*small_separable)
    rep = mk.cross_validate(P, methods=["dual-accelerated", "normalized-gd"], max_iter=5000)
    keys = {"method", "status", "iterations", "time", "objective_gap", "margin_gap", "angle_gap", "agrees"}
    for row in rep.rows:
        assert keys <= set(row)
    assert [r["method"] for r in rep.rows] == ["cvxpy", "dual-accelerated", "normalized-gd"]
    assert rep.rows[1]["agrees"]
    assert "dual-accelerated" in rep.table()


def test_cross_validate_flags_disagreement(small_separable):
    """A method stopped after 2 iterations does not agree with the reference: the check can fail."""
    P = mk.MaxMargin(*small_separable)
    rep = mk.cross_validate(P, methods=["dual-accelerated"], max_iter=2)
    assert rep.rows[1]["agrees"] is False


def test_cross_validate_rejects_unknown_method(small_separable):
    with pytest.raises(mk.ProblemError, match="nope"):
        mk.cross_validate(mk.MaxMargin(*small_separable), methods=["nope"])


def test_mnist_main_job_figure1_ordering():
    """Ji et al. Fig. 1 on MNIST 0 vs 1 (n = 1000): after 1,000 iterations the margin gap of dual-accelerated is
    >= 50x below normalized-gd's and its log-log slope between t = 100 and 1000 is <= -1.5."""
    P = catalog.load("mnist-0-vs-1")
    ref = P.reference()
    acc = P.solve("dual-accelerated", max_iter=1000, tol=0)
    ngd = P.solve("normalized-gd", max_iter=1000, tol=0)
    gap_acc, gap_ngd = ref.margin - acc.margin, ref.margin - ngd.margin
    assert gap_acc * 50 <= gap_ngd
    it, g = acc.trace["iteration"], acc.trace["margin_gap"]
    i100 = int(np.flatnonzero(it >= 100)[0])
    slope = np.log(g[-1] / g[i100]) / np.log(it[-1] / it[i100])
    assert slope <= -1.5


def test_version_prints_the_package_version(capsys):
    import marginkit
    from marginkit.api.cli import main
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"marginkit {marginkit.__version__}"


def test_cross_validate_reports_progress_row_by_row():
    X = np.random.default_rng(0).standard_normal((30, 4))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    seen = []
    rep = mk.cross_validate(mk.MaxMargin(X, y), methods=["dual-accelerated", "batch-perceptron"], max_iter=20,
                            progress=lambda done, total, row: seen.append((done, total, row["method"])))
    assert seen == [(1, 3, "cvxpy"), (2, 3, "dual-accelerated"), (3, 3, "batch-perceptron")]
    assert [r["method"] for r in rep.rows] == [m for _, _, m in seen]
    with pytest.raises(mk.ProblemError, match="progress"):
        mk.cross_validate(mk.MaxMargin(X, y), methods="gd", progress=3)


# budgets and verdicts (crossval.py: every row agrees or is explained by its proven rate) ----------------------
def test_slow_methods_are_explained_by_their_proven_rate(small_separable):
    from marginkit.engine.graph import method_spec
    P = mk.MaxMargin(*small_separable)
    rep = mk.cross_validate(P, methods=["gd", "dual-accelerated"], max_iter=50)
    gd, acc = rep.rows[1], rep.rows[2]
    assert method_spec(P, "gd").rate_law == ("log", 1.0)
    assert gd["agrees"] is False and gd["note"].startswith("consistent with O(1/log t)")
    assert gd["predicted_iterations"] > gd["iterations"] and gd["rate"] == "O(1/log t)"
    assert acc["note"] in ("agrees", ) or acc["note"].startswith(("consistent with O(1/t^2)", "slower"))
    assert "note" in rep.table().splitlines()[1] and gd["note"] in rep.table()


def test_a_gap_that_stalls_against_its_rate_is_flagged_not_explained():
    from types import SimpleNamespace
    from marginkit.api.crossval import verdict
    it = np.arange(2, 1001, dtype=float)
    stalled = SimpleNamespace(status="user_limit", iterations=1000,
                              trace={"iteration": it, "margin_gap": np.full_like(it, 0.3)})
    note, _ = verdict(("power", 2.0), stalled, "margin_gap", 0.3, 1e-3, False)
    assert note.startswith("slower than its proven O(1/t^2)")
    decaying = SimpleNamespace(status="user_limit", iterations=1000,
                               trace={"iteration": it, "margin_gap": 30.0 / it ** 2})
    note, n_tol = verdict(("power", 2.0), decaying, "margin_gap", 3e-5, 1e-6, False)
    assert note.startswith("consistent with O(1/t^2)") and n_tol == pytest.approx(1000 * 30 ** 0.5)
    assert verdict((), decaying, "margin_gap", 3e-5, 1e-6, False)[0].startswith("disagrees")


def test_each_method_runs_with_its_cards_budget_unless_max_iter_is_given(small_separable):
    from marginkit.engine.graph import method_spec
    P = mk.MaxMargin(*small_separable)
    budget = method_spec(P, "homotopic").budget
    assert budget is not None
    row = mk.cross_validate(P, methods=["homotopic"], tol=0.0).rows[1]
    assert row["budget"] == budget and row["iterations"] == budget
    row = mk.cross_validate(P, methods=["homotopic"], max_iter=30, tol=0.0).rows[1]
    assert row["budget"] == 30 and row["iterations"] == 30


def test_blas_threads_are_pinned_for_the_run(small_separable):
    from threadpoolctl import threadpool_info
    seen = []
    P = mk.MaxMargin(*small_separable)
    mk.cross_validate(P, methods=["dual-accelerated"], max_iter=5, progress=lambda *a: seen.append(
        {p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"}))
    assert seen and all(s <= {1} for s in seen)
    with pytest.raises(mk.ProblemError, match="blas_threads"):
        mk.cross_validate(P, methods="gd", blas_threads=0)


def test_compare_progress_is_a_bar_on_a_terminal_and_plain_lines_otherwise():
    import io
    from marginkit.api.cli import _ProgressBar

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    row = {"method": "gd", "status": "user_limit", "time": 0.5, "note": "consistent with O(1/log t)"}
    for stream, bar_expected in ((io.StringIO(), False), (Terminal(), True)):
        bar = _ProgressBar(stream)
        bar(1, 2, {**row, "method": "cvxpy", "note": "reference"})
        bar(2, 2, row)
        bar.close()
        text = stream.getvalue()
        assert "[1/2] cvxpy" in text and "[2/2] gd" in text and "consistent with O(1/log t)" in text
        assert ("\r" in text) == bar_expected          # tqdm redraws its bar with carriage returns
