"""The agent's harness for the verifiers adapter: verifiers' ``null`` chat harness, offline.

verifiers runs a harness's program as a PEP 723 script through ``uv``
(``Runtime.prepare_uv_script``): it first makes sure a ``uv`` binary is there, and when
none is on ``PATH`` or in ``~/.local/bin`` it tries ``pip install --user uv`` and then
downloads uv's installer from the internet (``curl https://astral.sh/uv/install.sh``);
``uv sync --script`` then fetches the script's packages from PyPI. On a machine without
that network (a fresh CI machine, an offline user) setup fails with
``curl: Could not resolve host``.

The ``null`` harness's chat program declares only packages verifiers itself depends on
(openai, mcp, httpx, httpx2, tenacity, certifi), so the interpreter running verifiers
can run it as it is. :class:`UserBenchHarness` is that harness with one change: on the
local ``subprocess`` runtime, when this interpreter satisfies every requirement the
script declares (and its ``requires-python``), the script is placed where verifiers
keeps prepared scripts and registered with this interpreter, so verifiers' own launch
path runs it with no ``uv`` and no download. Otherwise (a container runtime, a missing
package) it prepares the script the usual way, through ``uv``.
"""
from __future__ import annotations

import hashlib
import os
import re
import sys
import tempfile
import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from verifiers.v1.harnesses.null.harness import NullHarness
from verifiers.v1.harnesses.utils.launch import CHAT_PROGRAM_SOURCE
from verifiers.v1.runtimes import Runtime, SubprocessRuntime

#: PEP 723's reference pattern of an inline metadata block
_METADATA_BLOCK = re.compile(r"(?m)^# /// (?P<type>[a-zA-Z0-9-]+)$\s(?P<content>(^#(| .*)$\s)+)^# ///$")


def script_metadata(source: str) -> dict[str, Any]:
    """The ``script`` metadata block of a PEP 723 script (empty when it has none)."""
    for match in _METADATA_BLOCK.finditer(source):
        if match.group("type") == "script":
            lines = match.group("content").splitlines(keepends=True)
            return tomllib.loads("".join(line[2:] if line.startswith("# ") else line[1:] for line in lines))
    return {}


def unmet_requirements(source: str) -> list[str]:
    """What this interpreter lacks to run the script: each declared requirement that no
    installed distribution satisfies, and ``requires-python`` when it does not hold."""
    metadata = script_metadata(source)
    unmet = []
    python = metadata.get("requires-python")
    if python and not SpecifierSet(python).contains(".".join(map(str, sys.version_info[:3]))):
        unmet.append(f"python{python}")
    for text in metadata.get("dependencies", []):
        requirement = Requirement(text)
        if requirement.marker is not None and not requirement.marker.evaluate():
            continue
        try:
            installed = version(requirement.name)
        except PackageNotFoundError:
            unmet.append(text)
            continue
        if not requirement.specifier.contains(installed, prereleases=True):
            unmet.append(text)
    return unmet


def prepared_script_path(runtime: SubprocessRuntime, source: str) -> str:
    """Where verifiers keeps the prepared copy of ``source`` (its content-addressed path)."""
    directory = runtime.scripts_dir if runtime.user is None else f"{runtime.scripts_dir}-{runtime.user}"
    return f"{directory}/{hashlib.sha256(source.encode()).hexdigest()}.py"


def prepare_with_this_interpreter(runtime: Runtime, source: str) -> bool:
    """Register ``source`` to run on ``sys.executable`` in ``runtime`` (see the module
    docstring); ``False`` (nothing done) when that is not possible."""
    if not isinstance(runtime, SubprocessRuntime) or unmet_requirements(source):
        return False
    path = Path(prepared_script_path(runtime, source))
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=path.parent, suffix=".tmp", delete=False, encoding="utf-8") as tmp:
        tmp.write(source)
    os.replace(tmp.name, path)  # atomic: a concurrent rollout never reads half a script
    runtime._uv_interpreters[str(path)] = sys.executable  # verifiers' record of a prepared script
    return True


class UserBenchHarness(NullHarness):
    """verifiers' ``null`` harness whose chat program runs on this interpreter (no ``uv``)."""

    async def setup(self, runtime: Runtime) -> None:
        """Prepare the chat program: on this interpreter when it can, else through ``uv``."""
        if not prepare_with_this_interpreter(runtime, CHAT_PROGRAM_SOURCE):
            await super().setup(runtime)
