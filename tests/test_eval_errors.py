"""Errors of ``eval`` and ``frontier`` that used to mislead (issue 23, item 5).

Each is one line on stderr with what to do: an unknown task id names ``userbench tasks``;
stored infrastructure errors are counted in the headline, suggest ``--retry-errors`` and,
when nothing was measured, exit non-zero; missing credentials and an unreachable server
fail before the first episode (nothing written); a run whose episodes keep failing stops
after ``--max-consecutive-errors``; ``frontier --q`` must lie in (0, 1]. LLM cases go over
real HTTP to the local chat server.
"""
from __future__ import annotations

import socket

import pytest

import userbench_env  # noqa: F401  (registers the env ids)
from userbench_env.cli import main
from userbench_env.runner.store import EpisodeStore
from userbench_env.serve import CannedResponder, ChatServer, FaultSchedule, Reply

AIRLINE = ["eval", "--domain", "airline", "--no-progress"]


def _one_line(err: str) -> str:
    text = err.strip()
    assert "\n" not in text and "Traceback" not in text, err
    return text


def test_an_unknown_task_id_says_so_and_names_the_listing_command(tmp_path, capsys) -> None:
    out = tmp_path / "run.jsonl"
    assert main(AIRLINE + ["--task-id", "nonsense", "--task-id", "airline_cancel_business_0", "--out", str(out)]) == 2
    error = _one_line(capsys.readouterr().err)
    assert error == ("userbench eval: unknown task id nonsense in airline (source bundled, split default): "
                     "`userbench tasks --domain airline` lists the task ids")
    assert not out.exists()


def _rejecting_server() -> ChatServer:
    return ChatServer(CannedResponder([Reply(text="unused")]), faults=FaultSchedule(["401"], repeat=True))


def test_stored_errors_are_counted_suggest_retry_errors_and_exit_nonzero(tmp_path, capsys) -> None:
    out = tmp_path / "run.jsonl"
    with _rejecting_server() as server:
        args = AIRLINE + ["--limit", "2", "--proxy", "direct:local", "--base-url", server.base_url, "--proxy-retries", "0",
                          "--out", str(out)]
        assert main(args) == 1
        capsys.readouterr()
        assert main(args) == 1  # resumed: nothing run, every stored episode an error
    captured = capsys.readouterr()
    assert f"0 episodes run, 2 already in {out}, 2 infrastructure errors" in captured.out
    assert "every episode run ended in an infrastructure error (2)" in captured.err
    assert "run the same command with --retry-errors" in captured.err


def test_some_stored_errors_still_suggest_retry_errors(tmp_path, capsys) -> None:
    out = tmp_path / "run.jsonl"
    with ChatServer(CannedResponder([Reply(text="###STOP###")]), faults="401") as server:  # only the first request fails
        args = AIRLINE + ["--limit", "2", "--concurrency", "1", "--proxy", "direct:local", "--base-url", server.base_url,
                          "--proxy-retries", "0", "--out", str(out)]
        assert main(args) == 0
    captured = capsys.readouterr()
    assert "2 episodes run, 0 already in" in captured.out and ", 1 infrastructure errors" in captured.out
    assert "1 of 2 episodes ended in an infrastructure error" in captured.err and "--retry-errors" in captured.err


@pytest.mark.parametrize("role", ["--proxy", "--agent"])
def test_missing_credentials_fail_before_the_first_episode(tmp_path, capsys, monkeypatch, role) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    out = tmp_path / "run.jsonl"
    assert main(AIRLINE + [role, "litellm:openai/gpt-4.1-mini", "--out", str(out)]) == 2  # no --limit: 46 episodes
    error = _one_line(capsys.readouterr().err)
    assert error.startswith("userbench eval: openai/gpt-4.1-mini: missing credentials: set OPENAI_API_KEY")
    assert not out.exists()


def test_an_unreachable_server_fails_before_the_first_episode(tmp_path, capsys) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    out = tmp_path / "run.jsonl"
    url = f"http://127.0.0.1:{port}/v1"
    assert main(AIRLINE + ["--proxy", "direct:local", "--base-url", url, "--out", str(out)]) == 2
    error = _one_line(capsys.readouterr().err)
    assert error.startswith(f"userbench eval: cannot reach {url}/chat/completions: ")
    assert error.endswith("is the server running there?")
    assert not out.exists()


def test_a_run_whose_episodes_keep_failing_stops_after_a_streak(tmp_path, capsys) -> None:
    out = tmp_path / "run.jsonl"
    with _rejecting_server() as server:  # reachable, but rejects every request (a revoked key, say)
        code = main(AIRLINE + ["--proxy", "direct:local", "--base-url", server.base_url, "--proxy-retries", "0",
                               "--concurrency", "2", "--max-consecutive-errors", "4", "--out", str(out)])
        requests = server.stats.requests
    error = _one_line(capsys.readouterr().err)
    assert code == 1
    assert error.startswith("userbench eval: stopped after 4 infrastructure errors in a row (last: ProxyError: ")
    assert error.endswith(f"they are stored in {out}: fix the cause, then run the same command with --retry-errors")
    stored = list(EpisodeStore(out).records())
    assert 4 <= len(stored) <= 6 and all(r["error"] for r in stored)  # not 46: the streak and those in flight
    assert requests <= 6


@pytest.mark.parametrize("q", ["1.5", "0", "-0.1", "nan"])
def test_frontier_refuses_a_required_fidelity_outside_0_1(q, capsys) -> None:
    assert main(["frontier", "--points", "unused.csv", "--q", q]) == 2
    error = _one_line(capsys.readouterr().err)
    assert error == f"userbench frontier: a required UFS q must be in (0, 1], got {float(q):g}"
