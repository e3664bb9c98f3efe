"""Retail: an online store's customer-service desk (tau2-bench ``retail``), byte-compatible.

The agent looks up customers, orders and products, and cancels or changes pending
orders, requests returns/exchanges of delivered ones and updates addresses. There are
no user-side tools. The DB (``products``, ``users``, ``orders``) is read and normalised
once per process; every world forks it copy-on-write.
"""
from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from userbench_env.domains.base import Domain
from userbench_env.domains.retail import db
from userbench_env.domains.retail.tools import RetailTools
from userbench_env.domains.store import Document, Path as DocPath


class RetailDomain(Domain):
    """The retail domain: agent toolkit :class:`RetailTools` over the normalised retail DB."""

    name: ClassVar[str] = "retail"
    tau2_name: ClassVar[str] = "retail"
    agent_toolkit = RetailTools

    def load_agent_db(self, folder: Path, source: str) -> Document:
        """Read ``db.json`` of ``folder`` once and normalise it to tau2's validated dump."""
        return db.load(folder / "db.json")

    def normalize(self, doc: Document, touched: list[DocPath], side: str) -> None:
        """Re-normalise records that initialization data merged in (defaults, floats, order)."""
        for path in touched:
            if len(path) >= 2 and path[0] in db.NORMALISERS:
                table = doc[path[0]]
                table[path[1]] = db.NORMALISERS[path[0]](table[path[1]])


__all__ = ["RetailDomain", "RetailTools"]
