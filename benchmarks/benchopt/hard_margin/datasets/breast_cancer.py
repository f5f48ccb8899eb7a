from benchopt import safe_import_context

with safe_import_context() as import_ctx:
    from benchmark_utils.datasets import BreastCancer


class Dataset(BreastCancer):
    """scikit-learn's bundled breast-cancer set (569 × 30, z-scored, read offline): separable with an offset only,
    at a tiny margin (about 0.0014), so the objective runs it with ``bias=True`` and skips ``bias=False``."""

    name = "breast_cancer"
    parameters = {}   # z-scored only (the name stays "breast_cancer")
    standardize = True
