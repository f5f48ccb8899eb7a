from benchopt import BaseDataset, safe_import_context

with safe_import_context() as import_ctx:
    from marginkit.api.datasets import separable_synthetic


class Dataset(BaseDataset):
    """Gaussian rows labelled by a random hyperplane through the origin, points closer to it than ``margin``
    dropped, rows scaled into the unit ball (``marginkit.datasets.separable_synthetic``): separable, max margin
    about ``margin``, with and without an offset."""

    name = "simulated"
    parameters = {"n_samples, n_features": [(1000, 50), (200, 500)], "margin": [0.05], "random_state": [0]}

    def get_data(self):
        X, y = separable_synthetic(n=self.n_samples, d=self.n_features, margin=self.margin, seed=self.random_state)
        return dict(X=X, y=y)
