"""Loading the airline DB into tau2's validated canonical form.

tau2 validates ``db.json`` into its schema before hashing: missing optional fields
appear (``address2: null``, reservation ``status: null``), gift-card and certificate
amounts become floats and every record's keys follow the schema's declaration order.
:func:`load_airline_db` reproduces that dump and wraps it in a copy-on-write
:class:`~userbench_env.domains.store.Document` whose three record maps are tables.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from userbench_env.domains.airline.models import TABLE_MODELS, FlightDB
from userbench_env.domains.store import Document, Path as DocPath

#: The table paths of the airline document.
TABLES: list[tuple[str]] = [(name,) for name in TABLE_MODELS]


def normalise_db(data: dict[str, Any]) -> dict[str, Any]:
    """tau2's validated dump of a raw airline DB object (defaults, floats, field order)."""
    return FlightDB.model_validate(data).model_dump()


def load_airline_db(path: Path) -> Document:
    """Read ``path`` (an airline ``db.json``) into a read-only base document."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    return Document.from_plain(normalise_db(raw), TABLES)


def renormalise_records(doc: Document, touched: list[DocPath]) -> None:
    """Re-validate the records that initialization data patched (schema defaults again)."""
    for path in touched:
        if len(path) < 2 or path[0] not in TABLE_MODELS:
            continue
        table = doc[path[0]]
        table[path[1]] = TABLE_MODELS[path[0]].model_validate(table.peek(path[1])).model_dump()
