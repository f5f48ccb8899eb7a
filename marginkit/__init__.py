"""marginkit: margin problems in linear classification, with certified CVXPY references and the
first-order iteration plans of five papers, cross-validated against each other.

``import marginkit`` loads the problem classes and the registry only: CVXPY is imported when a reference is first
built, a family's plans when one of its methods is compiled, scikit-learn and matplotlib when they are used.
"""
from .certify import certify
from .core.result import Result, Trace
from .core.validation import ProblemError
# not lazy: a submodule called ``describe`` would replace a lazily exported function of that name on the package as
# soon as anything imports the submodule; the import costs ~3 ms on top of what ``import marginkit`` already loads
from .describe import describe
from .engine.graph import methods
from .engine.plugins import MethodCard, register_method, unregister_method
from .formulations import (EllipsoidSeparation, MaxMargin, MinNormFeasibility, PerturbedSVMDual,
                           ProjectionOntoIntersection, SoftMarginSVM)
from .operators.sets import Ball, Box, HalfSpace, Hyperplane
# not lazy, for the reason given for ``describe``: the submodule ``marginkit.path`` (the estimator imports it) would
# replace a lazily exported function ``path``; it loads nothing that ``import marginkit`` has not loaded already
from .path import path

__all__ = ["certify", "ProblemError", "MaxMargin", "MinNormFeasibility", "SoftMarginSVM", "PerturbedSVMDual",
           "EllipsoidSeparation", "methods", "Result", "Trace", "cross_validate", "Report", "MarginClassifier",
           "ProjectionOntoIntersection", "HalfSpace", "Hyperplane", "Ball", "Box", "describe", "PerformanceWarning",
           "path", "register_method", "unregister_method", "MethodCard"]
__version__ = "0.1.0"


_LAZY_MODULES = ("datasets", "catalog", "crossval", "estimator", "cli", "core", "engine", "formulations",
                 "operators", "plans", "reference", "bounds", "testing")


def __dir__():
    return sorted(set(globals()) | set(__all__) | set(_LAZY_MODULES))


def __getattr__(name):
    if name in ("cross_validate", "Report"):
        from . import crossval
        return getattr(crossval, name)
    if name == "MarginClassifier":  # imported on first use: scikit-learn adds ~1 s to `import marginkit`
        from .estimator import MarginClassifier
        return MarginClassifier
    if name == "PerformanceWarning":   # the category of the once-per-process warning of a slow fallback
        from .plans.common.numba_rows import PerformanceWarning
        return PerformanceWarning
    if name in _LAZY_MODULES:
        import importlib
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(name)
