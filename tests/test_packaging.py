"""The package as users get it: a built wheel carries the wrappers (as
``userbench_env.wrappers``), the bundled task data, the guideline texts and the app
image script, and works from a plain (non-editable) install."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: What the wheel is built from (copied: a build writes ``build/`` in its source tree, where
#: two test processes building at once collide, and a stale one can break it).
SOURCES = ("pyproject.toml", "setup.py", "README.md", "userbench_env", "wrappers", "tasks")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    source, out = tmp_path_factory.mktemp("source"), tmp_path_factory.mktemp("wheel")
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            shutil.copy2(ROOT / name, source / name)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(source)],
        check=True,
    )
    (found,) = out.glob("userbench_env-*.whl")
    return found


def test_wheel_carries_code_and_data(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in (
        "userbench_env/wrappers/__init__.py",
        "userbench_env/bundled/airline/tasks.json",
        "userbench_env/bundled/telecom/db.toml",
        "userbench_env/bundled/banking/db.json",
        "userbench_env/bundled/retail/policy.md",
        "userbench_env/bundled/surfaces/catalog/traits.yaml",
        "userbench_env/proxies/guidelines/user.md",
        "userbench_env/proxies/guidelines/user_tools.md",
        "userbench_env/surfaces/app/docker/build_image.sh",
    ):
        assert needed in names, needed
    assert not any(n.startswith(("tests/", "bench/", "wrappers/", "tasks/")) for n in names)


def test_plain_install_imports_wrappers_and_finds_bundled_tasks(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)], check=True)
    probe = (
        "import userbench_env, userbench_env.wrappers as w\n"
        "from userbench_env.datapaths import bundled_root\n"
        "from userbench_env.tasks import load_tasks\n"
        "assert str(bundled_root()).startswith(sys.argv[1]), bundled_root()\n"
        "assert userbench_env.__file__.startswith(sys.argv[1]) and w.__file__.startswith(sys.argv[1])\n"
        "print(len(load_tasks('airline', 'bundled')), w.FidelityGate.__name__)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(target)
    out = subprocess.run(
        [sys.executable, "-c", "import sys\n" + probe, str(target)], cwd=tmp_path, env=env,
        capture_output=True, text=True, check=True,
    ).stdout.split()
    assert int(out[0]) >= 30 and out[1] == "FidelityGate"


def test_wheel_metadata_names_authors_keywords_classifiers_and_an_all_extra(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = archive.read(name).decode("utf-8")
    fields: dict[str, list[str]] = {}
    for line in metadata.split("\n\n", 1)[0].splitlines():
        key, _, value = line.partition(": ")
        fields.setdefault(key, []).append(value)
    assert fields.get("Author") or fields.get("Author-email")
    assert "gymnasium" in fields["Keywords"][0] and "user-simulation" in fields["Keywords"][0]
    assert "Programming Language :: Python :: 3.11" in fields["Classifier"]
    assert any(c.startswith("Topic :: Scientific/Engineering :: Artificial Intelligence") for c in fields["Classifier"])
    extras = set(fields["Provides-Extra"])
    (everything,) = [r for r in fields["Requires-Dist"] if r.endswith('extra == "all"')]
    named = everything.partition("userbench-env[")[2].partition("]")[0].split(",")
    assert sorted(named) == sorted(extras - {"all", "dev"})  # `all` is every extra but the test tools
