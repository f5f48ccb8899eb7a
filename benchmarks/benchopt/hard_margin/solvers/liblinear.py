from benchopt import safe_import_context

with safe_import_context() as import_ctx:
    from benchmark_utils.solvers import Liblinear
    import sklearn.svm  # noqa: F401  (without it benchopt reports the solver "not installed")


class Solver(Liblinear):
    """scikit-learn's ``LinearSVC`` (liblinear's dual coordinate descent, hinge loss) with the objective's ``C``, at
    which the soft-margin optimum is the hard-margin one; ``max_iter`` epochs per point. Through the origin this is
    the problem itself; with ``bias=True`` liblinear penalises its intercept (a constant feature), a neighbouring
    problem whose certified gap shows the difference."""

    name = "liblinear"
