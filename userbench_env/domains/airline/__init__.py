"""The airline domain (tau2-bench ``airline``): flights, users and reservations.

Agent tools only (no user toolkit); see :class:`AirlineTools`. The DB is validated
once per process and forked per world.
"""
from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from userbench_env.domains.airline.db import load_airline_db, renormalise_records
from userbench_env.domains.airline.tools import AirlineTools
from userbench_env.domains.base import Domain
from userbench_env.domains.store import Document, Path as DocPath


class AirlineDomain(Domain):
    """tau2's airline domain: ``db.json`` + ``policy.md`` of the folder, agent tools only."""

    name: ClassVar[str] = "airline"
    tau2_name: ClassVar[str] = "airline"
    agent_toolkit = AirlineTools

    def load_agent_db(self, folder: Path, source: str) -> Document:
        """The folder's ``db.json`` in tau2's validated canonical form."""
        return load_airline_db(folder / "db.json")

    def normalize(self, doc: Document, touched: list[DocPath], side: str) -> None:
        """Re-validate records patched by a task's initialization data."""
        renormalise_records(doc, touched)


__all__ = ["AirlineDomain", "AirlineTools"]
