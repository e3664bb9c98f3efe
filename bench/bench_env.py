"""Env overhead per domain (airline, retail, telecom, banking; tau2 source), against named baselines.

Measures, with the scripted user proxy and the scripted oracle agent (whose own time is
not counted):

* set-up: first ``load_tasks`` and first ``make_world`` of the process (the domain's base
  DB parsed once), later ``make_world`` calls (copy-on-write fork + initial state),
  ``db_hash`` of a fresh world, ``reset()``;
* ``step()`` by kind: a text turn (the proxy answers in text), a text turn in which the
  user runs a tool, an agent tool-call turn, the terminal step (which evaluates R_tau);
* a telecom turn in which the user makes several tool calls before answering;
* tool calls through ``World.call`` (the calls tau2's spec times, arguments from the
  golden probes);
* memory per extra env instance after ``reset()`` (tracemalloc and RSS).

Baselines: one LLM call of 100 ms (the "rounding error" principle: env overhead per step
must be a small fraction of it) and tau2 1.0.1's numbers on this machine from
``../shared/specs/tau2.md`` section 10. Prints tables; asserts nothing.
Run: ``python bench/bench_env.py [--tasks N]``.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import time
import tracemalloc
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from _util import median_time, table

from userbench_env.agents import ScriptedAgent
from userbench_env.core.messages import ToolCall
from userbench_env.domains import make_world
from userbench_env.envs.conversation import ConversationEnv
from userbench_env.proxies.base import UserTurn, UserView
from userbench_env.proxies.scripted import ScriptedUserProxy
from userbench_env.tasks import load_task, load_tasks

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"

DOMAINS = ("airline", "retail", "telecom", "banking")
LLM_CALL_MS = 100.0
BASELINE = "tau2 1.0.1, specs/tau2.md s.10"

#: tau2 1.0.1 on this machine (specs/tau2.md section 10): build env ms, DB hash ms,
#: end-to-end UserGymEnv.reset() ms (None: not published), Python objects retained per env (MB),
#: and typical tool calls in microseconds.
TAU2: dict[str, dict[str, Any]] = {
    "airline": {"build": 333.0, "hash": 75.0, "reset": 870.0, "retained_mb": 24.0,
                "calls": {"get_user_details": 34, "search_direct_flight": 42, "search_onestop_flight": 503}},
    "retail": {"build": 50.0, "hash": 35.0, "reset": 513.0, "retained_mb": 12.0,
               "calls": {"get_order_details": 39, "find_user_id_by_email": 8, "list_all_product_types": 21}},
    "telecom": {"build": 2.5, "hash": 0.16, "reset": 1705.0, "retained_mb": 0.2,
                "calls": {"get_customer_by_phone": 27, "check_status_bar": 13, "run_speed_test": 12,
                          "toggle_data_saver_mode": 13}},
    "banking": {"build": 69.0, "hash": 3.4, "reset": None, "retained_mb": 7.0,
                "calls": {"get_user_information_by_id": 51, "KB_search": 373, "grep": 4039}},
}
GOLDEN_NAME = {"banking": "banking_knowledge"}

PHONE_CHECKS = ("check_status_bar", "check_network_status", "run_speed_test", "toggle_data", "toggle_data")


class PhoneChecker(ScriptedUserProxy):
    """The scripted user, except that after the opening it runs ``PHONE_CHECKS`` on the phone, then answers."""

    def respond(self, view: UserView) -> UserTurn:
        if view.turn == 0:
            return super().respond(view)
        last_agent = max(i for i, m in enumerate(view.messages) if m.role == "assistant")
        done = sum(1 for m in view.messages[last_agent + 1:] if m.role == "tool")
        if done < len(PHONE_CHECKS):
            return UserTurn(tool_call=ToolCall(name=PHONE_CHECKS[done], requestor="user"))
        return UserTurn(text="I ran all the checks.")


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3f}"


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:.0f}"


def _ratio(baseline: float | None, ours: float) -> str:
    """How many times less time (or memory) we take than the baseline."""
    if baseline is None or ours <= 0:
        return "n/a"
    ratio = baseline / ours
    return f"{ratio:.1f}x" if ratio >= 1 else f"{ratio:.2g}x"


def _timed(func: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    value = func()
    return time.perf_counter() - start, value


def _rss_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def setup_costs(domain: str) -> dict[str, float]:
    """First/later load_tasks and make_world, and the DB hash of a fresh world (seconds)."""
    first_tasks, tasks = _timed(lambda: load_tasks(domain, "tau2"))
    first_world, _ = _timed(lambda: make_world(domain, "tau2", tasks[0]))
    later = median_time(lambda: make_world(domain, "tau2", tasks[1]), repeat=30)
    hashes = []
    for task in tasks[:10]:
        world = make_world(domain, "tau2", task)
        hashes.append(_timed(world.db_hash)[0])
    return {"load_tasks_first": first_tasks, "make_world_first": first_world, "make_world": later,
            "db_hash": statistics.median(hashes)}


def episode_costs(domain: str, n_tasks: int) -> dict[str, list[float]]:
    """Per-kind step times and reset times over the first ``n_tasks`` base tasks."""
    env = ConversationEnv(domain, task_source="tau2")
    agent = ScriptedAgent()
    times: dict[str, list[float]] = {"reset": [], "text turn": [], "text turn + user tool": [], "tool turn": [],
                                     "terminal step": []}
    for task in env.tasks[:n_tasks]:
        spent, (observation, info) = _timed(partial(env.reset, options={"task_id": task.id}))
        times["reset"].append(spent)
        agent.reset(env.task)
        done = False
        while not done:
            action = agent.act(observation, info)
            before = info["user_tool_calls"]
            spent, (observation, _, terminated, truncated, info) = _timed(partial(env.step, action))
            done = terminated or truncated
            if done:
                kind = "terminal step"
            elif action.startswith("{"):
                kind = "tool turn"
            else:
                kind = "text turn + user tool" if info["user_tool_calls"] > before else "text turn"
            times[kind].append(spent)
    return times


def tool_call_costs(domain: str) -> dict[str, float]:
    """Median time of tau2's named typical calls through ``World.call`` (arguments from the golden probes)."""
    golden = Path(os.environ.get("USERBENCH_TAU2_GOLDEN", SHARED / "tau2-golden"))
    probes = json.loads((golden / GOLDEN_NAME.get(domain, domain) / "probes.json").read_text(encoding="utf-8"))
    result = {}
    for name in TAU2[domain]["calls"]:
        probe, call = next((p, c) for p in probes for c in p["calls"] if c["name"] == name and not c["error"])
        task = load_task(domain, probe["setup_task"], "tau2") if probe["setup_task"] else None
        world = make_world(domain, "tau2", task)
        result[name] = median_time(partial(world.call, name, call["arguments"], requestor=call["requestor"]), repeat=50)
    return result


def multi_call_turn(repeat: int = 30) -> tuple[float, float]:
    """Median telecom ``step()`` in which the user runs ``PHONE_CHECKS`` before answering, and a text turn."""
    task_id = load_tasks("telecom", "tau2")[0].id
    env = ConversationEnv("telecom", task_source="tau2", user_proxy=PhoneChecker())
    plain = ConversationEnv("telecom", task_source="tau2")
    many, single = [], []
    for _ in range(repeat):
        env.reset(options={"task_id": task_id})
        spent, (_, _, _, _, info) = _timed(lambda: env.step("Please run a few checks on your phone."))
        assert info["user_tool_calls"] == len(PHONE_CHECKS), info
        many.append(spent)
        plain.reset(options={"task_id": task_id})
        single.append(_timed(lambda: plain.step("Could you please tell me your phone number?"))[0])
    return statistics.median(many), statistics.median(single)


def memory_per_env(domain: str, extra: int = 10) -> tuple[float, float]:
    """Bytes per extra env instance after ``reset()``: tracemalloc-retained and RSS growth."""
    task_id = load_tasks(domain, "tau2")[0].id
    warm = ConversationEnv(domain, task_source="tau2")
    warm.reset(options={"task_id": task_id})
    gc.collect()
    rss_before = _rss_bytes()
    tracemalloc.start()
    envs = []
    for _ in range(extra):
        env = ConversationEnv(domain, task_source="tau2")
        env.reset(options={"task_id": task_id})
        envs.append(env)
    gc.collect()
    traced, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss = _rss_bytes() - rss_before
    return traced / extra, rss / extra


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=30, help="base tasks per domain for the step timings")
    args = parser.parse_args()

    setup = {d: setup_costs(d) for d in DOMAINS}
    episodes = {d: episode_costs(d, args.tasks) for d in DOMAINS}
    med = {d: {k: statistics.median(v) if v else None for k, v in episodes[d].items()} for d in DOMAINS}

    print(f"Set-up (ms, tau2 source). Baseline: {BASELINE}; 'x' = tau2 time / ours.")
    rows = []
    for d in DOMAINS:
        s, t = setup[d], TAU2[d]
        rows.append((d, _ms(s["load_tasks_first"]), _ms(s["make_world_first"]), _ms(s["make_world"]),
                     f"{t['build']}", _ratio(t["build"] / 1e3, s["make_world"]), _ms(s["db_hash"]), f"{t['hash']}",
                     _ratio(t["hash"] / 1e3, s["db_hash"]), _ms(med[d]["reset"]), f"{t['reset']}",
                     _ratio(t["reset"] / 1e3 if t["reset"] else None, med[d]["reset"])))
    print(table(rows, ("domain", "load_tasks 1st", "make_world 1st", "make_world", "tau2 build", "x",
                       "db_hash", "tau2 hash", "x", "reset()", "tau2 reset", "x")))

    print(f"\nstep() overhead (us, medians over the first {args.tasks} base tasks; scripted proxy).")
    print(f"Baseline: one LLM call = {LLM_CALL_MS:.0f} ms ('% LLM' = share of it); 'vs airline' = ours / airline.")
    kinds = ("text turn", "text turn + user tool", "tool turn", "terminal step")
    rows = []
    for d in DOMAINS:
        for kind in kinds:
            value = med[d][kind]
            if value is None:
                continue
            base = med["airline"][kind]
            rows.append((d, kind, str(len(episodes[d][kind])), _us(value), f"{value * 1e3 / LLM_CALL_MS * 100:.3f}%",
                         f"{value / base:.2f}" if base else "n/a"))
    print(table(rows, ("domain", "step kind", "n", "median us", "% LLM", "vs airline")))

    many, single = multi_call_turn()
    print(f"\nTelecom turn with {len(PHONE_CHECKS)} user tool calls ({', '.join(PHONE_CHECKS)}) before the answer:")
    print(table([("user runs 5 tools, then text", _us(many), _us(many / len(PHONE_CHECKS)),
                  f"{many * 1e3 / LLM_CALL_MS * 100:.3f}%", f"{many / single:.1f}"),
                 ("plain text turn", _us(single), "-", f"{single * 1e3 / LLM_CALL_MS * 100:.3f}%", "1.0")],
                ("turn", "median us", "us per user call", "% LLM", "vs text turn")))

    print(f"\nTool calls through World.call (us, medians). Baseline: {BASELINE}; 'x' = tau2 / ours.")
    rows = []
    for d in DOMAINS:
        for name, ours in tool_call_costs(d).items():
            theirs = TAU2[d]["calls"][name]
            rows.append((d, name, _us(ours), str(theirs), _ratio(theirs / 1e6, ours)))
    print(table(rows, ("domain", "tool", "ours us", "tau2 us", "x")))

    print(f"\nMemory per extra env instance after reset() (10 extra envs). Baseline: {BASELINE} (retained objects).")
    rows = []
    for d in DOMAINS:
        traced, rss = memory_per_env(d)
        theirs = TAU2[d]["retained_mb"]
        rows.append((d, f"{traced / 1024:.1f}", f"{rss / 1024:.0f}", f"{theirs * 1024:.0f}",
                     _ratio(theirs * 1024 * 1024, traced)))
    print(table(rows, ("domain", "ours traced KB", "ours RSS KB", "tau2 retained KB", "x")))


if __name__ == "__main__":
    main()
