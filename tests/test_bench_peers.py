"""The peers of ``marginkit bench`` (benchmarks/solvers/peers.py): a peer that is not installed is skipped with its
reason, a peer that cannot solve the row's problem says why, and an installed peer is judged by the row's certified
yardstick, not by its own tolerance."""
import sys
from pathlib import Path

import numpy as np

import marginkit as mk

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the benchmark lives in the repository, not the package
from benchmarks.rows_peers import Gap, instance_tables, raw_counts, raw_dense  # noqa: E402
from benchmarks.measure import SHORT_REPEATS, repeats_for  # noqa: E402
from benchmarks.solvers import peers  # noqa: E402


def _instance(bias):
    X, y = raw_dense(200, 5, seed=1)
    problem = mk.SoftMarginSVM(X, y, C=1.0, bias=bias)
    lower = problem.solve("ipm", tol=1e-10).certificate["dual"]
    return X, y, Gap(problem, lower)


def test_a_peer_that_is_not_installed_is_skipped_with_its_reason():
    X, y, gap = _instance(False)
    ghost = peers.Peer("ghost", "no_such_module_marginkit_peer", "no-such-peer", (False, True))
    out = peers.run(ghost, X, y, 1.0, False, gap, 1e-4, cap=1.0)
    assert out.status == "skipped" and "pip install no-such-peer" in out.info["note"]
    assert not out.times


def test_a_peer_without_the_exact_bias_is_skipped_on_the_bias_rows():
    X, y, gap = _instance(True)
    lib = next(p for p in peers.PEERS if p.label.startswith("liblinear"))
    out = peers.run(lib, X, y, 1.0, True, gap, 1e-4, cap=1.0)
    assert out.status == "skipped" and "bias" in out.info["note"]


def test_libsvm_is_judged_by_the_certified_gap_and_agrees_with_certify():
    X, y, gap = _instance(True)
    svc = next(p for p in peers.PEERS if p.label.startswith("libsvm"))
    out = peers.run(svc, X, y, 1.0, True, gap, 1e-4, cap=30.0)
    assert out.status == "reached" and out.accuracy <= 1e-4 and len(out.times) == 1
    # the yardstick is the quantity marginkit.certify reports
    from sklearn.svm import SVC
    est = SVC(kernel="linear", C=1.0, tol=out.info["tol"]).fit(X, y)
    ref = mk.certify(mk.SoftMarginSVM(X, y, C=1.0, bias=True), est).certificate["relative_gap"]
    assert abs(ref - out.accuracy) <= 1e-6 * max(1.0, abs(ref))


def test_a_peer_that_reaches_the_gap_is_timed_repeats_times_and_keeps_its_status():
    X, y, gap = _instance(True)
    svc = next(p for p in peers.PEERS if p.label.startswith("libsvm"))
    out = peers.run(svc, X, y, 1.0, True, gap, 1e-4, cap=30.0, repeats=3)
    assert out.status == "reached" and not out.capped and len(out.times) == repeats_for(out.times[0], 3) >= 3
    assert out.time == float(np.median(out.times))
    assert repeats_for(0.001, 3) == SHORT_REPEATS and repeats_for(1.0, 3) == 3 and repeats_for(0.001, 1) == 1


def test_the_raw_instances_are_badly_scaled_and_the_tables_render():
    X, y = raw_dense(500, 20)
    scales = X.std(axis=0)
    assert scales.max() / scales.min() > 100 and set(np.unique(y)) == {-1.0, 1.0}
    Xs, ys = raw_counts(500, 50)
    assert Xs.format == "csr" and Xs.data.min() >= 1.0 and np.all(Xs.data == np.round(Xs.data))
    row = {"name": "peers-x", "problem": "p", "details": {"instances": {"a": {
        "times": {"marginkit:auto": 0.1, "p1": None, "p1 (stopped at s)": 2.0, "p2": None},
        "accuracy": {"marginkit:auto": 1e-5, "p1": 0.3}, "skipped": {"p2": "not installed"},
        "versions": {"p1": "1.0"}, "chosen": {"method": "ipm"}}}}}
    table = instance_tables([row])
    assert "| p1 1.0 | > 2 s (3.0e-01) |" in table and "p2: not installed" in table and "`ipm`" in table
