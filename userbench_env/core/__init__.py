"""Pydantic models shared by every part of the package.

Nothing here imports a heavy dependency: messages and tool calls (``messages``), tasks
with their structured user blueprint and evaluation spec (``task``), fidelity rubrics
(``rubric``) and the episode record written by runs (``episode``).
"""
from userbench_env.core.messages import Message, Role, ToolCall, ToolResult
from userbench_env.core.rubric import Criterion, Rubric
from userbench_env.core.task import (
    Action,
    Blueprint,
    EnvAssertion,
    EvaluationSpec,
    InitialState,
    InitializationAction,
    KnownInfoItem,
    RewardType,
    Task,
)
from userbench_env.core.episode import EpisodeRecord

__all__ = [
    "Action",
    "Blueprint",
    "Criterion",
    "EnvAssertion",
    "EpisodeRecord",
    "EvaluationSpec",
    "InitialState",
    "InitializationAction",
    "KnownInfoItem",
    "Message",
    "RewardType",
    "Role",
    "Rubric",
    "Task",
    "ToolCall",
    "ToolResult",
]
