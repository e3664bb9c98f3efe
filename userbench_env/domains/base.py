"""What a domain is: a DB model, an agent toolkit, an optional user toolkit, policy text.

Each domain package (``domains/airline``, ``domains/retail``, ...) defines one
:class:`Domain` subclass. The class knows how to read its data folder into a
normalised, read-only base :class:`~userbench_env.domains.store.Document` (done once per
process and folder) and which toolkits act on it; :class:`~userbench_env.domains.world.World`
does the rest.
"""
from __future__ import annotations

import threading
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar

from userbench_env.domains.store import Document, Path as DocPath
from userbench_env.domains.toolkit import Toolkit


@lru_cache(maxsize=256)
def _resolved(folder: Path) -> Path:
    """``folder.resolve()``, memoised (a data folder is resolved on every world fork)."""
    return folder.resolve()


class Domain:
    """Base class of every domain. Subclasses set the class attributes and loaders.

    ``name`` is our name (``banking``); ``tau2_name`` the folder under tau2's
    ``domains/`` (``banking_knowledge``). ``shared_user_db`` means the user toolkit acts
    on the agent's DB object (banking), so both hashes are equal.
    """

    name: ClassVar[str]
    tau2_name: ClassVar[str]
    agent_toolkit: ClassVar[type[Toolkit]]
    user_toolkit: ClassVar[type[Toolkit] | None] = None
    shared_user_db: ClassVar[bool] = False

    def __init__(self) -> None:
        self._bases: dict[tuple[str, Path], tuple[Document, Document | None, str]] = {}
        self._lock = threading.Lock()

    # -- to be provided by each domain -------------------------------------------
    def load_agent_db(self, folder: Path, source: str) -> Document:
        """Read and normalise the agent DB of ``folder`` into a base document."""
        raise NotImplementedError

    def load_user_db(self, folder: Path, source: str) -> Document | None:
        """Read the user DB (domains with a separate user world), else ``None``."""
        return None

    def load_policy(self, folder: Path, source: str) -> str:
        """The agent's policy text."""
        return (folder / "policy.md").read_text(encoding="utf-8")

    def normalize(self, doc: Document, touched: list[DocPath], side: str) -> None:
        """Re-apply schema defaults/coercions to records touched by initialization data."""

    def sync(self, world: Any) -> None:
        """The synchronisation hook run after tool calls and steps (telecom only)."""

    def configure(self, world: Any, task: Any) -> None:
        """Per-task setup of a fresh world before its initial state is applied."""

    # -- shared machinery ----------------------------------------------------------
    def base(self, folder: Path, source: str) -> tuple[Document, Document | None, str]:
        """The process-wide read-only (agent DB, user DB, policy) of ``folder``."""
        key = (source, _resolved(folder))
        found = self._bases.get(key)
        if found is None:
            with self._lock:
                found = self._bases.get(key)
                if found is None:
                    found = (
                        self.load_agent_db(folder, source),
                        None if self.shared_user_db else self.load_user_db(folder, source),
                        self.load_policy(folder, source),
                    )
                    self._bases[key] = found
        return found
