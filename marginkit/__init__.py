"""marginkit: margin problems in linear classification, with certified CVXPY references and the
first-order iteration plans of five papers, cross-validated against each other.

``import marginkit`` loads the problem classes and the registry only: CVXPY is imported when a reference is first
built, a family's plans when one of its methods is compiled, scikit-learn and matplotlib when they are used.
"""
import importlib as _importlib
import importlib.abc as _abc
import importlib.util as _util
import sys as _sys

from .api.certify import certify
from .api.describe import describe
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


_LAZY_MODULES = ("datasets", "catalog", "crossval", "estimator", "cli", "core", "engine", "formulations",
                 "operators", "plans", "reference", "bounds", "testing", "api", "report")

# The user-facing modules live in ``marginkit/api/``; their earlier paths (``marginkit.datasets``,
# ``marginkit.crossval``, ...) keep working and name the same module objects. ``describe``, ``path`` and ``certify``
# are not aliased: on the package those names are the functions.
_MOVED = {f"{__name__}.{m}": f"{__name__}.api.{m}"
          for m in ("datasets", "crossval", "estimator", "cli", "bounds", "report", "testing")}


class _MovedModuleFinder(_abc.MetaPathFinder, _abc.Loader):
    """``import marginkit.datasets`` gives the module ``marginkit.api.datasets`` (one module, two names)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in _MOVED:
            return None
        return _util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        return _importlib.import_module(_MOVED[spec.name])

    def exec_module(self, module):
        """The module was executed under its own name already."""


if not any(isinstance(f, _MovedModuleFinder) for f in _sys.meta_path):
    _sys.meta_path.append(_MovedModuleFinder())


def __dir__():
    return sorted(set(globals()) | set(__all__) | set(_LAZY_MODULES))


def __getattr__(name):
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
