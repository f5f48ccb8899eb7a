from benchopt import BaseDataset, safe_import_context

with safe_import_context() as import_ctx:
    from marginkit.api.datasets import mnist_pair


class Dataset(BaseDataset):
    """Two digits of the 5,000-image MNIST sample bundled with marginkit (read offline), pixels/255, rows scaled
    into the unit ball: 0 versus 1 is separable through the origin (Ji, Srebro & Telgarsky's §5 experiment)."""

    name = "mnist"
    parameters = {"digits": [(0, 1)], "per_class": [250]}

    def get_data(self):
        X, y = mnist_pair(*self.digits, per_class=self.per_class)
        return dict(X=X, y=y)
