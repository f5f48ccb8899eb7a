"""``certify(problem, answer, tol)``: certified gaps of anyone's answer, checked against CVXPY models written here
(independent of marginkit's references), scikit-learn's estimators and their class order, bad input, the CLI."""
import subprocess
import sys
import warnings

import cvxpy as cp
import numpy as np
import pytest

import marginkit as mk
from marginkit import ProblemError
from marginkit import datasets as ds
from marginkit import certify
from marginkit.api.cli import main


# ------------------------------------------------------------------------ independent CVXPY models (not marginkit's)
def exact_max_margin(X, y, bias):
    w = cp.Variable(X.shape[1])
    b = cp.Variable() if bias else 0.0
    cp.Problem(cp.Minimize(cp.sum_squares(w)), [cp.multiply(y, X @ w + b) >= 1]).solve(solver="CLARABEL")
    return 1.0 / np.linalg.norm(w.value)          # γ*


def exact_svm(X, y, C, bias):
    w = cp.Variable(X.shape[1])
    b = cp.Variable() if bias else 0.0
    obj = 0.5 * cp.sum_squares(w) + C * cp.sum(cp.pos(1 - cp.multiply(y, X @ w + b)))
    return cp.Problem(cp.Minimize(obj)).solve(solver="CLARABEL")   # P*


def svm_objective(X, y, C, w, b):
    return 0.5 * w @ w + C * np.maximum(0.0, 1 - y * (X @ w + b)).sum()


def geometric_margin(X, y, w, b=0.0):
    return np.min(y * (X @ w + b)) / np.linalg.norm(w)


@pytest.fixture(scope="module")
def separable():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 8))
    X /= np.linalg.norm(X, axis=1).max()
    return X, np.sign(X @ rng.standard_normal(8))


@pytest.fixture(scope="module")
def shifted(separable):
    """Separable with an offset only (a bias problem)."""
    X, y = separable
    return X + 0.7, y


@pytest.fixture(scope="module")
def cancer():
    return ds.breast_cancer()


# ----------------------------------------------------------------------------------------- the reference itself
@pytest.mark.parametrize("bias", [False, True])
def test_the_reference_optimum_is_certified_optimal(separable, shifted, bias):
    X, y = shifted if bias else separable
    P = mk.MaxMargin(X, y, bias=bias)
    ref = P.reference()
    res = certify(P, (ref.w, ref.b))
    assert res.method == "certified" and res.status == "optimal"
    c = res.certificate
    assert 0.0 <= c["relative_gap"] < 1e-8 and abs(c["margin_gap"]) < 1e-8 and abs(c["angle_gap"]) < 1e-8
    assert c["margin_lower"] <= c["margin_upper"] and c["max_violation"] < 1e-9
    assert res.margin == pytest.approx(ref.margin, rel=1e-9) and res.value == pytest.approx(ref.value, rel=1e-8)
    S = mk.SoftMarginSVM(X, y, C=2.0, bias=bias)
    r = S.reference()
    res = certify(S, (r.w, r.b))
    assert res.status == "optimal" and 0.0 <= res.certificate["relative_gap"] < 1e-8


def test_a_result_is_an_answer_and_a_method_certified_optimal_stays_optimal(separable):
    P = mk.MaxMargin(*separable)
    run = P.solve("dual-accelerated", tol=1e-4, max_iter=20000)
    assert run.status == "optimal"
    res = certify(P, run, tol=1e-4)
    assert res.status == "optimal" and res.certificate["relative_gap"] <= run.certificate["relative_gap_bound"] + 1e-9


# ------------------------------------------------------------------------------------ perturbed optima, exact gaps
@pytest.mark.parametrize("bias", [False, True])
def test_perturbed_max_margin_gap_matches_an_independent_model(separable, shifted, bias):
    X, y = shifted if bias else separable
    P = mk.MaxMargin(X, y, bias=bias)
    ref = P.reference()
    gstar = exact_max_margin(X, y, bias)
    rng = np.random.default_rng(1)
    for eps in (1e-4, 3e-3):
        w = 5.0 * (ref.w + eps * np.linalg.norm(ref.w) * rng.standard_normal(P.d))   # any scale: margins are scale-free
        b = 5.0 * ref.b
        expected = (gstar - geometric_margin(X, y, w, b)) / gstar
        assert 1e-6 < expected < 1                           # a separator, not the best one
        res = certify(P, (w, b))
        got = res.certificate["relative_gap"]
        assert got >= expected - 1e-9                         # conservative
        assert got == pytest.approx(expected, abs=1e-7)        # and tight
        assert res.status == "optimal_inaccurate"
        assert certify(P, (w, b), tol=1.01 * got).status == "optimal"
        # rescaled onto the constraint set, as result_fields does
        assert np.min(y * (X @ res.w + res.b)) == pytest.approx(1.0)


@pytest.mark.parametrize("bias", [False, True])
def test_perturbed_svm_gap_matches_an_independent_model(separable, shifted, bias):
    X, y = shifted if bias else separable
    C = 3.0
    S = mk.SoftMarginSVM(X, y, C=C, bias=bias)
    ref = S.reference()
    pstar = exact_svm(X, y, C, bias)
    rng = np.random.default_rng(2)
    w, b = ref.w + 0.02 * rng.standard_normal(S.d), ref.b + (0.01 if bias else 0.0)
    expected = (svm_objective(X, y, C, w, b) - pstar) / pstar
    res = certify(S, (w, b))
    got = res.certificate["relative_gap"]
    assert got >= expected - 1e-9 and got == pytest.approx(expected, abs=1e-7)
    assert res.status == "optimal_inaccurate" and np.array_equal(res.w, w) and res.b == b   # taken as is
    assert res.value == pytest.approx(svm_objective(X, y, C, w, b))
    assert res.certificate["duality_gap"] == pytest.approx(res.certificate["primal"] - res.certificate["dual"])


def test_min_norm_feasibility_gaps_and_violation(separable):
    X, y = separable
    M = mk.MinNormFeasibility(X, y, p=2.0)
    ref = M.reference()
    assert certify(M, ref.w).status == "optimal"
    pstar = exact_max_margin(X, y, False) ** -2 / 2        # ½||w*||²
    up = certify(M, 1.01 * ref.w)                           # feasible, objective 1.0201 P*
    assert up.status == "optimal_inaccurate" and up.certificate["max_violation"] == 0.0
    assert up.certificate["relative_gap"] == pytest.approx(0.5 * (1.01 * np.linalg.norm(ref.w)) ** 2 / pstar - 1,
                                                           abs=1e-7)
    down = certify(M, 0.99 * ref.w, tol=0.015)             # infeasible, below the optimum: the shortfall counts
    assert down.status == "optimal_inaccurate"
    assert down.certificate["max_violation"] == pytest.approx(0.01, rel=1e-6)
    assert down.certificate["relative_gap"] == pytest.approx(1 - 0.99 ** 2, abs=1e-7)
    assert certify(M, 0.99 * ref.w, tol=0.05).status == "optimal"      # both within 5%
    # same objective as the optimum but infeasible: the gap is ~0, the violation alone keeps it from optimal
    turn = ref.w + 1e-3 * np.linalg.norm(ref.w) * np.random.default_rng(4).standard_normal(M.d)
    turn *= np.linalg.norm(ref.w) / np.linalg.norm(turn)
    res = certify(M, turn, tol=1e-6)
    viol = res.certificate["max_violation"]
    assert viol > 1e-4 and res.certificate["relative_gap"] < 1e-8
    assert res.status == "optimal_inaccurate" and certify(M, turn, tol=2 * viol).status == "optimal"


def test_the_relative_gap_is_the_same_at_every_scale_of_the_data(separable):
    X, y = separable
    w = np.linspace(-1, 1, X.shape[1]) + 3 * mk.MaxMargin(X, y).reference().w
    gaps = [certify(mk.MaxMargin(c * X, y), w).certificate["relative_gap"] for c in (1e-2, 1.0, 1e2)]
    assert gaps[0] == pytest.approx(gaps[1], rel=1e-6) and gaps[2] == pytest.approx(gaps[1], rel=1e-6)


def test_non_separable_data_give_infeasible_with_the_answer_margin(non_separable):
    P = mk.MaxMargin(*non_separable)
    res = certify(P, np.ones(P.d))
    assert res.status == "infeasible" and np.isfinite(res.margin) and res.margin <= 1e-12
    assert "message" in res.info


@pytest.mark.parametrize("w", [np.zeros(8), "flip"])
def test_a_non_separating_max_margin_answer_is_no_usable_point(separable, w):
    P = mk.MaxMargin(*separable)
    w = -P.reference().w if isinstance(w, str) else w
    res = certify(P, w)
    assert res.status == "solver_error" and "separate" in res.info["message"]
    assert res.certificate["relative_gap"] >= 1.0


# ---------------------------------------------------------------------------------------------- scikit-learn
def test_liblinear_on_breast_cancer_matches_an_independent_model(cancer):
    from sklearn.svm import LinearSVC
    X, y = cancer
    S = mk.SoftMarginSVM(X, y, C=1.0, bias=True)
    clf = LinearSVC(C=1.0, loss="hinge", dual=True, tol=1e-2, max_iter=10_000, random_state=0).fit(X, y)
    pstar = exact_svm(X, y, 1.0, True)
    expected = (svm_objective(X, y, 1.0, clf.coef_[0], clf.intercept_[0]) - pstar) / pstar
    res = certify(S, clf)
    assert expected > 1e-5                                   # liblinear stopped short (and penalises its intercept)
    assert res.status == "optimal_inaccurate"
    assert res.certificate["relative_gap"] == pytest.approx(expected, rel=1e-4, abs=1e-8)
    assert certify(S, clf, tol=1e-2).status == "optimal"
    assert np.array_equal(res.predict(X), clf.predict(X))


@pytest.fixture(scope="module")
def labelled(separable):
    X, y = separable
    return X, np.where(y > 0, "dog", "cat")          # 'cat' sorts first: -1


@pytest.mark.parametrize("kind", ["LinearSVC", "SGDClassifier", "LogisticRegression"])
def test_sklearn_linear_models_with_string_labels(labelled, kind):
    import sklearn.linear_model as lm
    import sklearn.svm as svm
    X, labels = labelled
    est = {"LinearSVC": lambda: svm.LinearSVC(C=1.0, random_state=0),
           "SGDClassifier": lambda: lm.SGDClassifier(random_state=0),
           "LogisticRegression": lambda: lm.LogisticRegression()}[kind]().fit(X, labels)
    S = mk.SoftMarginSVM(X, labels, C=1.0, bias=True)
    res = certify(S, est)
    assert list(S.classes_) == ["cat", "dog"] and list(est.classes_) == ["cat", "dog"]
    assert np.array_equal(res.w, est.coef_[0]) and res.b == est.intercept_[0]
    assert np.array_equal(res.predict(X), est.predict(X))
    assert res.certificate["relative_gap"] == certify(S, (est.coef_[0], est.intercept_[0])).certificate["relative_gap"]


class OtherLibrary:
    """Another library's binary classifier: positive scores mean ``classes_[1]``, in the order it chose."""

    def __init__(self, coef, intercept, classes):
        self.coef_, self.intercept_, self.classes_ = coef, intercept, classes

    def predict(self, X):
        return np.where(X @ self.coef_ + self.intercept_ > 0, self.classes_[1], self.classes_[0])


def test_class_order_maps_the_sign(labelled):
    X, labels = labelled
    S = mk.SoftMarginSVM(X, labels, C=1.0, bias=True)
    ref = S.reference()
    flipped = OtherLibrary(-ref.w, -ref.b, np.array(["dog", "cat"]))   # positive score = 'cat' = the problem's -1
    res = certify(S, flipped)
    assert np.allclose(res.w, ref.w) and res.b == pytest.approx(ref.b) and res.status == "optimal"
    assert np.array_equal(res.predict(X), flipped.predict(X))
    same = OtherLibrary(ref.w, ref.b, ["cat", "dog"])
    assert certify(S, same).status == "optimal"
    assert certify(S, OtherLibrary(ref.w, ref.b, None)).status == "optimal"        # no classes_: ±1 convention
    with pytest.raises(ProblemError, match="classes"):
        certify(S, OtherLibrary(ref.w, ref.b, ["cat", "bird"]))
    with pytest.raises(ProblemError, match="classes"):
        certify(mk.SoftMarginSVM(X, np.where(labels == "dog", 1, -1)), OtherLibrary(ref.w, ref.b, [0, 1]))


def test_margin_classifier_and_its_result(labelled):
    X, labels = labelled
    S = mk.SoftMarginSVM(X, labels, C=1.0, bias=True)
    clf = mk.MarginClassifier(problem="soft-margin", C=1.0).fit(X, labels)
    res = certify(S, clf)
    assert np.array_equal(res.predict(X), clf.predict(X))
    # result_ is in the ±1 convention of the problem it solved: taken as a plain (w, b)
    assert certify(S, clf.result_).certificate["relative_gap"] == res.certificate["relative_gap"]
    assert certify(S, S.reference()).status == "optimal"           # a Result with the problem's own classes_


def test_pipelines_only_of_passthrough_steps(labelled):
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import LinearSVC
    X, labels = labelled
    S = mk.SoftMarginSVM(X, labels, C=1.0, bias=True)
    pipe = Pipeline([("keep", "passthrough"), ("svc", LinearSVC(random_state=0))]).fit(X, labels)
    res = certify(S, pipe)
    assert np.array_equal(res.w, pipe[-1].coef_[0])
    scaled = Pipeline([("scale", StandardScaler()), ("svc", LinearSVC(random_state=0))]).fit(X, labels)
    with pytest.raises(ProblemError, match="passthrough"):
        certify(S, scaled)


# ------------------------------------------------------------------------------------------------ bad input
class NoCoef:
    def predict(self, X):
        return np.zeros(len(X))


def _bad_answers(d):
    from sklearn.linear_model import LogisticRegression
    from sklearn.svm import LinearSVC
    rng = np.random.default_rng(3)
    X3 = rng.standard_normal((30, d))
    multi = LogisticRegression().fit(X3, np.arange(30) % 3)
    return [
        (np.ones(d + 1), "length"), (np.ones((2, d)), "1-D"), (np.full(d, np.nan), "NaN"),
        (np.r_[np.inf, np.ones(d - 1)], "inf"), ("w", "string"), (None, "None"), (object(), "numeric"),
        ([1.0] * (d - 1) + ["x"], "numeric"),
        (LinearSVC(), "coef_"), (NoCoef(), "coef_"), (multi, "multiclass"),
        (OtherLibrary(np.ones((2, d)), 0.0, None), "multiclass"),
        (OtherLibrary(np.ones(d), 0.0, ["a", "b", "c"]), "3 classes"),
        ((np.ones(d), np.nan), "finite"), ((np.ones(d), "b"), "real number"), ((np.ones(d), [1.0, 2.0]), "real"),
        ((np.ones(d), 0.5), "bias=False"),
    ]


def test_every_bad_answer_raises_problem_error_naming_it(separable):
    X, y = separable
    P = mk.MaxMargin(X, y)
    for answer, words in _bad_answers(X.shape[1]):
        with pytest.raises(ProblemError, match=words):
            certify(P, answer)


@pytest.mark.parametrize("tol", [0, -1e-3, "abc", np.nan, np.inf, True, None])
def test_bad_tol(separable, tol):
    with pytest.raises(ProblemError, match="tol"):
        certify(mk.MaxMargin(*separable), np.ones(8), tol=tol)


def test_problems_not_covered(separable):
    X, y = separable
    for prob in (mk.MaxMargin(X, y, kernel="rbf"), mk.SoftMarginSVM(X, y, kernel="rbf"), mk.PerturbedSVMDual(X, y)):
        with pytest.raises(ProblemError, match="does not cover"):
            certify(prob, np.ones(8))
    with pytest.raises(ProblemError, match="problem"):
        certify("MaxMargin", np.ones(8))


def test_nothing_passed_in_is_modified(separable):
    from sklearn.svm import LinearSVC
    X, y = separable
    P = mk.MaxMargin(X, y)
    w = 3.0 * P.reference().w.copy() + 0.01
    before = w.copy()
    res = certify(P, w)
    assert np.array_equal(w, before) and w.flags.writeable and res.w is not w
    clf = LinearSVC(random_state=0).fit(X, y)
    coef = clf.coef_.copy()
    certify(P, (clf.coef_[0], 0.0))
    certify(mk.SoftMarginSVM(X, y), clf)
    assert np.array_equal(clf.coef_, coef)


# --------------------------------------------------------------------------------------------- command line
def test_cli_certifies_a_saved_weight_vector(tmp_path, capsys):
    w = np.array([0.5, 0.5])                     # toy-2d: w* = (1/2, 1/2)
    path = tmp_path / "w.npy"
    np.save(path, 7 * w)
    assert main(["certify", "toy-2d", "--weights", str(path)]) == 0
    out = capsys.readouterr().out
    assert "certified" in out and "'optimal'" in out and "relative_gap=" in out
    np.save(path, np.array([[0.5, 0.3]]))                  # scikit-learn's coef_ shape (1, d)
    assert main(["certify", "toy-2d", "--weights", str(path), "--tol", "1e-3"]) == 0
    assert "optimal_inaccurate" in capsys.readouterr().out


def test_cli_offset_on_an_instance_file(tmp_path, capsys, shifted):
    X, y = shifted
    inst = tmp_path / "svm.npz"
    np.savez(inst, X=X, y=y, problem="SoftMarginSVM", C=1.0, bias=True)
    ref = mk.SoftMarginSVM(X, y, C=1.0, bias=True).reference()
    np.save(tmp_path / "w.npy", ref.w)
    assert main(["certify", str(inst), "--weights", str(tmp_path / "w.npy"), "--offset", repr(ref.b)]) == 0
    assert "'optimal'" in capsys.readouterr().out


def _exit_code(argv):
    try:
        return main(argv)
    except SystemExit as exc:     # argparse's own errors
        return exc.code


def test_cli_bad_arguments_exit_2_with_one_line(tmp_path, capsys):
    good = tmp_path / "w.npy"
    np.save(good, np.array([0.5, 0.5]))
    np.save(tmp_path / "long.npy", np.ones(5))
    np.savez(tmp_path / "a.npz", w=np.ones(2))
    (tmp_path / "junk.npy").write_text("not an array")
    cases = [["certify", "toy-2d", "--weights", str(tmp_path / "missing.npy")],
             ["certify", "toy-2d", "--weights", str(tmp_path / "a.npz")],
             ["certify", "toy-2d", "--weights", str(tmp_path / "junk.npy")],
             ["certify", "toy-2d", "--weights", str(tmp_path / "long.npy")],
             ["certify", "toy-2d", "--weights", str(good), "--offset", "0.5"],     # toy-2d has no bias
             ["certify", "toy-2d", "--weights", str(good), "--offset", "nan"],
             ["certify", "toy-2d", "--weights", str(good), "--tol", "-1"],
             ["certify", "toy-2d", "--weights", str(good), "--tol", "abc"],
             ["certify", "no-such-problem", "--weights", str(good)],
             ["certify", "toy-2d"]]
    for argv in cases:
        assert _exit_code(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.strip() and err.strip().count("\n") == 0 and "Traceback" not in err, (argv, err)


def test_cli_bad_weights_in_a_subprocess_no_traceback(tmp_path):
    np.save(tmp_path / "long.npy", np.ones(5))
    proc = subprocess.run([sys.executable, "-m", "marginkit", "certify", "toy-2d", "--weights",
                           str(tmp_path / "long.npy")], capture_output=True, text=True)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().count("\n") == 0 and "length 2" in proc.stderr


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # scikit-learn's ConvergenceWarning on the short runs above
        yield
