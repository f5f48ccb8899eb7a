from benchopt import safe_import_context

with safe_import_context() as import_ctx:
    from benchmark_utils.solvers import Marginkit
    from benchmark_utils.certified import marginkit_methods


class Solver(Marginkit):
    """marginkit's methods for ``SoftMarginSVM(bias=False)`` as its registry lists them (plugins join unedited),
    each run from scratch for ``max_iter`` iterations of ``problem.solve`` per point of the curve."""

    name = "marginkit"
    parameters = {"method": marginkit_methods("SoftMarginSVM", False)}
