"""Soft-margin linear SVM through the origin (no intercept), against its certified optimum.

    min_w  ½||w||² + C Σ_i max(0, 1 − y_i x_iᵀw)

The objective of benchopt's community benchmark ``benchmark_linear_svm_binary_classif_no_intercept`` (same
formula, same ``C`` grid, same ``get_objective`` keys ``X, y, C`` and result key ``beta``), so values compare and
a solver returning ``dict(beta=...)`` runs on either; and marginkit's ``SoftMarginSVM(X, y, C, bias=False)``.
"""
from benchopt import safe_import_context

with safe_import_context() as import_ctx:
    from benchmark_utils.objective import CertifiedObjective


class Objective(CertifiedObjective):
    name = "SVM without intercept"
    parameters = {"C": [1.0, 0.1]}
    form, bias = "SoftMarginSVM", False
    community_keys = True   # X, y, C to the solvers, beta from them: the community benchmark's keys
