"""Faults on a cluster (issue 25, item 6), on ``distributed.LocalCluster`` objects this module starts and stops on
127.0.0.1: a worker process killed in the middle of a CoCoA+ ``dual-cd`` run and of a ``dual-accelerated`` run (dask
recomputes the lost blocks: the same certified result as an undisturbed run), the scheduler shut down during a run
(``solver_error`` with the reason, within ``time_limit``), and a parquet shard that fails to load (a ``ProblemError``
naming the file before any iteration).

Robust on a loaded machine: the faults are caused at a chosen iteration by the run's ``callback`` (not by a timer),
every bound on wall time is generous, nothing is read from distributed's logs, and every cluster is closed in its
fixture's ``finally``."""
import contextlib
import logging
import os
import signal
import struct
import threading
import time

import numpy as np
import pytest

import marginkit as mk
from marginkit.api.datasets import open_shards, separable_synthetic

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

N, D, CHUNK = 20_000, 20, 2_500   # 8 row chunks
# no dashboard; the scheduler's HTTP routes on a free loopback port (not 8787, which another cluster may hold)
LOOPBACK = dict(dashboard_address=None, scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                silence_logs=logging.CRITICAL)


@contextlib.contextmanager
def quiet_distributed():
    """distributed's own loggers silenced while a cluster lives (a loaded machine makes them talk; nothing here reads
    them), restored afterwards."""
    logger = logging.getLogger("distributed")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(level)


@pytest.fixture(scope="module")
def killable():
    """Two worker processes (one thread each) under nannies: a worker killed with SIGKILL is restarted."""
    with quiet_distributed():
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                           **LOOPBACK)
        try:
            client = distributed.Client(cluster)
            try:
                client.run(_warm_up)   # each worker process loads the compiled local round once, before any clock
                yield client
            finally:
                client.close()
        finally:
            cluster.close()


@contextlib.contextmanager
def in_process_cluster(timeout):
    """A cluster in this process (the scheduler is shut down by the test), its client's reconnect window
    ``timeout`` seconds (``Client(timeout=)``: what a computation given during a lost connection waits for)."""
    _warm_up()   # the workers are threads of this process: the compiled local round is loaded here
    with quiet_distributed():
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp",
                                           host="127.0.0.1", **LOOPBACK)
        try:
            client = distributed.Client(cluster, timeout=timeout)
            try:
                yield client, cluster
            finally:
                client.close()
        finally:
            # closing asks the lost scheduler to close the workers: its connection attempts would last the default
            # connect timeout (30 s)
            with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
                cluster.close()


def _warm_up():
    """Load CoCoA+'s compiled local round (numba's cache, or a compile on a cold one): on a loaded machine the first
    round would otherwise spend most of a test's time limit on it."""
    from marginkit.plans.common.coordinate_round import compiled_round
    compiled_round()


def soft_margin_data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((N, D))
    y = np.where(X @ rng.standard_normal(D) + 0.5 * rng.standard_normal(N) > 0, 1.0, -1.0)
    return X, y


PROBLEMS = {   # method: (problem on dask X, solve options); each run certifies its tol in 12 iterations
    "dual-cd": (lambda Xd, y: mk.SoftMarginSVM(Xd, y, C=1e-3, bias=False), dict(tol=1e-3, seed=0)),
    "dual-accelerated": (lambda Xd, y: mk.MaxMargin(Xd, y, bias=False), dict(tol=7e-2)),
}


def problem_on(method):
    X, y = soft_margin_data() if method == "dual-cd" else separable_synthetic(n=N, d=D, margin=0.2, seed=0)
    Xd = da.from_array(X, chunks=(CHUNK, -1)).persist()   # the blocks live on the workers
    distributed.wait(Xd)
    make, options = PROBLEMS[method]
    return make(Xd, y), options


# a worker killed mid-run ------------------------------------------------------------------------------------------
def test_a_worker_killed_mid_run_changes_nothing_certified(killable):
    """SIGKILL one of the two worker processes at iteration 3 of a CoCoA+ ``dual-cd`` run, then of a
    ``dual-accelerated`` run (its blocks of X, of the labels and of the iterate's n-vectors are lost): dask recomputes
    them from their lineage on the other worker while the nanny restarts the killed one, and each run ends as the
    undisturbed run with the same seed does: the same status, iterations and certificate, the same iterate up to
    rounding, not bit for bit (measured: CoCoA+ differs by 1e-16 even between two undisturbed runs on a cluster,
    ``dual-accelerated`` by 4e-16 after a recomputation only). One test for both methods: one cluster of processes."""
    client = killable
    for method in ("dual-cd", "dual-accelerated"):
        client.wait_for_workers(2, timeout=120)   # the worker killed for the first method may still be restarting
        problem, options = problem_on(method)
        time_limit = 120.0
        quiet = problem.solve(method, max_iter=300, time_limit=time_limit, **options)
        assert quiet.status == "optimal", method

        victim = sorted(client.run(os.getpid).items())[0][1]
        killed = []

        def kill_one_worker(state):
            if state.t == 3:
                os.kill(victim, signal.SIGKILL)
                killed.append(state.t)

        start = time.perf_counter()
        hit = problem.solve(method, max_iter=300, time_limit=time_limit, callback=kill_one_worker, **options)
        wall = time.perf_counter() - start
        assert killed == [3] and hit.iterations > 3, method   # the worker died in the middle of the run
        assert wall <= time_limit + 30.0
        assert hit.status == quiet.status == "optimal", (method, hit.info.get("message"))
        assert hit.iterations == quiet.iterations, method
        assert hit.certificate["relative_gap"] <= options["tol"]
        assert hit.certificate["relative_gap"] == pytest.approx(quiet.certificate["relative_gap"], rel=1e-9)
        np.testing.assert_allclose(hit.w, quiet.w, rtol=1e-9, atol=1e-12, err_msg=method)
        assert hit.value == pytest.approx(quiet.value, rel=1e-9)


def test_cocoa_keeps_two_copies_of_its_dual_weights(killable):
    """Every round's dual weights are replicated on both workers, so losing one costs one round, not a recomputation of
    every round so far inside one round (which no time limit can see coming: +8.9 s at round 40, measured)."""
    client = killable
    client.wait_for_workers(2, timeout=120)
    problem, options = problem_on("dual-cd")
    holders = []

    def count(state):
        if state.t == 2:
            futures = distributed.futures_of(state.a)
            who = client.who_has(futures)
            assert len(who) == len(futures) > 0
            holders.extend(len(workers) for workers in who.values())

    res = problem.solve("dual-cd", max_iter=300, time_limit=120.0, callback=count, **options)
    assert res.status == "optimal" and holders and min(holders) == 2, holders


# the scheduler lost mid-run -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["dual-cd", "dual-accelerated"])
def test_scheduler_lost_between_iterations_is_a_solver_error_at_once(method):
    """The scheduler shut down by the callback at iteration 3: the next computation would be given to a client
    that is reconnecting and wait out its whole reconnect window (150 s here; distributed's default is 30 s) before a
    raw ``FutureCancelledError``. The backend sees the lost client first: ``solver_error`` with the reason, the 3
    iterations and their trace, ``w`` None (nothing can be recomputed on the lost data) and the last iterate in
    ``info``, well within ``time_limit``."""
    time_limit = 60.0
    with in_process_cluster(timeout="150s") as (client, cluster):
        problem, options = problem_on(method)
        closed = []

        def shut_down_the_scheduler(state):
            if state.t == 3:
                client.sync(cluster.scheduler.close)
                closed.append(state.t)

        start = time.perf_counter()
        res = problem.solve(method, max_iter=10_000, time_limit=time_limit, callback=shut_down_the_scheduler,
                            **{**options, "tol": 1e-14})
        wall = time.perf_counter() - start
    assert closed == [3], res.status
    assert wall <= time_limit + 5.0   # the reconnect window (150 s) was not waited for
    assert res.status == "solver_error"
    assert "lost its scheduler" in res.info["message"]
    assert res.iterations == 3 and len(res.trace) >= 1
    assert res.w is None and np.isnan(res.margin)
    last = res.info["last_iterate"]
    assert last.shape == (D,) and np.all(np.isfinite(last)) and np.linalg.norm(last) > 0


@pytest.mark.parametrize("method", ["dual-cd", "dual-accelerated"])
def test_scheduler_lost_during_an_iteration_is_a_solver_error_within_the_time_limit(method):
    """The scheduler shut down by another thread while the run computes (started at iteration 3; the moment it lands
    is up to the machine, so only what holds at any moment is asserted): the computation in flight fails with
    distributed's ``FutureCancelledError``, or the next one sees the lost client; either way ``solver_error`` with
    the reason, within ``time_limit`` (the client's reconnect window, 10 s here, bounds the wait of a computation in
    flight)."""
    time_limit = 60.0
    with in_process_cluster(timeout="10s") as (client, cluster):
        problem, options = problem_on(method)
        closer = []

        def shut_down_soon(state):
            if state.t == 3:
                closer.append(threading.Thread(target=client.sync, args=(cluster.scheduler.close,)))
                closer[0].start()

        start = time.perf_counter()
        res = problem.solve(method, max_iter=100_000, time_limit=time_limit, callback=shut_down_soon,
                            **{**options, "tol": 1e-14})
        wall = time.perf_counter() - start
        closer[0].join(timeout=60)
    assert len(closer) == 1, res.status
    assert wall <= time_limit + 5.0
    assert res.status == "solver_error", res.status
    assert "lost its scheduler" in res.info["message"] or "dask cluster failed" in res.info["message"]
    assert res.iterations >= 3 and res.w is None


# a shard that fails to load -----------------------------------------------------------------------------------------
def _write_shards(directory, checksums=False, compression="none"):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    rng = np.random.default_rng(0)
    for k in range(4):
        X = rng.standard_normal((500, 5))
        table = pa.table({**{f"f{j}": X[:, j] for j in range(5)}, "label": np.where(X[:, 0] > 0, 1.0, -1.0)})
        pq.write_table(table, os.path.join(directory, f"part{k}.parquet"), compression=compression,
                       use_dictionary=False, write_page_checksum=checksums)
    return os.path.join(directory, "part2.parquet")


def _damage_column(path, column, at, new_bytes):
    """Overwrite bytes of one column chunk's pages, ``at`` bytes from the chunk's start (``at >= 0``: its first page
    header) or from its end (``at < 0``: the last values, 8 bytes each, little-endian), leaving the footer valid."""
    import pyarrow.parquet as pq
    chunk = pq.read_metadata(path).row_group(0).column(column)
    start = chunk.dictionary_page_offset or chunk.data_page_offset
    where = start + at if at >= 0 else start + chunk.total_compressed_size + at
    data = bytearray(open(path, "rb").read())
    data[where:where + len(new_bytes)] = new_bytes
    with open(path, "wb") as fh:
        fh.write(bytes(data))


def _opens_then_refuses_at_construction(directory, bad, match):
    X, y = open_shards(directory, format="parquet")   # footers only: every footer is valid
    assert X.shape == (2000, 5)
    with pytest.raises(mk.ProblemError, match=match) as err:
        mk.SoftMarginSVM(X, y, C=0.1, bias=False)      # the problem's checks read every block: no iteration yet
    assert repr(bad) in str(err.value)


def test_a_shard_that_is_not_parquet_is_refused_at_open_naming_it(tmp_path):
    bad = _write_shards(tmp_path)
    with open(bad, "wb") as fh:
        fh.write(b"not a parquet file" * 20)
    with pytest.raises(mk.ProblemError, match="cannot read parquet shard") as err:
        open_shards(tmp_path, format="parquet")
    assert repr(bad) in str(err.value)


def test_a_shard_with_broken_pages_is_refused_before_any_iteration_naming_it(tmp_path):
    """A valid footer over page headers that do not parse: pyarrow's OSError (which does not name the file) becomes a
    ProblemError naming it, raised when the problem is built from the shards."""
    bad = _write_shards(tmp_path)
    _damage_column(bad, 1, 0, b"\xff" * 24)   # the first page's header
    _opens_then_refuses_at_construction(tmp_path, bad, "parquet shard")


def test_a_shard_whose_values_leave_its_statistics_is_refused_naming_it(tmp_path):
    """Pages that parse but hold values outside the footer's min/max statistics (a flipped exponent byte)."""
    bad = _write_shards(tmp_path)
    _damage_column(bad, 1, -8 * 37, struct.pack("<d", 1e6))   # a standard normal column's max is about 3.5
    _opens_then_refuses_at_construction(tmp_path, bad, "outside the min/max statistics")


def test_a_shard_failing_its_page_checksums_is_refused_naming_it(tmp_path):
    """Values corrupted within the statistics' range are found by the pages' CRC checksums, where the writer stored
    them (``write_page_checksum=True``)."""
    bad = _write_shards(tmp_path, checksums=True)
    _damage_column(bad, 1, -8 * 37, b"\x01")   # the lowest byte of one value's mantissa: in range, for the CRC only
    _opens_then_refuses_at_construction(tmp_path, bad, "CRC|checksum")


def test_a_broken_shard_is_named_through_the_cluster(tmp_path):
    """The same ProblemError when the block is read by a task of a distributed worker (the exception crosses the
    cluster's TCP connections, pickled, back to the driver)."""
    bad = _write_shards(tmp_path)
    _damage_column(bad, 1, 0, b"\xff" * 24)
    with in_process_cluster(timeout="30s"):
        _opens_then_refuses_at_construction(tmp_path, bad, "parquet shard")
