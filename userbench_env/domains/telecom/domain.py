"""The telecom domain: agent DB, phone DB, policy, toolkits and the sync hook."""
from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from userbench_env.domains.base import Domain
from userbench_env.domains.store import Document, Path as DocPath
from userbench_env.domains.telecom.agent_db import normalise_agent_db
from userbench_env.domains.telecom.agent_tools import TelecomTools
from userbench_env.domains.telecom.sync import sync_phone
from userbench_env.domains.telecom.user_db import normalise_user_db
from userbench_env.domains.telecom.user_tools import TelecomUserTools


def _read_toml(path: Path) -> dict[str, Any]:
    with path.open("rb") as handle:
        return tomllib.load(handle)


class TelecomDomain(Domain):
    """tau2's ``telecom`` domain (dual control: the customer acts on a simulated phone).

    Both DBs are small plain trees (no tables), copied whole for each world.
    """

    name = "telecom"
    tau2_name = "telecom"
    agent_toolkit = TelecomTools
    user_toolkit = TelecomUserTools

    def load_agent_db(self, folder: Path, source: str) -> Document:
        """``db.toml`` validated as tau2 does (defaults, floats, dates, field order)."""
        return Document.from_plain(normalise_agent_db(_read_toml(folder / "db.toml")), [])

    def load_user_db(self, folder: Path, source: str) -> Document:
        """``user_db.toml`` validated as tau2 does (every phone/surroundings default)."""
        return Document.from_plain(normalise_user_db(_read_toml(folder / "user_db.toml")), [])

    def load_policy(self, folder: Path, source: str) -> str:
        """Main policy and tech-support manual, each wrapped in its tag, joined by newlines."""
        main = (folder / "main_policy.md").read_text(encoding="utf-8")
        manual = (folder / "tech_support_manual.md").read_text(encoding="utf-8")
        return f"<main_policy>\n{main}\n</main_policy>\n<tech_support_policy>\n{manual}\n</tech_support_policy>"

    def normalize(self, doc: Document, touched: list[DocPath], side: str) -> None:
        """Re-validate the whole (small) DB after an ``initialization_data`` merge."""
        fixed = normalise_agent_db(doc.root) if side == "agent" else normalise_user_db(doc.root)
        doc.root.clear()
        doc.root.update(fixed)

    def sync(self, world: Any) -> None:
        """Copy line status, roaming, data quota and payment state onto the phone."""
        sync_phone(world.agent, world.user_db["surroundings"])
