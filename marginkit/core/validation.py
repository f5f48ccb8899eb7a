"""Validation at the boundary (scikit-learn's ``check_X_y`` idea): every check happens once, when a
problem is constructed, and raises :class:`ProblemError` naming the argument. Inside the package the
data are trusted.

Nothing the user passed is modified: arrays are copied to read-only float64 buffers (sparse matrices
to read-only CSR copies), so a user who mutates their array afterwards does not change the problem.
"""
from __future__ import annotations

import numbers
import weakref

import numpy as np
import scipy.sparse as sp

from .errors import ProblemError


def dtype_kind(a) -> str:
    """NumPy's one-letter kind of the element type of ``a`` (a NumPy, scipy.sparse or dask array): ``"b"`` bool,
    ``"i"``/``"u"`` integers, ``"f"`` floats, ``"c"`` complex, ``"O"`` objects, ``"U"``/``"S"`` strings."""
    return np.dtype(a.dtype).kind


# arrays this module produced (read-only copies): a problem built from another problem's data (a
# reduction) shares them instead of copying X again
_OWNED: "weakref.WeakValueDictionary[int, object]" = weakref.WeakValueDictionary()


def _freeze(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    _OWNED[id(a)] = a
    return a


def read_only(value):
    """``value`` with every NumPy array in it (also inside dicts, lists, tuples and sparse matrices) made read-only,
    for what a problem caches or a cached result shares."""
    if isinstance(value, np.ndarray):
        value.setflags(write=False)
    elif sp.issparse(value):
        for name in ("data", "indices", "indptr", "row", "col"):
            arr = getattr(value, name, None)
            if isinstance(arr, np.ndarray):
                arr.setflags(write=False)
    elif isinstance(value, dict):
        for v in value.values():
            read_only(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            read_only(v)
    return value


def _check_sparse_structure(X, name: str):
    """A sparse matrix's index arrays in full (range, monotone pointers, dtype): a corrupt CSR/CSC would otherwise
    reach compiled code (a process abort in a solver). COO and the others are checked by their own conversion."""
    try:
        if X.format in ("csr", "csc", "bsr"):
            X.check_format(full_check=True)
        elif X.format == "coo":
            r, c = np.asarray(X.row), np.asarray(X.col)
            if r.size and (r.min() < 0 or r.max() >= X.shape[0] or c.min() < 0 or c.max() >= X.shape[1]):
                raise ValueError("row or column index out of range")
    except (ValueError, TypeError, IndexError, OverflowError) as exc:
        raise ProblemError(f"{name} is a corrupt sparse matrix: {exc}") from None
    if dtype_kind(X) not in "biuf":
        raise ProblemError(f"{name} must hold real numbers; got dtype {X.dtype}")


def _check_dtype(A, name: str):
    try:
        kind = dtype_kind(A if isinstance(A, np.ndarray) else np.asarray(A))
    except (TypeError, ValueError) as exc:   # ragged nested sequences
        raise ProblemError(f"{name} must be a numeric array; {exc}") from None
    if kind == "c":
        raise ProblemError(f"{name} must be real; got complex values")
    if kind in "SUMmV":
        raise ProblemError(f"{name} must be numeric; got dtype {np.asarray(A).dtype}")


def _float_copy(X, name: str) -> np.ndarray:
    """A float64 copy of dense array-like data; complex, string and ragged data are a ProblemError naming ``name``."""
    _check_dtype(X, name)
    try:
        return np.array(X, dtype=np.float64, copy=True)
    except (TypeError, ValueError) as exc:
        raise ProblemError(f"{name} must be a numeric array; {exc}") from None


def check_matrix(X, name: str = "X", allow_sparse: bool = True):
    """Return a read-only float64 copy of a 2-D array or a CSR copy of a sparse matrix."""
    if X is None:
        raise ProblemError(f"{name} is required; got None")
    if _OWNED.get(id(X)) is X:
        return X  # already validated, read-only and owned by marginkit
    if sp.issparse(X):
        if not allow_sparse:
            raise ProblemError(f"{name} must be a dense array here; got a sparse matrix")
        if len(X.shape) != 2:
            raise ProblemError(f"{name} must be 2-D; got shape {X.shape}")
        _check_sparse_structure(X, name)
        try:
            M = sp.csr_matrix(X, dtype=np.float64, copy=True)
        except (TypeError, ValueError) as exc:
            raise ProblemError(f"{name} must be a numeric sparse matrix; {exc}") from None
        if M.ndim != 2:
            raise ProblemError(f"{name} must be 2-D; got {M.ndim}-D")
        if M.nnz and not np.all(np.isfinite(M.data)):
            raise ProblemError(f"{name} contains NaN or inf")
        M.sum_duplicates()
        for arr in (M.data, M.indices, M.indptr):
            arr.setflags(write=False)
        _OWNED[id(M)] = M
        return M
    A = _float_copy(X, name)
    if A.ndim != 2:
        raise ProblemError(f"{name} must be 2-D with shape (n, d); got shape {A.shape}")
    if not np.all(np.isfinite(A)):
        raise ProblemError(f"{name} contains NaN or inf")
    return _freeze(A)


def check_samples(X, name: str = "X"):
    """Data matrix with at least one row and one column."""
    M = check_matrix(X, name)
    _check_nonempty(M.shape, name)
    return M


def _check_nonempty(shape, name: str) -> None:
    if shape[0] == 0:
        raise ProblemError(f"{name} is empty: it has no rows (n == 0)")
    if shape[1] == 0:
        raise ProblemError(f"{name} has no columns (d == 0)")


def _check_two_classes(count: int, name: str, single: str = "") -> None:
    """Exactly two distinct labels (``single``: how a lone class is shown in the message)."""
    if count < 2:
        raise ProblemError(f"{name} has a single class{single}; two classes are required")
    if count > 2:
        raise ProblemError(f"{name} has {count} classes; exactly two are required")


def check_vector(v, name: str, size: int | None = None) -> np.ndarray:
    if sp.issparse(v):
        raise ProblemError(f"{name} must be a dense 1-D array; got a sparse matrix")
    a = _float_copy(v, name)
    if a.ndim != 1:
        raise ProblemError(f"{name} must be 1-D; got shape {a.shape}")
    if size is not None and a.shape[0] != size:
        raise ProblemError(f"{name} must have length {size}; got {a.shape[0]}")
    if not np.all(np.isfinite(a)):
        raise ProblemError(f"{name} contains NaN or inf")
    return _freeze(a)


def check_labels(y, n: int, name: str = "y"):
    """Binary labels of any two values -> (y in {-1,+1} float64, classes_).

    ``{-1, +1}`` is kept as is; any other pair is mapped sorted-first to -1, second to +1.
    """
    if y is None:
        raise ProblemError(f"{name} is required; got None")
    if sp.issparse(y):
        raise ProblemError(f"{name} must be a dense 1-D array of labels; got a sparse matrix")
    try:
        ya = np.asarray(y)
    except (TypeError, ValueError) as exc:
        raise ProblemError(f"{name} must be a 1-D array of labels; {exc}") from None
    if dtype_kind(ya) == "c":
        raise ProblemError(f"{name} must hold real labels; got complex values")
    if ya.ndim != 1:
        raise ProblemError(f"{name} must be 1-D with shape (n,); got shape {ya.shape}")
    if ya.shape[0] != n:
        raise ProblemError(f"{name} has {ya.shape[0]} entries but X has {n} rows")
    if dtype_kind(ya) in "fc" and not np.all(np.isfinite(ya)):
        raise ProblemError(f"{name} contains NaN or inf")
    if dtype_kind(ya) == "O":
        kinds = {type(v) for v in ya.tolist()}
        if len(kinds) > 1 and not all(issubclass(k, numbers.Real) for k in kinds):
            raise ProblemError(f"{name} mixes label types {sorted(k.__name__ for k in kinds)}; use one type")
        if any(v is None or (isinstance(v, float) and not np.isfinite(v)) for v in ya.tolist()):
            raise ProblemError(f"{name} contains None, NaN or inf")
    try:
        classes = np.unique(ya)
    except TypeError as exc:
        raise ProblemError(f"{name} has labels that cannot be compared: {exc}") from None
    _check_two_classes(classes.size, name, f" ({classes[0]!r})")
    if dtype_kind(ya) in "iuf" and set(classes.tolist()) == {-1, 1}:
        ypm = ya.astype(np.float64)
        classes = np.array([-1, 1], dtype=ya.dtype)
    else:
        ypm = np.where(ya == classes[1], 1.0, -1.0)
    classes = np.array(classes, copy=True)
    classes.setflags(write=False)
    return _freeze(ypm), classes


def check_real_targets(y, n: int, name: str = "y") -> np.ndarray:
    return check_vector(y, name, size=n)


def check_sample_weight(sample_weight, n: int, name: str = "sample_weight") -> np.ndarray:
    """A read-only float copy of per-sample weights: length ``n``, finite, nonnegative, not all zero."""
    s = check_vector(sample_weight, name, size=n)
    if np.any(s < 0):
        raise ProblemError(f"{name} must be nonnegative; got a minimum of {float(s.min()):g}")
    if not np.any(s > 0):
        raise ProblemError(f"{name} must have at least one positive entry (all are zero)")
    return s


def check_positive(value, name: str, allow_none: bool = False, strict: bool = True):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ProblemError(f"{name} must be a real number; got {value!r}")
    value = float(value)
    if not np.isfinite(value):
        raise ProblemError(f"{name} must be finite; got {value}")
    if strict and value <= 0:
        raise ProblemError(f"{name} must be positive; got {value}")
    if not strict and value < 0:
        raise ProblemError(f"{name} must be non-negative; got {value}")
    return value


def check_bool(value, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ProblemError(f"{name} must be True or False; got {value!r}")
    return bool(value)


def check_kernel(kernel, gamma, X):
    """Validate ``kernel`` in {None, 'linear', 'rbf', callable} and its ``gamma``."""
    if kernel is None or kernel == "linear":
        if gamma is not None:
            raise ProblemError("gamma is only used with kernel='rbf'; got gamma with a linear kernel")
        return None, None
    if isinstance(kernel, str):
        if kernel != "rbf":
            raise ProblemError(f"kernel must be None, 'linear', 'rbf' or a callable; got {kernel!r}")
        if gamma is None:
            gamma = 1.0 / X.shape[1]
        return "rbf", check_positive(gamma, "gamma")
    if callable(kernel):
        if gamma is not None:
            raise ProblemError("gamma is only used with kernel='rbf'; pass parameters inside the callable")
        return kernel, None
    raise ProblemError(f"kernel must be None, 'linear', 'rbf' or a callable; got {kernel!r}")


# arrays of another library: kept where they live (issue 13) ------------------------------------------------------
def check_foreign_matrix(X, name: str = "X"):
    """Validate an array-API array of another library (torch, CuPy, ``array-api-strict``) or a row-chunked
    ``dask.array`` WITHOUT bringing it to the host: shape and dtype from its metadata, finiteness by one reduction
    on its device (dask: one pass over the chunks). Integer or boolean data become float64 where they live; a
    floating array is kept as it is (not copied: do not modify it in place while a problem uses it)."""
    from .backend import is_dask
    if is_dask(X):
        return _check_dask_matrix(X, name)
    try:
        import array_api_compat as aac
    except ImportError:   # pragma: no cover - array-api-compat is a dependency
        raise ProblemError(f"{name} is a {type(X).__name__}; install array-api-compat "
                           f"or convert with np.asarray({name})")
    try:
        xp = aac.array_namespace(X)
    except TypeError:
        raise ProblemError(f"{name} is a {type(X).__module__}.{type(X).__name__}, which is neither NumPy/SciPy nor an "
                           f"array-API array: convert it with np.asarray({name})") from None
    if len(X.shape) != 2:
        raise ProblemError(f"{name} must be 2-D with shape (n, d); got shape {tuple(X.shape)}")
    _check_nonempty(X.shape, name)
    return check_foreign_values(X, name, xp)


def check_foreign_values(A, name: str, xp):
    """The values of an array-API array ``A`` checked where it lives: real (integer or boolean data become float64
    there), and finite (one boolean reaches the host)."""
    if xp.isdtype(A.dtype, "complex floating"):
        raise ProblemError(f"{name} must be real; got complex values")
    if not xp.isdtype(A.dtype, "real floating"):
        if not xp.isdtype(A.dtype, ("integral", "bool")):
            raise ProblemError(f"{name} must be numeric; got dtype {A.dtype}")
        A = xp.astype(A, xp.float64)
    if not bool(xp.all(xp.isfinite(A))):
        raise ProblemError(f"{name} contains NaN or inf")
    return A


def _check_dask_matrix(X, name: str):
    import dask.array as da
    if X.ndim != 2:
        raise ProblemError(f"{name} must be 2-D with shape (n, d); got a {X.ndim}-D dask array")
    if any(np.isnan(c) for c in X.chunks[0]) or any(np.isnan(c) for c in X.chunks[1]):
        raise ProblemError(f"{name} is a dask array with unknown chunk sizes: call {name}.compute_chunk_sizes() "
                           "first (or, from a dask dataframe, .to_dask_array(lengths=True))")
    if len(X.chunks[1]) > 1:
        raise ProblemError(f"{name} is chunked along its columns ({len(X.chunks[1])} column chunks); the plans need "
                           f"whole rows in each chunk: {name} = {name}.rechunk({{1: -1}})")
    _check_nonempty(X.shape, name)
    meta = getattr(X, "_meta", None)
    if meta is not None and not (isinstance(meta, np.ndarray) or sp.issparse(meta)):
        raise ProblemError(f"{name} is a dask array of {type(meta).__module__}.{type(meta).__name__} chunks; the plans "
                           f"compute on NumPy or scipy.sparse chunks: {name} = {name}.map_blocks(np.asarray) (dense) "
                           f"or {name}.map_blocks(scipy.sparse.csr_matrix)")
    kind = dtype_kind(X)
    if kind == "c":
        raise ProblemError(f"{name} must be real; got complex values")
    if kind not in "biuf":
        raise ProblemError(f"{name} must be numeric; got dtype {X.dtype}")
    if kind != "f":
        X = X.astype(np.float64)
    if sp.issparse(getattr(X, "_meta", None)):
        ok = X.map_blocks(lambda b: np.array([[bool(np.all(np.isfinite(b.data)))]]), chunks=(1, 1),
                          dtype=bool).all()
    else:
        ok = da.isfinite(X).all()
    if not bool(ok.compute()):
        raise ProblemError(f"{name} contains NaN or inf")
    return X


def check_foreign_labels(y, X, name: str = "y"):
    """Binary labels for foreign data ``X``: ``(y in {-1,+1} where X lives, classes_ on the host)``. For an
    array-API ``X``, ``y`` must be of the same library and device; for a dask ``X``, ``y`` may be a NumPy array or a
    dask array (it is chunked like ``X``'s rows)."""
    from .backend import is_dask
    if y is None:
        raise ProblemError(f"{name} is required; got None")
    n = X.shape[0]
    if is_dask(X):
        import dask.array as da
        if is_dask(y):
            if y.ndim != 1 or y.shape[0] != n:
                raise ProblemError(f"{name} must be 1-D with {n} entries like X's rows; got shape {y.shape}")
            if any(np.isnan(c) for c in y.chunks[0]):
                raise ProblemError(f"{name} is a dask array with unknown chunk sizes: call "
                                   f"{name}.compute_chunk_sizes() first")
            return _dask_labels(y, X, name)   # checked and mapped on the workers: no n-vector through the driver
        ypm, classes = check_labels(y, n, name)
        return da.from_array(np.array(ypm), chunks=(X.chunks[0],)).persist(), classes
    import array_api_compat as aac
    xp = aac.array_namespace(X)
    try:
        yxp = aac.array_namespace(y)
    except TypeError:
        yxp = None
    if yxp is not xp or isinstance(y, np.ndarray) != isinstance(X, np.ndarray):
        raise ProblemError(f"{name} is a {type(y).__module__}.{type(y).__name__} but X is a "
                           f"{type(X).__module__}.{type(X).__name__}: move {name} to X's library and device "
                           f"(for example xp.asarray({name}, device=X.device))")
    if aac.device(y) != aac.device(X):
        raise ProblemError(f"{name} is on device {aac.device(y)} but X is on {aac.device(X)}: "
                           f"move {name} to X's device")
    if len(y.shape) != 1:
        raise ProblemError(f"{name} must be 1-D with shape (n,); got shape {tuple(y.shape)}")
    if y.shape[0] != n:
        raise ProblemError(f"{name} has {y.shape[0]} entries but X has {n} rows")
    if xp.isdtype(y.dtype, "complex floating"):
        raise ProblemError(f"{name} must hold real labels; got complex values")
    if xp.isdtype(y.dtype, "real floating") and not bool(xp.all(xp.isfinite(y))):
        raise ProblemError(f"{name} contains NaN or inf")
    values = xp.unique_values(y)
    _check_two_classes(int(values.shape[0]), name)
    from .backend import ArrayAPIBackend
    classes = np.asarray(ArrayAPIBackend(values).host(values))
    ypm = xp.astype(y == values[1], X.dtype) * 2 - 1
    if set(classes.tolist()) == {-1, 1}:
        classes = np.array([-1, 1], dtype=classes.dtype)
    classes.setflags(write=False)
    return ypm, classes


def _dask_labels(y, X, name: str):
    """Binary labels of a dask ``y`` where they live: the classes (at most a few values) come to the driver, the ±1
    vector is mapped and persisted on the workers, chunked like ``X``'s rows."""
    import dask.array as da
    kind = dtype_kind(y)
    if kind == "c":
        raise ProblemError(f"{name} must hold real labels; got complex values")
    if kind not in "biuf":
        return _host_labels(y, X, name)   # strings or objects: NumPy's unique and mapping, on the host
    if kind == "f" and not bool(da.isfinite(y).all().compute()):
        raise ProblemError(f"{name} contains NaN or inf")
    classes = np.asarray(da.unique(y).compute())
    _check_two_classes(classes.size, name, f" ({classes[0]!r})")
    if set(classes.tolist()) == {-1, 1}:
        classes = np.array([-1, 1], dtype=classes.dtype)
    classes.setflags(write=False)
    y = y if y.chunks[0] == X.chunks[0] else y.rechunk((X.chunks[0],))
    return da.where(y == classes[1], 1.0, -1.0).persist(), classes


def _host_labels(y, X, name: str):
    import dask.array as da
    ypm, classes = check_labels(y.compute(), X.shape[0], name)
    return da.from_array(np.array(ypm), chunks=(X.chunks[0],)).persist(), classes
