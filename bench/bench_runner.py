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
mean wall time of one episode run alone, over every task: concurrency 1 plays each task
once in the same series (its ratio is its own throughput against that mean).

Throughput at a level above 1 is the steady state of a long run: the runner is fed an
endless stream of episodes (the tasks in turn) for ``--seconds``; episodes finishing
after a ramp of three episode latencies and before the stream stops are counted over
that window (a finite batch would also measure its start-up convoy and its drain tail,
where fewer than ``concurrency`` episodes are in flight). The ratio is throughput /
ideal. Client CPU (process time of the benchmark process only, the separate server
excluded) is reported per user reply and per episode over the whole level. Prints
tables; asserts nothing.
Run: ``python bench/bench_runner.py [--levels 1,8,64,256] [--seconds 8] [--only direct]``.

Real-model mode (``--real-model``): the user is SmolLM2-135M-Instruct served by
``userbench models serve`` (a separate process, ``--parallel`` = the highest level) and
reached with the direct transport; each level plays ``max(level, --episodes)`` episodes
(at most ``--max-turns`` agent turns, ``--max-tokens`` per reply) and reports episodes/s
and the share of wall time spent in our code: the benchmark process's CPU time (env,
fidelity checks, runner, store, HTTP client) over the level's wall time; the rest is
waiting for the model. Goal: under 1%.
Run: ``python bench/bench_runner.py --real-model [--levels 1,4,16] [--episodes 4]``.
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
from typing import Any, Callable, Iterator

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
    """What one run measured: wall and process CPU seconds, user replies, and each
    episode's task, duration (its own wall time) and finish time."""

    def __init__(self) -> None:
        self.start = self.wall = self.cpu = 0.0
        self.replies = 0
        self.episodes: list[tuple[str, float, float]] = []


def run_level(make_proxy: Callable[[], Any], concurrency: int, out: Path, episodes: int | None = None,
              seconds: float | None = None, max_turns: int = 100) -> Level:
    """Play the tasks in turn at ``concurrency``: ``episodes`` of them, or as many as
    start within ``seconds``."""
    tasks = load_tasks(DOMAIN, "bundled", None)
    writer = StoreWriter(EpisodeStore(out))
    level = Level()

    def make_env(_cell: Any) -> ConversationEnv:
        return ConversationEnv(DOMAIN, "bundled", split=None, user_proxy=make_proxy(), max_turns=max_turns)

    def sink(record: dict[str, Any]) -> None:
        if record["error"]:
            raise RuntimeError(record["error"])
        level.replies += sum(1 for m in record["messages"] if m["role"] == "user")
        level.episodes.append((record["task_id"], record["duration_s"], time.perf_counter()))
        writer.submit(record)

    def jobs() -> Iterator[Job]:
        deadline = level.start + seconds if seconds is not None else float("inf")
        i = 0
        while (episodes is None or i < episodes) and time.perf_counter() < deadline:
            task_id = tasks[i % len(tasks)].id
            yield Job(EpisodeMeta(key=f"{i}", task_id=task_id, options={"task_id": task_id}), "cell",
                      agent_factory("scripted"))
            i += 1

    async def main() -> None:
        await run_jobs(jobs(), make_env, concurrency, sink)
        await writer.drain()

    cpu, level.start = time.process_time(), time.perf_counter()
    asyncio.run(main())
    level.wall, level.cpu = time.perf_counter() - level.start, time.process_time() - cpu
    return level


def series(name: str, make_proxy: Callable[[], Any], levels: list[int], seconds: float, folder: Path) -> dict[int, Row]:
    """One row per concurrency level (by level); see the module docstring for the method."""
    rows: dict[int, Row] = {}
    run_level(make_proxy, 2, folder / f"{name}-warmup.jsonl", episodes=4)  # imports, connection pools, caches
    tasks = load_tasks(DOMAIN, "bundled", None)
    alone = run_level(make_proxy, 1, folder / f"{name}-1.jsonl", episodes=len(tasks))
    latency = sum(d for _, d, _ in alone.episodes) / len(alone.episodes)
    for c in levels:
        level = alone if c == 1 else run_level(make_proxy, c, folder / f"{name}-{c}.jsonl", seconds=seconds)
        if c == 1:
            counted, window = level.episodes, level.wall
        else:
            begin = level.start + 3 * latency
            end = level.start + seconds
            counted, window = [e for e in level.episodes if begin <= e[2] <= end], end - begin
        throughput, ideal = len(counted) / window, c / latency
        done = len(level.episodes)
        rows[c] = (name, str(c), str(done), f"{level.replies / done:.1f}", f"{latency:.3f}",
                   f"{sum(d for _, d, _ in counted) / max(1, len(counted)):.3f}", f"{throughput:.2f}", f"{ideal:.2f}",
                   f"{throughput / ideal:.2f}", f"{level.cpu / level.replies * 1000:.2f}", f"{level.cpu / done * 1000:.2f}")
        print(" | ".join(rows[c]), flush=True)
    return rows


def llm_user(base_url: str, transport: str) -> Callable[[], LLMUserProxy]:
    """A factory of LLM user proxies on the local server through ``transport``."""
    def make() -> LLMUserProxy:
        return LLMUserProxy("openai/local-user", base_url=base_url, api_key="sk-local", max_retries=2, backoff=0.05,
                            timeout=120, price_override=FREE, transport=transport)
    return make


SERIES = ("litellm", "direct", "in-process")


def real_model(levels: list[int], episodes: int, max_turns: int, max_tokens: int, folder: Path) -> None:
    """The real-model mode (see the module docstring): one row per level."""
    from userbench_env.serve.gguf import DEFAULT_MODEL_NAME
    from userbench_env.serve.model_server import LocalModelServer

    started = time.perf_counter()
    with LocalModelServer(parallel=max(levels), max_tokens_cap=max_tokens) as server:
        print(f"model server up in {time.perf_counter() - started:.0f} s at {server.base_url}", flush=True)

        def make() -> LLMUserProxy:
            return LLMUserProxy(DEFAULT_MODEL_NAME, base_url=server.base_url, max_retries=0, timeout=1800,
                                transport="direct", max_tokens=max_tokens,
                                price_override={DEFAULT_MODEL_NAME: {"input": 0, "output": 0}})

        run_level(make, 1, folder / "real-warmup.jsonl", episodes=1, max_turns=2)
        rows = []
        for c in levels:
            n = max(c, episodes)
            level = run_level(make, c, folder / f"real-{c}.jsonl", episodes=n, max_turns=max_turns)
            rows.append((str(c), str(n), f"{level.replies / n:.1f}", f"{level.wall:.1f}", f"{n / level.wall:.4f}",
                         f"{level.cpu:.2f}", f"{level.cpu / level.replies * 1000:.1f}",
                         f"{100 * level.cpu / level.wall:.2f}%"))
            print(" | ".join(rows[-1]), flush=True)
    print()
    print(table(rows, ("concurrency", "episodes", "replies/ep", "wall s", "episodes/s", "our CPU s", "our CPU ms/reply",
                       "our share of wall")))


def main() -> None:
    """Run the series and print the detail table and the side-by-side ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", help="concurrency levels (default 1,8,64,256; real-model mode 1,4,16)")
    parser.add_argument("--seconds", type=float, default=8.0, help="length of each level above 1")
    parser.add_argument("--only", choices=SERIES, action="append", help="run only these series (repeatable)")
    parser.add_argument("--real-model", action="store_true", help="SmolLM2 on `userbench models serve` as the user")
    parser.add_argument("--episodes", type=int, default=4, help="real-model mode: episodes per level (at least the level)")
    parser.add_argument("--max-turns", type=int, default=4, help="real-model mode: agent turns per episode")
    parser.add_argument("--max-tokens", type=int, default=32, help="real-model mode: tokens per user reply")
    args = parser.parse_args()
    if args.real_model:
        with tempfile.TemporaryDirectory() as tmp:
            real_model([int(x) for x in (args.levels or "1,4,16").split(",")], args.episodes, args.max_turns,
                       args.max_tokens, Path(tmp))
        return
    levels = [int(x) for x in (args.levels or "1,8,64,256").split(",")]
    if levels[0] != 1:
        levels = [1, *levels]
    chosen = [name for name in SERIES if name in (args.only or SERIES)]
    results: dict[str, dict[int, Row]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        if "in-process" in chosen:
            results["in-process"] = series("in-process", SleepyScriptedUser, levels, args.seconds, Path(tmp))
        if {"litellm", "direct"} & set(chosen):
            proc, base_url = start_server()
            try:
                for name in ("direct", "litellm"):
                    if name in chosen:
                        results[name] = series(name, llm_user(base_url, name), levels, args.seconds, Path(tmp))
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
