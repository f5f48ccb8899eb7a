from benchopt import BaseDataset, safe_import_context

with safe_import_context() as import_ctx:
    from marginkit.api.datasets import breast_cancer


class Dataset(BaseDataset):
    """scikit-learn's bundled breast-cancer set (569 × 30, malignant −1 / benign +1, read offline), z-scored or raw:
    the raw features span five decades of scale, where liblinear warns that it did not converge."""

    name = "breast_cancer"
    parameters = {"standardize": [True, False]}

    def get_data(self):
        X, y = breast_cancer(standardize=self.standardize)
        return dict(X=X, y=y)
