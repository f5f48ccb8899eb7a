from benchopt import safe_import_context

with safe_import_context() as import_ctx:
    from benchmark_utils.solvers import Cvxpy
    import cvxpy  # noqa: F401  (without it benchopt reports the solver "not installed")


class Solver(Cvxpy):
    """CVXPY on marginkit's formulation of the problem (``problem.solve("cvxpy", solver=...)``), each solver at its
    default accuracy; one point per run (the problem is built, compiled and solved inside the timed run)."""

    name = "cvxpy"
