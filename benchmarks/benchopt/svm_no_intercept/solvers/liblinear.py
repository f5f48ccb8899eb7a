from benchopt import safe_import_context

with safe_import_context() as import_ctx:
    from benchmark_utils.solvers import Liblinear
    import sklearn.svm  # noqa: F401  (without it benchopt reports the solver "not installed")


class Solver(Liblinear):
    """scikit-learn's ``LinearSVC`` (liblinear's dual coordinate descent, hinge loss, no intercept: exactly this
    problem), ``max_iter`` epochs per point."""

    name = "liblinear"
