from benchopt import safe_import_context

with safe_import_context() as import_ctx:
    from benchmark_utils.datasets import BreastCancer


class Dataset(BreastCancer):
    """scikit-learn's bundled breast-cancer set (569 × 30, malignant −1 / benign +1, read offline), z-scored or raw:
    the raw features span five decades of scale, where liblinear warns that it did not converge."""

    name = "breast_cancer"
