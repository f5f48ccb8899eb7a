"""Soft-margin linear SVM with a free (unpenalised) intercept, against its certified optimum.

    min_{w, b}  ½||w||² + C Σ_i max(0, 1 − y_i(x_iᵀw + b))

This is marginkit's ``SoftMarginSVM(X, y, C, bias=True)``: the intercept ``b`` is not in the penalty (libsvm's
problem; liblinear penalises it through ``intercept_scaling``, skglm fits none).
"""
from benchopt import BaseObjective, safe_import_context
from benchopt.stopping_criterion import SufficientProgressCriterion

with safe_import_context() as import_ctx:
    import numpy as np
    from benchmark_utils import certified_problem, svm_metrics


class Objective(BaseObjective):
    name = "SVM with free intercept"
    min_benchopt_version = "1.6"
    # the primal value of a dual method (and of liblinear, libsvm, skglm) is not monotone in the first iterations:
    # benchopt's default patience (3) stopped such curves after a few points, far from the optimum
    stopping_criterion = SufficientProgressCriterion(patience=7, strategy="iteration")
    requirements = []   # marginkit itself: pip install -e ".[benchopt]" from the repository

    parameters = {"C": [1.0, 0.1]}

    def set_data(self, X, y):
        self.X, self.y = X, y
        # the certified optimum, solved once per data set and kept for every solver that runs on it
        self.problem = certified_problem("soft-margin", X, y, C=self.C, bias=True)

    def get_objective(self):
        return dict(X=self.X, y=self.y, C=self.C)

    def evaluate_result(self, beta, intercept):
        return svm_metrics(self.problem, beta, intercept)

    def get_one_result(self):
        return dict(beta=np.zeros(self.X.shape[1]), intercept=0.0)
