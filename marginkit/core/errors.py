"""The one exception of marginkit's input checks, in a module that imports nothing: every layer may raise it (the
linear algebra of :mod:`.linalg` too, which :mod:`.validation` imports through the backends); and the failure of a
run's compute resources, which the backends raise and the run loop turns into a status."""


class ProblemError(ValueError):
    """Invalid problem data or options. The message names the offending argument."""


class PlanError(ProblemError):
    """A plan (most often one registered from outside marginkit) broke the plan protocol while it ran: a hook returned
    something of the wrong type or shape, ``stop`` returned a status the loop cannot accept, or the solution claims a
    form the card does not declare. The message names the hook or the card field to change. A ``ProblemError``, so
    that no other exception escapes a public call."""


class SolverFailure(RuntimeError):
    """A run cannot go on for a reason outside the problem and the method: the dask cluster that holds the data lost
    its scheduler, or its workers failed a task too often. The array backend raises it (never for bad input: that is
    a :class:`ProblemError`); the run loop ends the run with status ``solver_error`` and this message."""
