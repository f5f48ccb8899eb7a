"""Long runs: checkpoint and resume (issue 25 item 7). ``checkpoint=PATH`` saves the run as it goes (atomically, at
most every ``checkpoint_every`` seconds, at the end and on an interruption); ``resume=PATH`` continues it with the
same iteration count, trace, schedules and random stream: bit for bit the uninterrupted run. A checkpoint of another
problem, method or configuration, a damaged one or a missing one is a ProblemError naming ``resume``, and nothing is
overwritten. (The contract's ``resume`` obligation, run over every card in tests/test_contract.py, interrupts once
with ``trace=1``; here every card is interrupted twice under the default geometric trace.)"""
import json
import os
import re
import signal
import threading

import numpy as np
import pytest
from test_contract import CARDS, IDS, make_instance

import marginkit as mk
from marginkit.engine import checkpoint as ckpt
from marginkit.plans.jst.dual_acceleration import MarginState, NormalizedGD
from marginkit.testing import OBLIGATIONS, PlanContractError, check_obligation

BUDGET = dict(seed=3, max_iter=40, tol=0.0)


def _bits(a):
    a = mk.core.result.host_copy(a) if a is not None else None
    return None if a is None else (a.shape, a.dtype.str, a.tobytes())


def assert_same_run(res, whole):
    """Iterations, status, the final iterate (w, b, dual coefficients) and the trace's iterations, bit for bit; the
    trace's metrics to rounding (a dot product's last bit may depend on where NumPy put the arrays in memory, in an
    uninterrupted run too)."""
    assert (res.iterations, res.status) == (whole.iterations, whole.status)
    for name in ("w", "b", "dual_coef"):
        assert _bits(np.asarray(getattr(res, name, None)) if name == "b" else getattr(res, name, None)) == \
            _bits(np.asarray(getattr(whole, name, None)) if name == "b" else getattr(whole, name, None)), name
    assert list(res.trace.keys()) == list(whole.trace.keys())
    assert _bits(res.trace["iteration"]) == _bits(whole.trace["iteration"])
    for col in sorted(set(whole.trace.keys()) - {"time", "iteration"}):
        np.testing.assert_allclose(res.trace[col], whole.trace[col], rtol=1e-12, atol=1e-300, err_msg=col)


class Interrupt:
    """A callback that raises KeyboardInterrupt when asked about iteration ``at`` of the run it is given to."""

    def __init__(self, at):
        self.at, self.calls = at, 0

    def __call__(self, state):
        if self.calls == self.at:
            raise KeyboardInterrupt
        self.calls += 1


def interrupted(problem, method, path, at, **options):
    with pytest.raises(KeyboardInterrupt):
        problem.solve(method, checkpoint=path, callback=Interrupt(at), **options)


@pytest.fixture(scope="module")
def problems():
    cache = {}

    def get(card):
        key = (card.form, card.requires)
        if key not in cache:
            cache[key] = make_instance(card)[0]
        return cache[key]
    return get


def no_temporary_files(folder):
    return [f for f in os.listdir(folder) if f.endswith(".tmp")] == []


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_a_run_interrupted_twice_and_resumed_is_the_uninterrupted_run_bit_for_bit(card, problems, tmp_path):
    problem, path = problems(card), tmp_path / "run.ckpt"
    whole = problem.solve(card.name, **BUDGET)
    first, second = whole.iterations // 3, 2 * whole.iterations // 3   # a run of 1 or 2 iterations: at 0, once
    interrupted(problem, card.name, path, first, **BUDGET)
    if second > first:
        interrupted(problem, card.name, path, second - first, resume=path)   # the callback counts from the resume
    assert ckpt.load(path, problem.compile(card.name))["t"] == second
    res = problem.solve(card.name, resume=path)
    assert_same_run(res, whole)
    assert res.info["resumed_at"] == second and no_temporary_files(tmp_path)


def _kernel_problem():
    rng = np.random.default_rng(4)
    X = rng.standard_normal((30, 3))
    problem = mk.MaxMargin(X, np.where(X[:, 0] + 0.2 > 0, 1.0, -1.0), kernel="rbf", gamma=0.5)
    problem.gram()   # the row-wise plans read the Gram matrix once it is cached, whose rounding differs from a row's
    return problem


@pytest.mark.parametrize("method", [m for m in mk.methods(_kernel_problem()) if m != "cvxpy"])
def test_the_kernel_variants_resume_bit_for_bit(method, tmp_path):
    problem, path = _kernel_problem(), tmp_path / "kernel.ckpt"
    whole = problem.solve(method, **BUDGET)
    interrupted(problem, method, path, 13, **BUDGET)
    assert_same_run(problem.solve(method, resume=path), whole)


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 5))
    y = np.sign(X[:, 0])
    X[:, 0] += 0.3 * y
    return mk.MaxMargin(X, y)


def test_a_checkpoint_written_at_the_end_returns_that_result_and_a_larger_max_iter_continues_it(problem, tmp_path):
    path, method = tmp_path / "end.ckpt", "dual-accelerated-stochastic"   # a random stream to continue
    short = problem.solve(method, checkpoint=path, seed=5, max_iter=20, tol=0.0)
    header = json.loads(path.read_bytes().split(b"\n")[1])
    assert header["status"] == "user_limit" and header["iteration"] == 20 and header["method"] == method
    assert_same_run(problem.solve(method, resume=path), short)
    assert_same_run(problem.compile(method).run(resume=path), short)   # a compiled plan resumes as solve does
    assert_same_run(problem.solve(method, resume=path, max_iter=50), problem.solve(method, seed=5, max_iter=50,
                                                                                     tol=0.0))
    done = problem.solve("dual-accelerated", checkpoint=path, tol=1e-3, max_iter=10**4)
    assert done.status == "optimal"
    again = problem.solve("dual-accelerated", resume=path, max_iter=10**5, tol=1e-9)   # a proven end stays as it was
    assert_same_run(again, done)


def test_the_reported_time_counts_the_time_before_the_interruption(problem, tmp_path):
    path = tmp_path / "time.ckpt"
    interrupted(problem, "gd", path, 30, max_iter=60, tol=0.0)
    spent = ckpt.load(path, problem.compile("gd"))["elapsed"]
    res = problem.solve("gd", resume=path)
    assert res.time >= spent and res.trace["time"][-1] >= spent
    assert np.all(np.diff(res.trace["time"]) >= 0)


# refused: another problem, method or configuration; a damaged or missing file; conflicting options -----------------
@pytest.fixture
def saved(problem, tmp_path):
    path = tmp_path / "saved.ckpt"
    interrupted(problem, "dual-accelerated", path, 5, seed=0, max_iter=30)
    return path


@pytest.mark.parametrize("other, why", [
    (lambda p: (p, "gd", {}), "is a checkpoint of method 'dual-accelerated', not 'gd'"),
    (lambda p: (mk.MaxMargin(p.X * 2.0, p.y), "dual-accelerated", {}), "written for another problem"),
    (lambda p: (mk.MaxMargin(p.X[:-1], p.y[:-1]), "dual-accelerated", {}), r"X \(39, 5\)"),
    (lambda p: (p, "dual-accelerated", {"theta": 0.5}),
     r"written with other options of 'dual-accelerated': theta=1.0 \(now 0.5\)"),
], ids=["method", "data", "shape", "config"])
def test_a_checkpoint_of_another_run_is_a_problem_error_and_nothing_is_overwritten(problem, saved, other, why):
    target, method, config = other(problem)
    before = saved.read_bytes()
    with pytest.raises(mk.ProblemError, match="resume") as err:
        target.solve(method, resume=saved, checkpoint=saved, **config)   # both at one path: no clobbering
    assert re.search(why, str(err.value)), str(err.value)
    assert saved.read_bytes() == before and no_temporary_files(saved.parent)


def _truncate(data):
    return data[:-7]


def _flip(data):
    i = len(data) - 40   # a bit in the payload
    return data[:i] + bytes([data[i] ^ 0x10]) + data[i + 1:]


@pytest.mark.parametrize("damage, why", [
    (_truncate, "truncated"),
    (_flip, "SHA-256"),
    (lambda data: b"PK\x03\x04 not a checkpoint", "not a marginkit checkpoint"),
    (lambda data: ckpt.MAGIC + b"{not json\n" + data[200:], "header cannot be read"),
], ids=["truncated", "bit-flipped", "not-a-checkpoint", "bad-header"])
def test_a_damaged_checkpoint_is_a_problem_error_naming_resume_and_the_file_is_untouched(problem, saved, damage, why):
    saved.write_bytes(damage(saved.read_bytes()))
    before, mtime = saved.read_bytes(), saved.stat().st_mtime_ns
    with pytest.raises(mk.ProblemError, match=f"resume.*{why}"):
        problem.solve("dual-accelerated", resume=saved, checkpoint=saved)
    assert saved.read_bytes() == before and saved.stat().st_mtime_ns == mtime and no_temporary_files(saved.parent)


def test_a_missing_checkpoint_and_a_checkpoint_in_a_missing_folder_are_refused_at_compile(problem, tmp_path):
    with pytest.raises(mk.ProblemError, match="resume must be an existing checkpoint file"):
        problem.compile("gd", resume=tmp_path / "nowhere.ckpt")
    with pytest.raises(mk.ProblemError, match="checkpoint must be a file path in an existing folder"):
        problem.compile("gd", checkpoint=tmp_path / "no" / "folder.ckpt")
    with pytest.raises(mk.ProblemError, match="checkpoint must be a file path"):
        problem.compile("gd", checkpoint=tmp_path)
    with pytest.raises(mk.ProblemError, match="checkpoint_every"):
        problem.compile("gd", checkpoint_every=-1.0)
    with pytest.raises(mk.ProblemError, match="checkpoint must be"):
        problem.compile("gd", checkpoint=3)
    assert os.listdir(tmp_path) == []


def test_options_that_would_make_another_run_are_refused_with_resume(problem, saved):
    for options, name in (({"trace": 1}, "trace"), ({"seed": 1}, "seed"), ({"keep_iterates": True}, "keep_iterates"),
                          ({"warm_start": np.ones(5)}, "warm_start")):
        with pytest.raises(mk.ProblemError, match=name):
            problem.solve("dual-accelerated", resume=saved, **options)
    assert problem.solve("dual-accelerated", resume=saved, seed=0).iterations == 30   # the same seed is fine


@pytest.mark.parametrize("name, value", [("checkpoint", "run.ckpt"), ("resume", "run.ckpt"), ("checkpoint_every", 1)])
def test_the_cvxpy_reference_refuses_the_first_order_options(problem, name, value):
    with pytest.raises(mk.ProblemError, match=name):
        problem.solve("cvxpy", **{name: value})


# how the file is written -------------------------------------------------------------------------------------------
def test_the_header_says_what_the_checkpoint_holds(problem, saved):
    magic, header = saved.read_bytes().split(b"\n")[:2]
    header = json.loads(header)
    assert magic + b"\n" == ckpt.MAGIC and header["version"] == ckpt.VERSION
    assert header["method"] == "dual-accelerated" and header["plan"].endswith(":DualAccelerated")
    assert header["problem"] == "MaxMargin with X (40, 5), y (40,)" and header["iteration"] == 5
    assert header["status"] is None and len(header["payload_sha256"]) == 64


def test_checkpoint_every_is_respected(problem, tmp_path, monkeypatch):
    """The clock is the callback's iteration count (no sleeping): with checkpoint_every=10 the run is saved at the
    rest points of iterations 10, 20, 30 and at its end; with 0 at every iteration."""
    now, saved_at = [0.0], []
    monkeypatch.setattr(ckpt, "_clock", lambda: now[0])
    write = ckpt._write_atomic

    def spy(path, parts):
        saved_at.append(json.loads(parts[1])["iteration"])
        write(path, parts)
    monkeypatch.setattr(ckpt, "_write_atomic", spy)

    def tick(state):
        now[0] += 1.0
    problem.solve("gd", checkpoint=tmp_path / "every.ckpt", checkpoint_every=10, callback=tick, max_iter=35, tol=0.0)
    assert saved_at == [10, 20, 30, 35]
    saved_at.clear()
    problem.solve("gd", checkpoint=tmp_path / "every.ckpt", checkpoint_every=0, max_iter=5, tol=0.0)
    assert saved_at == [0, 1, 2, 3, 4, 5, 5]   # every rest point, then the end (with its status)
    assert no_temporary_files(tmp_path)


@pytest.mark.parametrize("failure", [OSError("disk full"), KeyboardInterrupt()], ids=["oserror", "interrupt"])
def test_a_failed_write_leaves_the_previous_checkpoint_and_no_temporary_file(problem, saved, monkeypatch, failure):
    before = saved.read_bytes()

    def fail(fd):
        raise failure
    monkeypatch.setattr(ckpt.os, "fsync", fail)
    if isinstance(failure, OSError):
        with pytest.warns(RuntimeWarning, match="could not be written: disk full"):
            res = problem.solve("dual-accelerated", checkpoint=saved, max_iter=10)
        assert "disk full" in res.info["checkpoint_error"] and res.iterations == 10
    else:
        with pytest.raises(KeyboardInterrupt):
            problem.solve("dual-accelerated", checkpoint=saved, max_iter=10)
    assert saved.read_bytes() == before and no_temporary_files(saved.parent)


def test_a_state_that_cannot_be_saved_warns_and_the_run_goes_on(problem, tmp_path, monkeypatch):
    def unpicklable(point):
        raise TypeError("cannot pickle 'generator' object")
    monkeypatch.setattr(ckpt, "_dumps", unpicklable)
    with pytest.warns(RuntimeWarning, match="its state could not be saved .TypeError: cannot pickle"):
        res = problem.solve("gd", checkpoint=tmp_path / "never.ckpt", max_iter=10, seed=0)
    assert_same_run(res, problem.solve("gd", max_iter=10, seed=0))
    assert "could not be written" in res.info["checkpoint_error"] and os.listdir(tmp_path) == []


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread() or not hasattr(signal, "SIGINT")
                    or signal.getsignal(signal.SIGINT) is not signal.default_int_handler,
                    reason="Ctrl-C is deferred in the main thread, over Python's default handler")
def test_a_ctrl_c_is_deferred_to_the_end_of_the_iteration_saved_there_and_raised(problem, tmp_path):
    path, method = tmp_path / "sigint.ckpt", "dual-accelerated-stochastic"
    whole = problem.solve(method, **BUDGET)

    def ctrl_c(state, calls=[0]):   # noqa: B006 -- the call count of this one run
        calls[0] += 1
        if calls[0] == 12:   # asked about iteration 11: Ctrl-C arrives while the run goes on
            os.kill(os.getpid(), signal.SIGINT)
    with pytest.raises(KeyboardInterrupt):
        problem.solve(method, checkpoint=path, callback=ctrl_c, **BUDGET)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler   # the handler is given back
    assert ckpt.load(path, problem.compile(method))["t"] == 12   # saved at the next rest point
    assert_same_run(problem.solve(method, resume=path), whole)


# dask: CoCoA+ (the state's dual n-vector is a dask array) ---------------------------------------------------------
def _dask_problem(da):
    rng = np.random.default_rng(2)
    X = rng.standard_normal((160, 4))
    y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 1.0, -1.0)
    return mk.SoftMarginSVM(da.from_array(X, chunks=(40, 4)), da.from_array(y, chunks=40), C=1.0, bias=False)


def test_a_dask_cocoa_run_resumes_bit_for_bit(tmp_path):
    da = pytest.importorskip("dask.array")
    problem, path = _dask_problem(da), tmp_path / "cocoa.ckpt"
    whole = problem.solve("dual-cd", seed=1, max_iter=12, tol=0.0)
    interrupted(problem, "dual-cd", path, 5, seed=1, max_iter=12, tol=0.0)
    assert_same_run(problem.solve("dual-cd", resume=path), whole)


def test_a_dask_cocoa_run_on_a_local_cluster_resumes_bit_for_bit(tmp_path):
    """The state's blocks are futures on the workers: the checkpoint holds their values, not the futures."""
    distributed = pytest.importorskip("distributed")
    da = pytest.importorskip("dask.array")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                       dashboard_address="127.0.0.1:0")   # in this process, loopback only
    with cluster, distributed.Client(cluster):
        problem, path = _dask_problem(da), tmp_path / "cluster.ckpt"
        whole = problem.solve("dual-cd", seed=1, max_iter=6, tol=0.0)
        interrupted(problem, "dual-cd", path, 3, seed=1, max_iter=6, tol=0.0)
        res = problem.solve("dual-cd", resume=path)
    assert_same_run(res, whole)


@pytest.mark.parametrize("method", ["dual-accelerated-stochastic", "diagonal"])
def test_an_array_api_run_resumes_bit_for_bit(method, tmp_path):
    """The state's arrays belong to the problem's library (here array-api-strict); they pickle as themselves."""
    xp = pytest.importorskip("array_api_strict")
    rng = np.random.default_rng(6)
    X = rng.standard_normal((50, 4))
    problem, path = mk.MaxMargin(xp.asarray(X), xp.asarray(np.where(X[:, 1] > 0, 1.0, -1.0))), tmp_path / "xp.ckpt"
    whole = problem.solve(method, **BUDGET)
    interrupted(problem, method, path, 9, **BUDGET)
    res = problem.solve(method, resume=path)
    assert_same_run(res, whole)
    assert type(res.w) is type(whole.w)


# the contract's obligation teaches --------------------------------------------------------------------------------
class CountsOutsideItsState(NormalizedGD):
    """A plan that keeps a step counter on itself, not in its state: a resumed run starts the counter again."""

    name = "counts-outside"

    def setup(self):
        super().setup()
        self.steps_taken = [0]

    def step(self, state):
        self.steps_taken[0] += 1
        nxt = super().step(state)
        scale = 1.0 + 0.01 * (self.steps_taken[0] % 3)
        return MarginState(t=nxt.t, w=nxt.w * scale, s=nxt.s, dual_bound=nxt.dual_bound)


def test_the_resume_obligation_fails_a_plan_that_keeps_run_state_outside_its_state(problem):
    with pytest.raises(PlanContractError) as failure:
        check_obligation("resume", CountsOutsideItsState, problem)
    text = str(failure.value)
    assert failure.value.obligation == "resume" and "they differ in" in text and "in the state that init" in text
    assert OBLIGATIONS["resume"].why in text
