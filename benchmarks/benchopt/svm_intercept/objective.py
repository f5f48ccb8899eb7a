"""Soft-margin linear SVM with a free (unpenalised) intercept, against its certified optimum.

    min_{w, b}  ½||w||² + C Σ_i max(0, 1 − y_i(x_iᵀw + b))

This is marginkit's ``SoftMarginSVM(X, y, C, bias=True)``: the intercept ``b`` is not in the penalty (libsvm's
problem; liblinear penalises it through ``intercept_scaling``, skglm fits none).
"""
from benchopt import safe_import_context

with safe_import_context() as import_ctx:
    from benchmark_utils.objective import CertifiedObjective


class Objective(CertifiedObjective):
    name = "SVM with free intercept"
    parameters = {"C": [1.0, 0.1]}
    form, bias = "SoftMarginSVM", True
