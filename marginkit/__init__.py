"""marginkit: margin problems in linear classification, with certified CVXPY references and the
first-order iteration plans of five papers, cross-validated against each other."""
from ._validation import ProblemError
from .formulations import (EllipsoidSeparation, MaxMargin, MinNormFeasibility, PerturbedSVMDual,
                           SoftMarginSVM)
from .intersection import Ball, Box, HalfSpace, Hyperplane, ProjectionOntoIntersection  # noqa: F401
from .reductions import methods
from .result import Result, Trace

__all__ = ["ProblemError", "MaxMargin", "MinNormFeasibility", "SoftMarginSVM", "PerturbedSVMDual",
           "EllipsoidSeparation", "methods", "Result", "Trace", "cross_validate", "Report", "MarginClassifier",
           "ProjectionOntoIntersection", "HalfSpace", "Hyperplane", "Ball", "Box"]
__version__ = "0.1.0"


def __getattr__(name):
    if name in ("cross_validate", "Report"):
        from . import crossval
        return getattr(crossval, name)
    if name == "MarginClassifier":  # imported on first use: scikit-learn adds ~1 s to `import marginkit`
        from .estimator import MarginClassifier
        return MarginClassifier
    raise AttributeError(name)
