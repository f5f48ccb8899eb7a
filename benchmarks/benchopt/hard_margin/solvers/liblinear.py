from benchopt import BaseSolver, safe_import_context

with safe_import_context() as import_ctx:
    import numpy as np
    from sklearn.svm import LinearSVC
    from benchmark_utils import coefficients, fit_quietly


class Solver(BaseSolver):
    """scikit-learn's ``LinearSVC`` (liblinear's dual coordinate descent, hinge loss) with the objective's ``C``, at
    which the soft-margin optimum is the hard-margin one; ``max_iter`` epochs per point. Through the origin this is
    the problem itself; with ``bias=True`` liblinear penalises its intercept (a constant feature), a neighbouring
    problem whose certified gap shows the difference."""

    name = "liblinear"
    sampling_strategy = "iteration"
    install_cmd = "conda"
    requirements = ["scikit-learn"]

    def set_objective(self, X, y, bias, C):
        self.X, self.y = X, y
        self.clf = LinearSVC(C=C, loss="hinge", dual=True, fit_intercept=bias, tol=1e-12)

    def run(self, n_iter):
        if n_iter == 0:   # scikit-learn needs max_iter >= 1: the starting point of liblinear, zero
            self.result = dict(beta=np.zeros(self.X.shape[1]), intercept=0.0)
            return
        self.clf.max_iter = n_iter
        self.result = coefficients(fit_quietly(self.clf, self.X, self.y))

    def get_result(self):
        return self.result
