"""``Report.plot`` behaves like scikit-learn's ``*Display`` classes (draws on the given Axes, returns it, writes a PNG
only when asked, never touches matplotlib's backend), ``Report.to_pandas`` and ``Report.save``/``load``."""
import matplotlib
import numpy as np
import pytest
from matplotlib.figure import Figure

import marginkit as mk

METHODS = ["dual-accelerated", "normalized-gd", "batch-perceptron"]


@pytest.fixture(scope="module")
def report(digits01):
    X, y = digits01
    return mk.cross_validate(mk.MaxMargin(X, y), methods=METHODS, max_iter=200, seed=0)


def test_plot_draws_on_the_given_axes_and_returns_it(report, tmp_path, monkeypatch):
    def forbidden(*args, **kwargs):
        raise AssertionError("Report.plot must not call matplotlib.use")
    monkeypatch.setattr(matplotlib, "use", forbidden)
    backend = matplotlib.get_backend()
    ax = Figure().subplots()
    out = report.plot(ax=ax)
    assert out is ax
    assert matplotlib.get_backend() == backend
    assert sorted(line.get_label() for line in ax.get_lines()) == sorted(METHODS)
    assert list(tmp_path.iterdir()) == []          # no path: nothing written


def test_plot_curves_are_the_trace_columns_against_iteration_or_time(report):
    for x in ("iteration", "time"):
        ax = report.plot(ax=Figure().subplots(), x=x, metric="margin_gap_abs")
        for line in ax.get_lines():
            tr = report.results[line.get_label()].trace
            t, g = tr[x], np.abs(tr["margin_gap_abs"])
            keep = (t > 0) & (g > 0)
            np.testing.assert_array_equal(line.get_xdata(), t[keep])
            np.testing.assert_array_equal(line.get_ydata(), g[keep])
        assert ax.get_xscale() == "log" and ax.get_yscale() == "log"


def test_plot_writes_a_png_only_when_given_a_path(report, tmp_path):
    path = tmp_path / "fig.png"
    ax = report.plot(path, ax=Figure().subplots())
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert ax.get_ylabel().startswith("relative margin gap")


def test_plot_without_axes_makes_a_pyplot_figure_and_keeps_the_backend(report):
    plt = pytest.importorskip("matplotlib.pyplot")
    backend = matplotlib.get_backend()
    ax = report.plot()
    try:
        assert ax.figure in [plt.figure(n) for n in plt.get_fignums()]
        assert matplotlib.get_backend() == backend
    finally:
        plt.close(ax.figure)


def test_plot_rejects_an_unknown_x(report):
    with pytest.raises(mk.ProblemError, match="x must be"):
        report.plot(ax=Figure().subplots(), x="epochs")


def test_to_pandas_gives_the_rows(report):
    pd = pytest.importorskip("pandas")
    df = report.to_pandas()
    assert isinstance(df, pd.DataFrame) and len(df) == len(report.rows)
    assert list(df["method"]) == [r["method"] for r in report.rows]
    np.testing.assert_array_equal(df["margin_gap"].to_numpy(), [r["margin_gap"] for r in report.rows])


def test_report_save_load_round_trip(report, tmp_path):
    path = tmp_path / "report.npz"
    report.save(path)
    back = mk.Report.load(path) if hasattr(mk, "Report") else type(report).load(path)
    assert back.table() == report.table()
    assert len(back.rows) == len(report.rows)
    for a, b in zip(back.rows, report.rows):
        assert a.keys() == b.keys()
        assert all(a[k] == b[k] or (isinstance(b[k], float) and np.isnan(b[k]) and np.isnan(a[k])) for k in a)
    assert back.results.keys() == report.results.keys()
    for name, res in report.results.items():
        other = back.results[name]
        assert (other.status, other.iterations, other.time) == (res.status, res.iterations, res.time)
        np.testing.assert_array_equal(other.w, res.w)
        if res.trace is not None:
            assert other.trace.keys() == res.trace.keys()
            for key in res.trace.keys():
                np.testing.assert_array_equal(other.trace[key], res.trace[key])
    ax = back.plot(ax=Figure().subplots())   # a loaded report still plots
    assert len(ax.get_lines()) == len(METHODS)


def test_the_relative_margin_gap_of_the_rows_is_the_traces_last_value(report):
    for row in report.rows[1:]:
        tr = report.results[row["method"]].trace
        assert tr["margin_gap"][-1] == pytest.approx(row["margin_gap"], rel=1e-9, abs=1e-12)


def test_cli_compare_plot_writes_the_png_and_leaves_no_pyplot_figure(tmp_path, capsys):
    plt = pytest.importorskip("matplotlib.pyplot")
    from marginkit.api.cli import main
    before = plt.get_fignums()
    fig = tmp_path / "f.png"
    assert main(["compare", "digits-0-vs-1", "--quick", "--methods", "normalized-gd", "--max-iter", "50",
                 "--plot", str(fig)]) == 0
    assert fig.read_bytes()[:4] == b"\x89PNG" and plt.get_fignums() == before
    assert "figure written to" in capsys.readouterr().out


def test_bench_quick_writes_into_a_temporary_directory_by_default(tmp_path, monkeypatch, capsys):
    import tempfile
    from marginkit.api import cli
    runner = cli._bench_runner()
    if runner is None:
        pytest.skip("no benchmarks/ folder next to the package")
    monkeypatch.setattr(runner, "run_rows", lambda cfg, only=None, log=print: [])   # the rows are test_bench's
    monkeypatch.chdir(tmp_path)
    quick_default = runner.HERE / "results-quick.json"
    stamp = quick_default.stat().st_mtime_ns if quick_default.exists() else None
    assert cli.main(["bench", "--quick"]) == 0
    out = capsys.readouterr().out
    written = out.split("results written to ")[1].split()[0]
    assert written.startswith(tempfile.gettempdir()) and "marginkit-bench-" in written
    assert list(tmp_path.iterdir()) == []
    assert (quick_default.stat().st_mtime_ns if quick_default.exists() else None) == stamp
