"""Runner throughput against the ideal, at concurrency 1, 8, 64 and 256.

Setting: the scripted oracle agent on bundled airline tasks; the user is an LLM proxy
talking real HTTP to the local OpenAI-compatible server (``userbench serve --responder
scripted-user``, a separate process, so it does not share the client's core) with a
fixed 100 ms latency per reply; every record goes to a JSONL store (group-committed
with fsync), as in ``userbench eval``. Three series:

* ``litellm``: ``LLMUserProxy(transport="litellm")`` (real litellm over HTTP);
* ``direct``: ``LLMUserProxy(transport="direct")`` (our pooled aiohttp client);
* ``in-process``: a scripted user that sleeps 100 ms per reply (no HTTP): the runner's
  and env's own overhead.

Baseline ("ideal"): ``concurrency / episode latency``, where the episode latency is the
mean wall time of the level's episodes each run alone: concurrency 1 plays every task
once in the same series, and a level's mean is taken over the tasks it played (so a
level with longer tasks is not compared with shorter ones). The ratio is measured
throughput / ideal; levels above 1 play ``--per-slot`` episodes per slot so the
start-up and drain tails weigh little. Client CPU (process time of the benchmark process only)
is reported per user reply and per episode. Prints tables; asserts nothing.
Run: ``python bench/bench_runner.py [--levels 1,8,64,256] [--per-slot 2] [--only direct]``.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from _util import table  # noqa: E402

from userbench_env.envs.conversation import ConversationEnv  # noqa: E402
from userbench_env.proxies.base import UserTurn, UserView  # noqa: E402
from userbench_env.proxies.llm import LLMUserProxy  # noqa: E402
from userbench_env.proxies.scripted import ScriptedUserProxy  # noqa: E402
from userbench_env.runner.agents import agent_factory  # noqa: E402
from userbench_env.runner.engine import Job, run_jobs  # noqa: E402
from userbench_env.runner.record import EpisodeMeta  # noqa: E402
from userbench_env.runner.store import EpisodeStore  # noqa: E402
from userbench_env.runner.writer import StoreWriter  # noqa: E402
from userbench_env.tasks import load_tasks  # noqa: E402

LATENCY = 0.1
FREE = {"openai/local-user": {"input": 0, "output": 0}}
DOMAIN = "airline"


class SleepyScriptedUser(ScriptedUserProxy):
    """The scripted user answering after an ``asyncio.sleep`` of the server's latency."""

    async def arespond(self, view: UserView) -> UserTurn:
        """Sleep, then answer in-process."""
        await asyncio.sleep(LATENCY)
        return self.respond(view)


def start_server() -> tuple[subprocess.Popen[str], str]:
    """``userbench serve`` on a free port in its own process; (process, base URL)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "userbench_env.cli", "serve", "--responder", "scripted-user", "--domain", DOMAIN,
         "--latency", str(LATENCY), "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    found = re.search(r"(http://[\d.]+:\d+/v1)", line)
    if not found:
        proc.kill()
        raise RuntimeError(f"server did not start: {line}")
    return proc, found.group(1)


Row = tuple[str, ...]


class Level:
    """What one run of episodes measured: wall and process CPU seconds, user replies,
    and each episode's task and duration (its own wall time, from its record)."""

    def __init__(self) -> None:
        self.wall = self.cpu = 0.0
        self.replies = 0
        self.durations: list[tuple[str, float]] = []


def run_level(make_proxy: Callable[[], Any], concurrency: int, episodes: int, out: Path) -> Level:
    """Play ``episodes`` episodes (cycling through the tasks) at ``concurrency``."""
    tasks = load_tasks(DOMAIN, "bundled", None)
    writer = StoreWriter(EpisodeStore(out))
    level = Level()

    def make_env(_cell: Any) -> ConversationEnv:
        return ConversationEnv(DOMAIN, "bundled", split=None, user_proxy=make_proxy())

    def sink(record: dict[str, Any]) -> None:
        if record["error"]:
            raise RuntimeError(record["error"])
        level.replies += sum(1 for m in record["messages"] if m["role"] == "user")
        level.durations.append((record["task_id"], record["duration_s"]))
        writer.submit(record)

    async def main() -> None:
        await run_jobs(jobs, make_env, concurrency, sink)
        await writer.drain()

    jobs = [Job(EpisodeMeta(key=f"{i}", task_id=tasks[i % len(tasks)].id, options={"task_id": tasks[i % len(tasks)].id}),
                "cell", agent_factory("scripted")) for i in range(episodes)]
    cpu, start = time.process_time(), time.perf_counter()
    asyncio.run(main())
    level.wall, level.cpu = time.perf_counter() - start, time.process_time() - cpu
    return level


def series(name: str, make_proxy: Callable[[], Any], levels: list[int], per_slot: int, folder: Path) -> dict[int, Row]:
    """One row per concurrency level (by level).

    Concurrency 1 plays every task once: each task's episode latency alone. A level's
    ideal is ``concurrency / mean latency alone of the episodes it played`` (same task mix).
    """
    rows: dict[int, Row] = {}
    run_level(make_proxy, 2, 4, folder / f"{name}-warmup.jsonl")  # imports, connection pools, caches
    alone: dict[str, float] = {}
    for c in levels:
        episodes = len(load_tasks(DOMAIN, "bundled", None)) if c == 1 else per_slot * c
        level = run_level(make_proxy, c, episodes, folder / f"{name}-{c}.jsonl")
        if c == 1:
            alone = dict(level.durations)
        latency = sum(alone[task] for task, _ in level.durations) / episodes
        measured = sum(d for _, d in level.durations) / episodes
        throughput, ideal = episodes / level.wall, c / latency
        rows[c] = (name, str(c), str(episodes), f"{level.replies / episodes:.1f}", f"{latency:.3f}", f"{measured:.3f}",
                   f"{throughput:.2f}", f"{ideal:.2f}", f"{throughput / ideal:.2f}",
                   f"{level.cpu / level.replies * 1000:.2f}", f"{level.cpu / episodes * 1000:.2f}")
        print(" | ".join(rows[c]), flush=True)
    return rows


def llm_user(base_url: str, transport: str) -> Callable[[], LLMUserProxy]:
    """A factory of LLM user proxies on the local server through ``transport``."""
    def make() -> LLMUserProxy:
        return LLMUserProxy("openai/local-user", base_url=base_url, api_key="sk-local", max_retries=2, backoff=0.05,
                            timeout=120, price_override=FREE, transport=transport)
    return make


SERIES = ("litellm", "direct", "in-process")


def main() -> None:
    """Run the series and print the detail table and the side-by-side ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", default="1,8,64,256")
    parser.add_argument("--per-slot", type=int, default=4, help="episodes per concurrency slot (levels > 1)")
    parser.add_argument("--only", choices=SERIES, action="append", help="run only these series (repeatable)")
    args = parser.parse_args()
    levels = [int(x) for x in args.levels.split(",")]
    if levels[0] != 1:
        levels = [1, *levels]
    chosen = [name for name in SERIES if name in (args.only or SERIES)]
    results: dict[str, dict[int, Row]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        if "in-process" in chosen:
            results["in-process"] = series("in-process", SleepyScriptedUser, levels, args.per_slot, Path(tmp))
        if {"litellm", "direct"} & set(chosen):
            proc, base_url = start_server()
            try:
                for name in ("direct", "litellm"):
                    if name in chosen:
                        results[name] = series(name, llm_user(base_url, name), levels, args.per_slot, Path(tmp))
            finally:
                proc.terminate()
                proc.wait(timeout=30)
    names = [name for name in SERIES if name in results]
    print()
    print(table([row for name in names for row in results[name].values()],
                ("user", "concurrency", "episodes", "replies/ep", "latency alone s", "latency here s", "episodes/s",
                 "ideal/s", "ratio", "client CPU ms/reply", "client CPU ms/episode")))
    print()
    print(table([(str(c), *(f"{results[n][c][8]} ({results[n][c][10]} ms)" for n in names)) for c in levels],
                ("concurrency", *(f"{n}: ratio (CPU/episode)" for n in names))))


if __name__ == "__main__":
    main()
