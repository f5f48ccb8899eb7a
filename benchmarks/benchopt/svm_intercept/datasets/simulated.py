from benchopt import BaseDataset, safe_import_context

with safe_import_context() as import_ctx:
    import numpy as np
    from benchopt.datasets import make_correlated_data


class Dataset(BaseDataset):
    """Correlated Gaussian features and a noisy linear response, thresholded so that only ``positive_fraction`` of
    the labels are +1: unbalanced classes, so the optimal intercept is far from 0 and fitting it matters."""

    name = "simulated"
    parameters = {"n_samples, n_features": [(1000, 300), (300, 1000)], "positive_fraction": [0.3],
                  "random_state": [42]}

    def get_data(self):
        X, y, _ = make_correlated_data(n_samples=self.n_samples, n_features=self.n_features,
                                       random_state=self.random_state)
        threshold = np.quantile(y, 1.0 - self.positive_fraction)
        return dict(X=X, y=np.where(y > threshold, 1.0, -1.0))
