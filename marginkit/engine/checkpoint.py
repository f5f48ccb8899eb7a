"""Checkpoints of a running plan: ``solve(..., checkpoint=PATH)`` saves, ``solve(..., resume=PATH)`` continues.

**What is saved.** Everything the run loop needs to continue bit for bit: the iteration count, the plan's state (its
iterates and the random generator inside it: a NumPy ``Generator`` pickles exactly), the stop rule's memory
(``Memo.rule``), the recorder's trace records and schedule positions, the time spent so far (without the time spent
recording and saving), the timing estimates of the loop's clock, and the resolved run options that decide the run
(``max_iter``, ``tol``, ``time_limit``, ``check_every``, ``trace``, ``keep_iterates``, an integer ``seed``). The
callback is not saved. Dask arrays in the state (CoCoA+'s dual n-vector) are saved as NumPy arrays with their chunks
and become dask arrays of the same chunks again when the run resumes; arrays of another array-API library are
pickled by that library (torch, CuPy and array-api-strict arrays return to their device).

**When.** At the loop's rest point (an iteration observed and its stop rule checked, before the next step): at most
every ``checkpoint_every`` seconds, at the end of the run (the checkpoint then also holds the final status), and
when the run is interrupted. A Ctrl-C during a checkpointed run (in the main thread) is deferred to the end of the
current iteration: the run is saved there and ``KeyboardInterrupt`` is raised; a second Ctrl-C interrupts at once
(the previous checkpoint stays). A ``KeyboardInterrupt`` raised by the callback is saved at the iteration the
callback was asked about, then re-raised. Every write is atomic: a temporary file in the same folder, flushed and
fsynced, then ``os.replace`` onto the path; an interrupted write leaves the previous checkpoint and no temporary
file.

**The format** (version :data:`VERSION`). The magic line :data:`MAGIC`, one line of JSON (the header: the format
version, the method, the plan class, the problem's class and shapes with a SHA-256 of its data and parameters, a
SHA-256 of the plan's ``Config``, the iteration, the final status if any, the payload's length and SHA-256), then the
payload, a pickle. ``head -2 FILE`` shows the header. Before anything is unpickled, the header and the payload are
checked: a file that is not a checkpoint, a truncated one, one whose checksum differs, or one written for another
problem, method or configuration is a ``ProblemError`` naming ``resume`` and why. **The payload is read like a
pickle: resume only checkpoints from a trusted source.** ``Result.save`` stays the format for finished results.

**Resuming.** The run continues at the saved rest point; the uninterrupted run and the resumed one go through the
same iterates, checks and records. Run options not given with ``resume`` (``max_iter``/``tol`` given as None count as
not given) are the checkpoint's; ``trace``, ``keep_iterates`` and an integer ``seed`` must be the checkpoint's (the
random stream continues from the saved generator), and ``warm_start`` cannot be given. Budgets are the run's totals:
``max_iter`` counts the iterations before the interruption, and ``time_limit`` the time spent before it. A checkpoint
written at the end of a run returns that run's result; when its status is ``user_limit``, the budget is tested again,
so a larger ``max_iter`` or ``time_limit`` (or a callback that no longer stops it) continues the run from its last
iterate (with step sizes that a method derives from ``max_iter`` in ``init`` as they were, and, with
``check_every > 1``, one more check of the stop rule at the old ``max_iter`` than an uninterrupted run makes).
"""
from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import os
import pickle
import signal
import tempfile
import threading
import time as _time
import warnings
from contextlib import contextmanager, suppress

import numpy as np

from ..core.result import host_copy
from ..core.validation import ProblemError

__all__ = ["MAGIC", "VERSION", "Checkpointer", "deferred_interrupt", "load", "resumed_options"]

MAGIC = b"marginkit checkpoint\n"
VERSION = 1
#: the run options a checkpoint keeps (those that decide the run; the callback, the log and the paths do not)
SAVED_OPTIONS = ("max_iter", "tol", "time_limit", "check_every", "trace", "keep_iterates", "seed")
#: the saved options a resumed run must keep as they were (they decide what is recorded or the random stream)
FIXED_OPTIONS = ("trace", "keep_iterates", "seed")

_clock = _time.monotonic   # the schedule's clock (tests replace it rather than sleeping)


# the identity of a run: problem, method, plan, configuration ---------------------------------------------------
def _is_dask(value) -> bool:
    return type(value).__module__.startswith("dask.array") and type(value).__name__ == "Array"


def _feed(h, value, depth: int = 0) -> None:
    """Feed a canonical picture of ``value`` (arrays by dtype, shape and bytes; dask arrays by their name, which
    dask derives from their source; functions by name) into the hash ``h``."""
    tag = type(value).__name__
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes, np.generic)):
        h.update(repr((tag, value)).encode())
    elif isinstance(value, np.ndarray):
        h.update(f"ndarray {value.dtype.str} {value.shape}".encode())
        if value.dtype.kind == "O":
            h.update(repr(value.tolist()).encode())
        else:
            h.update(np.ascontiguousarray(value))
    elif _is_dask(value):
        h.update(f"dask {value.name} {value.dtype.str} {value.chunks}".encode())
    elif hasattr(value, "tocsr") and hasattr(value, "nnz"):   # scipy.sparse, in one canonical layout
        m = value.tocsr()
        h.update(f"sparse {m.shape}".encode())
        for part in (m.data, m.indices, m.indptr):
            _feed(h, part, depth + 1)
    elif hasattr(value, "__array_namespace__") or hasattr(value, "detach"):   # array-API arrays, torch tensors
        _feed(h, host_copy(value), depth + 1)
    elif isinstance(value, (list, tuple)):
        h.update(f"{tag} {len(value)}".encode())
        for v in value:
            _feed(h, v, depth + 1)
    elif isinstance(value, dict):
        h.update(f"dict {len(value)}".encode())
        for k in sorted(value, key=repr):
            _feed(h, k, depth + 1)
            _feed(h, value[k], depth + 1)
    elif isinstance(value, type) or callable(value) and hasattr(value, "__qualname__"):
        h.update(f"callable {getattr(value, '__module__', '')}.{value.__qualname__}".encode())
    elif depth < 6 and dataclasses.is_dataclass(value):
        h.update(f"dataclass {tag}".encode())
        for f in dataclasses.fields(value):
            _feed(h, f.name, depth + 1)
            _feed(h, getattr(value, f.name), depth + 1)
    elif depth < 6 and hasattr(value, "__dict__"):
        h.update(f"object {tag}".encode())
        _feed(h, {k: v for k, v in vars(value).items() if not k.startswith("_")}, depth + 1)
    else:
        h.update(repr((tag, value)).encode())


def _hex(h) -> str:
    return h.hexdigest()


def fingerprint(value) -> str:
    """The SHA-256 (hex) of ``value``'s canonical picture (:func:`_feed`)."""
    h = hashlib.sha256()
    _feed(h, value)
    return _hex(h)


def _problem_fields(problem) -> dict:
    return {k: v for k, v in vars(problem).items() if not k.startswith("_")}


def describe_problem(problem) -> str:
    """``"MaxMargin with X (40, 6), y (40,)"``: the problem's class and the shapes of its arrays."""
    shapes = [f"{k} {tuple(v.shape)}" for k, v in _problem_fields(problem).items()
              if hasattr(v, "shape") and k != "classes_"]
    return type(problem).__name__ + (" with " + ", ".join(shapes) if shapes else "")


def identity(plan) -> dict:
    """What a checkpoint must match to be resumed by ``plan``: method, plan class, problem, configuration. The
    problem's hash reads all its data once; it is cached on the (immutable) problem."""
    problem = plan.origin
    compute = lambda: fingerprint((type(problem).__name__, _problem_fields(problem)))   # noqa: E731
    cached = getattr(problem, "_cached", None)
    config = plan.config
    return {"method": plan.method, "plan": f"{type(plan).__module__}:{type(plan).__qualname__}",
            "problem": describe_problem(problem),
            "problem_sha256": cached("checkpoint_fingerprint", compute) if cached is not None else compute(),
            "config": {f.name: repr(getattr(config, f.name))[:200] for f in dataclasses.fields(config)},
            "config_sha256": fingerprint(config)}


# the payload: a pickle in which dask arrays travel as NumPy arrays with their chunks ---------------------------
def _dask_from_numpy(values, chunks):
    import dask.array as da
    return da.from_array(values, chunks=chunks)


class _Pickler(pickle.Pickler):
    def reducer_override(self, obj):
        if _is_dask(obj):   # its blocks may be futures of a cluster that will be gone: save the values
            return _dask_from_numpy, (np.asarray(obj.compute()), obj.chunks)
        return NotImplemented


def _dumps(point: dict) -> bytes:
    buffer = io.BytesIO()
    _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(point)
    return buffer.getvalue()


def _write_atomic(path: str, parts) -> None:
    """Write ``parts`` to a temporary file in ``path``'s folder, flush and fsync it, then ``os.replace`` it onto
    ``path``: a reader (or a crash) sees the old checkpoint or the new one, never half of one."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            for part in parts:
                f.write(part)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:   # an interrupted or failed write leaves no temporary file behind
        with suppress(OSError):
            os.unlink(tmp)
        raise
    with suppress(OSError, AttributeError):   # the rename itself survives a power loss (POSIX)
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


class Checkpointer:
    """The run's checkpoint file: ``due()`` when ``every`` seconds have passed since the last save (or the start),
    ``save(point)`` writes one (atomically) and returns the seconds it took (the loop pauses them out of the reported
    time). ``interrupted`` is set by a deferred Ctrl-C. A failed write (a full disk, say) warns and the run goes on;
    ``failed`` keeps the reason for the result's ``info``."""

    def __init__(self, plan, path, every: float):
        self.plan, self.path, self.every = plan, os.fspath(path), float(every)
        self.last = _clock()
        self.interrupted = False
        self.failed: str | None = None
        self.identity = identity(plan)   # before the loop's clock starts (the problem's hash reads its data once)

    def due(self) -> bool:
        return _clock() - self.last >= self.every

    def save(self, point: dict) -> float:
        start = _time.perf_counter()
        try:   # a state that does not pickle, or dask blocks that cannot be fetched, fail this save only
            payload = _dumps(point)
        except Exception as exc:  # noqa: BLE001 -- the run goes on; the result says why it has no checkpoint
            payload, why = None, f"its state could not be saved ({type(exc).__name__}: {exc})"
        if payload is not None:
            header = {"version": VERSION, **self.identity, "iteration": int(point["t"]),
                      "status": None if point["finished"] is None else point["finished"]["status"],
                      "payload_bytes": len(payload), "payload_sha256": _hex(hashlib.sha256(payload))}
            try:
                _write_atomic(self.path, (MAGIC, json.dumps(header).encode(), b"\n", payload))
                why = None
            except OSError as exc:
                why = str(exc)
        if why is not None:
            self.failed = f"the checkpoint {self.path!r} could not be written: {why}"
            warnings.warn(self.failed, RuntimeWarning, stacklevel=3)
        self.last = _clock()
        return _time.perf_counter() - start


@contextmanager
def deferred_interrupt(saver: Checkpointer | None):
    """While the loop runs with a checkpoint: the first Ctrl-C (SIGINT) sets ``saver.interrupted`` (the loop saves at
    the end of the iteration and raises ``KeyboardInterrupt``); a second one raises at once. Only in the main thread
    and only over Python's default handler (a handler of the caller's own is left alone)."""
    if (saver is None or threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield
        return

    def handler(signum, frame):
        if saver.interrupted:
            raise KeyboardInterrupt
        saver.interrupted = True

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


# reading one back ----------------------------------------------------------------------------------------------
def _refuse(path: str, why: str) -> ProblemError:
    return ProblemError(f"resume: {path!r} {why}")


def load(path, plan) -> dict:
    """The rest point saved in ``path``, checked (format, length, checksum, then problem, method, plan and
    configuration against ``plan``) before anything is unpickled; a ``ProblemError`` naming ``resume`` otherwise."""
    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as exc:
        raise _refuse(path, f"cannot be read: {exc}") from None
    if not raw.startswith(MAGIC):
        raise _refuse(path, "is not a marginkit checkpoint (written by solve(..., checkpoint=PATH)); Result.save "
                            "files are read with Result.load")
    end = raw.find(b"\n", len(MAGIC))
    try:
        header = json.loads(raw[len(MAGIC):end]) if end > 0 else None
    except ValueError:
        header = None
    if not isinstance(header, dict) or not {"version", "payload_bytes", "payload_sha256"} <= set(header):
        raise _refuse(path, "is damaged: its header cannot be read (a truncated or overwritten file)")
    if header["version"] != VERSION:
        raise _refuse(path, f"has format version {header['version']!r}; this marginkit reads version {VERSION}")
    payload = raw[end + 1:]
    if len(payload) != header["payload_bytes"]:
        raise _refuse(path, f"is truncated: its payload has {len(payload)} of {header['payload_bytes']} bytes")
    if _hex(hashlib.sha256(payload)) != header["payload_sha256"]:
        raise _refuse(path, "is damaged: the SHA-256 of its payload differs from the one its header records")
    mine = identity(plan)
    if header.get("method") != mine["method"]:
        raise _refuse(path, f"is a checkpoint of method {header.get('method')!r}, not {mine['method']!r}")
    if header.get("plan") != mine["plan"]:
        raise _refuse(path, f"was written by the plan {header.get('plan')}, not {mine['plan']} (other data kind or "
                            "form of the problem)")
    if header.get("problem_sha256") != mine["problem_sha256"]:
        raise _refuse(path, f"was written for another problem: {header.get('problem')} (this one: "
                            f"{mine['problem']}; their data or parameters differ)")
    if header.get("config_sha256") != mine["config_sha256"]:
        saved = header.get("config") or {}
        now = mine["config"]
        diff = ", ".join(f"{k}={saved.get(k)} (now {now.get(k)})" for k in sorted(set(saved) | set(now))
                         if saved.get(k) != now.get(k))
        raise _refuse(path, f"was written with other options of {mine['method']!r}" + (f": {diff}" if diff else ""))
    try:
        point = pickle.loads(payload)
    except Exception as exc:  # noqa: BLE001 -- any unpickling failure is a damaged checkpoint
        raise _refuse(path, f"cannot be unpickled ({type(exc).__name__}: {exc})") from None
    if not isinstance(point, dict) or point.get("t") != header.get("iteration"):
        raise _refuse(path, "is damaged: its payload is not the rest point its header describes")
    return point


def resumed_options(point: dict, given: dict, method: str) -> dict:
    """The run options of a resumed run: those ``given`` (with ``resume``), the checkpoint's for the others; a
    ``ProblemError`` for a warm start or for a fixed option (:data:`FIXED_OPTIONS`) other than the checkpoint's."""
    saved = point["options"]
    if given.get("warm_start") is not None:
        raise ProblemError(f"{method}: resume and warm_start cannot both be given (resume continues the "
                           "checkpoint's state)")
    for name in FIXED_OPTIONS:
        if name in given and name in saved and given[name] != saved[name] and not (
                name == "seed" and not isinstance(given[name], (int, np.integer, type(None)))):
            raise ProblemError(f"{method}: resume continues a run made with {name}={saved[name]!r}; {name}="
                               f"{given[name]!r} would not be that run (leave {name} out or give the same value)")
    out = dict(given)
    for name in SAVED_OPTIONS:
        if name != "seed" and (name not in out or (out[name] is None and name in ("max_iter", "tol"))):
            out[name] = saved[name]
    return out
