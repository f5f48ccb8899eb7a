"""A method from a separately installed package (``tests/plugin_package``), added through the entry-point group
``marginkit.methods``, is a method like marginkit's own: it shows up in ``methods()``, ``cross_validate``,
``marginkit compare`` and ``MarginClassifier(method=...)``; the package's deliberately broken entry point is skipped
with a ``PluginWarning`` that names it, and ``import marginkit`` itself reads no entry point.

The package is really installed, by pip, into a temporary folder (``--target``, no network: ``--no-index``), and
checked in a fresh interpreter that has the folder on its path. pip builds the wheel with setuptools
(``--no-build-isolation``); an environment where setuptools cannot build a wheel (a Python 3.12 venv has no
setuptools; a Python 3.11 venv has setuptools 65, which needs the ``wheel`` package for it) gets the same wheel written
here from the package's ``pyproject.toml``, and pip installs that.
"""
import base64
import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent / "plugin_package"
ROOT = Path(__file__).resolve().parents[1]

CHECK = r"""
import contextlib, io, json, sys, warnings
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as at_import:
    import marginkit as mk
    from marginkit.api.cli import main
from marginkit.engine.plugins import PluginWarning

out = {"import_warnings": [str(w.message) for w in at_import],
       "entry_points_read_at_import": mk.engine.plugins._STATE["entry_points"] != "unread"}
import numpy as np
rng = np.random.default_rng(0)
X = rng.standard_normal((60, 5)); y = np.sign(X[:, 0]); X[:, 0] += 0.5 * y
P = mk.MaxMargin(X, y)
with warnings.catch_warnings(record=True) as listing:
    out["methods"] = mk.methods(P)
out["plugin_warnings"] = [str(w.message) for w in listing if issubclass(w.category, PluginWarning)]
rep = mk.cross_validate(P, methods=["example-hedge", "normalized-gd"], max_iter=400, seed=0)
out["rows"] = [{k: r[k] for k in ("method", "status", "iterations", "agrees")} for r in rep.rows]
clf = mk.MarginClassifier(problem="max-margin", method="example-hedge", bias=False, max_iter=300).fit(X, y)
out["classifier_score"] = float(clf.score(X, y))
buf = io.StringIO()
with contextlib.redirect_stdout(buf):
    out["compare_rc"] = main(["compare", "digits-0-vs-1", "--quick", "--methods", "example-hedge", "--max-iter", "300"])
out["compare"] = buf.getvalue()
print(json.dumps(out))
"""


def _setuptools_builds_wheels() -> bool:
    """Whether setuptools is here and can build a wheel: ``bdist_wheel`` is its own from 70.1, before that the
    ``wheel`` package's."""
    if importlib.util.find_spec("setuptools") is None:
        return False
    if importlib.util.find_spec("wheel") is not None:
        return True
    from importlib.metadata import version
    major, minor = (int(x) for x in version("setuptools").split(".")[:2])
    return (major, minor) >= (70, 1)


def _wheel_by_hand(src: Path, folder: Path) -> Path:
    """The wheel a build backend would make of ``src`` (pure Python: its package, METADATA, WHEEL, the entry points
    of its pyproject.toml, RECORD), for an environment without setuptools."""
    tomllib = pytest.importorskip("tomllib", reason="no setuptools and no tomllib (Python 3.10) to build the plugin")
    project = tomllib.loads((src / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    dist, version = project["name"].replace("-", "_"), project["version"]
    info = f"{dist}-{version}.dist-info"
    files = {f"{p.parent.name}/{p.name}": p.read_bytes() for p in sorted(src.glob("*/*.py"))}
    files[f"{info}/METADATA"] = f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {version}\n".encode()
    files[f"{info}/WHEEL"] = (b"Wheel-Version: 1.0\nGenerator: marginkit-tests\nRoot-Is-Purelib: true\n"
                              b"Tag: py3-none-any\n")
    files[f"{info}/entry_points.txt"] = "".join(
        f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in points.items()) + "\n"
        for group, points in project["entry-points"].items()).encode()

    def digest(data: bytes) -> str:
        return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    record = "".join(f"{path},sha256={digest(data)},{len(data)}\n" for path, data in files.items())
    files[f"{info}/RECORD"] = (record + f"{info}/RECORD,,\n").encode()
    wheel = folder / f"{dist}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        for path, data in files.items():
            zf.writestr(path, data)
    return wheel


def _install(tmp_path: Path) -> Path:
    """Install the plugin package into a new folder with pip, offline; the folder."""
    src, target = tmp_path / "src", tmp_path / "site"
    shutil.copytree(PACKAGE, src, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    what = str(src) if _setuptools_builds_wheels() else str(_wheel_by_hand(src, tmp_path))
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1"}
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                           "--no-build-isolation", "--target", str(target), what],
                          capture_output=True, text=True, env=env, timeout=300, check=False)
    assert done.returncode == 0, f"pip could not install the plugin package:\n{done.stdout}\n{done.stderr}"
    assert any(target.glob("marginkit_plugin_example*.dist-info/entry_points.txt")), "installed without entry points"
    return target


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """What the fresh interpreter saw, with the plugin installed."""
    target = _install(tmp_path_factory.mktemp("plugin"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(target), str(ROOT)])}
    done = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, env=env, cwd=str(ROOT),
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_installed_plugin_method_is_listed_by_methods(installed):
    assert "example-hedge" in installed["methods"]
    assert installed["methods"][0] == "cvxpy" and "dual-accelerated" in installed["methods"]


def test_the_installed_plugin_method_is_a_row_of_cross_validate_against_the_reference(installed):
    rows = {r["method"]: r for r in installed["rows"]}
    assert set(rows) == {"cvxpy", "example-hedge", "normalized-gd"}
    hedge = rows["example-hedge"]
    assert hedge["status"] in ("optimal", "user_limit") and hedge["iterations"] <= 400
    assert hedge["agrees"] is True   # within its card's documented tolerance of the certified reference


def test_the_installed_plugin_method_runs_in_marginkit_compare_and_the_estimator(installed):
    assert installed["compare_rc"] == 0
    assert "example-hedge" in installed["compare"] and "cvxpy" in installed["compare"]
    assert installed["classifier_score"] == 1.0


def test_a_broken_entry_point_is_skipped_with_a_warning_naming_it_and_import_reads_none(installed):
    assert installed["import_warnings"] == []
    assert installed["entry_points_read_at_import"] is False
    assert len(installed["plugin_warnings"]) == 1
    assert "broken-on-purpose" in installed["plugin_warnings"][0]
    assert "marginkit_plugin_example.missing" in installed["plugin_warnings"][0]
