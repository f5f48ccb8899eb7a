"""The command line: ``marginkit list | solve | compare | certify | bench``. No math here: it parses, delegates to the
library and prints. Bad arguments exit with status 2 and a one-line message, never a traceback."""
from __future__ import annotations

import argparse
import os
import sys

from ..core.errors import ProblemError

# the command line rests on the api and engine modules, never on the package facade (marginkit/__init__.py) nor on
# the public modules beside it (marginkit.cli, .datasets, ...), which sit above it (tests/test_layers.py)


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        print(f"marginkit: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def _parser():
    p = _Parser(prog="marginkit", description="Margin problems: certified references and first-order plans.",
                epilog="`marginkit COMMAND -h` shows a command's arguments.")
    p.add_argument("--version", action="version", version=f"marginkit {_version()}")
    # `marginkit --help` gives one line per command at 80 columns: short help= texts (each description= says more)
    sub = p.add_subparsers(dest="command", parser_class=_Parser, title="commands", metavar="COMMAND")
    sub.required = True
    ls = sub.add_parser("list", help="catalog problems and their methods; a method's options",
                        description="Problems in the catalog and their methods; --method M: M's options.")
    ls.add_argument("--method", default=None, metavar="M",
                    help="describe method M: its options, defaults, accepted values and meanings")
    ls.add_argument("--problem", default=None, metavar="FORM",
                    help="with --method: the problem form (e.g. SoftMarginSVM) or catalog NAME, "
                         "when M exists on several")
    s = sub.add_parser("solve", help="solve a problem (catalog NAME or .npz) with one method",
                       description="Solve a catalog problem (or an .npz instance file) with one method.")
    s.add_argument("name")
    s.add_argument("--method", default="cvxpy")
    s.add_argument("--solver", default=None, help="CVXPY solver for --method cvxpy (CLARABEL, ECOS, SCS)")
    c = sub.add_parser("compare", help="cross-validate methods against the certified optimum",
                       description="Cross-validate methods against the certified reference: the table, and "
                                   "convergence curves with --plot.")
    c.add_argument("name")
    c.add_argument("--methods", default=None, help="comma-separated list (default: every listed method)")
    c.add_argument("--plot", default=None, metavar="FILE", help="write convergence curves as PNG")
    for q in (s, c):
        q.add_argument("--max-iter", type=int, default=None)
        q.add_argument("--tol", type=float, default=None)
        q.add_argument("--seed", type=int, default=0)
        q.add_argument("--quick", action="store_true", help="reduced instance size (as used by the tests)")
    s.add_argument("--verbose", action="store_true")
    k = sub.add_parser("certify", help="certify weights (w, b) against the exact optimum",
                       description="Certify a weight vector (w, b) against the problem's exact optimum.")
    k.add_argument("name")
    k.add_argument("--weights", required=True, metavar="FILE.npy", help="w saved with numpy.save, shape (d,) or (1, d)")
    k.add_argument("--offset", type=float, default=None, metavar="B", help="the offset b (problems with a bias)")
    k.add_argument("--tol", type=float, default=1e-6, help="relative accuracy for status optimal (default 1e-6)")
    k.add_argument("--quick", action="store_true", help="reduced instance size (as used by the tests)")
    b = sub.add_parser("bench", help="performance suite: ratios to CVXPY and scikit-learn",
                       description="The performance suite: times and ratios against CVXPY solvers and scikit-learn.")
    b.add_argument("--quick", action="store_true", help="tiny sizes (what the test suite runs)")
    b.add_argument("--output", default=None, help="where to write results.json (default benchmarks/results.json; "
                   "with --quick, a new temporary directory)")
    b.add_argument("--only", default=None, help="comma-separated row names to run")
    return p


def _version() -> str:
    """The installed distribution's version (pyproject.toml's, which ``marginkit.__version__`` repeats)."""
    from importlib import metadata
    try:
        return metadata.version("marginkit")
    except metadata.PackageNotFoundError:   # a source tree that was never installed
        return "unknown"


def _run_options(args):
    return {"seed": args.seed, **{k: v for k, v in (("max_iter", args.max_iter), ("tol", args.tol)) if v is not None}}


def _progress_line(done: int, total: int, row: dict) -> str:
    note = row.get("note", "")
    return f"[{done}/{total}] {row['method']:<28s} {row['status']:<12s} {row['time']:.3g}s  {note}".rstrip()


class _ProgressBar:
    """``compare``'s progress on stderr: a ``tqdm`` bar with each finished row written above it when stderr is a
    terminal (and tqdm is installed), plain lines otherwise (logs, pipes, CI)."""

    def __init__(self, stream=None):
        self.stream = stream or sys.stderr
        self.bar = None
        self.tqdm = None
        if getattr(self.stream, "isatty", lambda: False)():
            try:
                from tqdm import tqdm
                self.tqdm = tqdm
            except ImportError:
                pass

    def __call__(self, done: int, total: int, row: dict) -> None:
        if self.tqdm is None:
            print(_progress_line(done, total, row), file=self.stream, flush=True)
            return
        if self.bar is None:
            self.bar = self.tqdm(total=total, file=self.stream, unit="method", leave=False, dynamic_ncols=True)
        self.bar.write(_progress_line(done, total, row), file=self.stream)
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _check_output_path(path: str, flag: str) -> None:
    """``path`` can be written: not a directory, and its nearest existing parent is a writable directory."""
    full = os.path.abspath(path)
    if os.path.isdir(full):
        raise ProblemError(f"{flag}: {path!r} is a directory; give a file name")
    parent = os.path.dirname(full)
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent) or not os.access(parent, os.W_OK):
        raise ProblemError(f"{flag}: cannot write {path!r} ({parent!r} is not a writable directory)")


_BENCH_FROM_A_CLONE = ("the benchmark ships with the repository, not with the package: in the root of a clone of "
                       "marginkit run `python -m benchmarks.runner` (--quick, --output FILE, --only ROWS) or "
                       "`python -m marginkit bench`")


def _bench_runner():
    """``benchmarks.runner`` of the clone this package is imported from, when that clone's root is on the import path
    as it is (``python -m marginkit bench`` or ``python -m benchmarks.runner`` in the root, the test suite); None
    otherwise: no ``benchmarks/`` folder next to the package (a ``pip install`` does not ship it), the folder not
    importable as the package ``benchmarks``, or another package of that name first on the path. The suite is a
    package (its modules import each other, and its CVXPY rows run in child processes that import it by name), so it
    is imported as one, never loaded from its file, and the import path is left as it is."""
    import importlib
    import importlib.util
    from pathlib import Path
    folder = Path(__file__).resolve().parents[2] / "benchmarks"
    if not all((folder / f).is_file() for f in ("__init__.py", "runner.py", "targets.py")):
        return None
    try:
        spec = importlib.util.find_spec("benchmarks")
    except (ImportError, ValueError):
        return None
    places = list(spec.submodule_search_locations or []) if spec is not None else []
    if [Path(p).resolve() for p in places] != [folder]:
        return None
    return importlib.import_module("benchmarks.runner")


def _load_weights(path):
    """The ``--weights`` array: a ``.npy`` file holding ``w``, shape ``(d,)`` or scikit-learn's ``coef_`` ``(1, d)``."""
    import zipfile
    import numpy as np
    if not os.path.isfile(path):
        raise ProblemError(f"--weights: no such file {path!r}")
    try:
        w = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise ProblemError(f"--weights: cannot read {path!r} as a .npy array ({' '.join(str(exc).split())})") from None
    if hasattr(w, "files"):
        w.close()
        raise ProblemError(f"--weights: {path!r} is an .npz archive; save w alone with numpy.save (a .npy file)")
    return w[0] if w.ndim == 2 and w.shape[0] == 1 else w


def _print_result(res) -> None:
    """The result and its scalar certificate entries."""
    print(res)
    if res.certificate:
        print("certificate:", ", ".join(f"{k}={v:.6g}" if isinstance(v, float) else f"{k}={v}"
                                        for k, v in res.certificate.items() if isinstance(v, (int, float, str))))


def main(argv=None) -> int:
    import marginkit.catalog as catalog   # problems/, installed as marginkit.catalog (beside the package's layers)
    from ..engine.graph import method_spec, methods
    from .describe import describe
    args = _parser().parse_args(argv)
    try:
        if args.command == "list" and args.problem is not None and args.method is None:
            raise ProblemError("--problem applies with --method only (marginkit list --method M --problem FORM)")
        if args.command == "list" and args.method is not None:
            where = args.problem
            if where is not None and where in catalog.names():
                where = catalog.load(where, quick=True)
            print(describe(args.method, where))
            return 0
        if args.command == "list":
            for name in catalog.names():
                inst = catalog.get(name)
                print(f"{name:28s} {inst.problem:20s} {inst.description}")
                prob = inst.build(quick=True)
                print(f"{'':28s} methods: {', '.join(methods(prob))}")
            return 0
        if args.command == "solve":
            prob = catalog.load(args.name, quick=args.quick)
            if method_spec(prob, args.method).is_reference:   # the solver's settings, not the run options
                res = prob.solve(args.method, **({"solver": args.solver} if args.solver else {}))
            else:
                res = prob.solve(args.method, verbose=args.verbose, **_run_options(args))
            _print_result(res)
            return 0
        if args.command == "compare":
            chosen = None
            if args.methods is not None:
                chosen = [m.strip() for m in args.methods.split(",")]
                if not all(chosen):
                    raise ProblemError("--methods must be a comma-separated list of method names; "
                                       f"got {args.methods!r}")
            if args.plot:   # checked before the run, not after it
                folder = os.path.dirname(os.path.abspath(args.plot))
                if not os.path.isdir(folder) or not os.access(folder, os.W_OK):
                    raise ProblemError(f"--plot: cannot write into {folder!r} (no such writable directory)")
            prob = catalog.load(args.name, quick=args.quick)
            opts = _run_options(args)  # each method's documented budget (its card) unless --max-iter is given
            bar = _ProgressBar()
            from .crossval import cross_validate
            try:   # BLAS threads pinned to one for the run (cross_validate's default)
                rep = cross_validate(prob, methods=chosen, progress=bar, **opts)
            finally:
                bar.close()
            print(rep.table())
            if args.plot:
                from matplotlib.figure import Figure   # no pyplot: no backend, no window, nothing left open
                rep.plot(args.plot, ax=Figure(figsize=(8.4, 4.6)).subplots(),
                         title=f"{args.name}: gap against iteration")
                print(f"figure written to {args.plot}")
            return 0
        if args.command == "certify":
            from .certify import certify
            w = _load_weights(args.weights)
            prob = catalog.load(args.name, quick=args.quick)
            res = certify(prob, w if args.offset is None else (w, args.offset), tol=args.tol)
            _print_result(res)
            if res.info.get("message"):
                print(res.info["message"])
            return 0
        if args.command == "bench":
            if args.output is not None:   # checked before the run, not after it
                _check_output_path(args.output, "--output")
            bench = _bench_runner()
            if bench is None:
                print(f"marginkit: error: {_BENCH_FROM_A_CLONE}", file=sys.stderr)
                return 2
            return bench.main(quick=args.quick, output=args.output,
                              only=args.only.split(",") if args.only else None)
    except (ProblemError, ImportError) as exc:
        print(f"marginkit: error: {exc}", file=sys.stderr)
        return 2
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
