"""Build the tutorial notebooks from their Python sources, execute them and save the executed notebooks.

    python tutorials/build_notebooks.py              # every notebook and its solutions
    python tutorials/build_notebooks.py 03 05        # only the labs whose number is given
    python tutorials/build_notebooks.py --no-execute # write the notebooks without outputs

The cells of lab ``NN`` live in ``tutorials/sources/nbNN_<name>.py``: a list ``CELLS`` of ``md(...)`` and
``code(...)`` calls (``sources/_cells.py``) for ``tutorials/NN_<name>.ipynb`` and a list ``SOLUTIONS`` for
``tutorials/solutions/NN_<name>_solutions.ipynb``. Edit the sources, never the ``.ipynb`` files, then rebuild: the
committed notebooks are the executed ones (their outputs and figures show in any notebook viewer), and the test
suite re-executes them with ``nbmake``. A notebook that fails keeps its previous executed version on disk; the
exit status is 1 when a notebook fails or takes more than the one-minute budget.
"""
from __future__ import annotations

import argparse
import importlib.util
import resource
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

HERE = Path(__file__).resolve().parent
SOURCES = HERE / "sources"
SOLUTIONS_DIR = HERE / "solutions"
TIMEOUT = 300  # seconds per cell (a safety net); the one-minute budget of a whole notebook is checked in main()


def new_notebook(cells) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = list(cells)
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    nb.metadata["language_info"] = {"name": "python"}
    return nb


def load_source(path: Path):
    if str(SOURCES) not in sys.path:
        sys.path.insert(0, str(SOURCES))  # for ``from _cells import md, code``
    spec = importlib.util.spec_from_file_location(f"tutorial_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def execute(nb, directory: Path) -> tuple[float, float]:
    """Run every cell in a fresh ``python3`` kernel started in ``directory``; returns the wall time and the CPU
    time of the kernel process (a load-independent measure on a shared machine)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    NotebookClient(nb, timeout=TIMEOUT, kernel_name="python3", record_timing=False,
                   resources={"metadata": {"path": str(directory)}}).execute()
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def build(source: Path, run: bool = True) -> list[tuple[str, float]]:
    module = load_source(source)
    name = source.stem.removeprefix("nb")
    targets = [(HERE / f"{name}.ipynb", module.CELLS)]
    if getattr(module, "SOLUTIONS", None):
        targets.append((SOLUTIONS_DIR / f"{name}_solutions.ipynb", module.SOLUTIONS))
    timings = []
    for path, cells in targets:
        nb = new_notebook(cells)
        path.parent.mkdir(exist_ok=True)
        try:
            elapsed, cpu = execute(nb, path.parent) if run else (float("nan"), float("nan"))
        except CellExecutionError as err:  # keep the previous executed notebook; report and go on
            print(f"{path.relative_to(HERE)}: FAILED\n{err}", file=sys.stderr, flush=True)
            timings.append((str(path.relative_to(HERE)), float("inf")))
            continue
        nbformat.validate(nb)
        nbformat.write(nb, path)
        timings.append((str(path.relative_to(HERE)), elapsed))
        print(f"{path.relative_to(HERE)}: {elapsed:.1f} s wall, {cpu:.1f} s CPU (kernel)", flush=True)
    return timings


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("labs", nargs="*", help="lab numbers to build (default: all)")
    parser.add_argument("--no-execute", action="store_true", help="write the notebooks without running them")
    args = parser.parse_args(argv)
    sources = sorted(SOURCES.glob("nb[0-9][0-9]_*.py"))
    if args.labs:
        sources = [s for s in sources if s.stem[2:4] in {lab.zfill(2) for lab in args.labs}]
    if not sources:
        print("no matching source in tutorials/sources/", file=sys.stderr)
        return 2
    bad = [(p, t) for s in sources for p, t in build(s, run=not args.no_execute) if t > 60]
    for path, t in bad:
        print(f"warning: {path} " + ("failed" if t == float("inf") else f"took {t:.1f} s (> 60 s budget)"),
              file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
