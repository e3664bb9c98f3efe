"""UserSideEnv: the user-side env (``UserBench/{Airline,Retail,Telecom,Banking}-User-v0``).

The policy plays the customer; a counterpart agent (default the scripted oracle
:class:`~userbench_env.agents.ScriptedAgent`, or any agent object or spec such as
``litellm:<model>``) plays customer service; the domain world runs every tool call.
It is :class:`~userbench_env.envs.conversation.ConversationEnv`'s state machine driven
inside out: the same task picking, world, transcript, counters, rule tracker,
termination and R_tau evaluation, with the policy in the user's seat.

* ``reset()`` picks a task as the agent-side env does, forks a fresh world, resets the
  agent with the task and returns the greeting ``Hi! How can I help you today?``.
  ``info`` adds ``task_id``, ``instructions`` (the task's scenario as the user's
  instructions, rendered by :func:`~userbench_env.proxies.prompt.render_scenario`),
  ``tools`` (the user's tool schemas; empty on domains without user tools) and
  ``system_prompt`` (simulation guidelines + scenario, for an LLM policy).
* ``step(action)`` is one user turn. Text is the customer's message: the agent then
  acts (its tool calls run against the world, unseen by the user) until it answers in
  text, which is the observation. A user tool call (JSON ``{"name", "arguments"}``,
  or an OpenAI-style message dict with one tool call) runs in the world and its
  result is the observation; the agent is not consulted. Anything else (blank text,
  broken JSON, several calls, anything against the input policy of
  :mod:`userbench_env.core.limits`) gets an ``Error: invalid action: ...`` observation
  and counts as a tool error. ``step`` before ``reset`` and after the end behave as in
  the agent-side env (``ResetNeeded``; an empty terminal step).
* Termination: an end token in the policy's text (``###STOP###``, ``###TRANSFER###``,
  ``###OUT-OF-SCOPE###``), ``###STOP###`` in the agent's text (its last message is the
  observation), ``max_errors`` tool errors: ``terminated``; the agent-turn budget
  ``max_turns``: ``truncated``. An :class:`~userbench_env.agents.base.AgentError` from
  the agent (provider down or misconfigured, after retries) ends the episode with
  termination ``error`` and ``info["episode_record"]["error"]`` set, then is raised under
  ``on_proxy_error="raise"`` (the default) or only recorded under ``"record"``.
* The terminal reward is the fidelity of the policy's own turns: 1.0 when the episode
  passes UFS (``ufs_pass`` True: no criterion failed and at least one applied), else
  0.0 (a failure, nothing applicable, judging pending, or an error). It scores the
  turns, not the outcome, so a truncated episode keeps it. ``info["episode_record"]``
  is the agent-side summary with ``reward`` = this fidelity reward, R_tau kept for
  reference as ``task_reward`` / ``task_reward_excluding_nl``, and the counterpart's
  ``agent`` provenance and ``agent_prompt_tokens`` / ``agent_completion_tokens`` /
  ``agent_cost_usd``. Step infos carry the same flat counters as the agent-side env.

``areset``/``astep`` are the same machine with the agent's ``aact`` (agents without
one are called inline). :class:`ProxyPolicy` lets any user proxy play the policy.
"""
from __future__ import annotations

import json
from collections.abc import Generator
from typing import Any

import gymnasium as gym

from userbench_env.agents.base import AgentError, agent_provenance, agent_usage
from userbench_env.agents.spec import make_agent
from userbench_env.core.messages import Message
from userbench_env.core.task import Task
from userbench_env.envs.actions import parse_action
from userbench_env.envs.conversation import ConversationEnv, StepResult
from userbench_env.core.limits import DEFAULT_LIMITS, InputLimits
from userbench_env.envs.machine import Machine, adrive, drive
from userbench_env.proxies.base import UserProxy, UserTurn, UserView
from userbench_env.proxies.prompt import GuidelineSource, render_scenario, system_prompt
from userbench_env.proxies.spec import make_proxy

AgentRequest = tuple[str, dict[str, Any]]
PolicyMachine = Generator[AgentRequest, Any, StepResult]


class PolicySeat(UserProxy):
    """The user's seat in :class:`UserSideEnv`: taken by the env's policy, never asked to respond."""

    name = "policy"

    def respond(self, view: UserView) -> UserTurn:
        """Never called: the policy's turns come in through ``UserSideEnv.step``."""
        raise RuntimeError("the policy plays the user in UserSideEnv: its turns come from step(), not a proxy")


def parse_user_action(action: Any, limits: InputLimits = DEFAULT_LIMITS) -> UserTurn | str:
    """A policy action as a :class:`UserTurn` (text, or one user tool call), or the reason it is invalid."""
    parsed = parse_action(action, limits)
    if parsed.error is not None:
        return parsed.error
    if len(parsed.calls) > 1:
        return "a user turn is text or exactly one tool call"
    if parsed.calls:
        return UserTurn(text=parsed.text, tool_call=parsed.calls[0].model_copy(update={"requestor": "user"}))
    return UserTurn(text=parsed.text)


class UserSideEnv(ConversationEnv):
    """The user-side conversation env (see the module docstring for the contract).

    ``agent``: the counterpart (an object with ``reset(task)`` and ``act(observation,
    info)``, or a spec for :func:`~userbench_env.agents.spec.make_agent`, built with
    ``agent_options``). ``guidelines`` picks the simulation guidelines of the reset
    ``system_prompt`` (``"userbench"`` or ``"tau2"``). Every other keyword is
    :class:`ConversationEnv`'s (``task_source``, ``split``, ``task_id``, ``max_turns``,
    ``judge``, ``max_errors``, ``max_user_tool_calls``, ...), except ``user_proxy``.
    """

    def __init__(
        self,
        domain: str,
        agent: Any = "scripted",
        agent_options: dict[str, Any] | None = None,
        guidelines: GuidelineSource = "userbench",
        **kwargs: Any,
    ):
        if "user_proxy" in kwargs:
            raise TypeError("UserSideEnv has no user_proxy: the policy plays the user (pick the counterpart with agent=)")
        super().__init__(domain, user_proxy=PolicySeat(), **kwargs)
        self.agent = make_agent(agent, **(agent_options or {}))
        self.guidelines = guidelines
        self._pending: Machine | None = None

    # -- public API ----------------------------------------------------------------
    def uses_llm(self) -> bool:
        """Whether an LLM plays a part here (the counterpart agent or the judge)."""
        return agent_provenance(self.agent).get("model") is not None or self.judge not in (None, "deferred")

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """Start an episode; returns the agent's greeting and the user's setup in ``info``."""
        gym.Env.reset(self, seed=seed)
        self._close_pending()
        machine = self._reset_machine(seed, options)
        next(machine)  # runs up to the user's first turn
        self._pending = machine
        task = self.task
        assert task is not None
        self.agent.reset(task)
        info = self._info()
        info.update(
            task_id=task.id,
            instructions=render_scenario(task),
            tools=list(self.user_tools),
            system_prompt=system_prompt(task, bool(self.user_tools), self.guidelines),
        )
        return self._observation(self._seen()), info

    def step(self, action: Any) -> StepResult:
        """One user turn; returns (observation, reward, terminated, truncated, info)."""
        return drive(self._policy_machine(action), self._ask_agent, AgentError)

    async def areset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """:meth:`reset` (no agent call happens before the user's first turn)."""
        return self.reset(seed=seed, options=options)

    async def astep(self, action: Any) -> StepResult:
        """:meth:`step` with the agent's ``aact`` when it has one."""
        return await adrive(self._policy_machine(action), self._aask_agent, AgentError)

    def close(self) -> None:
        """Drop a suspended turn machine."""
        self._close_pending()
        super().close()

    # -- the agent's side ------------------------------------------------------------
    def _ask_agent(self, request: AgentRequest) -> Any:
        return self.agent.act(*request)

    async def _aask_agent(self, request: AgentRequest) -> Any:
        aact = getattr(self.agent, "aact", None)
        if aact is None:
            return self.agent.act(*request)
        return await aact(*request)

    # -- the machine -----------------------------------------------------------------
    def _policy_machine(self, action: Any) -> PolicyMachine:
        """One user turn: hand it to the suspended agent-side machine, then let the agent
        act (yielding ``(observation, info)`` requests) until the user is needed again."""
        if self._done:
            return self._ended_step()
        turn = parse_user_action(action, self.limits)
        if isinstance(turn, str):
            self.counters.invalid_actions += 1
            self.counters.tool_errors += 1
            self.counters.user_tool_errors += 1  # the policy plays the user
            if self.counters.tool_errors >= self.max_errors:
                self._close_pending()
                self._finish("too_many_errors")
            return self._result(f"Error: invalid action: {turn}")
        assert self._pending is not None
        try:
            self._pending.send(turn)
        except StopIteration as stop:  # the user spoke: the agent's turn
            self._pending = None
            observation, agent_info = stop.value[0], stop.value[-1]
        else:  # the user's own tool ran: its result is waiting for the user
            return self._result(self._seen())
        while not self._done:
            try:
                agent_action = yield observation, agent_info
            except AgentError as exc:
                self._infrastructure_error(exc)
                break
            machine = self._step_machine(agent_action)
            try:
                next(machine)
            except StopIteration as stop:  # tool calls (or the end): the agent acts again
                observation, agent_info = stop.value[0], stop.value[-1]
            else:  # the agent spoke: the user's turn
                self._pending = machine
                break
        return self._result(self._seen())

    def _seen(self) -> str:
        """What the user has not answered yet: the last agent text or own tool result ('' if none)."""
        last = self._view[-1] if self._view else None
        return last.content or "" if last is not None and last.role != "user" else ""

    def _result(self, observation: str) -> StepResult:
        reward = self._reward if self._done else 0.0
        return self._observation(observation), reward, self._done and not self._truncated, self._truncated, self._info()

    def _close_pending(self) -> None:
        if self._pending is not None:
            self._pending.close()
            self._pending = None

    # -- ending ----------------------------------------------------------------------
    def end_episode(self, termination: str) -> tuple[float, dict[str, Any]]:
        """:meth:`ConversationEnv.end_episode`, dropping the suspended agent-side turn."""
        if not self._done:
            self._close_pending()
        return super().end_episode(termination)

    def _finish(self, termination: str, error: str | None = None, truncated: bool = False,
                user_fault: dict[str, Any] | None = None) -> None:
        super()._finish(termination, error, truncated, user_fault)
        episode = self._episode
        assert episode is not None
        episode["task_reward"] = episode.pop("reward")
        episode["task_reward_excluding_nl"] = episode.pop("reward_excluding_nl")
        self._reward = 1.0 if episode["ufs_pass"] is True and self.error is None else 0.0
        usage = agent_usage(self.agent)
        episode.update(
            reward=self._reward,
            agent=agent_provenance(self.agent),
            agent_prompt_tokens=int(usage.get("prompt_tokens", 0)),
            agent_completion_tokens=int(usage.get("completion_tokens", 0)),
            agent_cost_usd=float(usage.get("cost_usd", 0.0)),
        )


class ProxyPolicy:
    """A user proxy playing :class:`UserSideEnv`'s policy (e.g. to score a user model there).

    ``reset(task, seed)`` resets the proxy; ``act(observation, info)`` rebuilds the
    user's view from the observations (agent texts, and results of the proxy's own
    tool calls, flagged as errors when they start with ``Error``), asks the proxy, and
    returns its text or its tool call as a JSON ``{"name", "arguments"}`` action. The
    user tools come from the reset info's ``tools``. Proxy errors propagate.
    """

    def __init__(self, proxy: str | UserProxy = "scripted", **options: Any) -> None:
        self.proxy = make_proxy(proxy, **options)
        self.name = f"proxy:{self.proxy.name}"
        self.messages: list[Message] = []
        self.tools: list[dict[str, Any]] = []
        self._call_id: str | None = None

    def reset(self, task: Task, seed: int | None = None) -> None:
        """Start an episode for ``task``."""
        self.proxy.reset(task, seed)
        self.messages, self.tools, self._call_id = [], [], None

    def _view(self, observation: str, info: dict[str, Any]) -> UserView:
        if not self.messages:
            self.tools = list(info.get("tools") or [])
        if self._call_id is not None:
            self.messages.append(Message(role="tool", content=observation, tool_call_id=self._call_id, requestor="user",
                                         error=observation.startswith("Error")))
        else:
            self.messages.append(Message(role="assistant", content=observation))
        return UserView(messages=list(self.messages), tools=self.tools, turn=int(info.get("turn", 0)))

    def _action(self, turn: UserTurn) -> str:
        if turn.tool_call is None:
            self._call_id = None
            self.messages.append(Message(role="user", content=turn.text))
            return turn.text or ""
        self._call_id = turn.tool_call.id or f"policy_call_{len(self.messages)}"
        call = turn.tool_call.model_copy(update={"id": self._call_id, "requestor": "user"})
        self.messages.append(Message(role="user", content=turn.text, tool_calls=[call]))
        return json.dumps({"name": call.name, "arguments": call.arguments})

    def act(self, observation: str, info: dict[str, Any]) -> str:
        """The proxy's next user turn as an action."""
        return self._action(self.proxy.respond(self._view(observation, info)))

    async def aact(self, observation: str, info: dict[str, Any]) -> str:
        """:meth:`act` with the proxy's ``arespond``."""
        return self._action(await self.proxy.arespond(self._view(observation, info)))
