"""Every code block of README.md and of every ``docs/*.md`` page runs as written, every
inline ``userbench ...`` command parses, and every relative link resolves.

Conventions (for anyone adding to the README or a docs page):

* A fenced ```` ```python ```` block is executed on its own (fresh namespace, a temporary
  working directory), so it must import what it uses. A ```` ```bash ```` block runs
  command by command (``\\`` continues a line) with ``bash -e`` in one temporary
  directory; ``pip install ...`` and ``apt-get install ...`` parts of a ``&&`` chain, and
  the setup commands ``python3 -m venv ...`` and ``. .venv/bin/activate``, are not run
  (the test runs inside the installed package).
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
* A relative link ``[text](path#anchor)`` must name an existing file and, for a Markdown
  page, one of its headings (GitHub's anchor of it). Every docs page is listed in
  ``docs/index.md`` and in the README's documentation table.
* README.md stays at most 15 KB (details go to a docs page), and every line telling
  ``pip install`` to fetch torch names PyTorch's CPU index (PyPI's torch is a CUDA build).
"""
from __future__ import annotations

import json
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
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.glob("*.md"))]
SERVED = "http://127.0.0.1:8000"
MARKER = re.compile(r"<!--\s*readme-test:\s*(?P<kind>[a-z0-9-]+)\s*(?P<arg>.*?)\s*-->")
FENCE = re.compile(r"^```(?P<lang>[A-Za-z0-9_+-]*)\s*$")
INSTALLS = ("pip install ", "python -m pip install ", "apt-get install ", "sudo apt-get install ")
SETUP = ("python3 -m venv ", "python -m venv ", ". .venv/bin/activate", "source .venv/bin/activate")
NEEDS = {
    "tau2-data": resources.tau2_data,
    "tau2-golden": resources.tau2_golden,
    "apb-sample": resources.apb_sample,
    "chromium": resources.chromium,
    "local-app": resources.local_app,
    "docker": resources.docker,
    # blocks name the folder as "${USERBENCH_REAL_TRANSCRIPTS:-../shared/real-transcripts}"
    "real-transcripts": lambda: os.environ.setdefault("USERBENCH_REAL_TRANSCRIPTS", str(resources.real_transcripts().resolve())),
}
# today: the test command, serving and training a real model, two streaming-policy demos,
# cloning tau2-bench from GitHub, and learning.md's two hour-long training runs
MAX_SKIPPED_BLOCKS = 8


@dataclass
class Block:
    """One fenced code block of a page."""

    lang: str
    code: str
    line: int  # of the opening fence
    marker: tuple[str, str] | None  # (kind, argument) of the comment just above
    page: str = "README.md"

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def page_name(path: Path) -> str:
    """``path`` relative to the repository root, as messages and test ids show it."""
    return path.relative_to(ROOT).as_posix()


def readme_blocks(text: str, page: str = "README.md") -> list[Block]:
    """The fenced code blocks of ``text`` (the page ``page``) with their markers."""
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
        blocks.append(Block(opening["lang"].lower(), "\n".join(lines[i + 1:end]) + "\n", i + 1, marker, page))
        i = end + 1
    return blocks


BLOCKS = [b for path in PAGES for b in readme_blocks(path.read_text(encoding="utf-8"), page_name(path))
          if b.lang not in ("", "text")]


def shell_commands(code: str) -> list[str]:
    """The commands of a shell block: continued lines joined, comments, installs and venv setup dropped."""
    joined = re.sub(r"\s*\\\n\s*", " ", code)
    commands = []
    for line in joined.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split(" && ")]
        kept = [p for p in parts if not p.startswith(INSTALLS + SETUP)]
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
            assert arg, f"{block.where}: a skip marker must give its reason"
            pytest.skip(f"{block.where} is marked not runnable: {arg}")
        elif kind == "needs":
            assert arg in NEEDS, f"{block.where}: unknown resource {arg!r} (known: {', '.join(NEEDS)})"
            NEEDS[arg]()
        else:
            raise AssertionError(f"{block.where}: unknown readme-test marker {kind!r}")
    code = block.code
    if SERVED in code:
        code = code.replace(SERVED, request.getfixturevalue("served_address"))
    return code


@pytest.mark.parametrize("block", BLOCKS, ids=[f"{b.page}:L{b.line}-{b.lang}" for b in BLOCKS])
def test_readme_block_runs(block: Block, request, tmp_path, monkeypatch) -> None:
    assert block.lang in ("python", "bash", "sh"), f"{block.where}: unknown block language {block.lang!r}"
    code = _prepare(block, request)
    monkeypatch.chdir(tmp_path)
    if block.lang == "python":
        exec(compile(code, block.where, "exec"), {"__name__": "__readme__"})  # noqa: S102 (our own docs)
        return
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    for command in shell_commands(code):
        done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", command], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, f"{block.where}: `{command}` exited {done.returncode}:\n{done.stderr[-3000:]}"


def test_few_blocks_are_marked_not_runnable() -> None:
    skipped = [b.where for b in BLOCKS if b.marker and b.marker[0] == "skip"]
    assert len(skipped) <= MAX_SKIPPED_BLOCKS, f"blocks marked skip at {skipped}: make them run"
    readme = [b for b in BLOCKS if b.page == "README.md"]
    assert any(b.lang == "python" for b in readme) and any(b.lang == "bash" for b in readme)


def inline_commands(text: str) -> list[str]:
    """Backticked ``userbench ...`` commands in a page's prose (fenced blocks excluded)."""
    prose = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return [c for c in re.findall(r"`(userbench [^`]+)`", prose) if re.search(r"\s-", c)]


INLINE = sorted({c for path in PAGES for c in inline_commands(path.read_text(encoding="utf-8"))})


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


def test_the_user_side_hash_is_none_exactly_where_the_docs_say() -> None:
    from userbench_env.domains import make_world

    hashes = {d: make_world(d, source="bundled").db_hash("user") for d in ("airline", "retail", "telecom", "banking")}
    assert [d for d, h in hashes.items() if h is None] == ["airline", "retail"]
    assert "`None` in the single-control domains (airline, retail)" in " ".join((DOCS / "envs.md").read_text(encoding="utf-8").split())


def test_the_readme_stays_short() -> None:
    """A newcomer reads it in ten minutes; everything else lives in ``docs/`` (issue 23)."""
    size = len(README.read_bytes())
    assert size <= 15 * 1024, f"README.md is {size} bytes: move detail into a docs/ page"


def test_every_docs_page_is_listed_in_the_index_and_the_readme() -> None:
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    readme = README.read_text(encoding="utf-8")
    pages = sorted({p.name for p in DOCS.glob("*.md")} - {"index.md"})
    assert pages, "no docs pages"
    assert [p for p in pages if f"]({p})" not in index] == [], "docs/index.md does not list every page"
    assert [p for p in pages if f"](docs/{p})" not in readme] == [], "README.md does not link every docs page"


def github_anchor(heading: str) -> str:
    """GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces to dashes."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def page_anchors(path: Path) -> set[str]:
    prose = re.sub(r"^```.*?^```", "", path.read_text(encoding="utf-8"), flags=re.S | re.M)
    return {github_anchor(h) for h in re.findall(r"^#{1,6}\s+(.+?)\s*#*$", prose, flags=re.M)}


LINKS = [(page_name(path), target) for path in PAGES
         for target in re.findall(r"\]\(([^)\s]+)\)", re.sub(r"^```.*?^```", "", path.read_text(encoding="utf-8"),
                                                                 flags=re.S | re.M))
         if not re.match(r"[a-z]+:", target)]


@pytest.mark.parametrize(("page", "target"), LINKS, ids=[f"{p}->{t}" for p, t in LINKS])
def test_relative_links_resolve(page: str, target: str) -> None:
    file, _, anchor = target.partition("#")
    path = (ROOT / page).parent / file if file else ROOT / page
    name = path.resolve().relative_to(ROOT).as_posix()
    assert path.exists(), f"{page}: link to {target}, which does not exist"
    if anchor and path.suffix == ".md":
        assert anchor in page_anchors(path), f"{page}: link to {target}, but {name} has no heading #{anchor}"


def test_get_the_data_names_the_pinned_tau2_commit() -> None:
    """The README says which tau2-bench checkout the tau2 source reads; the library's
    error message says the same, and our golden fixtures were made from that commit."""
    from userbench_env.datapaths import TAU2_COMMIT, TAU2_REPOSITORY, Tau2DataNotFound, tau2_root

    section = README.read_text(encoding="utf-8").split("## Get the data", 1)[1].split("\n## ", 1)[0]
    assert TAU2_COMMIT in section and TAU2_REPOSITORY in section and "USERBENCH_TAU2_DATA" in section
    with pytest.raises(Tau2DataNotFound, match=TAU2_COMMIT):
        tau2_root(ROOT / "no-such-folder")
    meta = json.loads((resources.tau2_golden() / "meta.json").read_text(encoding="utf-8"))
    assert meta["source_commit"] == TAU2_COMMIT
    assert meta["source_repository"] in TAU2_REPOSITORY


TORCH_INSTALL = re.compile(r"pip install\b[^\n]*\btorch\b")


def test_every_torch_install_line_names_the_cpu_index() -> None:
    """Plain ``pip install torch`` (or a pin) from PyPI pulls a multi-GB CUDA build: every
    instruction we give names PyTorch's CPU index."""
    sources = [*PAGES, ROOT / "pyproject.toml", *ROOT.glob("examples/*.py"), *ROOT.glob("bench/*"),
               *(p for p in ROOT.glob("tests/*.py") if p.name != "test_readme.py")]
    offenders = [f"{page_name(path)}: {line.strip()}" for path in sources if path.is_file()
                 for line in path.read_text(encoding="utf-8").splitlines()
                 if TORCH_INSTALL.search(line) and "download.pytorch.org/whl/cpu" not in line]
    assert offenders == [], "torch installs without the CPU index:\n" + "\n".join(offenders)
