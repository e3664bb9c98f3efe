"""The store survives SIGKILL: a killed ``userbench eval`` resumed ends with every episode exactly once."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from userbench_env.runner.evaluation import EvalConfig, plan, run_eval
from userbench_env.runner.store import EpisodeStore

ARGS = ["--domain", "telecom", "--domain", "airline", "--trials", "2", "--concurrency", "4", "--no-progress"]


def _eval(out: Path) -> list[str]:
    return [sys.executable, "-m", "userbench_env.cli", "eval", *ARGS, "--out", str(out)]


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    return env


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True) if path.exists() else []


def test_sigkill_mid_run_then_resume_gives_every_episode_exactly_once(tmp_path) -> None:
    out = tmp_path / "runs.jsonl"
    planned = [m.key for m in plan(EvalConfig(domains=["telecom", "airline"], trials=2, out=str(out)))]
    assert len(planned) == len(set(planned)) > 100
    proc = subprocess.Popen(_eval(out), env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while len(_lines(out)) < 20 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    assert proc.poll() is None, "the run ended before it could be killed: " + proc.stderr.read().decode()[-2000:]
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    before = _lines(out)
    complete_before = [line for line in before if line.endswith("\n")]
    assert 20 <= len(complete_before) < len(planned)

    resumed = subprocess.run(_eval(out), env=_env(), capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert f"{len(planned) - len(complete_before)} episodes run, {len(complete_before)} already in" in resumed.stdout
    after = _lines(out)
    assert after[: len(complete_before)] == complete_before  # finished episodes are never rewritten
    assert all(line.endswith("\n") for line in after)
    keys = [json.loads(line)["key"] for line in after]
    assert sorted(keys) == sorted(planned)  # every episode exactly once
    assert "R_tau" in resumed.stdout and "telecom" in resumed.stdout and "airline" in resumed.stdout


def test_torn_tail_is_skipped_and_cut_before_the_next_append(tmp_path) -> None:
    store = EpisodeStore(tmp_path / "runs.jsonl")
    store.append({"key": "a", "error": None})
    with store.path.open("a", encoding="utf-8") as handle:
        handle.write('{"key": "b", "err')  # a writer killed mid-line
    assert [r["key"] for r in store.records()] == ["a"]
    store.append({"key": "c", "error": None})
    assert store.path.read_text(encoding="utf-8") == '{"key": "a", "error": null}\n{"key": "c", "error": null}\n'


def test_retry_errors_reruns_only_infrastructure_errors(tmp_path) -> None:
    out = tmp_path / "runs.jsonl"
    config = EvalConfig(domains=["airline"], limit=4, out=str(out), progress=False, concurrency=2)
    first = run_eval(config)
    assert (first.planned, first.ran, first.errors) == (4, 4, 0)
    store = EpisodeStore(out)
    records = list(store.records())
    broken = dict(records[1], error="ProxyError: provider down", termination="error", reward=0.0)
    store.append(broken)  # as if that episode had failed on its last attempt
    assert run_eval(config).ran == 0  # without --retry-errors nothing is redone
    again = run_eval(config.model_copy(update={"retry_errors": True}))
    assert (again.skipped, again.ran) == (3, 1)
    latest = store.latest()
    assert latest[broken["key"]]["error"] is None and latest[broken["key"]]["reward"] == 1.0
    assert len(list(store.records())) == 6  # 4 + the error + its retry; the history stays


def test_group_commit_writes_every_submitted_record_once_and_reports_failures(tmp_path) -> None:
    import asyncio

    from userbench_env.runner.writer import StoreWriter

    async def burst(writer: StoreWriter, n: int) -> None:
        for i in range(n):
            writer.submit({"key": f"k{i}"})
        await writer.write({"key": "last"})
        await writer.drain()

    store = EpisodeStore(tmp_path / "runs.jsonl")
    asyncio.run(burst(StoreWriter(store), 50))
    assert [r["key"] for r in store.records()] == [f"k{i}" for i in range(50)] + ["last"]
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")

    async def failing() -> None:
        writer = StoreWriter(EpisodeStore(blocker / "runs.jsonl"))
        for i in range(3):
            writer.submit({"key": f"k{i}"})
        await writer.drain()

    with pytest.raises(OSError):
        asyncio.run(failing())


def test_running_stats_exclude_errors_from_rates() -> None:
    from userbench_env.runner.progress import RunningStats

    stats = RunningStats()
    for record in ({"reward": 1.0, "ufs_pass": True, "user_cost_usd": 0.5}, {"reward": 0.0, "ufs_pass": False},
                   {"reward": 1.0, "ufs_pass": None, "user_cost_usd": 0.25},
                   {"reward": 0.0, "error": "ProxyError: down", "user_cost_usd": 0.25}):
        stats.add(record)
    assert (stats.episodes, stats.errors, stats.r_tau, stats.ufs, stats.cost) == (3, 1, 2 / 3, 1 / 2, 1.0)
    assert stats.postfix() == {"R_tau": "0.667", "UFS": "0.500", "cost": "$1.00", "errors": "1"}
