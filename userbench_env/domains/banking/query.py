"""The text answer of a table look-up, as every banking read tool prints it.

``query_records(db, "users", '{"user_id": "123"}')`` filters a table by field equality
(constraints are a JSON object; ``{}`` matches everything) and renders::

    Found 1 record(s) in 'users':

    1. Record ID: 123
       name: Mia Smith
       ...

Values print with Python's ``str``. No match gives ``No records found in '<table>'.``;
constraints that are not valid JSON give ``Error: Invalid JSON: <reason>`` (the lookup
tools build the JSON by interpolation, so a ``"`` in a value triggers it).
"""
from __future__ import annotations

import json
from typing import Any, Iterable

from userbench_env.domains.banking.db import table
from userbench_env.domains.store import Document


def format_records(table_name: str, records: Iterable[tuple[str, dict[str, Any]]]) -> str:
    """Render ``(record_id, record)`` pairs in the look-up format (or the no-match line)."""
    rows = list(records)
    if not rows:
        return f"No records found in '{table_name}'."
    lines = [f"Found {len(rows)} record(s) in '{table_name}':", ""]
    for index, (record_id, record) in enumerate(rows, start=1):
        lines.append(f"{index}. Record ID: {record_id}")
        lines.extend(f"   {field}: {value}" for field, value in record.items())
        lines.append("")
    return "\n".join(lines)


def query_records(db: Document, table_name: str, constraints: str = "{}") -> str:
    """Filter ``table_name`` by the JSON ``constraints`` and render the matches."""
    try:
        wanted = json.loads(constraints)
    except json.JSONDecodeError as exc:
        return f"Error: Invalid JSON: {exc}"
    records = table(db, table_name)
    if records is None:
        return f"Error: Table '{table_name}' not found."
    matches = (
        (key, record)
        for key, record in records.items_ro()
        if all(field in record and record[field] == value for field, value in wanted.items())
    )
    return format_records(table_name, matches)


def has_records(answer: str) -> bool:
    """Whether a :func:`query_records` answer found something (tau2's text test)."""
    return "No records found" not in answer and "No results found" not in answer
