"""Cost of the incremental rule checks in ``step()``.

Four measures, for tau2 airline, retail and telecom with the scripted oracle agent:

* A/B: the same episodes in an env with every ``from_blueprint`` criterion and in one with
  none; per task the two run alternately (ABBA) several times and each keeps its fastest episode
  (thread CPU time summed over its steps, the terminal step's verdicts included; ``reset()``,
  where the tracker and its verdict table are built, is not part of it). Loaded
  data is frozen out of the garbage collector's scans after a warm-up (``gc.freeze``).
  This difference is noisy on a shared machine, so it is measured in many independent
  repetitions and reported as their median, interquartile range and range, beside an A/A
  control (two envs without criteria, measured the same way, alternating with the A/B
  repetitions): the spread a zero difference shows on the same machine at the same time;
* in situ: the wall time spent inside the rule tracker during ``step()`` (its hooks and the
  terminal verdicts; the opening turn, fed during ``reset()``, excluded), net of the same
  measurement in an env without criteria (the timers and the empty tracker's calls), as µs
  per step and as a share of the rest of the step time, with the scripted user and with an
  LLM user (litellm over HTTP to the local server, the scripted user behind it: the
  realistic path);
* bytecode: the Python bytecode instructions ``step()`` executes over the same episodes in
  both envs (counted with ``sys.settrace`` opcode events), the extra ones as a share of
  the baseline's. Deterministic, so it shows a change the timings cannot resolve; it does
  not weigh instructions or count work in C (regex searches, dict copies);
* cold: the tracker alone replaying the recorded transcripts, per message, with its memoized
  readings cleared and the plans compiled afresh (their per-text analyses empty) before every
  replay (compiling is not timed).

Run: ``USERBENCH_TAU2_DATA=... python bench/bench_fidelity.py [--tasks 30 --rounds 8 --repeats 15]``
(fewer for a quick look: ``--tasks 10 --rounds 4 --repeats 5``).
"""
from __future__ import annotations

import gc
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _util import table  # noqa: E402

from userbench_env.agents import ScriptedAgent  # noqa: E402
from userbench_env.envs.conversation import ConversationEnv  # noqa: E402
from userbench_env.fidelity import RuleTracker, task_criteria  # noqa: E402
from userbench_env.fidelity.rules import compile_rules  # noqa: E402
from userbench_env.fidelity.text import clear_caches  # noqa: E402


class TimedTracker(RuleTracker):
    """A rule tracker that accumulates the wall time spent in its hooks (class-wide)."""

    spent = 0.0

    def agent_text(self, turn: int, text: str) -> None:
        start = time.perf_counter()
        super().agent_text(turn, text)
        TimedTracker.spent += time.perf_counter() - start

    def user_text(self, turn: int, text: str) -> list[str]:
        start = time.perf_counter()
        out = super().user_text(turn, text)
        TimedTracker.spent += time.perf_counter() - start
        return out

    def tool_call(self, turn: int, call: Any, result: Any) -> None:
        start = time.perf_counter()
        super().tool_call(turn, call, result)
        TimedTracker.spent += time.perf_counter() - start

    def verdicts(self) -> list[dict]:
        start = time.perf_counter()
        out = super().verdicts()
        TimedTracker.spent += time.perf_counter() - start
        return out


class TimedEnv(ConversationEnv):
    """The conversation env with its rule tracker timed (the share of step time spent in rules)."""

    def _reset_machine(self, seed: Any, options: Any) -> Any:
        result = yield from super()._reset_machine(seed, options)
        timed = TimedTracker([])
        timed.__dict__.update(self.tracker.__dict__)
        self.tracker = timed
        return result


class NoRulesEnv(ConversationEnv):
    """The conversation env with no fidelity criteria (the baseline)."""

    def criteria_for(self, task: Any) -> list[Any]:
        return []


class TimedNoRulesEnv(TimedEnv, NoRulesEnv):
    """The baseline with its (empty) tracker timed: what the in-situ timing costs by itself."""


def episode_step_time(env: ConversationEnv, task_id: str, clock: Any = time.thread_time) -> tuple[float, int]:
    """Seconds of ``clock`` (default: thread CPU time) summed over the steps of one episode
    with the scripted agent, and its step count."""
    agent = ScriptedAgent()
    observation, info = env.reset(options={"task_id": task_id})
    agent.reset(env.task)
    total = 0.0
    steps = 0
    while "episode_record" not in info:
        action = agent.act(observation, info)
        start = clock()
        observation, _, _, _, info = env.step(action)
        total += clock() - start
        steps += 1
    return total, steps


def ab_overhead(a: ConversationEnv, b: ConversationEnv, ids: list[str], rounds: int) -> tuple[float, float, int]:
    """One A/B repetition: per task, run envs ``a`` and ``b`` ``rounds`` times each, in ABBA
    order (an episode right after the other env's run of the same task finds that task's
    data warm, so each env goes first as often as second), and keep each one's fastest
    episode; returns their summed seconds and the steps (of ``b``)."""
    best_a = best_b = 0.0
    steps = 0
    for task_id in ids:
        fastest = {id(a): float("inf"), id(b): float("inf")}
        for round_ in range(rounds):
            for env in (a, b) if round_ % 2 == 0 else (b, a):
                total, n = episode_step_time(env, task_id)
                fastest[id(env)] = min(fastest[id(env)], total)
        best_a += fastest[id(a)]
        best_b += fastest[id(b)]
        steps += n
    return best_a, best_b, steps


def spread(ratios: list[float]) -> tuple[str, str, str]:
    """(median, interquartile range, range) of ratios as signed percentages."""
    q1, median, q3 = statistics.quantiles(ratios, n=4, method="inclusive")
    pct = lambda x: f"{x * 100:+.1f}%"  # noqa: E731
    return pct(median), f"{pct(q1)}..{pct(q3)}", f"{pct(min(ratios))}..{pct(max(ratios))}"


def step_bytecodes(env: ConversationEnv, task_ids: list[str]) -> int:
    """Bytecode instructions executed inside ``env.step()`` over one episode per task (the
    episodes run once untraced first, so both envs count warm, memoized runs)."""
    for task_id in task_ids:
        episode_step_time(env, task_id)
    count = 0

    def trace(frame: Any, event: str, arg: Any) -> Any:
        frame.f_trace_opcodes = True
        return count_opcodes

    def count_opcodes(frame: Any, event: str, arg: Any) -> Any:
        nonlocal count
        count += event == "opcode"
        return count_opcodes

    step = env.step

    def traced_step(action: Any) -> Any:
        sys.settrace(trace)
        try:
            return step(action)
        finally:
            sys.settrace(None)

    env.step = traced_step  # type: ignore[method-assign]
    try:
        for task_id in task_ids:
            episode_step_time(env, task_id)
    finally:
        del env.step
    return count


def tracker_time(env: ConversationEnv, task_ids: list[str]) -> float:
    """Median seconds per message of a fresh tracker replaying the recorded transcripts."""
    transcripts = []
    agent = ScriptedAgent()
    for task_id in task_ids:
        observation, info = env.reset(options={"task_id": task_id})
        agent.reset(env.task)
        while "episode_record" not in info:
            observation, _, _, _, info = env.step(agent.act(observation, info))
        transcripts.append((task_criteria(env.task), list(env.messages)))
    count = sum(len(m) for _, m in transcripts)

    def replay() -> float:
        clear_caches()
        plans = [compile_rules(criteria) for criteria, _ in transcripts]  # fresh plans: their per-text analyses empty
        start = time.thread_time()
        for plan, (_, messages) in zip(plans, transcripts):
            tracker = RuleTracker(plan)
            for m in messages:
                if m.role == "assistant" and m.content:
                    tracker.agent_text(m.turn, m.content)
                elif m.role == "user" and m.content and not m.tool_calls:
                    tracker.user_text(m.turn, m.content)
            tracker.verdicts()
        return time.thread_time() - start

    return statistics.median(replay() for _ in range(7)) / count


def in_situ(env: TimedEnv, task_ids: list[str], rounds: int = 3) -> tuple[float, float]:
    """(seconds per step inside the tracker, seconds per step) measured in ``env``'s steps."""
    TimedTracker.spent = 0.0
    total = 0.0
    steps = 0
    for _ in range(rounds):
        for task_id in task_ids:
            spent, count = episode_step_time(env, task_id, clock=time.perf_counter)
            total += spent
            steps += count
    return TimedTracker.spent / steps, total / steps


def in_situ_share(make: Any, task_ids: list[str], rounds: int = 3) -> tuple[float, float]:
    """(rule seconds per step, rule time / the rest of the step time): ``make(cls)`` builds
    the timed env, with criteria and without; the difference of their tracker times is the
    rules' (they alternate per round, so both see the same machine)."""
    spent = {TimedEnv: 0.0, TimedNoRulesEnv: 0.0}
    step = 0.0
    envs = {cls: make(cls) for cls in spent}
    for _ in range(rounds):
        for cls, env in envs.items():
            inside, per_step = in_situ(env, task_ids, rounds=1)
            spent[cls] += inside / rounds
            step += per_step / rounds if cls is TimedEnv else 0.0
    net = spent[TimedEnv] - spent[TimedNoRulesEnv]
    return net, net / (step - net)


def llm_user_env(cls: type[TimedEnv], domain: str, server_url: str) -> TimedEnv:
    """A timed env whose user is an :class:`~userbench_env.proxies.llm.LLMUserProxy` on the local server."""
    from userbench_env.proxies.llm import LLMUserProxy

    proxy = LLMUserProxy("openai/local-user", base_url=server_url, api_key="sk-local")
    return cls(domain, task_source="tau2", user_proxy=proxy)


def main(tasks_per_domain: int = 30, rounds: int = 8, repeats: int = 15) -> None:
    from userbench_env.serve import ChatServer, ScriptedUserResponder
    from userbench_env.tasks import load_tasks

    rows = []
    for domain in ("airline", "retail", "telecom"):
        envs = {"rules": ConversationEnv(domain, task_source="tau2"), "none": NoRulesEnv(domain, task_source="tau2"),
                "control": NoRulesEnv(domain, task_source="tau2")}
        ids = [t.id for t in envs["rules"].tasks[:tasks_per_domain]]
        for env in envs.values():  # warm up (data loads, caches), then keep the loaded data out of GC scans
            episode_step_time(env, ids[0])
        gc.collect()
        gc.freeze()
        runs, controls = [], []
        for _ in range(repeats):
            runs.append(ab_overhead(envs["rules"], envs["none"], ids, rounds))
            controls.append(ab_overhead(envs["control"], envs["none"], ids, rounds))
        overheads = [rules / none - 1 for rules, none, _ in runs]
        rules_s, none_s, steps = runs[0]
        per_step, share = in_situ_share(lambda cls: cls(domain, task_source="tau2"), ids)
        with ChatServer(ScriptedUserResponder(load_tasks(domain, source="tau2", split=None)), record=False) as server:
            llm_per_step, llm_share = in_situ_share(lambda cls: llm_user_env(cls, domain, server.base_url), ids[:10], rounds=1)
        bytecodes = {key: step_bytecodes(env, ids) for key, env in envs.items()}
        rows.append((domain, f"{none_s / steps * 1e6:.0f}", f"{rules_s / steps * 1e6:.0f}", *spread(overheads),
                     spread([control / none - 1 for control, none, _ in controls])[1], f"{per_step * 1e6:.1f}", f"{share * 100:.1f}%",
                     f"{(bytecodes['rules'] / bytecodes['none'] - 1) * 100:+.2f}%",
                     f"{llm_per_step * 1e6:.1f}", f"{llm_share * 100:.2f}%", f"{tracker_time(envs['rules'], ids) * 1e6:.1f}"))
    print(table(rows, ("domain", "step us (no rules)", "step us (rules)", "A/B overhead (median)", "A/B IQR", "A/B range",
                       "A/A IQR", "in situ: rules us/step",
                       "in situ: share", "bytecode: added", "LLM user: rules us/step", "LLM user: share",
                       "rules us/message (cold)")))


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="Cost of the incremental rule checks in step() (see the module docstring).")
    parser.add_argument("--tasks", type=int, default=30, help="tasks per domain (default: 30)")
    parser.add_argument("--rounds", type=int, default=8, help="ABBA rounds per task and repetition (default: 8)")
    parser.add_argument("--repeats", type=int, default=15, help="independent A/B repetitions (default: 15)")
    args = parser.parse_args()
    main(args.tasks, args.rounds, args.repeats)
