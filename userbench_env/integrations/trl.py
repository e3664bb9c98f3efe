"""TRL adapter: UserBench's agent-side envs for ``GRPOTrainer(environment_factory=...)``.

Fitted to trl 1.16's ``GRPOTrainer``: it builds one instance of the factory's class per
rollout, calls ``reset(**row)`` with the dataset row (the returned text is appended to
the row's last user message), offers every public method of the class as a tool
(schema from the signature and Google-style docstring), runs the model's tool calls
until it answers without one, then calls the reward functions with
``environments=[...]`` (one per completion); a reward of ``None`` means "no reward"
(all ``None`` for a completion: no learning signal, left out of the group baseline).

* :func:`environment_class` makes the class for one env id: a method per domain tool
  (generated from the env's OpenAI tool schemas) and ``send_message`` (a message to
  the user; returns the user's reply). The text of the turn that ends the episode
  (user stop, transfer, too many errors, turn budget, infrastructure error) ends with
  ``[conversation over: <termination>]``, and every later call is refused. When the
  model stops calling tools with the episode still open, its final plain answer
  (:func:`final_reply`) goes to the user as the agent's message, as a chat agent's
  answer would, and the episode then ends as the agent's stop (``###STOP###``) before
  it is scored.
* Reward functions reading each rollout's finished episode: :func:`r_tau`,
  :func:`ufs_gated_r_tau` (``None`` when the user failed UFS: no learning signal),
  :func:`fidelity_weighted_r_tau`; :func:`reward_function` builds one with another
  gate. Infrastructure errors are ``None``, never 0.
* :func:`training_dataset`: a ``datasets.Dataset`` of rows naming episodes of a split
  disjoint from the evaluation split, with the agent's system prompt as the prompt.
* :func:`tool_chat_template`: a ChatML template with Hermes tool calls that TRL parses,
  for ChatML models whose own template has no tools (SmolLM2); :func:`trainable_model`:
  a GGUF-loaded model in the plain form TRL's trainer accepts.
"""
from __future__ import annotations

from typing import Any, Callable, ClassVar, Literal, Sequence

from userbench_env.integrations.episode import (
    REWARD_KINDS,
    EpisodeRow,
    EpisodeSession,
    RewardKind,
    agent_side_domain,
    episode_rows,
    score_episode,
)
from userbench_env.integrations.tools import tool_method
from userbench_env.runner.gate import Gate

#: the method that sends a message to the user (besides the domain's tools)
MESSAGE_TOOL = "send_message"


class UserBenchEnvironment:
    """Base of the classes :func:`environment_class` makes (one episode per instance at a time).

    Public methods are the model's tools (TRL lists them on the class); the episode's
    state is read through properties, which TRL does not list.
    """

    env_kwargs: ClassVar[dict[str, Any]] = {}
    #: give each rollout of a row its own episode seed (see :func:`environment_class`)
    rollout_seeds: ClassVar[bool] = False
    #: how many rollouts of each row this class has started (for ``rollout_seeds``)
    _plays: ClassVar[dict[str, int]] = {}

    def __init__(self) -> None:
        self._session = EpisodeSession(**self.env_kwargs)

    def reset(self, **row: Any) -> str:
        """Start the episode the dataset row names; returns the user's opening message."""
        if self.rollout_seeds:
            row = self._fresh_seed(row)
        opening = self._session.start(row)
        return f"{opening}\n{self._session.end_note()}" if self._session.done else opening

    @classmethod
    def _fresh_seed(cls, row: dict[str, Any]) -> dict[str, Any]:
        """``row`` with seed = its seed + the number of rollouts of it this class started before."""
        episode = EpisodeRow.model_validate(row)
        key = episode.model_copy(update={"seed": 0}).model_dump_json()
        played = cls._plays.get(key, 0)
        cls._plays[key] = played + 1
        return {**row, "seed": episode.seed + played}

    def send_message(self, message: str) -> str:
        """Send a message to the customer and return the customer's reply.

        Args:
            message: The text to send to the customer.
        """
        return self._session.act(message)

    def _call_tool(self, name: str, arguments: dict[str, Any]) -> str:
        return self._session.act({"name": name, "arguments": arguments})

    @property
    def session(self) -> EpisodeSession:
        """The episode being played."""
        return self._session

    @property
    def done(self) -> bool:
        """Whether the episode has ended."""
        return self._session.done

    @property
    def episode(self) -> dict[str, Any]:
        """The finished episode's ``info["episode_record"]`` (ends an open episode as the agent's stop)."""
        return self._session.finish()


def environment_class(env_id: str = "UserBench/Retail-v0", task_source: str = "bundled",
                      tools: Sequence[str] | None = None, rollout_seeds: bool = False,
                      **env_kwargs: Any) -> type[UserBenchEnvironment]:
    """The environment class for ``GRPOTrainer(environment_factory=...)`` over ``env_id``.

    ``env_kwargs`` go to ``gym.make`` for every episode (``user_proxy``, ``max_turns``,
    ``judge``, ``max_errors``, ``data_path``, ...). The tools are read from the env's
    own schemas (one reset of a training task of ``task_source``); ``tools`` keeps only
    the named ones (the tool schemas are most of the prompt: fewer tools, shorter
    prompts, e.g. for CPU runs). ``send_message`` is always offered.

    ``rollout_seeds``: GRPO plays each row several times (its group). By default every
    rollout plays the row's seed, so a seeded user proxy behaves alike in all of them;
    with ``rollout_seeds=True`` the n-th rollout of a row started by this class plays
    seed ``row seed + n`` (reproducible for a given order of resets), so the group sees
    the spread of user behaviour a stochastic user gives (an LLM user's sampling, a
    perturbed user's injections).
    """
    domain = agent_side_domain(env_id)
    probe = EpisodeSession(**env_kwargs)
    probe.start(episode_rows(env_id, "train", task_source, data_path=env_kwargs.get("data_path"), limit=1)[0])
    schemas = probe.tools
    if tools is not None:
        known = {s["function"]["name"] for s in schemas}
        unknown = sorted(set(tools) - known)
        if unknown:
            raise ValueError(f"{env_id} has no tools {unknown}; its tools: {sorted(known)}")
        schemas = [s for s in schemas if s["function"]["name"] in set(tools)]
    namespace: dict[str, Any] = {"env_kwargs": dict(env_kwargs), "rollout_seeds": rollout_seeds, "_plays": {}, "__doc__": f"{env_id} as a TRL environment (tools: its agent tools and {MESSAGE_TOOL})."}
    for schema in schemas:
        name = schema["function"]["name"]
        if name == MESSAGE_TOOL or name == "reset" or name.startswith("_") or hasattr(UserBenchEnvironment, name):
            raise ValueError(f"{env_id}'s tool {name!r} clashes with the adapter's own members")
        namespace[name] = tool_method(schema, UserBenchEnvironment._call_tool)
    if probe.env is not None:
        probe.env.close()
    return type(f"UserBench{domain.title()}Environment", (UserBenchEnvironment,), namespace)


def final_reply(completion: Any) -> str | None:
    """The agent's closing plain answer in a TRL completion (its last message, when that
    is an assistant message without tool calls and without unparsed tool-call markup),
    or None. TRL ends a rollout when the model answers without a tool call; that answer
    is the agent's message to the customer, so the reward functions deliver it before
    the episode ends (:meth:`~userbench_env.integrations.episode.EpisodeSession.finish`)."""
    if isinstance(completion, str):
        text = completion
    elif isinstance(completion, list) and completion and isinstance(completion[-1], dict):
        last = completion[-1]
        if last.get("role") != "assistant" or last.get("tool_calls") or not isinstance(last.get("content"), str):
            return None
        text = last["content"]
    else:
        return None
    return None if "<tool_call>" in text else (text.strip() or None)


def reward_function(kind: RewardKind = "ufs_gated", gate: Gate | None = None,
                    name: str | None = None) -> Callable[..., list[float | None]]:
    """A TRL reward function scoring each rollout's finished episode with
    :func:`~userbench_env.integrations.episode.score_episode` (``kind``, ``gate``)."""
    if kind not in REWARD_KINDS:
        raise ValueError(f"unknown reward kind {kind!r}; choose one of {', '.join(REWARD_KINDS)}")

    def reward(environments: list[UserBenchEnvironment], completions: list[Any] | None = None,
               **_: Any) -> list[float | None]:
        replies = [final_reply(c) for c in completions] if completions is not None else [None] * len(environments)
        return [score_episode(env.session.finish(reply), kind, gate) for env, reply in zip(environments, replies)]

    reward.__name__ = reward.__qualname__ = name or kind
    reward.__doc__ = f"The {kind} reward of each rollout's finished episode (None: no reward)."
    return reward


#: R_tau of each rollout (None for an infrastructure error)
r_tau = reward_function("r_tau", name="r_tau")
#: R_tau, or None (no learning signal) when the simulated user failed UFS
ufs_gated_r_tau = reward_function("ufs_gated", name="ufs_gated_r_tau")
#: R_tau times the share of the user's judged criteria that passed
fidelity_weighted_r_tau = reward_function("fidelity_weighted", name="fidelity_weighted_r_tau")


def rollout_stats(environments: list[UserBenchEnvironment], gate: Gate | None = None) -> dict[str, float]:
    """Per-batch numbers over finished episodes: ``r_tau`` (mean over episodes without
    infrastructure error), ``gated_share`` (share of those the gate rejects), ``errors``
    (count of infrastructure errors), ``episodes``."""
    episodes = [env.episode for env in environments]
    scored = [e for e in episodes if not e.get("error")]
    rewards = [score_episode(e, "r_tau") for e in scored]
    gated = [score_episode(e, "ufs_gated", gate) is None for e in scored]
    return {
        "r_tau": sum(r or 0.0 for r in rewards) / len(rewards) if rewards else float("nan"),
        "gated_share": sum(gated) / len(gated) if gated else float("nan"),
        "errors": float(len(episodes) - len(scored)),
        "episodes": float(len(episodes)),
    }


def training_dataset(env_id: str = "UserBench/Retail-v0", part: Literal["train", "test"] = "train",
                     task_source: str = "bundled", seeds: tuple[int, ...] = (0,), user_proxy: str | None = None,
                     limit: int | None = None, system_prompt: str | None = None, data_path: Any = None) -> Any:
    """A ``datasets.Dataset`` of episodes of the ``part`` split (see
    :func:`~userbench_env.integrations.episode.split_task_ids`): the columns of
    :class:`~userbench_env.integrations.episode.EpisodeRow` plus ``prompt`` (the agent's
    system prompt, the env's own unless ``system_prompt`` is given, and an empty user
    message that ``reset`` fills with the user's opening message)."""
    from datasets import Dataset

    rows = episode_rows(env_id, part, task_source, seeds, user_proxy, data_path, limit)
    if system_prompt is None:
        probe = EpisodeSession(**({"data_path": data_path} if data_path is not None else {}))
        probe.start(rows[0])
        system_prompt = probe.system_prompt
    prompt = [{"role": "system", "content": system_prompt}, {"role": "user", "content": ""}]
    return Dataset.from_list([{**row, "prompt": prompt} for row in rows])


def trainable_model(model: Any) -> Any:
    """The same weights in a plain (unquantized) model that trainers accept.

    transformers marks a model loaded from a GGUF file as quantized (its GGUF quantizer
    stays attached) although the weights were dequantized to float32, and its
    ``Trainer`` refuses to fine-tune a quantized model; this copies the weights into a
    model built from the config without the quantization entry. Other models are
    returned unchanged."""
    if not getattr(model, "is_quantized", False) or getattr(model.config, "quantization_config", None) is None:
        return model
    from transformers import AutoModelForCausalLM

    settings = {k: v for k, v in model.config.to_dict().items() if k != "quantization_config"}
    plain = AutoModelForCausalLM.from_config(type(model.config).from_dict(settings))
    plain.load_state_dict(model.state_dict())
    return plain.to(model.dtype)


def tool_chat_template() -> str:
    """TRL's ChatML + Hermes tool-call template (its Qwen2.5 template), which TRL knows
    how to parse; ChatML models without tool support in their own template (SmolLM2)
    use it as ``tokenizer.chat_template``. Always give a system message with it."""
    from trl.chat_template_utils import qwen2_5_chat_template

    return qwen2_5_chat_template
