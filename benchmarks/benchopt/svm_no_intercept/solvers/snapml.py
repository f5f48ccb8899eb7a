from benchopt import safe_import_context

with safe_import_context() as import_ctx:
    from benchmark_utils.solvers import SnapML
    import snapml  # noqa: F401  (without it benchopt reports the solver "not installed")


class Solver(SnapML):
    """Snap ML's ``SupportVectorMachine`` (stochastic dual coordinate ascent, Dünner et al., *Snap ML: a
    hierarchical framework for machine learning*, NeurIPS 2018), ``max_iter`` epochs per point. Snap ML's
    objective is ``Σ_i loss_i + (λ/2)||w||²``, this one divided by ``C``: ``regularizer = 1/C``.
    Skipped where Snap ML is not installed."""

    name = "snapml"
