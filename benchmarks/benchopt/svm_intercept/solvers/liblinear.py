from benchopt import BaseSolver, safe_import_context

with safe_import_context() as import_ctx:
    import numpy as np
    from sklearn.svm import LinearSVC
    from benchmark_utils import coefficients, fit_quietly


class Solver(BaseSolver):
    """scikit-learn's ``LinearSVC`` (liblinear's dual coordinate descent, hinge loss), ``max_iter`` epochs per point.
    liblinear has no free intercept: it appends a constant feature ``intercept_scaling`` and penalises its weight,
    so it solves a neighbouring problem; a large ``intercept_scaling`` comes closer to the free intercept and
    conditions the dual worse. The certified gap shows what is left."""

    name = "liblinear"
    sampling_strategy = "iteration"
    install_cmd = "conda"
    requirements = ["scikit-learn"]
    parameters = {"intercept_scaling": [1.0, 100.0]}

    def set_objective(self, X, y, C):
        self.X, self.y = X, y
        self.clf = LinearSVC(C=C, loss="hinge", dual=True, fit_intercept=True,
                             intercept_scaling=self.intercept_scaling, tol=1e-12)

    def run(self, n_iter):
        if n_iter == 0:   # scikit-learn needs max_iter >= 1: the starting point of liblinear, zero
            self.result = dict(beta=np.zeros(self.X.shape[1]), intercept=0.0)
            return
        self.clf.max_iter = n_iter
        self.result = coefficients(fit_quietly(self.clf, self.X, self.y))

    def get_result(self):
        return self.result
