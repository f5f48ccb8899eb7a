"""docs/ARCHITECTURE.md covers every module of the package: each file under marginkit/ (and the catalog under
problems/) is named in the table "Every module"."""
import fnmatch
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def named_in_table() -> list[str]:
    """The paths of the first column of the table, expanded: "`a/b.py`, `c.py`" names a/b.py and a/c.py."""
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    table = text.split("## Every module", 1)[1].split("\n## ", 1)[0]
    out = []
    for line in table.splitlines():
        if not line.startswith("| `"):
            continue
        folder = ""
        for name in re.findall(r"`([^`]+)`", line.split(" | ")[0]):
            name = name.removeprefix("marginkit/")
            if "/" in name:
                folder = name.rsplit("/", 1)[0] + "/"
                out.append(name)
            else:
                out.append(folder + name)
    return out


def test_every_module_is_named_in_the_architecture_table():
    patterns = named_in_table()
    files = [p.relative_to(ROOT / "marginkit").as_posix() for p in (ROOT / "marginkit").rglob("*.py")]
    files += [p.relative_to(ROOT).as_posix() for p in (ROOT / "problems").glob("*.py")]
    missing = [f for f in files if not any(fnmatch.fnmatch(f, pat) for pat in patterns)]
    assert not missing, f"docs/ARCHITECTURE.md does not name: {missing}"


def test_the_table_names_no_module_that_does_not_exist():
    stale = [pat for pat in named_in_table() if not any(
        fnmatch.fnmatch(p.relative_to(base).as_posix(), pat)
        for base in (ROOT / "marginkit", ROOT) for p in base.rglob("*.py"))]
    assert not stale, f"docs/ARCHITECTURE.md names modules that do not exist: {stale}"
