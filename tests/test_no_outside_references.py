"""The installed package cites the papers themselves: no file under ``marginkit/`` points to notes that live outside
the repository (a user who installs marginkit has no ``../shared`` folder and no paper digests)."""
from __future__ import annotations

from pathlib import Path

import marginkit

FORBIDDEN = ("../shared", "shared/papers", "digest")
PACKAGE = Path(marginkit.__file__).resolve().parent


def _package_files():
    return sorted(p for p in PACKAGE.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                  and p.suffix not in (".pyc", ".so"))


def test_the_package_has_files_to_check():
    names = {p.name for p in _package_files()}
    assert {"__init__.py", "bounds.py", "registry.py"} <= names


def test_no_file_under_marginkit_points_outside_the_repository():
    hits = []
    for path in _package_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            hits += [f"{path.relative_to(PACKAGE.parent)}:{number}: {word!r}" for word in FORBIDDEN
                     if word in line.lower()]
    assert hits == [], "cite the paper itself (authors, title, section, equation):\n" + "\n".join(hits)
