"""The COMMUNICATE component: facts the agent had to say (tau2 4.5)."""
from __future__ import annotations

from userbench_env.core.messages import Message


def communicate_checks(expected: list[str], messages: list[Message]) -> list[bool]:
    """For each expected string, whether an agent text contains it.

    Case-insensitive substring test against each assistant message with non-blank
    text, whose commas are removed first (so ``1628`` matches ``$1,628``); the expected
    string keeps its commas. User, tool and tool-argument text never counts.
    """
    texts = [m.content.lower().replace(",", "") for m in messages if m.role == "assistant" and m.has_text]
    return [any(info.lower() in text for text in texts) for info in expected]
