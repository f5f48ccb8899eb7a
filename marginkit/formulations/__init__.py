"""The frozen problem classes. Each owns its semantics: validation at construction, its objective and sense, how
a solver's raw :class:`~marginkit.core.solution.Solution` becomes the fields of a :class:`~marginkit.Result`
(``result_fields``) and what agreeing with the reference means (``agreement_gaps``)."""
from .base import Problem
from .classification import MaxMargin, MinNormFeasibility, SoftMarginSVM
from .ellipsoid import EllipsoidSeparation
from .intersection import ProjectionOntoIntersection
from .perturbed import PerturbedSVMDual, PerturbedSVMPrimal

# form name -> class (the registry names forms; the engine reads their semantics here)
FORMS = {cls.form: cls for cls in (MaxMargin, MinNormFeasibility, SoftMarginSVM, EllipsoidSeparation,
                                   ProjectionOntoIntersection, PerturbedSVMDual, PerturbedSVMPrimal)}

__all__ = ["FORMS", "Problem", "MaxMargin", "MinNormFeasibility", "SoftMarginSVM", "EllipsoidSeparation",
           "ProjectionOntoIntersection", "PerturbedSVMDual", "PerturbedSVMPrimal"]
