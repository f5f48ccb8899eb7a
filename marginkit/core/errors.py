"""The one exception of marginkit's input checks, in a module that imports nothing: every layer may raise it (the
linear algebra of :mod:`.linalg` too, which :mod:`.validation` imports through the backends)."""


class ProblemError(ValueError):
    """Invalid problem data or options. The message names the offending argument."""
