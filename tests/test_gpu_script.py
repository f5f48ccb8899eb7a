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


def test_sync_sites_name_the_marginkit_line_that_waits(monkeypatch):
    """``--sync-sites`` on a CPU stand-in: torch's CUDA calls made no-ops, and a Python float taken from a tensor
    warned as a synchronising call does on CUDA; the report names the plan's line behind the backend helper, and a
    step that takes no float reports nothing."""
    torch = pytest.importorskip("torch")
    import warnings
    gpu = _gpu()
    monkeypatch.setattr(torch.cuda, "synchronize", lambda: None)
    monkeypatch.setattr(torch.cuda, "set_sync_debug_mode", lambda mode: None)
    to = gpu._to
    monkeypatch.setattr(gpu, "_to", lambda lib, device, A, dtype: to(lib, "cpu", A, dtype))
    plain = torch.Tensor.__float__

    def warned(self):
        warnings.warn("called a synchronizing CUDA operation")
        return plain(self)

    monkeypatch.setattr(torch.Tensor, "__float__", warned)
    report = {(r["form"], r["bias"], r["method"]): r["sync_sites"] for r in gpu.sync_report(400, 12)}
    ipm = report[("SoftMarginSVM", False, "ipm")]
    assert ipm and all("marginkit/" in site for site in ipm)
    assert any("plans/ipm/" in site for site in ipm)       # the plan's own line, not only the backend's
    assert report[("MaxMargin", False, "dual-accelerated")] == []


def test_sync_sites_need_cuda_torch(capsys):
    pytest.importorskip("torch")
    import torch
    if torch.cuda.is_available():
        pytest.skip("a GPU is present")
    assert _gpu().main(["--sync-sites", "--cpu"]) == 0
    assert capsys.readouterr().out.strip() == "no CUDA torch: skipped"
