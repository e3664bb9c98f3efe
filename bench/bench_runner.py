"""Runner throughput against the ideal, at concurrency 1, 8, 64 and 256.

Setting: the scripted oracle agent on bundled airline tasks; the user is an LLM proxy
(``litellm:openai/local-user``) talking real HTTP through real litellm to the local
OpenAI-compatible server (``userbench serve --responder scripted-user``, a separate
process) with a fixed 100 ms latency per reply; every record goes to a JSONL store
(fsync per episode), as in ``userbench eval``.

Baseline ("ideal"): ``concurrency / episode latency``, where the episode latency is the
mean wall time of one episode run alone (concurrency 1). The ratio is measured
throughput / ideal. A second series replaces the HTTP proxy with an in-process
scripted user that sleeps 100 ms per reply, separating the runner's own overhead from
litellm's per-call CPU cost. Prints tables; asserts nothing.
Run: ``python bench/bench_runner.py [--levels 1,8,64,256] [--per-slot 2]``.
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


def run_level(make_proxy: Callable[[], Any], concurrency: int, episodes: int, out: Path) -> tuple[float, int, float]:
    """(wall seconds, user replies, process CPU seconds) for ``episodes`` episodes."""
    tasks = load_tasks(DOMAIN, "bundled", None)
    writer = StoreWriter(EpisodeStore(out))
    replies = 0

    def make_env(_cell: Any) -> ConversationEnv:
        return ConversationEnv(DOMAIN, "bundled", split=None, user_proxy=make_proxy())

    def sink(record: dict[str, Any]) -> None:
        nonlocal replies
        if record["error"]:
            raise RuntimeError(record["error"])
        replies += sum(1 for m in record["messages"] if m["role"] == "user")
        writer.submit(record)

    async def main() -> None:
        await run_jobs(jobs, make_env, concurrency, sink)
        await writer.drain()

    jobs = [Job(EpisodeMeta(key=f"{i}", task_id=tasks[i % len(tasks)].id, options={"task_id": tasks[i % len(tasks)].id}),
                "cell", agent_factory("scripted")) for i in range(episodes)]
    cpu, start = time.process_time(), time.perf_counter()
    asyncio.run(main())
    return time.perf_counter() - start, replies, time.process_time() - cpu


def series(name: str, make_proxy: Callable[[], Any], levels: list[int], per_slot: int, folder: Path) -> list[tuple[str, ...]]:
    """One row per concurrency level, the ideal from the concurrency-1 episode latency."""
    rows = []
    latency = None
    run_level(make_proxy, 2, 4, folder / f"{name}-warmup.jsonl")  # imports, connection pools, caches
    for c in levels:
        episodes = max(8, per_slot * c) if c > 1 else 16
        wall, replies, cpu = run_level(make_proxy, c, episodes, folder / f"{name}-{c}.jsonl")
        if latency is None:
            latency = wall / episodes if c == 1 else None
        throughput = episodes / wall
        ideal = c / latency if latency else float("nan")
        rows.append((name, str(c), str(episodes), f"{replies / episodes:.1f}", f"{wall / episodes * c:.3f}",
                     f"{throughput:.2f}", f"{ideal:.2f}", f"{throughput / ideal:.2f}", f"{cpu / replies * 1000:.2f}"))
        print(" | ".join(rows[-1]), flush=True)
    return rows


def main() -> None:
    """Run both series and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", default="1,8,64,256")
    parser.add_argument("--per-slot", type=int, default=2, help="episodes per concurrency slot")
    parser.add_argument("--only", choices=["http", "sleep"], help="run one series")
    args = parser.parse_args()
    levels = [int(x) for x in args.levels.split(",")]
    if levels[0] != 1:
        levels = [1, *levels]
    rows: list[tuple[str, ...]] = []
    with tempfile.TemporaryDirectory() as tmp:
        if args.only in (None, "sleep"):
            rows += series("in-process 100 ms", SleepyScriptedUser, levels, args.per_slot, Path(tmp))
        if args.only in (None, "http"):
            proc, base_url = start_server()
            try:
                def llm() -> LLMUserProxy:
                    return LLMUserProxy("openai/local-user", base_url=base_url, api_key="sk-local", max_retries=2,
                                        backoff=0.05, timeout=120, price_override=FREE)
                rows += series("litellm HTTP 100 ms", llm, levels, args.per_slot, Path(tmp))
            finally:
                proc.terminate()
                proc.wait(timeout=30)
    print()
    print(table(rows, ("user", "concurrency", "episodes", "replies/ep", "episode latency s", "episodes/s", "ideal/s",
                       "ratio", "client CPU ms/reply")))


if __name__ == "__main__":
    main()
