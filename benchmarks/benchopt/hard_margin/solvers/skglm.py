from benchopt import safe_import_context

with safe_import_context() as import_ctx:
    from benchmark_utils.solvers import Skglm
    import skglm  # noqa: F401  (without it benchopt reports the solver "not installed")


class Solver(Skglm):
    """skglm's ``LinearSVC`` (coordinate descent on the dual, working sets) with the objective's ``C``, at which the
    soft-margin optimum is the hard-margin one; ``max_iter`` outer iterations per point. It fits no intercept (its
    solver gets ``fit_intercept=False``): run with ``bias=False`` only."""

    name = "skglm"
