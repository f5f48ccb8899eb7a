from benchopt import safe_import_context

with safe_import_context() as import_ctx:
    from benchmark_utils.solvers import Marginkit
    from benchmark_utils.certified import marginkit_methods


class Solver(Marginkit):
    """marginkit's methods for ``SoftMarginSVM(bias=True)``, as its method registry lists them (a method added with
    ``marginkit.register_method`` or a plugin joins without an edit here); ``max_iter`` iterations of
    ``problem.solve`` per point of the curve, from scratch, as benchopt's iteration sampling asks."""

    name = "marginkit"
    parameters = {"method": marginkit_methods("SoftMarginSVM", True)}
