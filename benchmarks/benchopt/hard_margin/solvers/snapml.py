from benchopt import BaseSolver, safe_import_context

with safe_import_context() as import_ctx:
    import numpy as np
    from snapml import SupportVectorMachine
    from benchmark_utils import coefficients, fit_quietly


class Solver(BaseSolver):
    """Snap ML's ``SupportVectorMachine`` (stochastic dual coordinate ascent, Dünner et al., *Snap ML: a
    hierarchical framework for machine learning*, NeurIPS 2018) with ``regularizer = 1/C`` (its objective is
    ``Σ_i loss_i + (λ/2)||w||²``) at the objective's ``C``, where the soft-margin optimum is the hard-margin one;
    ``max_iter`` epochs per point, through the origin (``bias=False``) only. Skipped where Snap ML is not
    installed."""

    name = "snapml"
    sampling_strategy = "iteration"
    install_cmd = "conda"
    requirements = ["pip::snapml"]

    def skip(self, X, y, bias, C):
        if bias:
            return True, "Snap ML penalises its intercept: run with bias=False"
        return False, None

    def set_objective(self, X, y, bias, C):
        self.X, self.y = X, y
        self.clf = SupportVectorMachine(regularizer=1.0 / C, fit_intercept=False, tol=1e-12)

    def run(self, n_iter):
        if n_iter == 0:
            self.result = dict(beta=np.zeros(self.X.shape[1]), intercept=0.0)
            return
        self.clf.max_iter = n_iter
        self.result = coefficients(fit_quietly(self.clf, self.X, self.y))

    def get_result(self):
        return self.result
