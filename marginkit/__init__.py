"""marginkit: margin problems in linear classification, with certified CVXPY references and the
first-order iteration plans of five papers, cross-validated against each other.

``import marginkit`` loads the problem classes and the registry only: CVXPY is imported when a reference is first
built, a family's plans when one of its methods is compiled, scikit-learn and matplotlib when they are used.
"""
import importlib as _importlib

from .api.certify import certify
from .api.onnx import to_onnx
from .api.path import path
from .core.result import Result, Trace
from .core.validation import ProblemError
from .engine.graph import methods
from .engine.plugins import MethodCard, register_method, unregister_method
from .formulations import (EllipsoidSeparation, MaxMargin, MinNormFeasibility, PerturbedSVMDual,
                           ProjectionOntoIntersection, SoftMarginSVM)
from .operators.sets import Ball, Box, HalfSpace, Hyperplane

__all__ = ["certify", "ProblemError", "MaxMargin", "MinNormFeasibility", "SoftMarginSVM", "PerturbedSVMDual",
           "EllipsoidSeparation", "methods", "Result", "Trace", "cross_validate", "Report", "MarginClassifier",
           "ProjectionOntoIntersection", "HalfSpace", "Hyperplane", "Ball", "Box", "describe", "PerformanceWarning",
           "path", "register_method", "unregister_method", "MethodCard", "to_onnx"]
__version__ = "0.1.0"


# the public modules (each a file of this folder, or a sub-package), imported on first use as ``marginkit.NAME``
_LAZY_MODULES = ("datasets", "catalog", "testing", "bounds", "plugin", "cli", "api", "core", "engine", "formulations",
                 "operators", "plans", "reference")


def __dir__():
    return sorted(set(globals()) | set(__all__) | set(_LAZY_MODULES))


def __getattr__(name):
    if name == "describe":   # imported on first use: nothing of the api's option descriptions runs at import
        from .api.describe import describe
        return describe
    if name in ("cross_validate", "Report"):
        from .api import crossval
        return getattr(crossval, name)
    if name == "MarginClassifier":  # imported on first use: scikit-learn adds ~1 s to `import marginkit`
        from .api.estimator import MarginClassifier
        return MarginClassifier
    if name == "PerformanceWarning":   # the category of the once-per-process warning of a slow fallback
        from .plans.common.numba_rows import PerformanceWarning
        return PerformanceWarning
    if name in _LAZY_MODULES:
        return _importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(name)
