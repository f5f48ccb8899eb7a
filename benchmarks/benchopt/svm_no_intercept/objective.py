"""Soft-margin linear SVM through the origin (no intercept), against its certified optimum.

    min_w  ½||w||² + C Σ_i max(0, 1 − y_i x_iᵀw)

The objective of benchopt's community benchmark ``benchmark_linear_svm_binary_classif_no_intercept`` (same
formula, same ``C`` grid, same ``get_objective`` keys ``X, y, C`` and result key ``beta``), so values compare and
a solver returning ``dict(beta=...)`` runs on either; and marginkit's ``SoftMarginSVM(X, y, C, bias=False)``.
"""
from benchopt import BaseObjective, safe_import_context
from benchopt.stopping_criterion import SufficientProgressCriterion

with safe_import_context() as import_ctx:
    import numpy as np
    from benchmark_utils import certified_problem, svm_metrics


class Objective(BaseObjective):
    name = "SVM without intercept"
    min_benchopt_version = "1.6"
    # the primal value of a dual method (and of liblinear, libsvm, skglm) is not monotone in the first iterations:
    # benchopt's default patience (3) stopped such curves after a few points, far from the optimum
    stopping_criterion = SufficientProgressCriterion(patience=7, strategy="iteration")
    requirements = []   # marginkit itself: pip install -e ".[benchopt]" from the repository

    parameters = {"C": [1.0, 0.1]}

    def set_data(self, X, y):
        self.X, self.y = X, y
        # the certified optimum, solved once per data set and kept for every solver that runs on it
        self.problem = certified_problem("soft-margin", X, y, C=self.C, bias=False)

    def get_objective(self):
        return dict(X=self.X, y=self.y, C=self.C)

    def evaluate_result(self, beta):
        return svm_metrics(self.problem, beta)

    def get_one_result(self):
        return dict(beta=np.zeros(self.X.shape[1]))
