"""One style for every ``userbench`` subcommand: help text on every subcommand and flag,
defaults shown, ``--version``, ``--source bundled`` with ``--data-path`` wherever tasks are
read, install hints that work for a wheel and a clone, and user errors as one line with exit 2 (no
traceback), including a closed pipe and a busy port. New subcommands and flags are
checked here without being listed."""
from __future__ import annotations

import argparse
import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from userbench_env.cli import HelpFormatter, build_parser, main

ROOT = Path(__file__).resolve().parents[1]


def _parsers(parser: argparse.ArgumentParser, name: str = "userbench"):
    """Every (command path, parser, help of the subcommand) below ``parser``."""
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for sub, subparser in action.choices.items():
                assert helps.get(sub), f"`{name} {sub}` has no help text in `{name} --help`"
                yield from _parsers(subparser, f"{name} {sub}")


ALL = list(_parsers(build_parser()))


def test_every_subcommand_and_flag_has_help_and_the_shared_formatter() -> None:
    assert len(ALL) >= 10
    for name, parser in ALL:
        assert parser.formatter_class is HelpFormatter, f"{name} does not use the shared help formatter"
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                continue
            assert action.help, f"{name}: {action.option_strings or action.dest} has no help text"


def test_help_pages_show_defaults() -> None:
    for name, parser in ALL:
        page = parser.format_help()
        for action in parser._actions:
            shown = action.option_strings and action.default not in (None, False, argparse.SUPPRESS) \
                and action.default is not True and not isinstance(action.default, list)
            if shown and action.help and "default" not in action.help.lower():
                flag = action.option_strings[-1]
                assert re.search(rf"{re.escape(flag)}.*?\(default:\s", page, re.S), f"{name} {flag}: default not shown"
    eval_page = " ".join(dict(ALL)["userbench eval"].format_help().split())
    assert "(default: bundled)" in eval_page and "(default: 8)" in eval_page


def test_version(capsys) -> None:
    from importlib.metadata import version

    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0 and capsys.readouterr().out.strip() == f"userbench {version('userbench-env')}"


def test_every_task_reading_command_defaults_to_bundled_and_takes_data_path() -> None:
    readers = {name for name, parser in ALL if any("--source" in a.option_strings for a in parser._actions)}
    assert {"userbench eval", "userbench serve", "userbench validate-fidelity", "userbench generate-rubrics"} <= readers
    for name, parser in ALL:
        options = {o: a for a in parser._actions for o in a.option_strings}
        if "--source" in options:
            assert options["--source"].default == "bundled", name
            assert "--data-path" in options, f"{name} reads tasks but has no --data-path"


def test_install_hints_work_for_a_wheel_and_a_clone() -> None:
    """A hint names ``pip install "userbench-env[x]"`` (an installed wheel) and ``pip install
    -e ".[x]"`` (a clone, where the first cannot resolve), composed by ``extra_hint`` alone;
    an extra needing torch starts with torch's CPU build (the rule for every torch line of
    the docs, examples and tests is in ``test_readme.py``)."""
    from userbench_env.errors import TORCH_CPU_HINT, extra_hint
    from userbench_env.runner.ray_backend import MISSING_RAY

    assert 'pip install "userbench-env[ray]"' in MISSING_RAY and 'pip install -e ".[ray]"' in MISSING_RAY
    assert TORCH_CPU_HINT.endswith("--index-url https://download.pytorch.org/whl/cpu")
    assert extra_hint("local").startswith(TORCH_CPU_HINT + ", then ") and "torch" not in extra_hint("web")
    hand_written = [str(p.relative_to(ROOT)) for p in ROOT.glob("userbench_env/**/*.py") if p.name != "errors.py"
                    and re.search(r"pip install -e ['\"]\.\[", p.read_text(encoding="utf-8"))]
    assert hand_written == []


def _run(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "userbench_env.cli", *args], capture_output=True, text=True,
                          timeout=120, cwd=kwargs.pop("cwd", None), **kwargs)


def _one_line_error(done: subprocess.CompletedProcess, command: str) -> str:
    assert done.returncode == 2, done
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"userbench {command}: "), done.stderr
    return lines[0]


@pytest.mark.parametrize("args, command, says", [
    (["serve", "--domain", "atlantis"], "serve", "unknown domain 'atlantis'"),
    (["serve", "--source", "tau2", "--domain", "airline", "--data-path", "/nonexistent"], "serve", "/nonexistent"),
    (["validate-fidelity", "--domain", "airline", "--source", "tau2", "--data-path", "/nonexistent"],
     "validate-fidelity", "not a tau2-bench data folder"),
    (["generate-rubrics", "--domain", "airline", "--source", "tau2", "--data-path", "/nonexistent", "--out", "x",
      "--writer", "a", "--verifier", "b"], "generate-rubrics", "not a tau2-bench data folder"),
    (["eval", "--domain", "airline", "--max-turns", "0", "--out", "x.jsonl"], "eval", "max_turns"),
    (["report", "missing.jsonl"], "report", "no run store at missing.jsonl"),
])
def test_user_errors_are_one_line_and_exit_2(tmp_path, args, command, says) -> None:
    assert says in _one_line_error(_run(*args, cwd=tmp_path), command)


def test_a_closed_pipe_ends_quietly(tmp_path) -> None:
    """``userbench report --json | head``: the reader is gone before the output is written."""
    store = tmp_path / "runs.jsonl"
    assert main(["eval", "--domain", "airline", "--limit", "2", "--no-progress", "--out", str(store)]) == 0
    read_end, write_end = os.pipe()
    os.close(read_end)  # every write now fails with EPIPE, as after `head` exits
    try:
        writer = subprocess.run([sys.executable, "-m", "userbench_env.cli", "report", str(store), "--json"],
                                stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write_end)
    assert writer.returncode == 1 and writer.stderr == ""


def test_serve_on_a_busy_port_is_one_line() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        line = _one_line_error(_run("serve", "--responder", "canned", "--port", str(port)), "serve")
    assert f"cannot listen on 127.0.0.1:{port}" in line


def test_plots_without_matplotlib_is_one_line_before_any_output(tmp_path, monkeypatch, capsys) -> None:
    store = tmp_path / "runs.jsonl"
    assert main(["eval", "--domain", "airline", "--limit", "1", "--no-progress", "--out", str(store)]) == 0
    capsys.readouterr()
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if the plot extra were not installed
    for command in ("report", "frontier"):
        assert main([command, str(store), "--plots", str(tmp_path / "figs")]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.strip() == (f"userbench {command}: --plots needs the Python package 'matplotlib', "
                                             'which is not installed: pip install "userbench-env[plot]" '
                                             '(from a clone: pip install -e ".[plot]")')


def test_eval_judge_deferred_leaves_verdicts_that_grade_fills_in(tmp_path, monkeypatch, capsys) -> None:
    """``eval --judge deferred --rubrics DIR`` keeps the rubric's judge criteria pending in the
    store; ``grade`` then grades them with a judge behind the local server."""
    from userbench_env.core.rubric import Criterion, Rubric
    from userbench_env.fidelity.rubrics import save_rubric
    from userbench_env.runner.store import EpisodeStore
    from userbench_env.serve import CannedResponder, ChatServer
    from userbench_env.tasks import load_tasks

    task = load_tasks("airline", "bundled")[0]
    criterion = Criterion(id="generated/0-self_contradiction", family="groundedness", mode="self_contradiction",
                          statement="The customer never contradicts an earlier statement.",
                          grounding="Stay in character for the whole conversation.", check="judge")
    save_rubric(tmp_path / "rubrics", "bundled", "airline",
                Rubric(task_id=task.id, version="1", generator="test", criteria=[criterion]))
    store = tmp_path / "runs.jsonl"
    assert main(["eval", "--domain", "airline", "--task-id", task.id, "--no-progress", "--judge", "deferred",
                 "--rubrics", str(tmp_path / "rubrics"), "--out", str(store)]) == 0
    [record] = EpisodeStore(store).records()
    [judged] = [c for c in record["criteria"] if c["id"] == criterion.id]
    assert judged["verdict"] == "pending" and record["ufs_pass"] is None
    monkeypatch.setenv("LOCAL_JUDGE_KEY", "sk-local")
    passed = json.dumps({"verdict": "pass", "evidence_turn": None, "reasoning": "Consistent throughout."})
    with ChatServer(CannedResponder([passed])) as server:
        assert main(["grade", str(store), "--judge", "openai/judge", "--judge-base-url", server.base_url,
                     "--judge-api-key-env", "LOCAL_JUDGE_KEY"]) == 0
        assert server.stats.requests == 1
    [record] = EpisodeStore(store).records()
    [judged] = [c for c in record["criteria"] if c["id"] == criterion.id]
    assert judged["verdict"] == "pass" and record["ufs_pass"] is True


def test_a_handler_value_error_has_no_traceback_unless_asked(monkeypatch, capsys) -> None:
    import userbench_env.analysis.cli as analysis_cli

    def broken(args):
        raise ValueError("bad value\nover two lines")

    monkeypatch.setattr(analysis_cli, "run_report", broken)
    assert main(["report", "x.jsonl"]) == 2
    assert capsys.readouterr().err == "userbench report: bad value over two lines\n"
    monkeypatch.setenv("USERBENCH_TRACEBACK", "1")
    with pytest.raises(ValueError, match="bad value"):
        main(["report", "x.jsonl"])


def test_json_outputs_stay_machine_readable(tmp_path, capsys) -> None:
    store = tmp_path / "runs.jsonl"
    assert main(["eval", "--domain", "retail", "--limit", "1", "--no-progress", "--out", str(store)]) == 0
    capsys.readouterr()
    assert main(["report", str(store), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["episodes"] == 1
