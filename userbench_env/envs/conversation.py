"""ConversationEnv: the agent-side env (``UserBench/{Airline,Retail,Telecom,Banking}-v0``).

The policy plays the customer-service agent; a user proxy plays the customer; the
domain world executes tool calls. An explicit state machine, no threads:

* ``reset()`` picks a task (``options["task_id"]``, the constructor's ``task_id``, or a
  draw from the split with the reset seed), forks a fresh world, sends the fixed
  greeting ``Hi! How can I help you today?`` to the proxy and returns the user's
  opening message. ``info`` adds ``task_id``, ``tools`` (OpenAI schemas),
  ``system_prompt`` (instructions + the domain policy) and ``greeting`` (the text the
  env said for the agent, so an agent can put it in its own history).
* ``step(action)`` is one agent turn (action forms: :mod:`userbench_env.envs.actions`;
  input limits: :mod:`userbench_env.core.limits`, overridden with ``limits={...}``).
  Tool calls run against the world and their results are the observation (one call:
  its content; several: a JSON list of ``{"id", "name", "content", "error"}``); the
  user is not consulted. Text goes to the proxy, which may call its own tools (run
  here, results shown only to the proxy, at most ``max_user_tool_calls`` per turn)
  until it answers in text; that text is the observation.
* Termination as tau2: an end token in the user's text (``###STOP###``,
  ``###TRANSFER###``, ``###OUT-OF-SCOPE###``; the text is kept) or ``###STOP###`` in
  the agent's text ends the episode (``terminated``); ``max_errors`` tool errors of the
  agent (malformed actions included) end it with reward 0 (``too_many_errors``);
  ``max_errors`` failed tool calls of the user (calls past ``max_user_tool_calls`` in a
  turn included) end it as the user's failure (``user_failure``: a failed fidelity
  criterion and no R_tau for the agent, see :mod:`userbench_env.envs.info`); the turn
  budget ``max_turns`` truncates it. A :class:`~userbench_env.proxies.base.ProxyError` (an infrastructure
  failure: provider down or misconfigured, timeout after retries) ends the episode
  with termination ``error`` and ``info["episode_record"]["error"]`` set; with
  ``on_proxy_error="raise"`` (the default) ``reset``/``step`` then raise it, its
  message naming the proxy, model and endpoint, so a misconfigured user fails loudly;
  with ``"record"`` (what the runners use) the step returns the terminal info instead. A tool
  result over ``limits.max_result_chars`` ends it as the agent's failure (termination
  ``limit_exceeded``, reward 0).
* ``step`` before the first ``reset`` raises ``gymnasium.error.ResetNeeded``; a step
  after the episode ended changes nothing and returns an empty observation, reward 0.0,
  the same terminated/truncated flags and the terminal info.
* ``user_proxy_options`` are the keywords of the proxy a spec string builds
  (:func:`~userbench_env.proxies.spec.make_proxy`: ``base_url``, ``api_key_env``,
  ``timeout``, ``max_retries``, ``temperature``, ``max_tokens``, ``price_override``, ...).
* The terminal reward is R_tau from :func:`userbench_env.evaluation.evaluate_episode`;
  while NL assertions are pending (no judge, or ``judge="deferred"``) it is the reward
  excluding NL and ``info["episode_record"]["nl_pending"]`` is true.

Rule-checked fidelity criteria (the task's rubric, else ``from_blueprint``, plus the
task's rubric file under ``rubrics``) run after every message and tool call, fed as the user
saw them by :class:`~userbench_env.fidelity.feeding.TrackerFeed` (the path transcripts
scored afterwards take too); judge
criteria are graded at the end by ``judge`` (a model spec), left ``pending`` for a
batch grader (``judge="deferred"``) or not graded (``judge=None``, reported
``not_applicable`` with source ``unjudged``). A perturbed proxy's injections are
recorded in the episode. See :mod:`userbench_env.envs.info` for the info contract. ``astep`` and
``areset`` are the same machine driven with the proxy's ``arespond``.
"""
from __future__ import annotations

import json
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any, Generator, Literal

import gymnasium as gym

from userbench_env.core.messages import Message, ToolCall, ToolResult
from userbench_env.core.task import Task
from userbench_env.domains import canonical_domain_name, make_world
from userbench_env.envs.actions import parse_action
from userbench_env.envs.conventions import positive_int
from userbench_env.envs.machine import adrive, drive
from userbench_env.envs.info import USER_FAILURE, Counters, episode_summary, step_info, user_failure_verdict
from userbench_env.core.limits import InputLimits, arguments_problem, clip_observation, resolve_limits, value_problem
from userbench_env.envs.spaces import AnyText
from userbench_env.fidelity.criteria import task_criteria
from userbench_env.fidelity.feeding import TrackerFeed
from userbench_env.fidelity.grading import grade_criteria
from userbench_env.fidelity.rubrics import load_rubric
from userbench_env.fidelity.probe import probe_episode
from userbench_env.fidelity.rules import RulePlan, RuleTracker, compile_rules
from userbench_env.proxies.base import ProxyError, UserProxy, UserTurn, UserView, find_stop
from userbench_env.proxies.spec import make_proxy
from userbench_env.registration import mark_nondeterministic
from userbench_env.tasks import load_task, load_tasks
from userbench_env.tasks.extract import is_question

GREETING = "Hi! How can I help you today?"
AGENT_STOP = "###STOP###"

AGENT_INSTRUCTIONS = (
    "You are a customer service agent. Help the user with their request while following the "
    "policy below exactly.\nEach turn, do one thing: either write a message to the user or make "
    "tool calls, not both.\nOnly state facts that come from the user, the policy or tool results."
)

#: how many tasks' rule plans the process keeps (the cache holds its tasks alive, so ids stay unique)
CRITERIA_KEPT = 4096
_CRITERIA: OrderedDict[tuple[type, str | None, int], tuple[Task, RulePlan]] = OrderedDict()
_CRITERIA_LOCK = threading.Lock()

StepResult = tuple[str, float, bool, bool, dict[str, Any]]
#: what an infrastructure failure of the user proxy (or counterpart agent) does: raise it, or record it in the episode
ProxyErrorPolicy = Literal["raise", "record"]
Machine = Generator[UserView, UserTurn, Any]


def agent_system_prompt(policy: str) -> str:
    """The agent's system prompt: our fixed instructions and the domain policy."""
    return f"<instructions>\n{AGENT_INSTRUCTIONS}\n</instructions>\n<policy>\n{policy}\n</policy>"


class ConversationEnv(gym.Env[str, str]):
    """The agent-side conversation env (see the module docstring for the contract)."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        domain: str,
        task_source: str = "bundled",
        split: str | None = "default",
        task_id: str | None = None,
        user_proxy: str | UserProxy = "scripted",
        max_turns: int = 100,
        judge: Any = None,
        rubrics: str | os.PathLike[str] | None = None,
        max_errors: int = 10,
        max_user_tool_calls: int = 10,
        data_path: str | os.PathLike[str] | None = None,
        render_mode: str | None = None,
        user_proxy_options: dict[str, Any] | None = None,
        on_proxy_error: ProxyErrorPolicy = "raise",
        limits: InputLimits | Mapping[str, Any] | None = None,
    ):
        if on_proxy_error not in ("raise", "record"):
            raise ValueError(f"on_proxy_error must be 'raise' or 'record', got {on_proxy_error!r}")
        self.on_proxy_error = on_proxy_error
        self.domain = canonical_domain_name(domain)
        self.task_source = task_source
        self.data_path = data_path
        self.tasks: list[Task] = load_tasks(self.domain, task_source, split, data_path)
        if not self.tasks:
            raise ValueError(f"no tasks in split {split!r} of {self.domain} ({task_source})")
        self.task_id = task_id
        if task_id is not None:
            self._task_by_id(task_id)  # fail early on an unknown id
        self.user_proxy = make_proxy(user_proxy, **(user_proxy_options or {}))
        self.max_turns = positive_int("max_turns", max_turns)
        self.max_errors = int(max_errors)
        self.max_user_tool_calls = int(max_user_tool_calls)
        self.judge = judge
        self.rubrics = rubrics
        self.render_mode = render_mode
        self.limits = resolve_limits(limits)
        self.observation_space = AnyText(self.limits.max_observation_chars)
        self.action_space = AnyText(self.limits.max_action_chars)
        self.task: Task | None = None
        self.messages: list[Message] = []
        self._done = True

    # -- public API ----------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """Start an episode; returns the user's opening message and the reset info."""
        super().reset(seed=seed)
        return self._drive(self._reset_machine(seed, options))

    def step(self, action: Any) -> StepResult:
        """One agent turn; returns (observation, reward, terminated, truncated, info)."""
        return self._drive(self._step_machine(action))

    async def areset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """:meth:`reset` with the proxy's ``arespond``."""
        super().reset(seed=seed)
        return await self._adrive(self._reset_machine(seed, options))

    async def astep(self, action: Any) -> StepResult:
        """:meth:`step` with the proxy's ``arespond``."""
        return await self._adrive(self._step_machine(action))

    def end_episode(self, termination: str) -> tuple[float, dict[str, Any]]:
        """End the running episode as truncated by an outer limit (gymnasium's ``TimeLimit``,
        see :mod:`~userbench_env.envs.conventions`); returns its reward and its info with ``episode``."""
        if not self._done:
            self._finish(termination, truncated=True)
        return (self._reward, self._info())

    def render(self) -> str | None:
        """The transcript as ``role: text`` lines (``ansi`` mode)."""
        if self.render_mode != "ansi":
            return None
        lines = []
        for m in self.messages:
            body = m.content if not m.tool_calls else json.dumps([c.model_dump(include={"name", "arguments"}) for c in m.tool_calls])
            lines.append(f"{m.role}: {body}")
        return "\n".join(lines)

    # -- drivers: feed proxy turns into a machine ---------------------------------------
    def _drive(self, machine: Machine) -> Any:
        return drive(machine, self.user_proxy.respond, ProxyError)

    async def _adrive(self, machine: Machine) -> Any:
        return await adrive(machine, self.user_proxy.arespond, ProxyError)

    # -- machines ------------------------------------------------------------------
    def _task_by_id(self, task_id: str) -> Task:
        for task in self.tasks:
            if task.id == task_id:
                return task
        return load_task(self.domain, task_id, self.task_source, self.data_path)

    def _pick_task(self, options: dict[str, Any] | None) -> Task:
        wanted = (options or {}).get("task_id", self.task_id)
        if wanted is not None:
            return self._task_by_id(str(wanted))
        return self.tasks[int(self.np_random.integers(len(self.tasks)))]

    def uses_llm(self) -> bool:
        """Whether an LLM plays a part in this env's episodes (the user proxy or the judge)."""
        return self.user_proxy.provenance.get("model") is not None or self.judge not in (None, "deferred")

    def _reset_machine(self, seed: int | None, options: dict[str, Any] | None) -> Machine:
        if self.uses_llm():
            mark_nondeterministic(self)
        task = self._pick_task(options)
        self.task = task
        self.world = make_world(self.domain, self.task_source, task, self.data_path)
        self.user_proxy.reset(task, seed)
        self.user_tools = self._user_tool_schemas(task)
        self.counters = Counters()
        self.tracker = RuleTracker(self._rule_plan(task))
        self._feed = TrackerFeed()
        self._done, self._truncated, self._over_limit = False, False, False
        self.termination: str | None = None
        self.error: str | None = None
        self._episode: dict[str, Any] | None = None
        self._reward = 0.0
        greeting = Message(role="assistant", content=GREETING, turn=0)
        self.messages = [greeting]
        self._view: list[Message] = [greeting]
        self._feed.message(self.tracker, greeting)
        observation = self._observation((yield from self._user_turn(0)))
        info = self._info()
        info.update(task_id=task.id, tools=self.world.tool_schemas("agent"), system_prompt=agent_system_prompt(self.world.policy),
                    greeting=GREETING)
        return observation, info

    def _ended_step(self) -> StepResult:
        """``step`` before the first reset raises ``ResetNeeded``; after the end, an empty terminal step."""
        if self.task is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        return "", 0.0, not self._truncated, self._truncated, self._info()

    def _observation(self, text: str) -> str:
        """``text`` clipped to the observation limit."""
        return clip_observation(text, self.limits.max_observation_chars)

    def _step_machine(self, action: Any) -> Machine:
        if self._done:
            return self._ended_step()
        counters = self.counters
        counters.turn += 1
        turn = counters.turn
        parsed = parse_action(action, self.limits)
        if parsed.error is not None:
            counters.invalid_actions += 1
            counters.tool_errors += 1
            observation = f"Error: invalid action: {parsed.error}"
        elif parsed.calls:
            observation = self._run_agent_calls(turn, parsed.text, parsed.calls)
        else:
            text = parsed.text or ""
            message = Message(role="assistant", content=text, turn=turn)
            self.messages.append(message)
            self._view.append(message)
            counters.agent_questions += is_question(text)
            self._feed.message(self.tracker, message)
            if AGENT_STOP in text:
                observation = ""
                self._finish("agent_stop")
            else:
                observation = yield from self._user_turn(turn)
        self.world.sync()
        if not self._done:
            if self._over_limit:
                self._finish("limit_exceeded")
            elif counters.agent_errors >= self.max_errors:
                self._finish("too_many_errors")
            elif turn >= self.max_turns:
                self._finish("max_turns", truncated=True)
        reward = self._reward if self._done else 0.0
        return self._observation(observation), reward, self._done and not self._truncated, self._truncated, self._info()

    def _execute(self, call: ToolCall, seconds: float) -> ToolResult:
        """Run ``call`` under a budget of ``seconds``; a result over ``max_result_chars`` marks
        the episode for ending (``limit_exceeded``)."""
        result = self.world.execute(call, seconds)
        if len(result.content) > self.limits.max_result_chars:
            self._over_limit = True
        return result

    def _run_agent_calls(self, turn: int, text: str | None, calls: list[ToolCall]) -> str:
        calls = [
            c.model_copy(update={"id": c.id or f"call_{turn}_{i}", "requestor": "assistant"}) for i, c in enumerate(calls)
        ]
        request = Message(role="assistant", content=text, tool_calls=calls, turn=turn)
        self.messages.append(request)
        self._feed.message(self.tracker, request)
        results = []
        deadline = time.monotonic() + self.limits.action_seconds
        for call in calls:
            left = min(self.limits.tool_seconds, deadline - time.monotonic())
            if self._over_limit or left <= 0:
                reason = "an earlier result was too large" if self._over_limit else \
                    f"the action's time budget of {self.limits.action_seconds:g} s is spent"
                result = ToolResult(content=f"Error: not run: {reason}", error=True)
            else:
                result = self._execute(call, left)
            self.counters.agent_tool_calls += 1
            self.counters.tool_errors += result.error
            answer = Message(role="tool", content=result.content, tool_call_id=call.id, requestor="assistant",
                             error=result.error, turn=turn)
            self.messages.append(answer)
            self._feed.message(self.tracker, answer)
            results.append({"id": call.id, "name": call.name, "content": result.content, "error": result.error})
        return results[0]["content"] if len(results) == 1 else json.dumps(results)

    def _user_turn(self, turn: int) -> Machine:
        """Ask the proxy until it answers in text (running its tool calls); return that text."""
        calls = 0
        while True:
            try:
                reply = yield UserView.model_construct(messages=list(self._view), tools=self.user_tools, turn=turn)
            except ProxyError as exc:
                self._infrastructure_error(exc)
                return ""
            if reply.tool_call is not None:
                calls += 1
                self._run_user_call(turn, reply, calls)
                if self._over_limit:
                    self._finish("limit_exceeded")
                    return ""
                if self.counters.user_tool_errors >= self.max_errors:
                    self._user_failure(turn, f"the user's tool calls failed {self.counters.user_tool_errors} times "
                                             f"(max_errors), the last {calls} in one turn without answering the agent")
                    return ""
                continue
            text = reply.text or ""
            if not text.strip():
                self._finish("user_error", error="the user proxy sent an empty message")
                return ""
            message = Message(role="user", content=text, turn=turn)
            self.messages.append(message)
            self._view.append(message)
            self._feed.message(self.tracker, message)
            if find_stop(text) is not None:
                self._finish("user_stop")
            return text

    def _run_user_call(self, turn: int, reply: UserTurn, count: int) -> None:
        assert reply.tool_call is not None
        call = reply.tool_call.model_copy(update={"id": reply.tool_call.id or f"user_call_{turn}_{count}", "requestor": "user"})
        problem = value_problem(call.arguments, self.limits) or arguments_problem(call.arguments, self.limits)
        if problem is not None:  # a proxy's arguments against the input policy: neither run nor kept
            call = call.model_copy(update={"arguments": {}})
        request = Message(role="user", content=reply.text, tool_calls=[call], turn=turn)
        if problem is not None:
            result = ToolResult(content=f"Error: invalid tool call: {problem}", error=True)
        elif count > self.max_user_tool_calls:
            result = ToolResult(
                content=f"Error: at most {self.max_user_tool_calls} tool calls per turn; answer the agent in text.", error=True
            )
        elif self.user_tools:
            result = self._execute(call, self.limits.tool_seconds)
        else:
            result = ToolResult(content="Error: User tools not available", error=True)
        self.counters.user_tool_calls += 1
        self.counters.tool_errors += result.error
        self.counters.user_tool_errors += result.error
        answer = Message(role="tool", content=result.content, tool_call_id=call.id, requestor="user", error=result.error, turn=turn)
        self.messages.extend((request, answer))
        self._view.extend((request, answer))
        self._feed.message(self.tracker, request)
        self._feed.message(self.tracker, answer)

    # -- ending ----------------------------------------------------------------------
    def _user_failure(self, turn: int, reason: str) -> None:
        """End the episode as the user's failure (:data:`~userbench_env.envs.info.USER_FAILURE`)."""
        self._finish(USER_FAILURE, user_fault=user_failure_verdict(turn, reason))

    def _infrastructure_error(self, exc: Exception) -> None:
        """End the episode with ``exc`` as its error; re-raise it under ``on_proxy_error="raise"``."""
        self._finish("error", error=f"{type(exc).__name__}: {exc}")
        if self.on_proxy_error == "raise":
            raise exc

    def _finish(self, termination: str, error: str | None = None, truncated: bool = False,
                user_fault: dict[str, Any] | None = None) -> None:
        """End the episode: R_tau (none for an error or a ``user_fault``, the failed verdict
        of a user failure, added to the criteria) and the terminal record."""
        from userbench_env.evaluation import evaluate_episode

        assert self.task is not None
        self._done, self._truncated = True, truncated
        self.termination, self.error = termination, error
        reward: float | None = 0.0
        excluding_nl: float | None = 0.0
        pending = False
        components: dict[str, float | None] = {}
        if user_fault is not None:
            reward = excluding_nl = None  # the agent is not scored on an episode the user broke
        elif error is None:
            try:
                verdict = evaluate_episode(
                    self.task, self.messages, termination, source=self.task_source, include_nl=True,
                    judge=self.judge, data_path=self.data_path,
                )
            except Exception as exc:  # a judge outage is an episode error, not a crash
                if self.judge in (None, "deferred"):
                    raise
                self.error = f"judge: {type(exc).__name__}: {exc}"
            else:
                reward, excluding_nl, pending = verdict.reward, verdict.reward_excluding_nl, verdict.nl_pending
                components = dict(verdict.components)
        if self.error is not None:
            reward = excluding_nl = 0.0
        self._reward = float(reward if reward is not None else (excluding_nl or 0.0))
        criteria = grade_criteria(self.tracker, self.messages, self.judge)
        if user_fault is not None:
            criteria.append(user_fault)
        self._episode = episode_summary(
            task_id=self.task.id,
            termination=termination,
            reward=reward,
            reward_excluding_nl=excluding_nl,
            nl_pending=pending,
            reward_components=components,
            criteria=criteria,
            injections=getattr(self.user_proxy, "injections", None),
            proxy=self.user_proxy.provenance,
            usage=self.user_proxy.usage.model_dump(),
            error=self.error,
            probe=probe_episode(self.task.gold_actions, self.messages, self.world.user).to_info(),
        )

    def _info(self) -> dict[str, Any]:
        info = step_info(self.counters, self.tracker.violations, self.tracker.suspects)
        if self._episode is not None:
            info["episode_record"] = dict(self._episode)
        return info

    def criteria_for(self, task: Task) -> list[Any]:
        """The fidelity criteria of ``task``: its deterministic ones (its rubric, else
        ``from_blueprint``) plus the criteria of its rubric file under ``rubrics``, if any."""
        criteria = task_criteria(task)
        stored = load_rubric(self.rubrics, task) if self.rubrics is not None else None
        if stored is not None:
            known = {c.id for c in criteria}
            criteria += [c for c in stored.criteria if c.id not in known]
        return criteria

    def _rule_plan(self, task: Task) -> RulePlan:
        """The compiled rule checks of :meth:`criteria_for`, built once per (env class,
        rubrics, task object) in the process (tasks are shared read-only objects)."""
        key = (type(self), os.fspath(self.rubrics) if self.rubrics is not None else None, id(task))
        found = _CRITERIA.get(key)
        if found is None or found[0] is not task:
            found = (task, compile_rules(self.criteria_for(task)))
            with _CRITERIA_LOCK:
                _CRITERIA[key] = found
                while len(_CRITERIA) > CRITERIA_KEPT:
                    _CRITERIA.popitem(last=False)
        return found[1]

    def _user_tool_schemas(self, task: Task) -> list[dict[str, Any]]:
        """The user's tools for ``task`` (tau2: an unknown listed name means no tools)."""
        kit = self.world.user
        if kit is None:
            return []
        wanted = task.blueprint.user_tools
        if wanted is None:
            return self.world.tool_schemas("user")
        if not all(kit.has_tool(name) for name in wanted):
            return []
        return self.world.tool_schemas("user", list(wanted))
