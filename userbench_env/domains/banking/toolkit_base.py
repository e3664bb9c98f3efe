"""Shared plumbing of the banking toolkits: table access on the world's DB."""
from __future__ import annotations

import inspect
from typing import Any, Callable

from userbench_env.domains.banking import db as bank_db
from userbench_env.domains.banking.history import history_answer
from userbench_env.domains.banking.query import query_records
from userbench_env.domains.store import Table
from userbench_env.domains.toolkit import Toolkit


class BankToolkit(Toolkit):
    """A toolkit over the shared Rho-Bank DB (``self.db``).

    ``records(name)[key]`` is the world's private, writable copy of a record; use
    ``peek``/``items_ro`` to read without copying.
    """

    def records(self, name: str) -> Table:
        """The record map of a known table."""
        found = bank_db.table(self.db, name)
        if found is None:
            raise KeyError(name)
        return found

    def query(self, name: str, constraints: str = "{}") -> str:
        """A look-up answer (see :mod:`~userbench_env.domains.banking.query`)."""
        return query_records(self.db, name, constraints)

    def history(self, tool_name: str, name: str, field: str, value: str, headline: str, title: str, empty: str) -> str:
        """A "history" read tool's answer: the records of table ``name`` whose ``field`` is
        ``value`` (see :func:`history_answer`), or the missing-parameter error when ``value``
        is empty (``field`` names the tool's parameter)."""
        if not value:
            return f"Error: Missing required parameter: {field}"
        return history_answer(headline, tool_name, title, self.query(name, f'{{"{field}": "{value}"}}'), empty)

    def add(self, name: str, record_id: str, record: dict[str, Any]) -> bool:
        """Insert a record unless its id exists or the table is unknown."""
        return bank_db.add_record(self.db, name, record_id, record)

    def update(self, name: str, record_id: str, updates: dict[str, Any]) -> bool:
        """Update an existing record's fields."""
        return bank_db.update_record(self.db, name, record_id, updates)

    @classmethod
    def tool_function(cls, name: str) -> Callable[..., Any]:
        """The (unbound) function of tool ``name``."""
        return getattr(cls, cls._tool_index[name][0])

    @classmethod
    def parameter_names(cls, name: str) -> list[str]:
        """Parameter names of tool ``name`` (``self`` included, as a signature lists it)."""
        return list(inspect.signature(cls.tool_function(name)).parameters)

    @classmethod
    def discoverable_tools(cls) -> dict[str, Any]:
        """Discoverable tools of this toolkit: ``{name: ToolSpec}``."""
        return {name: spec for name, spec in cls.tool_specs().items() if spec.discoverable}


def name_tools_after(cls: type[BankToolkit]) -> None:
    """Make Python's argument errors of every tool read ``<cls>.<tool>()`` (as tau2's do),
    also for tools defined in mixins."""
    for name in cls.tool_specs():
        func = cls.tool_function(name)
        func.__qualname__ = f"{cls.__name__}.{func.__name__}"
