"""Regenerate the generated parts of README.md: the method table (from the registry) and the performance
summary (from benchmarks/results.json). ``python docs/update_readme.py``."""
import json
import re
from pathlib import Path

from marginkit.engine.graph import arrays_table, method_table

ROOT = Path(__file__).resolve().parents[1]


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


def replace(text, tag, body):
    return re.sub(rf"<!-- {tag} -->.*?<!-- /{tag} -->", lambda _: f"<!-- {tag} -->\n{body}\n<!-- /{tag} -->",
                  text, flags=re.S)


readme = ROOT / "README.md"
text = readme.read_text()
new = replace(replace(replace(text, "methods", method_table()), "bench-summary", bench_summary()), "arrays",
              arrays_table())
readme.write_text(new)
print("README", "updated" if new != text else "already current")
