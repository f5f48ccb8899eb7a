"""Regenerate the generated blocks of the documentation pages: ``python docs/update_readme.py``.

The blocks sit between ``<!-- tag -->`` and ``<!-- /tag -->`` in the committed pages (until issue 39 they were the
README's; the README now only links to these pages):

* ``docs/methods.md``: ``problems`` (the public problem classes, from their signatures and docstrings) and
  ``methods`` (every method, from the registry: :func:`marginkit.engine.graph.method_table`, which
  ``tests/test_reductions.py`` checks is current);
* ``docs/devices.md``: ``arrays`` (where each method computes: :func:`marginkit.engine.graph.arrays_table`, checked
  by ``tests/test_array_api.py``);
* ``docs/performance.md``: ``bench-summary`` (the latest full ``marginkit bench`` run, from
  ``benchmarks/results.json``).

``docs/gen_pages.py`` fills the same blocks when the site is built, so the site is current even where a committed
page is not. Importing this module changes nothing; running it rewrites the pages.
"""
from __future__ import annotations

import inspect
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cell(value) -> str:
    """Plain text for a table cell: code marks dropped (a code span cannot hold an escaped ``|``), the pipes and
    stars of the papers' formulas escaped."""
    text = " ".join(str(value).replace("``", "").replace("`", "").split())
    return text.replace("|", "&#124;").replace("*", "\\*")


def problems_table() -> str:
    """The public problem classes: form, constructor signature and the first paragraph of the class docstring."""
    import marginkit
    from marginkit.formulations import FORMS

    rows = ["| form | constructor | meaning |", "|---|---|---|"]
    for form, cls in sorted(FORMS.items()):
        if not hasattr(marginkit, cls.__name__):
            continue   # internal forms (reached by a reduction only)
        params = inspect.signature(cls).parameters.values()
        sig = "(" + ", ".join(str(q.replace(annotation=q.empty)) for q in params) + ")"
        doc = " ".join((inspect.getdoc(cls) or "").split("\n\n")[0].split())
        rows.append(f"| `{form}` | {cell(cls.__name__ + sig)} | {cell(doc)} |")
    return "\n".join(rows)


def method_table() -> str:
    from marginkit.engine.graph import method_table as table
    return table()


def arrays_table() -> str:
    from marginkit.engine.graph import arrays_table as table
    return table()


def bench_summary() -> str:
    path = ROOT / "benchmarks" / "results.json"
    if not path.exists():
        return "(no full bench run recorded yet)"
    data = json.loads(path.read_text())
    m = data["machine"]
    lines = [f"Latest full run: {m['date']}, {m['cpu']}, {m['cores']} cores, NumPy {m['versions']['numpy']} "
             f"({m['blas']['internal_api']}), CVXPY {m['versions']['cvxpy']}, one BLAS thread per competitor"
             + (f"; rows re-measured then: {', '.join(data['partial_update'])}, the others earlier (dates in "
                "benchmarks/results.json)." if data.get("partial_update") else "."),
             "", "| row | size | ratio | target | status |", "|---|---|---|---|---|"]
    for r in data["rows"]:
        ratio = r.get("ratio")
        bound = {"lower": ">", "upper": "<"}.get(r.get("ratio_bound") or "", "")
        shown = "-" if ratio is None else f"{bound}{ratio:.3g}"
        lines.append(f"| {r['name']} | {r.get('size', '')} | {shown} | {r['comparison']} {r['required']:g} | "
                     f"{r['status']} |")
    return "\n".join(lines)


# page (repository path) -> {tag: the function that writes the block}
BLOCKS = {
    "docs/methods.md": {"problems": problems_table, "methods": method_table},
    "docs/devices.md": {"arrays": arrays_table},
    "docs/performance.md": {"bench-summary": bench_summary},
}


def replace(text: str, tag: str, body: str) -> str:
    """``text`` with the block ``<!-- tag -->...<!-- /tag -->`` holding ``body`` (a ``ValueError`` without it)."""
    pattern = rf"<!-- {re.escape(tag)} -->.*?<!-- /{re.escape(tag)} -->"
    if not re.search(pattern, text, flags=re.S):
        raise ValueError(f"no <!-- {tag} --> block to fill")
    return re.sub(pattern, lambda _: f"<!-- {tag} -->\n{body}\n<!-- /{tag} -->", text, flags=re.S)


def filled(repo_path: str, text: str | None = None, **bodies: str) -> str:
    """The page ``repo_path`` (or ``text``) with its generated blocks rewritten; ``bodies`` overrides a block's body
    (the site's method table links each method to its options)."""
    if text is None:
        text = (ROOT / repo_path).read_text(encoding="utf-8")
    for tag, make in BLOCKS.get(repo_path, {}).items():
        text = replace(text, tag, bodies[tag] if tag in bodies else make())
    return text


def main() -> None:
    for repo_path in BLOCKS:
        page = ROOT / repo_path
        text = page.read_text(encoding="utf-8")
        new = filled(repo_path, text)
        if new != text:
            page.write_text(new, encoding="utf-8")
        print(repo_path, "updated" if new != text else "already current")


if __name__ == "__main__":
    main()
