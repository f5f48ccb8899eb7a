from benchopt import safe_import_context

with safe_import_context() as import_ctx:
    from benchmark_utils.solvers import Skglm
    import skglm  # noqa: F401  (without it benchopt reports the solver "not installed")


class Solver(Skglm):
    """skglm's ``LinearSVC`` (Anderson-accelerated coordinate descent on the dual, working sets; no intercept:
    exactly this problem), ``max_iter`` outer iterations per point."""

    name = "skglm"
