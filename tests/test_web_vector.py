"""Four UserBench/Web-v0 episodes in an AsyncVectorEnv: each worker process drives its
own Chromium (found in the process tree under that worker), and the scripted players
get the expected verdicts."""
from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym
import pytest

import userbench_env  # noqa: F401  (registers the env ids)
from userbench_env.surfaces.tasks import load_surface_tasks
from userbench_env.surfaces.web.player import ScriptedWebPlayer

pytestmark = pytest.mark.browser

TASKS = ("acad-algebra-web", "acad-chemistry-web", "att-animal-welfare-web", "multi-health-knee-injury--lstyle-diet-type-web")


def _make(task_id: str):
    return lambda: gym.make("UserBench/Web-v0", task_id=task_id)


def _parent(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rsplit(")", 1)[1].split()[1])


def _browser_owners(workers: set[int]) -> list[int]:
    """For every main (non ``--type=``) headless Chromium process, the worker it runs under."""
    owners = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
            if not argv[0].endswith(b"chromium") or any(a.startswith(b"--type=") for a in argv) \
                    or b"--headless" not in b" ".join(argv):
                continue
            pid = int(proc.name)
            while pid > 1 and pid not in workers:
                pid = _parent(pid)
        except (FileNotFoundError, ProcessLookupError, ValueError, IndexError):
            continue
        if pid in workers:
            owners.append(pid)
    return owners


def test_four_episodes_in_async_vector_env() -> None:
    tasks = {t.id: t for t in load_surface_tasks("web") if t.id in TASKS}
    holds = (True, False, True, False)
    players = [ScriptedWebPlayer(tasks[tid], hold=h) for tid, h in zip(TASKS, holds)]
    envs = gym.vector.AsyncVectorEnv([_make(t) for t in TASKS], shared_memory=False)
    try:
        observations, _ = envs.reset(seed=5)
        results: dict[int, dict] = {}
        for _ in range(30):
            actions = tuple(players[i].act(observations[i]) if i not in results else json.dumps({"action": "scroll"})
                            for i in range(4))
            observations, _, terminated, truncated, infos = envs.step(actions)
            for i in range(4):
                if (terminated[i] or truncated[i]) and i not in results:
                    results[i] = {k: infos["episode_record"][k][i] for k in ("task_id", "status", "termination")}
            if len(results) == 4:
                break
        workers = {p.pid for p in envs.processes}
        owners = _browser_owners(workers)
    finally:
        envs.close()
    assert [results[i]["task_id"] for i in range(4)] == list(TASKS)
    assert [results[i]["status"] for i in range(4)] == ["pass", "fail", "pass", "fail"]
    assert sorted(owners) == sorted(workers)  # exactly one browser per worker process


def test_env_runs_inside_an_event_loop_and_from_threads() -> None:
    """The browser lives on its own thread, so envs work inside a running asyncio loop
    (the episode runner's) and from several threads sharing the one browser."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from userbench_env.surfaces.players import run_episode
    from userbench_env.surfaces.web.browser import get_browser

    tasks = {t.id: t for t in load_surface_tasks("web") if t.id in TASKS}

    def play(task_id: str, hold: bool) -> str:
        env = gym.make("UserBench/Web-v0", task_id=task_id)
        try:
            return run_episode(env, ScriptedWebPlayer(tasks[task_id], hold=hold), seed=0)["episode_record"]["status"]
        finally:
            env.close()

    async def inside_loop() -> str:
        return play(TASKS[0], True)

    assert asyncio.run(inside_loop()) == "pass"
    with ThreadPoolExecutor(max_workers=3) as pool:
        statuses = list(pool.map(play, TASKS[1:], (True, False, True)))
    assert statuses == ["pass", "fail", "pass"]
    assert get_browser() is get_browser()  # one browser for the whole process
