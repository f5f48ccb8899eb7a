from benchopt import safe_import_context

with safe_import_context() as import_ctx:
    from benchmark_utils.datasets import A9aLike


class Dataset(A9aLike):
    """A sparse stand-in for LIBSVM's a9a (Adult): 123 binary one-hot features in 14 groups, CSR, generated offline
    by ``marginkit.datasets.a9a_like`` (the real a9a is not shipped with any dependency)."""

    name = "a9a_like"
