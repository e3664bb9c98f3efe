"""Cost of ``userbench score-transcripts`` on tau-bench's 92 GPT-4o airline trajectories.

Measures, side by side (medians over repeats, after warm-up):

* read: ``json.load`` of the file alone (the floor any reader pays);
* score (cold): :func:`score_file` in a fresh process state: the tau2 airline tasks loaded
  and converted, every task's rule plan compiled, the file read and every trajectory scored
  (what one command run costs beyond Python's start-up and imports);
* score (warm): :func:`score_file` again with the tasks and plans in hand;
* env replay, the named baseline: the same 92 conversations replayed through the env
  itself (``ConversationEnv`` on tau2 airline, the user replaying GPT-4o's turns, the agent
  replaying the recorded actions against the world), which reaches the same verdicts
  (``tests/test_transcripts.py`` checks that they agree).

Ratios are against the env replay. Also the end-to-end wall time of the command in a fresh
interpreter (imports included), once.

Run: ``USERBENCH_TAU2_DATA=... python bench/bench_transcripts.py [--repeat 5]``
(the trajectories are read from ``$USERBENCH_REAL_TRANSCRIPTS``, default ``../shared/real-transcripts``).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _util import median_time, table  # noqa: E402

from userbench_env.fidelity.transcripts import TaskChoice, score_file  # noqa: E402
from userbench_env.fidelity.transcripts.scoring import Plans  # noqa: E402
from userbench_env.fidelity.transcripts.tasks import TaskIndex  # noqa: E402

FILE = Path(os.environ.get("USERBENCH_REAL_TRANSCRIPTS")
            or Path(__file__).resolve().parents[2] / "shared" / "real-transcripts") / "taubench-gpt4o-airline.json"
CHOICE = TaskChoice("airline", source="tau2")


def replay_in_env(entries: list[dict]) -> None:
    """Every entry replayed through the conversation env (see the module docstring)."""
    from userbench_env.envs.conversation import ConversationEnv
    from userbench_env.proxies.replay import ReplayUserProxy

    for entry in entries:
        user = ReplayUserProxy([{"text": m["content"]} for m in entry["traj"] if m["role"] == "user"])
        env = ConversationEnv("airline", task_source="tau2", task_id=entry["tau2_task_id"], user_proxy=user, max_errors=1000)
        env.reset(seed=0)
        done = False
        for message in entry["traj"]:
            if message["role"] == "assistant" and not done:
                calls = [{"name": c["function"]["name"], "arguments": json.loads(c["function"]["arguments"])}
                         for c in message.get("tool_calls") or ()]
                _, _, terminated, truncated, _ = env.step(calls or message["content"])
                done = terminated or truncated
        if not done:
            env.end_episode("max_turns")


def cold_score() -> None:
    """Tasks loaded and plans compiled afresh, then every trajectory scored."""
    from userbench_env.tasks import loader

    loader._cache.clear()
    score_file(FILE, "taubench", CHOICE, plans=Plans())


def command_seconds() -> float:
    """Wall time of the whole command in a fresh interpreter (start-up and imports included)."""
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "userbench_env.cli", "score-transcripts", str(FILE), "--format", "taubench",
                        "--domain", "airline", "--source", "tau2", "--out", str(Path(folder) / "f.jsonl")],
                       check=True, capture_output=True)
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per measure")
    args = parser.parse_args()
    entries = json.loads(FILE.read_text(encoding="utf-8"))
    n = len(entries)
    index, plans = TaskIndex.from_source("airline", "tau2"), Plans()
    measures = {
        "read (json.load)": median_time(lambda: json.loads(FILE.read_text(encoding="utf-8")), args.repeat, 1),
        "score (cold: tasks, plans, scoring)": median_time(cold_score, args.repeat, 1),
        "score (warm)": median_time(lambda: score_file(FILE, "taubench", CHOICE, index=index, plans=plans), args.repeat, 1),
        "env replay (baseline)": median_time(lambda: replay_in_env(entries), args.repeat, 1),
    }
    baseline = measures["env replay (baseline)"]
    rows = [(name, f"{seconds:.3f}", f"{seconds / n * 1e3:.2f}", f"{seconds / baseline:.3f}")
            for name, seconds in measures.items()]
    print(f"{n} tau-bench trajectories ({FILE.name}), median of {args.repeat}")
    print(table(rows, ("measure", "seconds", "ms/episode", "x env replay")))
    print(f"whole command in a fresh interpreter (imports included): {command_seconds():.2f} s")


if __name__ == "__main__":
    main()
