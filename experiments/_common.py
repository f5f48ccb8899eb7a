"""What the experiment scripts share besides their claims (not an experiment: the gallery skips ``_`` names): the
run of a table of methods, the value of a curve at a time, the figure (its axes, its file) and the command line."""
from __future__ import annotations

import argparse
import os

import numpy as np


def solve_each(problem, methods, **options):
    """``(label, result)`` for each ``(label, method, params)`` row of a script's table of methods, solved in turn
    with the run's shared ``options`` and the row's own ``params``."""
    for label, method, params in methods:
        yield label, problem.solve(method, **options, **params)


def first_at(curve: dict, key: str, t: float, time: str = "t") -> float:
    """``curve[key]`` at the first recorded time ``curve[time] >= t`` (the last recorded value if there is none)."""
    i = min(int(np.searchsorted(curve[time], t)), len(curve[time]) - 1)
    return float(curve[key][i])


def last_at(curve: dict, key: str, t: float, time: str = "t") -> float:
    """``curve[key]`` at the last recorded time ``curve[time] <= t`` (the last value if the run stopped before ``t``:
    with ``tol=0`` a run stops only when its certificate reaches machine precision)."""
    return float(curve[key][np.searchsorted(curve[time], t, side="right") - 1])


def figure(*grid, figsize, **subplots):
    """``(fig, axes)``: a ``grid`` of axes (``Figure.subplots``'s arguments) on a figure of ``figsize`` inches, drawn
    off screen (matplotlib's ``Figure``: no GUI backend, no pyplot state, nothing to close)."""
    from matplotlib.figure import Figure
    fig = Figure(figsize=figsize)
    return fig, fig.subplots(*grid, **subplots)


def panel_row(keys, width: float, height: float, **subplots):
    """``(fig, [(ax, key), ...])``: one panel of ``width`` × ``height`` inches per key, side by side (more
    ``Figure.subplots`` arguments in ``subplots``)."""
    fig, axes = figure(1, len(keys), figsize=(width * len(keys), height), squeeze=False, **subplots)
    return fig, list(zip(axes[0], keys))


def save(fig, path: str, dpi: int, title: str | None = None) -> None:
    """``fig``, under ``title`` if given, laid out tight and written to ``path`` at ``dpi``."""
    if title is not None:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)


def write_figure(out: dict, plot, outdir: str, name: str, wrote: str | None = "\nwrote") -> dict:
    """``plot(out, path)`` with ``path = outdir/name`` (``outdir`` created), recorded as ``out["png"]`` and printed
    after ``wrote`` (``None``: not printed); ``out``."""
    os.makedirs(outdir, exist_ok=True)
    out["png"] = os.path.join(outdir, name)
    plot(out, out["png"])
    if wrote is not None:
        print(f"{wrote} {out['png']}")
    return out


def parser(doc: str, quick_help: str, **options) -> argparse.ArgumentParser:
    """The scripts' command line, described by the first line of the script's ``doc``: ``--<name>`` for each of
    ``options`` (``add_argument``'s keywords), ``--quick`` (the reduced size, ``quick_help``) and ``--outdir``."""
    args = argparse.ArgumentParser(description=doc.splitlines()[0])
    for name, kwargs in options.items():
        args.add_argument(f"--{name}", **kwargs)
    args.add_argument("--quick", action="store_true", help=quick_help)
    args.add_argument("--outdir", default=".")
    return args


def cli(main, doc: str, quick_help: str) -> None:
    """``main(quick=..., outdir=...)`` as the command line (:func:`parser`) asks."""
    args = parser(doc, quick_help).parse_args()
    main(quick=args.quick, outdir=args.outdir)
