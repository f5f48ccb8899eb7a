from benchopt import safe_import_context

with safe_import_context() as import_ctx:
    from benchmark_utils.solvers import Skglm
    import skglm  # noqa: F401  (without it benchopt reports the solver "not installed")


class Solver(Skglm):
    """skglm's ``LinearSVC`` (Anderson-accelerated coordinate descent on the dual, working sets), ``max_iter`` outer
    iterations per point. It accepts ``fit_intercept=True`` but hands its solver ``fit_intercept=False``, so its
    ``intercept_`` is 0 and its curve stops at the certified gap of the best model through the origin."""

    name = "skglm"
