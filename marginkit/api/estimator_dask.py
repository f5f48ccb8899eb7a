"""The dask side of :class:`~marginkit.api.estimator.MarginClassifier`: row-chunked inputs (a dask array or
dataframe) made into the problem's data, labels placed on X's row chunks, and block-wise scores and labels for
``decision_function``/``predict`` (module level: the block functions pickle by reference to a distributed worker)."""
from __future__ import annotations

import numpy as np
from sklearn.utils.extmath import safe_sparse_dot

from ..core.backend import is_dask
from ..core.validation import ProblemError


def is_dask_input(X) -> bool:
    """A dask array, or a dask dataframe (it has ``to_dask_array``)."""
    return is_dask(X) or (type(X).__module__.split(".")[0] in ("dask", "dask_expr") and hasattr(X, "to_dask_array"))


def dask_matrix(X):
    """``(X as a row-chunked float dask array, str feature names or None)``; a dataframe via ``to_dask_array``."""
    names = None
    if not is_dask(X):
        cols = list(X.columns)
        names = np.asarray(cols, dtype=object) if cols and all(isinstance(c, str) for c in cols) else None
        X = X.to_dask_array(lengths=True)
    if X.ndim != 2:
        raise ProblemError(f"X must be 2-D (rows × features); got a dask array of shape {X.shape}")
    return (X if len(X.chunks[1]) == 1 else X.rechunk({1: -1})).astype(np.float64), names


def dask_labels(y, X):
    """``y`` as a dask vector chunked like ``X``'s rows (a NumPy vector or a dask series is placed there)."""
    import dask.array as da
    y = y.to_dask_array(lengths=True) if not is_dask(y) and hasattr(y, "to_dask_array") else y
    y = y if is_dask(y) else np.asarray(y)
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise ProblemError(f"y must be a vector of {X.shape[0]} labels; got shape {y.shape}")
    if not is_dask(y):
        return da.from_array(y, chunks=(X.chunks[0],))
    y = y.compute_chunk_sizes() if any(np.isnan(c) for c in y.chunks[0]) else y
    return y if y.chunks[0] == X.chunks[0] else y.rechunk((X.chunks[0],))


def block_scores(block, coef, intercept):
    scores = np.asarray(safe_sparse_dot(block, coef.T)) + intercept
    return scores.ravel() if scores.shape[1] == 1 else scores


def labels_of(scores, classes):
    return classes[(scores > 0).astype(int)] if scores.ndim == 1 else classes[np.argmax(scores, axis=1)]
