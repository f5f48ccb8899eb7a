"""``marginkit bench --quick`` keeps working: every row is reported with the documented fields (no timing
assertions: the quick sizes are far too small for the targets to mean anything)."""
import json
import sys
from pathlib import Path

import pytest

from marginkit.api import cli

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the benchmark lives in the repository, not the package
from benchmarks import runner as bench  # noqa: E402


@pytest.fixture(scope="module")
def quick_results(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "results.json"
    status = cli.main(["bench", "--quick", "--output", str(out)])
    return status, json.loads(out.read_text())


def test_bench_quick_exits_with_status_zero(quick_results):
    status, _ = quick_results
    assert status == 0


def test_bench_json_has_every_row_with_the_documented_fields(quick_results):
    _, results = quick_results
    expected = [name for names in bench.ROW_NAMES.values() for name in names]
    assert [row["name"] for row in results["rows"]] == expected
    for row in results["rows"]:
        assert set(bench.ROW_FIELDS) <= set(row), row["name"]
        assert row["status"] in bench.STATUSES, row["name"]
        assert row["comparison"] in (">=", "<="), row["name"]
        assert isinstance(row["times"], dict) and isinstance(row["accuracy"], dict), row["name"]
        assert row["ratio"] is None or row["ratio"] > 0, row["name"]


def test_bench_json_says_what_was_measured_and_where(quick_results):
    _, results = quick_results
    assert results["quick"] is True and results["fields"] == list(bench.ROW_FIELDS)
    machine = results["machine"]
    for key in ("cpu", "cores", "blas", "versions", "date"):
        assert key in machine
    assert machine["versions"]["numpy"]


def test_a_row_that_is_not_met_says_why(quick_results):
    _, results = quick_results
    for row in results["rows"]:
        if row["status"] in ("missed", "skipped", "error"):
            assert row["note"], row["name"]


def test_bench_table_is_markdown_with_one_line_per_row(quick_results):
    _, results = quick_results
    table = bench.format_table(results)
    lines = [line for line in table.splitlines() if line.startswith("| ") and not line.startswith("| row")]
    assert len(lines) == len(results["rows"])
    assert table.startswith("Machine: ")


def test_bench_only_rejects_an_unknown_row(capsys):
    assert cli.main(["bench", "--quick", "--only", "no-such-row"]) == 2
    assert "unknown bench row" in capsys.readouterr().err


def test_bench_without_the_repository_benchmark_folder_exits_2_with_one_line(monkeypatch, capsys):
    from marginkit.api import cli
    monkeypatch.setattr(cli, "_bench_runner", lambda: None)
    assert cli.main(["bench", "--quick"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "ships with the repository" in err[0]
