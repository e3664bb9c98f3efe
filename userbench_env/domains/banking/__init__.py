"""Rho-Bank (tau2 ``banking_knowledge``): a bank with a knowledge base and hidden tools.

One transactional DB (23 tables) is shared by the agent and the customer toolkits, so
both DB hashes are equal. The agent searches a 698-article knowledge base (BM25 +
grep, tau2's ``bm25_grep`` retrieval variant) to learn procedures and the names of
discoverable tools it may unlock or hand to the customer.
"""
from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

from userbench_env.domains.banking.agent_tools import KnowledgeTools
from userbench_env.domains.banking.db import load_transactional_db
from userbench_env.domains.banking.knowledge import KnowledgeBase
from userbench_env.domains.banking.user_tools import KnowledgeUserTools
from userbench_env.domains.base import Domain
from userbench_env.domains.store import Document

#: The agent prompt of the ``bm25_grep`` retrieval variant.
PROMPT_TEMPLATE = "classic_rag_bm25.md"
_COMPONENT = re.compile(r"\{\{component:(\w+)\}\}")


def render_prompt(prompts: Path, template: str = PROMPT_TEMPLATE) -> str:
    """A prompt template of ``prompts/`` with ``{{component:NAME}}`` placeholders filled in."""
    text = (prompts / template).read_text(encoding="utf-8")
    return _COMPONENT.sub(
        lambda m: (prompts / "components" / f"{m.group(1)}.md").read_text(encoding="utf-8"), text
    )


def read_log_allowlist(task: Any) -> set[str]:
    """Discoverable tools whose calls are logged even when they only read: those the
    task's gold solution calls through ``call_discoverable_agent_tool``."""
    return {
        action.arguments.get("agent_tool_name")
        for action in task.gold_actions
        if action.name == "call_discoverable_agent_tool"
    }


class BankingDomain(Domain):
    """The Rho-Bank domain (tau2 ``banking_knowledge``)."""

    name = "banking"
    tau2_name = "banking_knowledge"
    agent_toolkit = KnowledgeTools
    user_toolkit = KnowledgeUserTools
    shared_user_db = True

    def __init__(self) -> None:
        super().__init__()
        self._knowledge: dict[Path, KnowledgeBase] = {}
        self._knowledge_lock = threading.Lock()

    def load_agent_db(self, folder: Path, source: str) -> Document:
        """The transactional DB of ``folder`` with all 23 tables."""
        return load_transactional_db(folder / "db.json")

    def load_policy(self, folder: Path, source: str) -> str:
        """The ``bm25_grep`` agent prompt with its components resolved."""
        return render_prompt(folder / "prompts")

    def configure(self, world: Any, task: Any) -> None:
        """Put the task's read-log allowlist on the world."""
        world.settings["read_log_allowlist"] = read_log_allowlist(task)

    def knowledge_base(self, folder: Path | None) -> KnowledgeBase:
        """The knowledge base of a data folder, loaded once per process."""
        if folder is None:
            raise RuntimeError("this world has no data folder, so no knowledge base")
        key = folder.resolve()
        found = self._knowledge.get(key)
        if found is None:
            with self._knowledge_lock:
                found = self._knowledge.get(key)
                if found is None:
                    found = KnowledgeBase.load(key / "documents")
                    self._knowledge[key] = found
        return found


__all__ = ["BankingDomain", "KnowledgeTools", "KnowledgeUserTools"]
