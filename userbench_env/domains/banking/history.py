"""The shared answer shape of the discoverable "history" read tools."""
from __future__ import annotations

from userbench_env.domains.banking.query import has_records


def history_answer(headline: str, tool_name: str, title: str, answer: str, empty: str) -> str:
    """``headline``, a blank line, ``Executed: <tool>``, ``title``, then the look-up or ``empty``."""
    body = answer if has_records(answer) else f"\n{empty}"
    return "\n".join([headline, "", f"Executed: {tool_name}", title, body])
