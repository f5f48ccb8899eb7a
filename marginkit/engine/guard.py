"""The run loop's non-finite guard: no status is ever reported with a NaN or inf iterate.

NumPy states are checked after every step (one pass over the stored arrays, no product with the data). States on
an array-API device (torch, CuPy, array-api-strict) are checked only where the loop checks the stop rule, so that a
step never synchronises the device. Dask states are not checked (a check would be a scheduler round trip per
iteration); the dask plans keep their d-vectors in NumPy, which are.
"""
from __future__ import annotations

import array_api_compat as aac
import numpy as np


_SCALARS = (int, float, bool, str, bytes, type(None), np.generic)
_PLAIN = frozenset((int, float, bool, str, type(None), np.float64, np.int64))   # the common ones, by exact type


def _items(value):
    """The fields of a dataclass state (its instance dictionary where it has one: one read instead of a lookup per
    field), the items of a tuple, else None."""
    if isinstance(value, tuple):
        return value
    if hasattr(value, "__dataclass_fields__"):
        held = getattr(value, "__dict__", None)
        return held.values() if held is not None else [getattr(value, f) for f in value.__dataclass_fields__]
    return None


def _leaves(value, depth: int = 0):
    """The values a state holds (a dataclass, a NamedTuple or tuple, and those inside them, three levels deep;
    Python and NumPy scalars left out: no check reads them)."""
    items = _items(value)
    if items is None:
        return (value,)
    out = []
    if depth <= 2:
        for v in items:
            kind = type(v)
            if kind is np.ndarray:
                out.append(v)
            elif kind not in _PLAIN and not isinstance(v, _SCALARS):
                out.extend(_leaves(v, depth + 1))
    return out


def all_finite(value) -> bool:
    """True when no float NumPy array in ``value`` (a state: dataclass, NamedTuple, tuple of arrays) is NaN or inf."""
    return all(a.dtype.kind != "f" or bool(np.isfinite(a).all()) for a in _leaves(value) if isinstance(a, np.ndarray))


def device_finite(state) -> bool:
    """True when no device array of ``state`` holds NaN or inf (one boolean per array reaches the host): its
    floating-point arrays of an array-API library other than NumPy with at least one axis (0-d arrays are scalars
    such as a bound, which may legitimately be inf; dask is left out)."""
    for a in _leaves(state):
        # torch tensors have no ``__array_namespace__`` of their own: ``is_array_api_obj`` knows them
        if (a is None or isinstance(a, (np.ndarray, np.generic, str, bytes, int, float)) or not aac.is_array_api_obj(a)
                or aac.is_dask_array(a) or not a.ndim):
            continue
        xp = aac.array_namespace(a)
        if xp.isdtype(a.dtype, "real floating") and not bool(xp.all(xp.isfinite(a))):
            return False
    return True


class Guard:
    """The loop's guard over one run: ``finite`` on every new state, ``at_check`` where the stop rule is checked
    (device states). It remembers the last state that passed a check, which is returned if a device state is found
    non-finite later."""

    def __init__(self, plan, state):
        self.plan = plan
        self.checked, self.t_checked = state, 0

    def finite(self, state) -> bool:
        """The plan's per-step check (:meth:`~marginkit.engine.runloop.IterationPlan.finite`) of a new state."""
        return self.plan.finite(state)

    def at_check(self, state, t: int):
        """``None`` when ``state`` is finite (it becomes the last checked state); else ``(state, t, message)`` to end
        the run with, where ``state`` is None when there is no finite iterate to return."""
        if self.plan.device_finite(state):
            self.checked, self.t_checked = state, t
            return None
        if self.checked is state or not self.plan.device_finite(self.checked):
            return None, t, (f"the iterate became non-finite by iteration {t} (the plan updates its state in place: "
                             "no finite iterate to return)")
        return self.checked, self.t_checked, (
            f"the iterate became non-finite between iterations {self.t_checked} and {t}: a step size too large for "
            f"the data, or an overflow; the iterate of iteration {self.t_checked} (the last checked finite) is "
            "returned")
