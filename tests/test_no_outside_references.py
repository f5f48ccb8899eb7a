"""The installed package cites the papers themselves: no file under ``marginkit/`` points to notes that live outside
the repository (a user who installs marginkit has no ``../shared`` folder and no paper digests). The same holds for
the rest of what users read: the tests, experiments, tutorial sources, READMEs, docs, benchmarks and problems."""
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
            for fragment in ALLOWED.get(path.relative_to(PACKAGE.parent).as_posix(), ()):
                line = line.replace(fragment, "")
            hits += [f"{path.relative_to(PACKAGE.parent)}:{number}: {word!r}" for word in FORBIDDEN
                     if word in line.lower()]
    assert hits == [], "cite the paper itself (authors, title, section, equation):\n" + "\n".join(hits)


# -- the rest of the repository that users read ---------------------------------------------------------------------
ROOT = Path(__file__).resolve().parents[1]
# the notes' own file names point outside the repository as surely as the words above
NOTE_FILES = ("dual-acceleration-and-dykstra", "fista-esp-and-svm", "hinge-diagonal-and-homotopic")
SCANNED_DIRS = ("tests", "experiments", "tutorials/sources", "benchmarks", "problems")
SCANNED_GLOBS = ("README.md", "tutorials/*.md", "docs/*.md")
SUFFIXES = (".py", ".md", ".toml", ".json", ".txt")
SKIPPED_FILES: set = set()
ALLOWED = {   # fragments that are code, not citations, removed from a line before it is judged
    "tests/test_plugin_package.py": ("def digest(", ".digest()", "{digest(data)}"),   # SHA-256 digests of a RECORD
    "marginkit/engine/checkpoint.py": ("h.hexdigest()",),   # the SHA-256 of a checkpoint's payload
}


def _files_beside_the_package():
    found = {p for d in SCANNED_DIRS for p in (ROOT / d).rglob("*")} | {p for g in SCANNED_GLOBS for p in ROOT.glob(g)}
    return sorted(p for p in found if p.is_file() and p.suffix in SUFFIXES and p.name != Path(__file__).name
                  and not {"__pycache__", "build"} & set(p.parts) and not any(s.endswith(".egg-info") for s in p.parts)
                  and p.relative_to(ROOT).as_posix() not in SKIPPED_FILES)


def test_the_rest_of_the_repository_has_files_to_check():
    names = {p.relative_to(ROOT).as_posix() for p in _files_beside_the_package()}
    assert {"README.md", "tutorials/README.md", "docs/TRACE.md", "docs/methods.md", "tests/conftest.py",
            "experiments/raj_bach.py", "tutorials/sources/nb04_geometry_of_lp_min_norm.py", "benchmarks/runner.py",
            "problems/raj_bach_data.py"} <= names
    assert "tests/test_no_outside_references.py" not in names


def test_no_file_users_read_beside_the_package_points_outside_the_repository():
    hits = []
    for path in _files_beside_the_package():
        name = path.relative_to(ROOT).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            for fragment in ALLOWED.get(name, ()):
                line = line.replace(fragment, "")
            hits += [f"{name}:{number}: {word!r}" for word in FORBIDDEN + NOTE_FILES if word in line.lower()]
    assert hits == [], "cite the paper itself (authors, title, section, equation):\n" + "\n".join(hits)
