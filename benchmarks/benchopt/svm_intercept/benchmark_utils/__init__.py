"""The helpers the three benchmarks of ``benchmarks/benchopt/`` share, loaded from ``../../certified.py`` (benchopt
imports this package from the benchmark's folder; the file one level up is not on any import path)."""
import importlib.util
import sys
from pathlib import Path

_NAME = "marginkit_benchopt_certified"
if _NAME not in sys.modules:
    _spec = importlib.util.spec_from_file_location(_NAME, Path(__file__).resolve().parents[2] / "certified.py")
    _module = importlib.util.module_from_spec(_spec)
    sys.modules[_NAME] = _module
    _spec.loader.exec_module(_module)
    try:   # benchopt ships its solvers to parallel workers with cloudpickle, this module by value like its own
        from joblib.externals import cloudpickle
        cloudpickle.register_pickle_by_value(_module)
    except (ImportError, ValueError):
        pass
_certified = sys.modules[_NAME]

certified_problem = _certified.certified_problem
svm_metrics = _certified.svm_metrics
margin_metrics = _certified.margin_metrics
equivalent_C = _certified.equivalent_C
marginkit_methods = _certified.marginkit_methods
fit_quietly = _certified.fit_quietly
coefficients = _certified.coefficients

__all__ = ["certified_problem", "svm_metrics", "margin_metrics", "equivalent_C", "marginkit_methods", "fit_quietly",
           "coefficients"]
