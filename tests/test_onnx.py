"""ONNX export of MarginClassifier (marginkit.api.onnx): onnxruntime's labels are predict's and its scores are
decision_function's, on scikit-learn's bundled real data, binary and one-vs-rest, integer and string labels, linear
and RBF kernel; what cannot be exported is refused with a ProblemError that says why."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_iris, load_wine
from sklearn.exceptions import NotFittedError
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import marginkit as mk
from marginkit.api.onnx import register_onnx_converter, to_onnx

ROOT = Path(__file__).resolve().parents[1]
LOADERS = {"breast_cancer": load_breast_cancer, "wine": load_wine, "iris": load_iris}


@pytest.fixture(scope="module")
def ort():
    pytest.importorskip("skl2onnx")
    return pytest.importorskip("onnxruntime")


def data(name, strings):
    X, y = LOADERS[name](return_X_y=True)
    if strings:
        y = np.array(["setosa-like", "versicolor-like", "virginica-like"])[y]
    return X, y


def fitted(name, strings, kernel=None):
    X, y = data(name, strings)
    return X, make_pipeline(StandardScaler(), mk.MarginClassifier(kernel=kernel)).fit(X, y)


def run(ort, model, X):
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    assert [o.name for o in session.get_outputs()] == ["label", "probabilities"]
    return session.run(None, {"X": X})


@pytest.mark.parametrize("name, strings", [("breast_cancer", False), ("breast_cancer", True), ("wine", True),
                                           ("iris", False)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_onnxruntime_labels_equal_predict_and_scores_equal_decision_function(ort, name, strings, dtype):
    X, est = fitted(name, strings)
    label, scores = run(ort, mk.to_onnx(est, X[:1].astype(dtype)), X.astype(dtype))
    expected = est.decision_function(X)
    k = len(est.classes_)
    assert scores.shape == ((len(X), 1) if k == 2 else (len(X), k))   # as skl2onnx writes LinearSVC
    assert scores.dtype == dtype
    np.testing.assert_array_equal(label, est.predict(X))
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(scores.reshape(expected.shape), expected, rtol=tol, atol=tol * np.abs(expected).max())


@pytest.mark.parametrize("name, strings", [("breast_cancer", True), ("iris", True)])
def test_an_rbf_model_exports_with_its_support_vectors(ort, name, strings):
    X, est = fitted(name, strings, kernel="rbf")
    assert not hasattr(est[-1], "coef_")
    for dtype in (np.float32, np.float64):
        label, scores = run(ort, to_onnx(est, X[:1].astype(dtype)), X.astype(dtype))
        expected = est.decision_function(X)
        np.testing.assert_array_equal(label, est.predict(X))
        # ONNX-ML's SVMRegressor sums the kernel expansion in float32
        np.testing.assert_allclose(scores.reshape(expected.shape), expected, rtol=1e-5, atol=1e-5)


def test_a_callable_kernel_is_refused_saying_why(ort):
    X, y = load_iris(return_X_y=True)
    est = mk.MarginClassifier(kernel=lambda A, B: (A @ B.T + 1.0) ** 2, C=0.1).fit(X[:60], y[:60])
    with pytest.raises(mk.ProblemError, match="kernel.*no ONNX operator.*kernel='rbf'"):
        to_onnx(est, X[:1].astype(np.float32))


def test_the_converter_is_registered_with_skl2onnx_itself(ort):
    import skl2onnx
    X, est = fitted("iris", False)
    register_onnx_converter()
    label, _ = run(ort, skl2onnx.to_onnx(est, X[:1].astype(np.float32)), X.astype(np.float32))
    np.testing.assert_array_equal(label, est.predict(X))
    # without X_sample: float32 input of the estimator's width
    label, _ = run(ort, to_onnx(est[-1]), est[0].transform(X).astype(np.float32))
    np.testing.assert_array_equal(label, est.predict(X))


def test_bad_input_and_unfitted_estimators_are_refused(ort):
    X, est = fitted("iris", False)
    with pytest.raises(mk.ProblemError, match="X_sample.*float32"):
        to_onnx(est, X[:1].astype(np.int64))
    with pytest.raises(NotFittedError):
        to_onnx(mk.MarginClassifier(), X[:1].astype(np.float32))
    odd = mk.MarginClassifier().fit(X[:100], np.arange(150)[:100] >= 50)
    odd.classes_ = np.array([0.5, 1.5])   # scikit-learn refuses such labels in fit; ONNX has no float labels
    with pytest.raises(mk.ProblemError, match="classes_"):
        to_onnx(odd, X[:1].astype(np.float32))


def test_a_missing_extra_is_named(monkeypatch):
    X, y = load_iris(return_X_y=True)
    est = mk.MarginClassifier().fit(X[:100], y[:100])
    monkeypatch.setitem(sys.modules, "skl2onnx", None)   # what an environment without the extra sees
    with pytest.raises(mk.ProblemError, match=r"marginkit\[onnx\]"):
        mk.to_onnx(est, X[:1].astype(np.float32))


def test_import_marginkit_does_not_import_onnx():
    code = ("import sys, marginkit; marginkit.to_onnx; "
            "print(sorted({'onnx', 'skl2onnx', 'onnxruntime'} & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"
