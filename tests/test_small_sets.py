"""benchmarks/small_sets.py runs (its --quick size) and judges every answer by the certified yardstick."""
import json

from benchmarks import small_sets


def test_the_small_sets_script_runs_quick_and_certifies_auto(tmp_path):
    out = tmp_path / "small.json"
    rows = small_sets.main(["--quick", "--json", str(out)])
    saved = json.loads(out.read_text())
    assert saved["quick"] is True and len(saved["rows"]) == len(rows) == 12   # 3 sets, raw and z-scored, 2 offsets
    for row in rows:
        assert row["auto_status"] == "optimal" and row["auto_gap"] <= 1.01e-4, row
        assert ("ratio" not in row) or (row["ratio"] > 0 and row["peer_gap"] <= 1e-4)
    assert any(r["auto_method"] == "smo" for r in rows if r["bias"])           # iris, z-scored wine
    assert any("ratio" in r for r in rows if r["bias"])                         # libsvm reaches 1e-4 somewhere
