from benchopt import safe_import_context

with safe_import_context() as import_ctx:
    from benchmark_utils.solvers import Marginkit
    from benchmark_utils.certified import marginkit_methods


class Solver(Marginkit):
    """marginkit's methods for ``MaxMargin``, as its method registry lists them (also those reached through a
    reduction, and any added with ``marginkit.register_method`` or a plugin); a method that does not apply to the
    objective's ``bias`` is skipped with the registry's reason. ``max_iter`` iterations of ``problem.solve`` per point
    of the curve, from scratch, as benchopt's iteration sampling asks."""

    name = "marginkit"
    parameters = {"method": marginkit_methods("MaxMargin", False, True)}
