"""The Objective of the three benchmarks (``benchmark_utils.objective``): each ``objective.py`` subclasses
:class:`CertifiedObjective` with its name, its parameters, its marginkit problem (``form``, ``bias``) and the keys it
hands the solvers.

What they share: the certified reference of every data set, solved once when the objective receives the data (and in
``skip``, which drops data that are not separable for the hard margin), kept for the whole process and outside every
timed section; ``evaluate_result`` reports benchopt's ``value`` and ``certified_gap`` beside it
(:func:`~certified.svm_metrics` for the SVM, :func:`~certified.margin_metrics` for the hard margin).
"""
from __future__ import annotations

import numpy as np
from benchopt import BaseObjective
from benchopt.stopping_criterion import SufficientProgressCriterion

from .certified import certified_problem, equivalent_C, margin_metrics, svm_metrics


class CertifiedObjective(BaseObjective):
    """An objective whose optimum marginkit certifies. Subclasses set ``name``, ``parameters``, ``form``
    (``"SoftMarginSVM"`` or ``"MaxMargin"``), ``bias`` (a class attribute or a parameter), ``C`` (a parameter of
    the SVM; the hard margin has none, its solvers get :func:`~certified.equivalent_C`) and ``community_keys``.
    (No default here for ``bias`` or ``C``: benchopt sets a parameter only where the class has no such attribute.)"""

    min_benchopt_version = "1.6"
    # the primal value of a dual method (and of liblinear, libsvm, skglm) is not monotone in the first iterations:
    # benchopt's default patience (3) stopped such curves after a few points, far from the optimum
    stopping_criterion = SufficientProgressCriterion(patience=7, strategy="iteration")
    requirements = []   # marginkit itself: pip install -e ".[benchopt]" from the repository

    form = "SoftMarginSVM"
    # True: hand the solvers only the keys X, y, C and take a result with only beta, as benchopt's community benchmark
    # benchmark_linear_svm_binary_classif_no_intercept does; False: also bias and form, and take beta and intercept
    community_keys = False

    def _certified(self, X, y):
        return certified_problem(self.form, X, y, C=getattr(self, "C", None), bias=self.bias)

    def skip(self, X, y):
        if self._certified(X, y).reference().status == "infeasible":
            return True, f"the data are not separable with bias={self.bias} (certified by the CVXPY reference)"
        return False, None

    def set_data(self, X, y):
        self.X, self.y = X, y
        # the certified optimum, solved once per data set and kept for every solver that runs on it
        self.problem = self._certified(X, y)

    def get_objective(self):
        if self.community_keys:
            return dict(X=self.X, y=self.y, C=self.C)
        # the hard margin: a soft-margin C whose optimum is this hard-margin optimum, for the soft-margin libraries
        C = equivalent_C(self.problem) if self.form == "MaxMargin" else self.C
        return dict(X=self.X, y=self.y, C=C, bias=self.bias, form=self.form)

    def evaluate_result(self, beta, intercept=0.0):
        metrics = margin_metrics if self.form == "MaxMargin" else svm_metrics
        return metrics(self.problem, beta, intercept)

    def get_one_result(self):
        beta = np.zeros(self.X.shape[1])
        return dict(beta=beta) if self.community_keys else dict(beta=beta, intercept=0.0)
