from benchopt import BaseDataset, safe_import_context

with safe_import_context() as import_ctx:
    from marginkit.api.datasets import a9a_like


class Dataset(BaseDataset):
    """A sparse stand-in for LIBSVM's a9a (Adult): 123 binary one-hot features in 14 groups, CSR, generated offline
    by ``marginkit.datasets.a9a_like`` (the real a9a is not shipped with any dependency)."""

    name = "a9a_like"
    parameters = {"n_samples": [5000], "random_state": [0]}

    def get_data(self):
        X, y = a9a_like(n=self.n_samples, seed=self.random_state)
        return dict(X=X, y=y)
