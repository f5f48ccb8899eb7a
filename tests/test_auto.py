"""Issue 24, item 2: ``solve("auto")`` (and ``method=None``) picks the fast certified method by a written cost model
and says which and why; a coordinate run that ends on its budget is followed by the interior-point method."""
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_breast_cancer

import marginkit as mk
from marginkit.engine import choice
from marginkit.engine.choice import choose, costs


def _unit_sparse(n, d, density, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=density, format="csr", random_state=seed, data_rvs=rng.standard_normal)
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    X = sp.diags(1.0 / np.where(norms > 0, norms, 1.0)) @ X
    y = np.where(X @ rng.standard_normal(d) + 0.1 * rng.standard_normal(n) > 0, 1.0, -1.0)
    return sp.csr_matrix(X), y


def test_raw_features_go_to_the_interior_point_method():
    X, y = load_breast_cancer(return_X_y=True)      # raw: kappa = C max||x_i||^2 ~ 2.5e7
    P = mk.SoftMarginSVM(X, y, C=1.0)
    res = P.solve("auto")
    assert res.info["chosen"]["method"] == "ipm" and "kappa" in res.info["chosen"]["why"]
    assert res.status == "optimal"
    ref = P.reference()
    assert res.value == pytest.approx(ref.value, rel=1e-6)


def test_well_conditioned_sparse_data_go_to_coordinate_descent_and_fall_back_on_budget(monkeypatch):
    from marginkit.plans.svm_cd.svm_coordinate import DualCoordinateDescent
    X, y = _unit_sparse(30_000, 200, 0.01)
    P = mk.SoftMarginSVM(X, y, C=1.0, bias=False)
    c = costs(P)
    assert c["kappa"] == pytest.approx(1.0) and c["cd"] < c["ipm"]
    assert choose(P)[0] == "dual-cd"
    res = P.solve("auto", max_iter=1)                # the user's budget is dual-cd's: nothing is left for ipm
    assert res.method == "dual-cd" and res.iterations == 1 and res.status == "user_limit"
    monkeypatch.setattr(DualCoordinateDescent, "default_max_iter", 1)   # its own budget: one epoch cannot certify
    res = P.solve("auto")
    assert res.method == "ipm" and "fallback" in res.info["chosen"] and res.status == "optimal"
    assert [r["method"] for r in res.info["chosen"]["runs"]] == ["dual-cd", "ipm"]
    assert res.iterations == sum(r["iterations"] for r in res.info["chosen"]["runs"])


def test_well_conditioned_dense_gaussian_data_go_to_the_coordinate_method_outright():
    """Standard normal rows, d = 50 (kappa = C·max||x_i||² about 110): the coordinate method certifies 1e-4 faster than
    ipm at 20,000 to 100,000 rows (measured 0.36-0.62 s against 0.56-0.80 s at 100,000 x 50, one BLAS thread), so the
    model picks it with and without the offset, no probe; the model of the session before (30 + 10·kappa epochs at 5e8
    nonzeros a second) picked ipm there. Raw gamma-scaled columns (kappa in the tens of thousands) still go to ipm."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((20_000, 50))
    y = np.where(rng.random(20_000) < 0.5, 1.0, -1.0)
    for bias, first in ((False, "dual-cd"), (True, "dual-cd-bias")):
        P = mk.SoftMarginSVM(X, y, C=1.0, bias=bias)
        c = costs(P)
        assert 80 < c["kappa"] < 150 and c["cd"] < choice.IPM_MARGIN * c["ipm"]
        method, _, probe, _ = choice._decide(P)
        assert method == first and probe is None
    Xr = X[:5_000, :20] * rng.gamma(0.5, 10.0, size=20)
    assert choose(mk.SoftMarginSVM(Xr, y[:5_000], C=1.0, bias=False))[0] == "ipm"


def test_wide_data_and_kernels_keep_the_first_listed_method():
    X, y = _unit_sparse(200, 4000, 0.002)
    assert choose(mk.SoftMarginSVM(X, y, bias=False))[0] == "dual-cd"   # ipm declines above 3000 columns
    Xd = np.random.default_rng(1).standard_normal((50, 3))
    yd = np.where(Xd[:, 0] > 0, 1.0, -1.0)
    method, why = choose(mk.SoftMarginSVM(Xd, yd, kernel="rbf"))
    assert method != "ipm" and method in mk.methods(mk.SoftMarginSVM(Xd, yd, kernel="rbf"))


def test_hard_margin_with_an_offset_is_certified_by_ipm():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((80, 4))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    X[:, 0] += 0.5 * y + 3.0                          # separable only with an offset
    res = mk.MaxMargin(X, y, bias=True).solve("auto")
    assert res.info["chosen"]["method"] == "ipm" and res.status == "optimal"
    assert res.margin == pytest.approx(mk.MaxMargin(X, y, bias=True).reference().margin, rel=1e-3)


def test_dense_and_sparse_copies_get_the_same_method():
    X, y = _unit_sparse(3000, 50, 0.05, seed=3)
    assert choose(mk.SoftMarginSVM(X, y))[0] == choose(mk.SoftMarginSVM(X.toarray(), y))[0]


# ---- the probe: solve("auto") runs the coordinate method first where the model picks ipm for a soft margin ----
def _raw(n, d, flip, seed=3):
    """Gaussian features times gamma(0.5, 10) column scales (raw, badly conditioned), labels of a hyperplane."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * rng.gamma(0.5, 10.0, size=d)
    y = np.where(X @ rng.standard_normal(d) >= 0, 1.0, -1.0)
    y[rng.random(n) < flip] *= -1.0
    return X, y


def test_the_probe_keeps_coordinate_descent_where_the_model_was_too_pessimistic():
    X, y = _raw(20_000, 5, 0.0)                      # separable: shrinking makes the epochs cheap whatever kappa
    P = mk.SoftMarginSVM(X, y, C=1.0, bias=False)
    c = costs(P)
    assert choose(P)[0] == "ipm" and c["cd"] > 2 * c["ipm"] and c["kappa"] > 100
    res = P.solve("auto")
    probe = res.info["chosen"]["probe"]
    assert res.method == "dual-cd" and res.info["chosen"]["method"] == "dual-cd" and res.status == "optimal"
    assert probe["outcome"] == "optimal: kept" and 0 < probe["work"] < probe["budget"] == pytest.approx(c["ipm"])
    ref = P.solve("ipm", tol=1e-10)
    assert res.certificate["dual"] <= ref.certificate["primal"] and ref.certificate["dual"] <= res.certificate["primal"]
    assert res.certificate["primal"] == pytest.approx(ref.certificate["primal"], rel=2e-6)


def test_the_probe_hands_over_to_ipm_where_the_epochs_crawl_and_is_deterministic():
    X, y = _raw(6_000, 40, 0.05)
    for bias in (False, True):
        P = mk.SoftMarginSVM(X, y, C=1.0, bias=bias)
        res = P.solve("auto", seed=4)
        probe = res.info["chosen"]["probe"]
        assert res.method == "ipm" and res.status == "optimal" and "rate" in probe["outcome"]
        assert probe["method"] == ("dual-cd-bias" if bias else "dual-cd")
        assert choice.PROBE_FROM * probe["budget"] <= probe["work"] <= probe["budget"]
        again = P.solve("auto", seed=4)             # the probe counts modelled work, not seconds
        assert again.info["chosen"]["probe"] == probe and np.array_equal(again.w, res.w)
        assert res.value == pytest.approx(P.solve("ipm", tol=1e-10).value, rel=1e-6)


def test_no_probe_with_a_callback_or_without_the_polish_or_on_tiny_problems():
    X, y = _raw(6_000, 40, 0.05)
    P = mk.SoftMarginSVM(X, y, C=1.0, bias=False)
    seen = []
    res = P.solve("auto", callback=lambda st: seen.append(1) and False)
    assert res.method == "ipm" and "probe" not in res.info["chosen"] and seen
    X, y = load_breast_cancer(return_X_y=True)      # T_ipm under PROBE_MIN: straight to ipm
    P = mk.SoftMarginSVM(X, np.where(y == 1, 1.0, -1.0), C=1.0)
    assert choice.costs(P)["ipm"] < choice.PROBE_MIN
    assert "probe" not in P.solve("auto").info["chosen"]


def test_digits_probes_and_keeps_the_coordinate_method():
    """scikit-learn's digits (1,797 x 64, kappa in the thousands): the model picks ipm, whose estimate (about 16 ms) is
    above PROBE_MIN, so the coordinate method probes first; it certifies 1e-4 within the budget (2.5-5 ms against
    ipm's 7-15 ms, one BLAS thread) and is kept, at the optimum ipm finds."""
    from sklearn.datasets import load_digits
    X, y = load_digits(return_X_y=True)
    X, y = X.astype(float), np.where(y == 0, 1.0, -1.0)
    for bias, first in ((False, "dual-cd"), (True, "dual-cd-bias")):
        P = mk.SoftMarginSVM(X, y, C=1.0, bias=bias)
        c = choice.costs(P)
        assert c["ipm"] >= choice.PROBE_MIN and choice.IPM_MARGIN * c["ipm"] < c["cd"]
        res = P.solve("auto", tol=1e-4, seed=0)
        assert res.info["chosen"]["probe"]["method"] == first and res.method == first and res.status == "optimal"
        assert res.value == pytest.approx(P.solve("ipm", tol=1e-10).value, rel=1e-4)


def test_small_problems_probe_where_most_rows_are_well_conditioned():
    """z-scored breast cancer: one outlying row makes kappa 422 (ipm by the model, T_ipm under PROBE_MIN), but 90 % of
    the rows have C||x_i||² <= 57: the coordinate method probes first and certifies, with and without the offset.
    Raw, every row is large (90th percentile 4e6): straight to ipm."""
    X, y = load_breast_cancer(return_X_y=True)
    y = np.where(y == 1, 1.0, -1.0)
    Z = (X - X.mean(0)) / X.std(0)
    for bias, first in ((False, "dual-cd"), (True, "dual-cd-bias")):
        P = mk.SoftMarginSVM(Z, y, C=1.0, bias=bias)
        c = choice.costs(P)
        assert c["ipm"] < choice.PROBE_MIN and c["kappa"] > 400
        assert choice.typical_kappa(P) <= choice.PROBE_KAPPA
        res = P.solve("auto", tol=1e-6)
        assert res.info["chosen"]["probe"]["method"] == first and res.status == "optimal"
        assert res.method == first
        assert res.value == pytest.approx(P.solve("ipm", tol=1e-10).value, rel=1e-5)
    P = mk.SoftMarginSVM(X, y, C=1.0)
    assert choice.typical_kappa(P) > 1e6 and "probe" not in P.solve("auto").info["chosen"]
    # the quantile is taken of C_i||x_i||²: it scales with C
    assert choice.typical_kappa(mk.SoftMarginSVM(Z, y, C=1e-3)) == pytest.approx(
        1e-3 * np.quantile(np.einsum("ij,ij->i", Z, Z), choice.TYPICAL))


class _State:
    def __init__(self, work, primal, dual, checked, tol=1e-6):
        self.total_work, self.primal, self.dual, self.checked, self.tol = work, primal, dual, checked, tol


def _probe(t_ipm):
    """A probe reading the gaps as the coordinate plans do (their relative_gap needs no plan state)."""
    from marginkit.plans.svm_cd.gap import DualityGapPlan
    return choice.Probe(t_ipm, lambda st: DualityGapPlan.relative_gap(None, st))


def test_probe_rule_on_given_gaps():
    p = _probe(1.0)
    assert p(_State(0.05, np.nan, np.nan, -1)) is False            # before PROBE_FROM: never
    assert p(_State(0.08, 2.0, 1.0, 3)) is False
    # from PROBE_FROM on: the rate of the last two checks (gap 1 -> 1e-3 over 0.04 of work) reaches 1e-6 by 0.16
    assert p(_State(0.12, 1.001, 1.0, 5)) is False and not p.stopped
    q = _probe(1.0)
    q(_State(0.05, 2.0, 1.0, 1))
    assert q(_State(0.2, 1.5, 1.0, 2)) is True and q.stopped       # 1 -> 0.5 over 0.15: 3 more units to 1e-6
    r = _probe(1.0)
    assert r(_State(0.2, 1.5, 1.0, 2)) is True                      # one check only: no rate, stop
    s = _probe(1.0)
    s(_State(0.05, 2.0, 1.0, 1))
    s(_State(0.9, 1.0 + 1e-5, 1.0, 2))
    assert s(_State(1.0, 1.0 + 1e-5, 1.0, 2)) is True               # at T_ipm in any case
    t = _probe(1.0)
    t(_State(0.05, 2.0, 1.0, 1))
    assert t(_State(0.5, 1.0 + 1e-7, 1.0, 2)) is False              # certified: the run stops by itself


def test_a_gap_that_rises_above_its_best_does_not_stop_the_probe_while_the_best_gap_falls_fast():
    # the gaps 1 -> 1e-3 (best), then up to 1e-2: the last two checks have no rate, the best gap's does
    u = _probe(1.0)
    u(_State(0.08, 2.0, 1.0, 1))
    u(_State(0.12, 1.001, 1.0, 2))
    assert u(_State(0.14, 1.01, 1.0, 3)) is False and not u.stopped and len(u.best) == 2 and len(u.checks) == 3
    # extrapolated from the last check on (0.14 + 0.04): the same rise late in the budget stops it
    v = _probe(1.0)
    v(_State(0.08, 2.0, 1.0, 1))
    v(_State(0.12, 1.001, 1.0, 2))
    assert v(_State(0.97, 1.01, 1.0, 3)) is True
    # a slow best gap (1 -> 0.5) and a rise: no rate reaches 1e-6 within T_ipm
    w = _probe(1.0)
    w(_State(0.05, 2.0, 1.0, 1))
    w(_State(0.2, 1.5, 1.0, 2))
    assert w(_State(0.25, 1.7, 1.0, 3)) is True


def test_auto_keeps_dual_cd_bias_whose_gap_rises_and_falls_back(monkeypatch):
    # raw 100,000 x 10 (column scales 10^U(-0.5, 0.5)) with 20 % flipped labels and an offset, the held-out
    # instance of benchmarks/rows_race.py and benchmarks/auto_choice.py's worst case before the best-gap rate:
    # dual-cd-bias certifies before T_ipm although its gap rises at some checks. The calibrated model picks
    # dual-cd-bias outright; with the previous model's pessimism (which picked ipm) the probe runs and keeps it.
    rng = np.random.default_rng(12)
    X = rng.standard_normal((100_000, 10)) * 10.0 ** rng.uniform(-0.5, 0.5, size=10)
    y = np.where(X @ rng.standard_normal(10) >= 0, 1.0, -1.0)
    y[rng.random(100_000) < 0.2] *= -1.0
    P = mk.SoftMarginSVM(X, y, C=1.0)
    assert choose(P)[0] == "dual-cd-bias"
    monkeypatch.setattr(choice, "CD_KAPPA2", 1.0)
    assert choose(P)[0] == "ipm"
    res = P.solve("auto", seed=0, tol=1e-4)
    assert res.method == "dual-cd-bias" and res.info["chosen"]["probe"]["outcome"] == "optimal: kept"
    assert res.value == pytest.approx(P.solve("ipm", tol=1e-10).value, rel=1e-4)


def test_the_probe_waits_for_the_plans_polish_where_it_fits_in_the_budget():
    from marginkit.plans.svm_cd.gap import DualityGapPlan
    gap_of = lambda st: DualityGapPlan.relative_gap(None, st)   # noqa: E731
    slow = [_State(0.05, 2.0, 1.0, 1), _State(0.2, 1.5, 1.0, 2)]  # a rate that stops a probe without a polish
    for eta, stops in ((0.5, False), (0.9, True)):               # the polish done by 0.7, or only by 1.1 > T_ipm
        p = choice.Probe(1.0, gap_of, lambda st, e=eta: e)
        p(slow[0])
        assert p(slow[1]) is stops
    p = choice.Probe(1.0, gap_of, lambda st: 0.1)
    p(slow[0])
    assert p(_State(1.0, 1.5, 1.0, 3)) is True                  # at T_ipm in any case
    # raw gamma-scaled 5,000 x 20 with an offset: the epochs' gap stalls near 0.1 until the polish solves the problem
    rng = np.random.default_rng(5)
    rng.standard_normal((50_000, 5)), rng.gamma(0.5, 10.0, size=5), rng.standard_normal(5), rng.random(50_000)
    X = rng.standard_normal((5_000, 20)) * rng.gamma(0.5, 10.0, size=20)
    y = np.where(X @ rng.standard_normal(20) >= 0, 1.0, -1.0)
    P = mk.SoftMarginSVM(X, y, C=1.0)
    assert choose(P)[0] == "ipm"
    res = P.solve("auto", seed=0, tol=1e-4)
    assert res.method == "dual-cd-bias" and res.info["chosen"]["probe"]["outcome"] == "optimal: kept"
    assert res.info["polished"] >= 1
    assert res.value == pytest.approx(P.solve("ipm", tol=1e-10).value, rel=1e-4)


def test_the_estimator_probes_too_without_a_warm_start():
    X, y = _raw(20_000, 5, 0.0)
    clf = mk.MarginClassifier(bias=False).fit(X, y)
    assert clf.result_.method == "dual-cd" and clf.result_.info["chosen"]["probe"]["outcome"] == "optimal: kept"
    X, y = _raw(6_000, 40, 0.05)
    clf = mk.MarginClassifier().fit(X, y)
    assert clf.result_.method == "ipm" and "probe" in clf.result_.info["chosen"]
    assert clf.score(X, y) == pytest.approx(mk.MarginClassifier(method="ipm").fit(X, y).score(X, y))


def test_the_auto_choice_script_runs_quick(tmp_path):
    from benchmarks import auto_choice
    out = tmp_path / "auto.json"
    records = auto_choice.main(["--quick", "--output", str(out)])
    assert records and out.exists()
    for rec in records:
        assert all(rec[m]["status"] == "optimal" for m in ("auto", "dual-cd", "ipm"))
        assert rec["chosen"] in ("dual-cd", "dual-cd-bias", "ipm") and np.isfinite(rec["ratio"])


def test_the_users_time_limit_covers_the_probe_and_ipm():
    X, y = _raw(6_000, 40, 0.05)
    P = mk.SoftMarginSVM(X, y, C=1.0, bias=False)
    res = P.solve("auto", time_limit=1e-4)           # spent within the probe: its result, honestly labelled
    assert res.method == "dual-cd" and res.status == "user_limit"
    assert res.info["chosen"]["probe"]["outcome"] in ("user_limit: kept", "the time limit is spent: kept")
    res = P.solve("auto", time_limit=60.0)           # ample: the probe hands over and ipm certifies
    assert res.method == "ipm" and res.status == "optimal"


def test_compare_says_what_auto_picks_and_why(tmp_path):
    X, y = load_breast_cancer(return_X_y=True)
    P = mk.SoftMarginSVM(X[:150], np.where(y[:150] == 1, 1.0, -1.0), C=1.0)
    rep = mk.cross_validate(P, methods=["ipm"])
    last = rep.table().splitlines()[-1]
    assert last == f'solve("auto") picks {choose(P)[1]}' and "kappa" in last
    rep.save(tmp_path / "rep.npz")
    assert mk.Report.load(tmp_path / "rep.npz").table().splitlines()[-1] == last
    X, y = _raw(6_000, 40, 0.05)                     # where a probe runs, the line says so
    assert "after a probe of dual-cd" in choice.describe_choice(mk.SoftMarginSVM(X, y, C=1.0, bias=False))
