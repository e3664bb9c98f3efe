"""Every code block of README.md runs as written, and every inline ``userbench ...``
command parses.

Conventions (for anyone adding to the README):

* A fenced ```` ```python ```` block is executed on its own (fresh namespace, a temporary
  working directory), so it must import what it uses. A ```` ```bash ```` block runs
  command by command (``\\`` continues a line) with ``bash -e`` in one temporary
  directory; ``pip install ...`` and ``apt-get install ...`` parts of a ``&&`` chain are
  not run (the test runs inside the installed package).
* An address ``http://127.0.0.1:8000`` in a block is served: the test starts our local
  OpenAI-compatible server (the scripted user of every bundled task) and puts its real
  address in the block's place, so LLM examples run offline.
* An HTML comment on the line just above the fence changes how a block runs:
  ``<!-- readme-test: needs tau2-data -->`` (or ``tau2-golden``, ``apb-sample``,
  ``chromium``, ``local-app``, ``docker``) skips it with a named reason when that resource
  is missing (a failure under ``USERBENCH_REQUIRE_ALL=1``); a Python block that reaches
  tau2 data without saying so is skipped the same way (``conftest.py``);
  ``<!-- readme-test: skip REASON -->`` never runs it (only for what cannot run in a
  test, e.g. the test command itself; keep these few).
* Blocks without a language (or ``text``) are not code.
* An inline command in backticks that starts with ``userbench `` and has a flag must
  parse with the real argument parser (``[...]`` optional parts are dropped;
  placeholders are fine); ``userbench grade`` alone just names a command.
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

import resources

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
SERVED = "http://127.0.0.1:8000"
MARKER = re.compile(r"<!--\s*readme-test:\s*(?P<kind>[a-z0-9-]+)\s*(?P<arg>.*?)\s*-->")
FENCE = re.compile(r"^```(?P<lang>[A-Za-z0-9_+-]*)\s*$")
INSTALLS = ("pip install ", "python -m pip install ", "apt-get install ", "sudo apt-get install ")
NEEDS = {
    "tau2-data": resources.tau2_data,
    "tau2-golden": resources.tau2_golden,
    "apb-sample": resources.apb_sample,
    "chromium": resources.chromium,
    "local-app": resources.local_app,
    "docker": resources.docker,
}
MAX_SKIPPED_BLOCKS = 6  # today: the test command, serving and training a real model, two streaming-policy demos


@dataclass
class Block:
    """One fenced code block of the README."""

    lang: str
    code: str
    line: int  # of the opening fence
    marker: tuple[str, str] | None  # (kind, argument) of the comment just above


def readme_blocks(text: str) -> list[Block]:
    """The fenced code blocks of ``text`` with their markers."""
    lines = text.splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        above = next((lines[j] for j in range(i - 1, -1, -1) if lines[j].strip()), "")
        found = MARKER.search(above)
        marker = (found["kind"], found["arg"]) if found else None
        blocks.append(Block(opening["lang"].lower(), "\n".join(lines[i + 1:end]) + "\n", i + 1, marker))
        i = end + 1
    return blocks


BLOCKS = [b for b in readme_blocks(README.read_text(encoding="utf-8")) if b.lang not in ("", "text")]


def shell_commands(code: str) -> list[str]:
    """The commands of a shell block: continued lines joined, comments and installs dropped."""
    joined = re.sub(r"\s*\\\n\s*", " ", code)
    commands = []
    for line in joined.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split(" && ")]
        kept = [p for p in parts if not p.startswith(INSTALLS)]
        if kept:
            commands.append(" && ".join(kept))
    return commands


@pytest.fixture(scope="module")
def served_address():
    """The local server playing the scripted user of every bundled task (started on first use)."""
    from userbench_env.runner.evaluation import bundled_domains
    from userbench_env.serve import ChatServer
    from userbench_env.serve.responders import ScriptedUserResponder
    from userbench_env.tasks import load_tasks

    tasks = [task for domain in bundled_domains() for task in load_tasks(domain, "bundled", split=None)]
    with ChatServer(ScriptedUserResponder(tasks), record=False) as server:
        yield server.base_url.removesuffix("/v1")


def _prepare(block: Block, request: pytest.FixtureRequest) -> str:
    """The block's code to run (skipping or failing first as its marker says)."""
    if block.marker is not None:
        kind, arg = block.marker
        if kind == "skip":
            assert arg, f"README.md:{block.line}: a skip marker must give its reason"
            pytest.skip(f"README.md:{block.line} is marked not runnable: {arg}")
        elif kind == "needs":
            assert arg in NEEDS, f"README.md:{block.line}: unknown resource {arg!r} (known: {', '.join(NEEDS)})"
            NEEDS[arg]()
        else:
            raise AssertionError(f"README.md:{block.line}: unknown readme-test marker {kind!r}")
    code = block.code
    if SERVED in code:
        code = code.replace(SERVED, request.getfixturevalue("served_address"))
    return code


@pytest.mark.parametrize("block", BLOCKS, ids=[f"L{b.line}-{b.lang}" for b in BLOCKS])
def test_readme_block_runs(block: Block, request, tmp_path, monkeypatch) -> None:
    assert block.lang in ("python", "bash", "sh"), f"README.md:{block.line}: unknown block language {block.lang!r}"
    code = _prepare(block, request)
    monkeypatch.chdir(tmp_path)
    if block.lang == "python":
        exec(compile(code, f"README.md:{block.line}", "exec"), {"__name__": "__readme__"})  # noqa: S102 (our README)
        return
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    for command in shell_commands(code):
        done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", command], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, f"README.md:{block.line}: `{command}` exited {done.returncode}:\n{done.stderr[-3000:]}"


def test_few_blocks_are_marked_not_runnable() -> None:
    skipped = [b.line for b in BLOCKS if b.marker and b.marker[0] == "skip"]
    assert len(skipped) <= MAX_SKIPPED_BLOCKS, f"README blocks marked skip at lines {skipped}: make them run"
    assert any(b.lang == "python" for b in BLOCKS) and any(b.lang == "bash" for b in BLOCKS)


def inline_commands(text: str) -> list[str]:
    """Backticked ``userbench ...`` commands in the README's prose (fenced blocks excluded)."""
    prose = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return [c for c in re.findall(r"`(userbench [^`]+)`", prose) if re.search(r"\s-", c)]


INLINE = inline_commands(README.read_text(encoding="utf-8"))


@pytest.mark.parametrize("command", INLINE)
def test_readme_inline_command_parses(command: str) -> None:
    from userbench_env.cli import build_parser

    words = shlex.split(re.sub(r"\s*\[[^\]]*\]", "", command))[1:]
    try:
        build_parser().parse_args(words)
    except SystemExit as stop:  # --help and --version exit 0
        assert stop.code == 0, f"`{command}` does not parse (exit {stop.code})"


def test_the_readme_names_every_variable_the_tests_read() -> None:
    """The variables that decide what the tests find (shared data, tools, strictness)."""
    text = README.read_text(encoding="utf-8")
    sources = [ROOT / "tests" / "resources.py", ROOT / "tests" / "conftest.py", ROOT / "userbench_env" / "datapaths.py",
               ROOT / "userbench_env" / "surfaces" / "web" / "browser.py"]
    read = {name for path in sources for name in re.findall(r"\b(USERBENCH_[A-Z0-9_]+)\b", path.read_text(encoding="utf-8"))}
    assert {"USERBENCH_TAU2_DATA", "USERBENCH_TAU2_GOLDEN", "USERBENCH_APB_SAMPLE", "USERBENCH_REQUIRE_ALL"} <= read
    missing = sorted(name for name in read if name not in text)
    assert not missing, f"README.md does not document {missing}"


def test_readme_block_parsing() -> None:
    sample = ("text\n<!-- readme-test: needs tau2-data -->\n```python\nx = 1\n```\n\n```bash\n"
              "pip install -e . && userbench eval \\\n  --domain airline\n# note\nuserbench report x\n```\n```\nlayout\n```\n")
    python, bash, plain = readme_blocks(sample)
    assert (python.lang, python.code, python.line, python.marker) == ("python", "x = 1\n", 3, ("needs", "tau2-data"))
    assert bash.marker is None and shell_commands(bash.code) == ["userbench eval --domain airline", "userbench report x"]
    assert plain.lang == ""
    assert inline_commands("run `userbench report x.jsonl --json`, `userbench grade` or `ls`\n```bash\nuserbench eval -h\n```\n") \
        == ["userbench report x.jsonl --json"]


def test_the_user_side_hash_is_none_exactly_where_the_readme_says() -> None:
    from userbench_env.domains import make_world

    hashes = {d: make_world(d, source="bundled").db_hash("user") for d in ("airline", "retail", "telecom", "banking")}
    assert [d for d, h in hashes.items() if h is None] == ["airline", "retail"]
    assert "`None` in the single-control domains (airline, retail)" in " ".join(README.read_text(encoding="utf-8").split())
