"""A transcript from another harness, read into our message model, and what can be wrong with one.

A reader (:mod:`.tau2`, :mod:`.taubench`) turns each entry of its input into a
:class:`Transcript`: the task it names, and the conversation as our
:class:`~userbench_env.core.messages.Message` list, each message numbered with the agent
turn it belongs to (as the env numbers them) and mapped back to its index in the input's
own message list. An entry that cannot be read is a :class:`BadEntry` naming the file and
the entry; readers yield it in place of the transcript so the rest of the file is still
scored.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from userbench_env.core.messages import Message
from userbench_env.core.task import Task


class BadEntry(ValueError):
    """An entry of an input file that cannot be scored; its message is one line naming the
    file and the entry."""

    def __init__(self, path: str | Path, entry: str, reason: str):
        self.path, self.entry, self.reason = str(path), entry, " ".join(reason.split())
        super().__init__(f"{self.path}: {self.entry}: {self.reason}")


class NotThisFormat(ValueError):
    """A whole input file is not of the format it was read as (one line saying what it looks like)."""


@dataclass
class Transcript:
    """One episode read from another harness's file.

    ``episode`` is its name in our output (tau2: the simulation id; tau-bench:
    ``tb<task_id>-t<trial>``); ``source_task_id`` the task id the input uses and ``task`` the
    task it is scored against. ``messages`` are numbered with agent turns
    (:func:`number_turns`); ``origins[i]`` is the index in the input's own message list of
    ``messages[i]`` (None for a message the harness showed the user but did not record:
    tau-bench's greeting). ``reward``, ``termination`` and ``user_cost_usd`` are what the
    input recorded (None / 0.0 when it did not).
    """

    episode: str
    source_task_id: str
    task: Task
    trial: int
    messages: list[Message]
    origins: list[int | None]
    reward: float | None = None
    termination: str | None = None
    user_cost_usd: float = 0.0

    def user_turns(self) -> list[tuple[int, str]]:
        """The user's messages the input recorded, in order, as ``(index in the input's own
        message list, text)``: customer turn ``k`` (1-based, as raters number them) is
        ``user_turns()[k - 1]``, and a flag's ``message_index`` is one of these indices."""
        return [(origin, message.content or "") for message, origin in zip(self.messages, self.origins)
                if message.role == "user" and origin is not None]


def number_turns(messages: list[Message]) -> list[Message]:
    """``messages`` with ``turn`` set as the env sets it: the agent's first message (its
    greeting) is turn 0 and every later agent message (text or tool calls) starts the next
    turn; every other message belongs to the turn of the agent message before it (turn 0
    before any). Equals the env's own turns unless the agent sent malformed actions, which
    count as turns in the env but leave no message."""
    turn, numbered = -1, []
    for message in messages:
        if message.role == "assistant":
            turn += 1
        numbered.append(message.model_copy(update={"turn": max(turn, 0)}))
    return numbered


def validation_summary(error: ValidationError) -> str:
    """A pydantic validation error on one line: where the first problem is, and what."""
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"])
    more = error.error_count() - 1
    return f"{where}: {first['msg']}" + (f" (and {more} more)" if more else "")
