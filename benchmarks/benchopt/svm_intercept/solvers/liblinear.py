from benchopt import safe_import_context

with safe_import_context() as import_ctx:
    from benchmark_utils.solvers import Liblinear
    import sklearn.svm  # noqa: F401  (without it benchopt reports the solver "not installed")


class Solver(Liblinear):
    """scikit-learn's ``LinearSVC`` (liblinear's dual coordinate descent, hinge loss), ``max_iter`` epochs per point.
    liblinear has no free intercept: it appends a constant feature ``intercept_scaling`` and penalises its weight,
    so it solves a neighbouring problem; a large ``intercept_scaling`` comes closer to the free intercept and
    conditions the dual worse. The certified gap shows what is left."""

    name = "liblinear"
    parameters = {"intercept_scaling": [1.0, 100.0]}
