"""The badly conditioned peer rows at the issue's scale (issue 24's target: n >= 100,000, d <= 1,000), apart from
``marginkit bench`` (whose peer rows use 20,000 rows so that the group ends in about 10 minutes on 2 cores)::

    python -m benchmarks.peers_large                        # 100,000 x 100, C = 1e-2, 1, 1e3, with and without bias
    python -m benchmarks.peers_large --rows 100000 --cols 300 --output /tmp/peers.json

The rows, the yardstick and the peers are those of :mod:`benchmarks.rows_peers` (``peers-raw-dense`` and
``peers-raw-dense-bias``), run once each (``repeats=1``: one timed run after a warm-up), one BLAS thread. It writes
``benchmarks/peers_large.json`` and prints the tables of ``benchmarks/README.md``.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import time
from pathlib import Path

from .datasets import FULL
from .report import jsonable, machine_info
from .rows_peers import instance_tables, peer_rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--cols", type=int, default=100)
    ap.add_argument("--output", default=str(Path(__file__).with_name("peers_large.json")))
    args = ap.parse_args(argv)
    for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[k] = "1"
    from threadpoolctl import threadpool_limits
    cfg = dataclasses.replace(FULL, peers_dense=(args.rows, args.cols), repeats=1, method_cap=60.0)
    t0 = time.perf_counter()
    with threadpool_limits(1):
        rows = [jsonable(dataclasses.asdict(r)) for r in peer_rows(cfg, ("peers-raw-dense", "peers-raw-dense-bias"))]
    out = {"machine": machine_info(), "sizes": jsonable(dataclasses.asdict(cfg)), "rows": rows,
           "seconds": round(time.perf_counter() - t0, 1)}
    Path(args.output).write_text(json.dumps(out, indent=1))
    print(instance_tables(rows))
    for r in rows:
        print(f"{r['name']}: ratio {r['ratio']} ({r['status']}); {r['note']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
