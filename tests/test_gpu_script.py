"""benchmarks/gpu.py (issue 24, item 5): the GPU row's script, ready for a device and tested here on the CPU through
torch (the same array-API code path); it skips cleanly where no GPU is present."""
import importlib.util
import json
import pathlib

import numpy as np
import pytest

SCRIPT = pathlib.Path(__file__).resolve().parents[1] / "benchmarks" / "gpu.py"


def _gpu():
    spec = importlib.util.spec_from_file_location("gpu_bench", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_quick_cpu_run_matches_the_numpy_certificates(tmp_path):
    pytest.importorskip("torch")
    out = tmp_path / "gpu.json"
    assert _gpu().main(["--quick", "--cpu", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())["rows"]
    cpu = [r for r in rows if r["device"] == "cpu"]
    assert {r["method"] for r in cpu} == {"dual-accelerated", "fista", "ipm"}
    for r in cpu:
        assert r["iterations"] == 5 and r["seconds_per_iteration"] > 0
        if r["dtype"] == "float64" and np.isfinite(r["cpu_relative_gap"]):
            assert r["relative_gap"] == pytest.approx(r["cpu_relative_gap"], rel=1e-6)


def test_without_a_gpu_it_says_so(capsys):
    try:
        import torch
        if torch.cuda.is_available():
            pytest.skip("a GPU is present: the row runs instead of skipping")
    except ImportError:
        pass
    assert _gpu().main(["--quick"]) == 0
    assert capsys.readouterr().out.strip() == "no GPU: skipped"
