"""The one warm-start parser: a previous :class:`~marginkit.Result`, an object with the attribute, or an array."""
from __future__ import annotations

import numpy as np

from .validation import ProblemError


def parse_warm_start(warm_start, size: int, attr: str = "w", name: str = "warm_start"):
    """``None`` for a cold start, else a fresh float copy of length ``size`` read from ``warm_start.<attr>`` (a
    ``Result``) or from ``warm_start`` itself; ``ProblemError`` naming ``name`` for a wrong length or a non-finite
    entry. The user's array is never modified (a copy is returned)."""
    if warm_start is None:
        return None
    value = getattr(warm_start, attr, warm_start)
    if value is None:
        raise ProblemError(f"{name} has no {attr!r} to start from")
    try:
        v = np.array(value, dtype=float).ravel()
    except (TypeError, ValueError):
        raise ProblemError(f"{name} must be a Result or an array of length {size}; "
                           f"got {type(value).__name__}") from None
    if v.shape != (size,):
        raise ProblemError(f"{name} must have length {size}; got {v.shape}")
    if not np.all(np.isfinite(v)):
        raise ProblemError(f"{name} contains NaN or inf")
    return v


def dual_warm_value(warm_start, key: str = "a", hint: str = "run 'dual-cd' or 'cvxpy' first"):
    """What a dual method starts from: ``warm_start.dual[key]`` of a ``Result``, or ``warm_start`` itself (an array);
    ``ProblemError`` when a ``Result`` carries no such dual iterate (``hint`` says which run would)."""
    dual = getattr(warm_start, "dual", None)
    if isinstance(dual, dict) and key in dual:
        return dual[key]
    if dual is not None:
        raise ProblemError(f"warm_start: this result carries no dual iterate {key} ({hint})")
    return warm_start
