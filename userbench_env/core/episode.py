"""The episode record: one finished episode as written by runs (one JSONL line)."""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from userbench_env.core.messages import Message


class EpisodeRecord(BaseModel):
    """Everything a report needs about one episode.

    ``error`` is set for infrastructure failures (provider down, timeouts after retries);
    such episodes are excluded from rates, never counted as failures. ``injections`` is
    the ground truth of a perturbed proxy: ``[{"turn": int, "mode": str}, ...]``.
    """

    model_config = ConfigDict(extra="allow")

    key: str = ""
    env_id: str = ""
    domain: str = ""
    source: str = ""
    task_id: str
    trial: int = 0
    seed: int | None = None
    proxy: str = ""
    agent: str = ""
    termination: str = ""
    reward: float | None = 0.0  # None: the agent is not scored (a user failure, see envs.info)
    reward_components: dict[str, float | None] = Field(default_factory=dict)
    ufs_pass: bool | None = None
    criteria: list[dict[str, Any]] = Field(default_factory=list)
    failures_per_family: dict[str, int] = Field(default_factory=dict)
    probe: dict[str, Any] | None = None
    turns: int = 0
    agent_tool_calls: int = 0
    user_tool_calls: int = 0
    tool_errors: int = 0
    agent_questions: int = 0
    user_provenance: dict[str, Any] = Field(default_factory=dict)
    user_prompt_tokens: int = 0
    user_completion_tokens: int = 0
    user_cost_usd: float = 0.0
    injections: list[dict[str, Any]] = Field(default_factory=list)
    messages: list[Message] = Field(default_factory=list)
    error: str | None = None
    duration_s: float = 0.0
