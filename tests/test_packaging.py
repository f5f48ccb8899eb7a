"""Packaging: a wheel must contain every subpackage (a missing one only shows in a non-editable install)."""
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_subpackage_is_listed_in_pyproject():
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())
    listed = set(cfg["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "marginkit").rglob("__init__.py")}
    assert found <= listed, f"add {sorted(found - listed)} to [tool.setuptools] packages"
    assert "marginkit.catalog" in listed  # the top-level problems/ folder


def test_readme_opens_with_two_commands_and_ci_runs_the_test_one():
    text = (ROOT / "README.md").read_text()
    block = text.split("```bash", 1)[1].split("```", 1)[0].strip().splitlines()
    assert len(block) == 2
    assert "marginkit compare mnist-0-vs-1" in block[0]
    assert block[1] in (ROOT / ".ci" / "run").read_text()
