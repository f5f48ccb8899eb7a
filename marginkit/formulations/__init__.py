"""The frozen problem classes. Each owns its semantics: validation at construction, its objective and sense, how
a solver's raw :class:`~marginkit.core.solution.Solution` becomes the fields of a :class:`~marginkit.Result`
(``result_fields``) and what agreeing with the reference means (``agreement_gaps``)."""
from .base import Problem
from .classification import MaxMargin, MinNormFeasibility, SoftMarginSVM
from .ellipsoid import EllipsoidSeparation
from .intersection import ProjectionOntoIntersection
from .perturbed import PerturbedSVMDual, PerturbedSVMPrimal

__all__ = ["Problem", "MaxMargin", "MinNormFeasibility", "SoftMarginSVM", "EllipsoidSeparation",
           "ProjectionOntoIntersection", "PerturbedSVMDual", "PerturbedSVMPrimal"]
