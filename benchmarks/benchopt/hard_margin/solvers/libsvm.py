from benchopt import safe_import_context

with safe_import_context() as import_ctx:
    from benchmark_utils.solvers import Libsvm
    import sklearn.svm  # noqa: F401  (without it benchopt reports the solver "not installed")


class Solver(Libsvm):
    """scikit-learn's ``SVC(kernel="linear")`` (libsvm's SMO) with the objective's ``C``, at which the soft-margin
    optimum is the hard-margin one; ``n_iter × n`` SMO steps per point. libsvm always fits a free intercept: run with
    ``bias=True`` only."""

    name = "libsvm"
