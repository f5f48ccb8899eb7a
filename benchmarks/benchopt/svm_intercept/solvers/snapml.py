from benchopt import BaseSolver, safe_import_context

with safe_import_context() as import_ctx:
    import numpy as np
    from snapml import SupportVectorMachine
    from benchmark_utils import coefficients, fit_quietly


class Solver(BaseSolver):
    """Snap ML's ``SupportVectorMachine`` (stochastic dual coordinate ascent, Dünner et al., *Snap ML: a
    hierarchical framework for machine learning*, NeurIPS 2018), ``max_iter`` epochs per point. Snap ML's
    objective is ``Σ_i loss_i + (λ/2)||w||²``, this one divided by ``C``: ``regularizer = 1/C``. Its intercept, like
    liblinear's, is a penalised constant feature. Skipped where Snap ML is not installed."""

    name = "snapml"
    sampling_strategy = "iteration"
    install_cmd = "conda"
    requirements = ["pip::snapml"]

    def set_objective(self, X, y, C):
        self.X, self.y = X, y
        self.clf = SupportVectorMachine(regularizer=1.0 / C, fit_intercept=True, tol=1e-12)

    def run(self, n_iter):
        if n_iter == 0:
            self.result = dict(beta=np.zeros(self.X.shape[1]), intercept=0.0)
            return
        self.clf.max_iter = n_iter
        self.result = coefficients(fit_quietly(self.clf, self.X, self.y))

    def get_result(self):
        return self.result
