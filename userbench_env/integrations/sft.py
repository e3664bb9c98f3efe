"""Demonstrations as data: agent-side episodes as chat-format records for supervised fine-tuning.

:func:`demonstrations` plays one episode per task of a split with an agent (default the
scripted oracle, or ``adaptive``, or any agent spec/object) opposite a user proxy, and
returns one record per kept episode in TRL's conversational format with tools::

    {"messages": [{"role": "system", ...}, {"role": "assistant", ...}, {"role": "user", ...},
                  {"role": "assistant", "content": None, "tool_calls": [...]},
                  {"role": "tool", "tool_call_id": ..., "content": ...}, ...],
     "tools": [<OpenAI tool schemas>], "task_id": ..., "r_tau": ..., "ufs_pass": ...,
     "agent_questions": ..., "agent_tool_calls": ...}

The chat is the one an LLM agent (:class:`~userbench_env.agents.llm.LLMAgent`) keeps for
the same episode: the system prompt (the env's, or ``system_prompt``), the env's
greeting as the first assistant turn, the user's turns as ``user`` messages, each agent
action as an assistant message (a tool call as an OpenAI ``tool_calls`` entry with id
``call_<turn>_<i>``, a message as text), each tool result as a ``tool`` message. So a
model trained on these records and then served to ``userbench eval --agent direct:...``
sees at evaluation exactly the shape of conversation it learned from.

Fidelity-gated by default: an episode is kept only when R_tau is 1 (``min_reward``) and
``gate`` (default :class:`~userbench_env.runner.gate.Gate`: any UFS failure) does not
reject it; ``gate=None`` keeps episodes whatever their user did (for training against
an unfaithful user on purpose). Infrastructure errors are never kept.
"""
from __future__ import annotations

import json
from typing import Any, Sequence

from userbench_env.agents.llm import observation_messages, select_tools
from userbench_env.envs.actions import parse_action
from userbench_env.integrations.episode import agent_side_domain, episode_r_tau
from userbench_env.runner.gate import Gate

ChatMessage = dict[str, Any]


def assistant_message(action: Any, turn: int) -> ChatMessage:
    """An agent action (text, a JSON tool call or list of calls, or an OpenAI assistant
    message) as the OpenAI assistant message an LLM agent would have sent; calls get ids
    ``call_<turn>_<i>``. ``ValueError`` for an action the env would reject."""
    parsed = parse_action(action)
    if parsed.error:
        raise ValueError(f"the agent's action is not valid: {parsed.error}")
    message: ChatMessage = {"role": "assistant", "content": parsed.text}
    if parsed.calls:
        message["tool_calls"] = [
            {"id": f"call_{turn}_{i}", "type": "function",
             "function": {"name": call.name, "arguments": json.dumps(call.arguments)}}
            for i, call in enumerate(parsed.calls)
        ]
    return message


def play_chat(env: Any, agent: Any, task_id: str, seed: int = 0, system_prompt: str | None = None,
              tools: Sequence[str] | None = None) -> tuple[list[ChatMessage], list[dict[str, Any]], dict[str, Any]]:
    """Play one episode of ``task_id`` on an agent-side ``env`` with ``agent``; returns
    ``(messages, tool schemas, the terminal info)`` (see the module docstring); the info
    holds ``episode_record`` and the episode's counters (``agent_questions``...)."""
    observation, info = env.reset(seed=seed, options={"task_id": task_id})
    if hasattr(agent, "reset"):
        agent.reset(env.unwrapped.task)
    schemas = select_tools(info.get("tools") or [], tools)
    messages: list[ChatMessage] = [{"role": "system", "content": system_prompt or info["system_prompt"]}]
    if info.get("greeting"):
        messages.append({"role": "assistant", "content": info["greeting"]})
    pending: list[str] = []
    turn = 0
    while "episode_record" not in info:
        messages += observation_messages(str(observation), pending)
        turn += 1
        action = agent.act(observation, info)
        reply = assistant_message(action, turn)
        messages.append(reply)
        pending = [call["id"] for call in reply.get("tool_calls") or []]
        observation, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    return messages, schemas, info


def calls_only(messages: Sequence[ChatMessage], tools: Sequence[dict[str, Any]]) -> bool:
    """Whether every tool call in ``messages`` is of one of the ``tools`` schemas."""
    names = {s["function"]["name"] for s in tools}
    return all(call["function"]["name"] in names for m in messages for call in m.get("tool_calls") or [])


def keep_episode(episode: dict[str, Any], min_reward: float | None, gate: Gate | None) -> bool:
    """Whether a finished episode is a demonstration: no infrastructure error, R_tau at
    least ``min_reward`` (None: any), and not rejected by ``gate`` (None: no gate)."""
    if episode.get("error"):
        return False
    if min_reward is not None and episode_r_tau(episode) < min_reward:
        return False
    return gate is None or not gate.rejects(episode)


def demonstrations(
    env_id: str, split: str = "train", agent: Any = "scripted", user_proxy: str = "scripted",
    gate: Gate | None = Gate(), min_reward: float | None = 1.0, task_source: str = "bundled",
    task_ids: Sequence[str] | None = None, seeds: Sequence[int] = (0,), system_prompt: str | None = None,
    tools: Sequence[str] | None = None, **env_kwargs: Any,
) -> list[dict[str, Any]]:
    """Chat-format demonstration records of ``env_id``'s ``split`` (see the module docstring).

    ``agent``: a spec (``scripted``, ``adaptive``, ``direct:<model>``...) or an agent
    object (reset per episode). ``task_ids``: only these tasks (default: every task of
    the split, in order); each is played once per seed. ``system_prompt``/``tools``:
    the prompt and the subset of tool schemas written into the records (the env's own
    by default; the agent is not told either, so give the same ones at evaluation); an
    episode whose agent called a tool outside ``tools`` is not kept (it would teach
    calls the prompt does not offer).
    ``env_kwargs`` go to ``gym.make`` (``max_turns``, ``data_path``...).
    """
    import gymnasium as gym

    from userbench_env.agents.spec import make_agent
    from userbench_env.tasks import load_tasks

    domain = agent_side_domain(env_id)
    ids = list(task_ids) if task_ids is not None else [t.id for t in load_tasks(domain, task_source, split, env_kwargs.get("data_path"))]
    env = gym.make(env_id, task_source=task_source, split=split, user_proxy=user_proxy, on_proxy_error="record",
                   disable_env_checker=True, **env_kwargs)
    records = []
    try:
        for task_id in ids:
            for seed in seeds:
                player = make_agent(agent)
                messages, schemas, info = play_chat(env, player, task_id, seed, system_prompt, tools)
                episode = info["episode_record"]
                if keep_episode(episode, min_reward, gate) and calls_only(messages, schemas):
                    records.append({
                        "messages": messages, "tools": schemas, "task_id": task_id, "seed": seed,
                        "r_tau": episode_r_tau(episode), "ufs_pass": episode.get("ufs_pass"),
                        "agent_questions": int(info.get("agent_questions", 0)),
                        "agent_tool_calls": int(info.get("agent_tool_calls", 0)),
                    })
    finally:
        env.close()
    return records
