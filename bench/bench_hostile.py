"""Worst-case ``step()`` time on the hostile inputs of issue 16, one fresh process per case.

Cases (agent-side envs, tau2 source, scripted user):

* ``calculate_40``: airline ``calculate`` of a product of 40 large powers;
* ``cancel_20``: one action of 20 ``cancel_reservation`` calls on one reservation
  (each call doubles its payment history, as in tau2); ``cancel_16``: 16 such calls;
* ``grep_catastrophic``: banking ``grep`` with a catastrophically backtracking pattern;
* ``text_10mb``: a 10 MB text message to the user; ``text_100k``: the longest text the
  default limits accept.

Each case runs in its own process killed after ``--cap`` seconds (reported as ``>cap``),
so the numbers before the input policy (which may hang) and after it are comparable.
Baseline: the same case with a small, normal input in the same process. Prints a table;
asserts nothing. Run: ``python bench/bench_hostile.py [--cap 120]``.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

from _util import table

CASES: dict[str, tuple[str, str, str]] = {
    # name: (domain, hostile action, normal action of the same kind)
    "calculate_40": (
        "airline",
        json.dumps({"name": "calculate", "arguments": {"expression": "*".join(["9**99999"] * 40)}}),
        json.dumps({"name": "calculate", "arguments": {"expression": "2 * (3 + 4)"}}),
    ),
    "cancel_20": (
        "airline",
        json.dumps([{"name": "cancel_reservation", "arguments": {"reservation_id": "RESERVATION"}}] * 20),
        json.dumps([{"name": "cancel_reservation", "arguments": {"reservation_id": "RESERVATION"}}]),
    ),
    "cancel_16": (  # the most calls one action may hold under the default limits
        "airline",
        json.dumps([{"name": "cancel_reservation", "arguments": {"reservation_id": "RESERVATION"}}] * 16),
        json.dumps([{"name": "cancel_reservation", "arguments": {"reservation_id": "RESERVATION"}}]),
    ),
    "grep_catastrophic": (
        "banking",
        json.dumps({"name": "grep", "arguments": {"pattern": r"(\w+\s?)+\$\$\$"}}),
        json.dumps({"name": "grep", "arguments": {"pattern": "credit card"}}),
    ),
    "text_100k": ("airline", ("Could you tell me your user id? " * 3_200)[:100_000], "Could you tell me your user id?"),
    "text_10mb": ("airline", "Could you tell me your user id? " * 330_000, "Could you tell me your user id?"),
}

_CHILD = r"""
import json, sys, time
import gymnasium as gym
import userbench_env
domain, action = sys.argv[1], sys.stdin.read()
env = gym.make(f"UserBench/{domain.title()}-v0", task_source="tau2", max_turns=1000).unwrapped
env.reset(seed=0)
if "RESERVATION" in action:
    action = action.replace("RESERVATION", next(iter(env.world.agent_db["reservations"])))
start = time.perf_counter()
observation, *_ = env.step(action)
print(json.dumps({"seconds": time.perf_counter() - start, "observation_chars": len(observation)}))
"""


def run_case(domain: str, action: str, cap: float) -> str:
    """The step time of ``action`` in a fresh process, or ``>cap`` when it was killed."""
    try:
        done = subprocess.run([sys.executable, "-c", _CHILD, domain], input=action, capture_output=True, text=True,
                              timeout=cap, check=True)
    except subprocess.TimeoutExpired:
        return f">{cap:.0f} s"
    except subprocess.CalledProcessError as exc:
        return f"raised: {exc.stderr.strip().splitlines()[-1][:60]}"
    found = json.loads(done.stdout.strip().splitlines()[-1])
    return f"{found['seconds']:.3f} s (obs {found['observation_chars']} chars)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cap", type=float, default=120.0, help="seconds before a case's process is killed")
    parser.add_argument("--case", action="append", choices=sorted(CASES), help="run only these cases")
    args = parser.parse_args()
    rows = []
    for name in args.case or CASES:
        domain, hostile, normal = CASES[name]
        started = time.perf_counter()
        rows.append((name, run_case(domain, normal, args.cap), run_case(domain, hostile, args.cap)))
        print(f"{name}: {time.perf_counter() - started:.1f} s wall", file=sys.stderr)
    print(table(rows, ("case", "normal input step", "hostile input step")))


if __name__ == "__main__":
    main()
