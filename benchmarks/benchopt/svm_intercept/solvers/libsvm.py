from benchopt import safe_import_context

with safe_import_context() as import_ctx:
    from benchmark_utils.solvers import Libsvm
    import sklearn.svm  # noqa: F401  (without it benchopt reports the solver "not installed")


class Solver(Libsvm):
    """scikit-learn's ``SVC(kernel="linear")`` (libsvm's SMO on the dual with ``yᵀa = 0``: the free intercept of
    this problem), ``n_iter × n`` SMO steps per point."""

    name = "libsvm"
