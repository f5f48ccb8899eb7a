"""benchopt imports this package from the benchmark's folder (``from benchmark_utils.solvers import ...``); its
modules are those the three benchmarks share, in ``../../common`` (on no import path of its own): the certified
reference and metrics (``certified``), the objective, the solvers and the data sets."""
from pathlib import Path

__path__.append(str(Path(__file__).resolve().parents[2] / "common"))
