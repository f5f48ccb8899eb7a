"""CVXPY references for the conic forms: ``EllipsoidSeparation`` (an SOCP) and ``PerturbedSVMDual``."""
