"""ONNX export of a fitted :class:`~marginkit.MarginClassifier` (the ``onnx`` extra: skl2onnx, onnx, onnxruntime).

:func:`to_onnx` registers a converter with ``skl2onnx`` and converts the estimator, alone or inside a scikit-learn
``Pipeline``. The graph has the outputs of skl2onnx's own ``LinearSVC`` conversion: ``label`` (int64 or string, what
``predict`` returns) and ``probabilities``, which holds the raw decision scores (``decision_function``: shape
``(N, 1)`` for two classes, ``(N, n_classes)`` one-vs-rest), not probabilities; no ``ZipMap``.

- Linear model, ``float32`` input: one ONNX-ML ``LinearClassifier`` on ``coef_`` and ``intercept_`` (two classes as
  the pair of rows ``(-w, w)``, as skl2onnx writes ``LinearSVC``).
- Linear model, ``float64`` input: ``MatMul`` and ``Add`` in double precision (the ONNX-ML operators are float32
  only), labels by ``ArgMax`` over the same pair of scores, so that the labels equal ``predict`` to the last bit.
- RBF kernel: one ONNX-ML ``SVMRegressor`` per binary problem on its support vectors and dual coefficients
  ``y_i a_i`` (``f(x) = Σ_i y_i a_i exp(-γ‖x − x_i‖²) + b``, what ``decision_function`` computes), in float32.
- A callable kernel has no ONNX form: :class:`~marginkit.ProblemError` says so.

``import marginkit`` never imports skl2onnx or onnx: they are imported when a model is converted.
"""
from __future__ import annotations

import numbers

import numpy as np

from ..core.validation import ProblemError

EXTRA = "pip install 'marginkit[onnx]'"
ALIAS = "MarginkitMarginClassifier"
ML = "ai.onnx.ml"


def _require():
    """The ``skl2onnx`` module, or a ProblemError naming the extra that provides it."""
    try:
        import onnx  # noqa: F401  (skl2onnx needs it; imported here so that its absence is reported the same way)
        import skl2onnx
    except ImportError as exc:
        raise ProblemError(f"ONNX export needs skl2onnx and onnx, which are not installed ({exc}); install the onnx "
                           f"extra: {EXTRA}") from None
    return skl2onnx


def register_onnx_converter() -> None:
    """Register the ``MarginClassifier`` converter with skl2onnx (idempotent), so that ``skl2onnx.to_onnx`` and
    ``convert_sklearn`` convert it too, alone or in a ``Pipeline``. :func:`to_onnx` calls it."""
    skl2onnx = _require()
    from .estimator import MarginClassifier
    skl2onnx.update_registered_converter(MarginClassifier, ALIAS, _shape_calculator, _converter)


def to_onnx(estimator, X_sample=None, *, target_opset=None, name=None, options=None):
    """The ``onnx.ModelProto`` of a fitted ``MarginClassifier`` (or a ``Pipeline`` ending in one).

    Parameters
    ----------
    estimator : MarginClassifier or Pipeline
        Fitted; linear, or with ``kernel="rbf"``.
    X_sample : array-like of shape (n, n_features), optional
        A few rows of the input: their dtype (``float32``, or ``float64`` for exact double-precision scores) and
        width give the graph's input ``X`` (any number of rows at run time). Default: ``float32`` with the
        estimator's ``n_features_in_``.
    target_opset, name, options
        Passed to ``skl2onnx.to_onnx``.

    Returns
    -------
    onnx.ModelProto
        Input ``X``; outputs ``label`` (the labels of ``predict``) and ``probabilities`` (the decision scores).

    Examples
    --------
    ::

        onx = marginkit.to_onnx(clf, X[:1].astype(np.float32))
        sess = onnxruntime.InferenceSession(onx.SerializeToString())
        label, scores = sess.run(None, {"X": X.astype(np.float32)})   # label == clf.predict(X)

    Raises ``ProblemError`` when the ``onnx`` extra is missing, for a callable kernel, for labels that are neither
    integers nor strings, and for an input that is not floating point; scikit-learn's ``NotFittedError`` for an
    unfitted estimator (as ``predict`` does).
    """
    skl2onnx = _require()
    register_onnx_converter()
    from sklearn.utils.validation import check_is_fitted
    check_is_fitted(estimator)
    initial_types = None
    if X_sample is None:
        from skl2onnx.common.data_types import FloatTensorType
        width = getattr(estimator, "n_features_in_", None)
        if width is None:
            raise ProblemError("X_sample is needed: the estimator does not record n_features_in_")
        initial_types = [("X", FloatTensorType([None, int(width)]))]
    else:
        dtype = getattr(X_sample, "dtype", None)
        if dtype is None or np.dtype(dtype) not in (np.float32, np.float64):
            raise ProblemError(f"X_sample must be a float32 or float64 array (it fixes the ONNX input type); got "
                               f"{type(X_sample).__name__} of dtype {dtype}: pass X[:1].astype(np.float32)")
        X_sample = X_sample[:1]
    return skl2onnx.to_onnx(estimator, X_sample, initial_types=initial_types, target_opset=target_opset,
                            name=name, options=options)


# the model, read once for the shape calculator and the converter ------------------------------------------------
def _labels(classes):
    """``("strings" | "ints", list)``: ONNX labels are int64 or strings; ``predict``'s values are kept."""
    classes = np.asarray(classes)
    if all(isinstance(c, str) for c in classes.tolist()):
        return "strings", [str(c) for c in classes.tolist()]
    values = classes.tolist()
    if all(isinstance(c, (numbers.Integral, bool)) or (isinstance(c, float) and c.is_integer()) for c in values):
        return "ints", [int(c) for c in values]
    raise ProblemError(f"estimator: classes_ {classes.tolist()!r} cannot be ONNX labels (int64 or strings only); "
                       "fit on integer or string labels")


def _tasks(model):
    """``("linear", W (k, d), b (k,))`` or ``("rbf", [(support vectors, coefficients, b, gamma), ...])``, one
    entry per binary problem (one for two classes)."""
    from sklearn.utils.validation import check_is_fitted
    check_is_fitted(model)
    if hasattr(model, "coef_"):
        return "linear", np.asarray(model.coef_, dtype=np.float64), np.asarray(model.intercept_, dtype=np.float64)
    results = model.result_ if isinstance(model.result_, list) else [model.result_]
    tasks = []
    for r in results:
        data = getattr(r, "_kernel_data", None)
        kernel = None if data is None else data[1]
        if kernel is None:
            raise ProblemError("estimator: this linear MarginClassifier has no coef_ to export (its method returned "
                               "no weight vector)")
        if kernel != "rbf":
            raise ProblemError(f"estimator: a MarginClassifier with kernel={model.kernel!r} cannot be exported to "
                               "ONNX: a kernel function of your own has no ONNX operator (ONNX-ML's SVM operators "
                               "know the linear, polynomial, RBF and sigmoid kernels); fit with kernel='rbf' or "
                               "a linear model (kernel=None), or write the kernel's graph yourself")
        Xtrain, _, gamma = data
        coef = np.asarray(r.dual_coef, dtype=np.float64).ravel()
        keep = np.flatnonzero(coef)           # every nonzero term, so that the scores are decision_function's
        sv = Xtrain[keep]
        sv = sv.toarray() if hasattr(sv, "toarray") else np.asarray(sv, dtype=np.float64)
        tasks.append((sv, coef[keep], float(r.b), float(gamma)))
    return "rbf", tasks


def _shape_calculator(operator):
    from skl2onnx.common.data_types import (DoubleTensorType, FloatTensorType, Int64TensorType,
                                            StringTensorType)
    model = operator.raw_operator
    _tasks(model)   # unfitted or not exportable: say so before any graph is built
    kind, _ = _labels(model.classes_)
    input_type = type(operator.inputs[0].type)
    if input_type not in (FloatTensorType, DoubleTensorType):
        raise ProblemError(f"X_sample: the MarginClassifier converter takes float32 or float64 input; got "
                           f"{input_type.__name__} (cast X to np.float32)")
    n = operator.inputs[0].get_first_dimension()
    k = len(model.classes_)
    operator.outputs[0].type = (StringTensorType if kind == "strings" else Int64TensorType)([n])
    operator.outputs[1].type = input_type([n, 1 if k == 2 else k])


def _converter(scope, operator, container):
    from onnx import TensorProto
    from skl2onnx.common.data_types import DoubleTensorType
    model = operator.raw_operator
    kind, labels = _labels(model.classes_)
    label_out, scores_out = operator.outputs[0].full_name, operator.outputs[1].full_name
    X = operator.inputs[0].full_name
    double = isinstance(operator.inputs[0].type, DoubleTensorType)
    form, *parts = _tasks(model)
    binary = len(labels) == 2

    def name(prefix):
        return scope.get_unique_variable_name(prefix)

    def node(op, inputs, outputs, domain="", **attrs):
        container.add_node(op, inputs, outputs, name=scope.get_unique_operator_name(op),
                           **({"op_domain": domain, "op_version": 1} if domain else {}), **attrs)

    if form == "linear" and not double:
        W, b = parts
        if binary:   # the pair (-w, w): the ML operator's label is the larger of (-f, f), f's sign
            W, b = np.vstack([-W, W]), np.concatenate([-b, b])
        pair = name("scores_pair") if binary else scores_out
        node("LinearClassifier", [X], [label_out, pair], domain=ML, coefficients=W.ravel().tolist(),
             intercepts=b.tolist(), multi_class=0, post_transform="NONE",
             **{f"classlabels_{kind}": labels})
        if binary:
            column = name("positive_column")
            container.add_initializer(column, TensorProto.INT64, [1], [1])
            node("ArrayFeatureExtractor", [pair, column], [scores_out], domain=ML)
        return

    proto = TensorProto.DOUBLE if double else TensorProto.FLOAT
    if form == "linear":
        W, b = parts
        coef, intercept = name("coef"), name("intercept")
        container.add_initializer(coef, proto, list(W.T.shape), W.T.ravel().tolist())
        container.add_initializer(intercept, proto, [W.shape[0]], b.tolist())
        product = name("product")
        node("MatMul", [X, coef], [product])
        node("Add", [product, intercept], [scores_out])
    else:
        Xf = X
        if double:            # ONNX-ML's SVM operators take float32 only
            Xf = name("X_float")
            node("Cast", [X], [Xf], to=TensorProto.FLOAT)
        columns = []
        for sv, coef, b, gamma in parts[0]:
            column = name("kernel_score")
            node("SVMRegressor", [Xf], [column], domain=ML, coefficients=coef.tolist(), kernel_type="RBF",
                 kernel_params=[gamma, 0.0, 0.0], n_supports=int(sv.shape[0]), one_class=0,
                 post_transform="NONE", rho=[b], support_vectors=sv.ravel().tolist())
            columns.append(column)
        scores = columns[0]
        if len(columns) > 1:
            scores = name("kernel_scores")
            node("Concat", columns, [scores], axis=1)
        node("Cast", [scores], [scores_out], to=proto)
    pair = scores_out
    if binary:   # predict's rule f > 0: ArgMax picks the first of a tie, classes_[0] at f = 0
        negative, pair = name("negative"), name("scores_pair")
        node("Neg", [scores_out], [negative])
        node("Concat", [negative, scores_out], [pair], axis=1)
    index, table = name("label_index"), name("class_labels")
    node("ArgMax", [pair], [index], axis=1, keepdims=0)
    if kind == "strings":
        container.add_initializer(table, TensorProto.STRING, [len(labels)], [s.encode() for s in labels])
    else:
        container.add_initializer(table, TensorProto.INT64, [len(labels)], labels)
    node("Gather", [table, index], [label_out], axis=0)
