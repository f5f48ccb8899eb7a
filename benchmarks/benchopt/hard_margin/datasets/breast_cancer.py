from benchopt import BaseDataset, safe_import_context

with safe_import_context() as import_ctx:
    from marginkit.api.datasets import breast_cancer


class Dataset(BaseDataset):
    """scikit-learn's bundled breast-cancer set (569 × 30, z-scored, read offline): separable with an offset only,
    at a tiny margin (about 0.0014), so the objective runs it with ``bias=True`` and skips ``bias=False``."""

    name = "breast_cancer"

    def get_data(self):
        X, y = breast_cancer(standardize=True)
        return dict(X=X, y=y)
