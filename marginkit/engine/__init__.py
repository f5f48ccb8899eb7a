"""The engine: the registry of methods, the reduction graph, the run loop, solve/compile. Importing it connects the
problem classes to :mod:`.solve` (see :func:`marginkit.formulations.base.connect_engine`)."""
from . import solve  # noqa: F401  (importing it connects the problem classes to the engine)

__all__ = ["solve"]
