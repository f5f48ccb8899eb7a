from benchopt import BaseDataset, safe_import_context

with safe_import_context() as import_ctx:
    from benchopt.datasets import make_correlated_data


class Dataset(BaseDataset):
    """Correlated Gaussian features, labels the sign of a noisy linear response: the community benchmark's simulated
    data (same generator, sizes and seed), so that its results and these compare."""

    name = "simulated"
    parameters = {"n_samples, n_features": [(300, 1000), (1000, 300)], "random_state": [42]}

    def get_data(self):
        X, y, _ = make_correlated_data(n_samples=self.n_samples, n_features=self.n_features,
                                       random_state=self.random_state)
        return dict(X=X, y=2.0 * (y > 0) - 1.0)
