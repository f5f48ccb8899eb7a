from benchopt import BaseSolver, safe_import_context

with safe_import_context() as import_ctx:
    import numpy as np
    from sklearn.svm import LinearSVC
    from benchmark_utils import coefficients, fit_quietly


class Solver(BaseSolver):
    """scikit-learn's ``LinearSVC`` (liblinear's dual coordinate descent, hinge loss, no intercept: exactly this
    problem), ``max_iter`` epochs per point."""

    name = "liblinear"
    sampling_strategy = "iteration"
    install_cmd = "conda"
    requirements = ["scikit-learn"]

    def set_objective(self, X, y, C):
        self.X, self.y = X, y
        self.clf = LinearSVC(C=C, loss="hinge", dual=True, fit_intercept=False, tol=1e-12)

    def run(self, n_iter):
        if n_iter == 0:   # scikit-learn needs max_iter >= 1: the starting point of liblinear, zero
            self.beta = np.zeros(self.X.shape[1])
            return
        self.clf.max_iter = n_iter
        self.beta = coefficients(fit_quietly(self.clf, self.X, self.y))["beta"]

    def get_result(self):
        return dict(beta=self.beta)
