"""The generated pages of the documentation site (run by the ``gen-files`` plugin of ``mkdocs build``).

Nothing here is written by hand twice: the getting-started page is the README; the hand-written pages of ``docs/``
(methods, certificates, performance, ...) are served with their generated blocks filled from the registry and
``benchmarks/results.json`` (``docs/update_readme.py`` writes the same blocks into the committed pages); the
methods page gains every method's options, from the plans' frozen ``Config`` (:func:`marginkit.describe`); the
gallery comes from the ``experiments/`` directory (its scripts' docstrings and the committed figures of
``docs/figures/``), the tutorials from the committed, executed notebooks (rendered by ``mkdocs-jupyter`` without
running them), the benchmark page from ``benchmarks/README.md``. Links between repository files are rewritten to the
site's pages; a link to a file the site does not have becomes plain text (so ``mkdocs build --strict`` has no broken
link to report).
"""
from __future__ import annotations

import importlib.util
import inspect
import posixpath
import re
from pathlib import Path

import mkdocs_gen_files

from marginkit import describe
from marginkit.engine.registry import METHODS, REDUCTIONS

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _load_blocks():
    """``docs/update_readme.py`` as a module (the blocks of the committed pages; importing it writes nothing)."""
    spec = importlib.util.spec_from_file_location("marginkit_docs_blocks", DOCS / "update_readme.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


blocks = _load_blocks()
_cell = blocks.cell

# repository path -> site page (the pages copied or generated below)
PAGES = {
    "README.md": "index.md",
    "CHANGELOG.md": "changelog.md",
    "benchmarks/README.md": "benchmarks.md",
    "tutorials/README.md": "tutorials/index.md",
    "docs/ARCHITECTURE.md": "ARCHITECTURE.md",
}
# pages of docs/ served as they are (their links are already the site's); every other docs/*.md is written with
# links between repository files and served through relink() below
RAW_PAGES = ("ARCHITECTURE.md", "DISTRIBUTED.md", "TRACE.md")
# source files the site shows elsewhere: repository path -> site page and anchor
SOURCE_PAGES = {"marginkit/plugin.py": "api.md#marginkit.plugin"}
LINK = re.compile(r"(!?)\[([^\]]*)\]\(([^)\s]+)\)")


def _site_path(repo_path: str) -> str | None:
    """The site page or asset for a repository path, or None when the site does not have it."""
    if repo_path in PAGES:
        return PAGES[repo_path]
    if repo_path in SOURCE_PAGES:
        return SOURCE_PAGES[repo_path]
    if repo_path.startswith("docs/") and (ROOT / repo_path).is_file():
        return repo_path[len("docs/"):]
    if repo_path.startswith("tutorials/") and repo_path.endswith(".ipynb") and (ROOT / repo_path).is_file():
        return repo_path
    return None


def relink(text: str, source: str, page: str) -> str:
    """Rewrite the relative links of ``source`` (a repository path) for the site page ``page``."""
    src_dir, page_dir = posixpath.dirname(source), posixpath.dirname(page)

    def fix(m):
        bang, label, target = m.groups()
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            return m.group(0)
        path, _, anchor = target.partition("#")
        repo_path = posixpath.normpath(posixpath.join(src_dir, path))
        site = _site_path(repo_path)
        if site is None:
            return label if not bang else f"`{repo_path}`"
        rel = posixpath.relpath(site, page_dir or ".")
        return f"{bang}[{label}]({rel}{'#' + anchor if anchor else ''})"
    return LINK.sub(fix, text)


def copy_page(repo_path: str) -> None:
    page = PAGES[repo_path]
    with mkdocs_gen_files.open(page, "w") as f:
        f.write(relink((ROOT / repo_path).read_text(encoding="utf-8"), repo_path, page))
    mkdocs_gen_files.set_edit_path(page, repo_path)


def methods_page() -> str:
    """docs/methods.md with its blocks filled (the method table linking each method to its options, the reductions
    with their meaning), then the options of every method and the run options."""
    table = ["| problem form | method | paper | algorithm | converges to | proven rate | agreement tol. |",
             "|---|---|---|---|---|---|---|"]
    for c in sorted(METHODS, key=lambda c: (c.form, c.name)):
        table.append(f"| {c.form} | [`{c.name}`](#{_anchor(c.name, c.form)}) | {_cell(c.paper)} | "
                     f"{_cell(c.algorithm)} | {_cell(c.converges_to)} | {_cell(c.rate)} | {c.tolerance:g} |")
    table += ["", "Reductions (a method of the target form also solves the source form):", ""]
    for r in REDUCTIONS:
        meaning = " ".join((inspect.getdoc(type(r)) or "").split("\n\n")[0].split())
        table.append(f"- `{r.source}` → `{r.target}`" + (f": {meaning}" if meaning else ""))
    text = blocks.filled("docs/methods.md", methods="\n".join(table))
    out = [relink(text, "docs/methods.md", "methods.md").rstrip(), "", "## Options of each method", "",
           "Generated from the plans' frozen configurations; `marginkit.describe(method, problem)` and "
           "`marginkit list --method M` show the same options.", ""]
    for c in sorted(METHODS, key=lambda c: (c.form, c.name)):
        d = describe(c.name, c.form)
        out += [f"### {c.name} on {c.form} {{#{_anchor(c.name, c.form)}}}", ""]
        if d.summary:
            out += [_cell(d.summary), ""]
        out += [f"Plan: `{d.plan}`. Proven rate: {_cell(d.rate)}.", ""]
        out += [f"- requires: {_cell(r)}" for r in d.requires] + ([""] if d.requires else [])
        if d.options:
            out += ["| option | default | accepts | meaning |", "|---|---|---|---|"]
            out += [f"| {_cell(o.name)} | {_cell(repr(o.default)) if not o.name.startswith('*') else ''} | "
                    f"{_cell(o.accepts)} | {_cell(o.meaning)} |" for o in d.options]
        else:
            out.append("No options of its own.")
        if d.run_options:
            shown = ", ".join(f"`{o.name}={o.default!r}`" for o in d.run_options if o.name in ("max_iter", "tol"))
            out += ["", f"Run options: the [common ones](#run-options), with {shown}."]
        out.append("")
    run = next(describe(c.name, c.form) for c in METHODS if not c.is_reference)
    out += ["## Run options", "", "Every first-order method accepts these (checked by the run loop):", "",
            "| option | default | accepts | meaning |", "|---|---|---|---|"]
    out += [f"| {_cell(o.name)} | {_cell(repr(o.default)) if o.name not in ('max_iter', 'tol') else 'per method'} | "
            f"{_cell(o.accepts)} | {_cell(o.meaning)} |" for o in run.run_options]
    return "\n".join(out) + "\n"


def hand_pages() -> None:
    """Every hand-written page of docs/ but the raw ones: its generated blocks filled, its links relinked."""
    for path in sorted(DOCS.glob("*.md")):
        if path.name in RAW_PAGES:
            continue
        repo_path = f"docs/{path.name}"
        text = methods_page() if path.name == "methods.md" else relink(blocks.filled(repo_path), repo_path,
                                                                             path.name)
        with mkdocs_gen_files.open(path.name, "w") as f:
            f.write(text)
        mkdocs_gen_files.set_edit_path(path.name, repo_path)


def _anchor(name: str, form: str) -> str:
    return f"{name}-{form}".lower()


def gallery() -> list[str]:
    """One page per experiment script (its docstring, its committed figures, its source); the index page."""
    scripts = sorted((ROOT / "experiments").glob("*.py"))
    figures = sorted((DOCS / "figures").glob("*.png")) if (DOCS / "figures").is_dir() else []
    rows = []
    for script in scripts:
        stem = script.stem
        if stem.startswith("_"):
            continue
        source = script.read_text(encoding="utf-8")
        doc = re.sub(r"::\n", ":\n", inspect.cleandoc(_module_doc(source)))
        caption, body = first_sentence(doc)
        title, lead = short_title(caption)
        body = f"{lead}\n\n{body}" if lead else body
        page = f"gallery/{stem}.md"
        shots = [p for p in figures if p.stem == stem or p.stem.startswith(stem + "_")]
        lines = [f"# {title}", "", f"`experiments/{stem}.py` (run it with `python experiments/{stem}.py "
                 "--quick` for the reduced size; the figures below are the committed runs, reduced or full size as the "
                 "figure's file records).", "", body.strip(), ""]
        for p in shots:
            lines += [f"![{stem}](../figures/{p.name})", ""]
        if not shots:
            lines += ["*No committed figure yet: run the script to draw it.*", ""]
        lines += ['??? "Source"', "", "    ```python"] + [f"    {ln}" if ln else "" for ln in source.splitlines()]
        lines += ["    ```", ""]
        with mkdocs_gen_files.open(page, "w") as f:
            f.write("\n".join(lines))
        mkdocs_gen_files.set_edit_path(page, f"experiments/{stem}.py")
        thumb = f"![{stem}](../figures/{shots[0].name}){{ width=240 }}" if shots else ""
        rows.append(f"| [{_cell(caption)}]({stem}.md) | {thumb} |")
    index = ["# Gallery: the papers' figures", "",
             "One page per script of `experiments/` (this list is generated from the directory). The figures are "
             "committed runs (most at the `--quick` size, the Ji–Srebro–Telgarsky ones at full size); the full-size "
             "runs are marked `slow` in the test suite.", "",
             "| experiment | figure |", "|---|---|"] + rows
    with mkdocs_gen_files.open("gallery/index.md", "w") as f:
        f.write("\n".join(index) + "\n")
    return [r for r in rows]


# a period followed by a space that does not end a sentence: after these abbreviations ("Fig. 2", "Figs. 4–5",
# "e.g. the", "Cotter et al. 2012", "App. F"), compared in lower case
ABBREVIATIONS = {"e.g", "i.e", "al", "cf", "vs", "resp", "approx", "fig", "figs", "eq", "eqs", "sec", "secs", "app",
                 "alg", "algs", "thm", "tab", "prop", "lem", "ref", "refs", "ch", "vol", "pp"}
SENTENCE_END = re.compile(r"[.!?](?=\s|$)")   # "0.5" and "np.float32" have no space after their period


def first_sentence(doc: str) -> tuple[str, str]:
    """The first sentence of a docstring, whole and on one line (across its line breaks), and the text after it (the
    first paragraph is the sentence when no period ends it earlier)."""
    paragraph, _, after = doc.strip().partition("\n\n")
    end = len(paragraph)
    for m in SENTENCE_END.finditer(paragraph):
        words = paragraph[:m.start()].split()
        if not words or words[-1].lstrip("([{'\"").lower() not in ABBREVIATIONS:
            end = m.end()
            break
    rest = paragraph[end:].strip()
    return " ".join(paragraph[:end].split()), "\n\n".join(p for p in (rest, after.strip()) if p)


def short_title(sentence: str) -> tuple[str, str]:
    """``(title, lead)``: a sentence "Authors §n, Fig. k: what it shows." gives the title "Authors §n, Fig. k" and
    the lead "What it shows."; any other sentence is the title itself, without its final period, and no lead."""
    head, colon, tail = sentence.partition(": ")
    if colon and tail and len(head) <= 80 and "`" not in head and head.count("(") == head.count(")"):
        return head, tail[:1].upper() + tail[1:]
    return sentence.rstrip("."), ""


def _module_doc(source: str) -> str:
    import ast
    return ast.get_docstring(ast.parse(source)) or "(no docstring)"


def tutorials() -> None:
    for nb in sorted((ROOT / "tutorials").rglob("*.ipynb")):
        rel = nb.relative_to(ROOT).as_posix()
        with mkdocs_gen_files.open(rel, "wb") as f:
            f.write(nb.read_bytes())


API = {
    "Problems": ["MaxMargin", "MinNormFeasibility", "SoftMarginSVM", "PerturbedSVMDual", "EllipsoidSeparation",
                 "ProjectionOntoIntersection"],
    "Sets of ProjectionOntoIntersection": ["HalfSpace", "Hyperplane", "Ball", "Box"],
    "Results": ["core.result.Result", "core.result.Trace"],
    "Methods and options": ["methods", "api.describe.describe", "api.describe.MethodDescription",
                            "api.describe.OptionDescription"],
    "Certifying, comparing, paths": ["certify", "path", "api.validation.certify_validation",
                                     "api.crossval.cross_validate", "api.report.Report"],
    "scikit-learn": ["api.estimator.MarginClassifier", "api.onnx.to_onnx", "api.onnx.register_onnx_converter"],
    "Your own methods": ["plugin", "register_method", "unregister_method", "engine.registry.MethodCard",
                         "api.testing.check_plan"],
    "Data": ["api.datasets", "api.bundled_sets"],
    "Errors and warnings": ["ProblemError", "plans.common.numba_rows.PerformanceWarning"],
}
# modules shown by their docstring alone (their public names are re-exports, documented where they are defined)
DOCSTRING_ONLY = {"plugin"}


def api_page() -> str:
    out = ["# API reference", "", "Generated from the docstrings and type hints of the public API "
           "(`marginkit/py.typed` marks the package as typed).", ""]
    for section, names in API.items():
        out += [f"## {section}", ""]
        for name in names:
            if "." in name and not _exists(name):
                continue   # moved or not written yet: the page lists what exists
            out += [f"::: marginkit.{name}"]
            out += ["    options:", "      members: false"] if name in DOCSTRING_ONLY else []
            out.append("")
    return "\n".join(out)


def _exists(dotted: str) -> bool:
    module, _, attr = dotted.rpartition(".")
    path = ROOT / "marginkit" / (module.replace(".", "/") + ".py")
    if not path.is_file():
        path = ROOT / "marginkit" / dotted.replace(".", "/")
        return path.is_dir() or path.with_suffix(".py").is_file()
    return re.search(rf"^(class|def) {re.escape(attr)}\b", path.read_text(encoding="utf-8"), flags=re.M) is not None


for repo_path in PAGES:
    if (ROOT / repo_path).is_file() and repo_path != "docs/ARCHITECTURE.md":
        copy_page(repo_path)
hand_pages()
with mkdocs_gen_files.open("api.md", "w") as f:
    f.write(api_page())
gallery()
tutorials()
