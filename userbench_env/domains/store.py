"""Copy-on-write databases and tau2's canonical DB hash.

A domain DB is a tree of plain Python values (dicts, lists, strings, numbers, dates)
whose large record maps (``{record_id: record}``) are :class:`Table` objects. The tree is
parsed and normalised **once per process** into a read-only base; every world gets a
:meth:`Document.fork`, which shares the base records and copies a record only when a
tool takes it for writing. Resetting an env therefore costs microseconds, not a re-read
of a multi-megabyte file.

The hash is tau2's: SHA-256 of the JSON text of the whole tree with keys sorted at every
level, Python's default separators, ASCII escaping and ``str()`` for dates. The JSON of
every unmodified base record is computed once and shared by all forks, so hashing after
a few writes only re-encodes the records that changed.

Contract for tool code: ``table[key]`` (and ``table.get``) return the world's private,
mutable copy of a record; ``table.peek(key)``, ``table.values_ro()`` and
``table.items_ro()`` return shared records that must not be mutated.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, MutableMapping
from itertools import chain
from typing import Any, Iterable, Sequence

Path = tuple[str, ...]

_MISSING = object()


def copy_value(value: Any) -> Any:
    """Deep-copy a tree of dicts/lists/scalars (much faster than ``copy.deepcopy``)."""
    if isinstance(value, dict):
        return {k: copy_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_value(v) for v in value]
    return value


def canonical_value_json(value: Any) -> str:
    """The canonical JSON of a plain value: sorted keys, default separators, ASCII."""
    return json.dumps(value, sort_keys=True, default=str)


class _BaseTable:
    """The shared, read-only records of a table plus their cached canonical JSON."""

    __slots__ = ("records", "json_cache")

    def __init__(self, records: dict[str, Any]):
        self.records = records
        self.json_cache: dict[str, str] = {}

    def record_json(self, key: str) -> str:
        text = self.json_cache.get(key)
        if text is None:
            text = canonical_value_json(self.records[key])
            self.json_cache[key] = text
        return text


class Table(MutableMapping):
    """A record map of one world: shared base records, private copies on write.

    Iteration order is the base order followed by keys added in this world, which is
    the insertion order tau2's dict-valued tables have.
    """

    __slots__ = ("_base", "_over", "_deleted", "_new_keys")

    def __init__(self, base: _BaseTable):
        self._base = base
        self._over: dict[str, Any] = {}
        self._deleted: set[str] = set()
        self._new_keys: list[str] = []

    # -- reading without copying -------------------------------------------------
    def peek(self, key: str, default: Any = None) -> Any:
        """The record under ``key`` without copying it (do not mutate), or ``default``."""
        if key in self._over:
            return self._over[key]
        if key in self._deleted:
            return default
        return self._base.records.get(key, default)

    def items_ro(self) -> Iterator[tuple[str, Any]]:
        """``(key, record)`` pairs in table order, without copying (do not mutate)."""
        over, deleted = self._over, self._deleted
        for key, record in self._base.records.items():
            if key not in deleted:
                yield key, over.get(key, record)
        for key in self._new_keys:
            yield key, over[key]

    def values_ro(self) -> Iterator[Any]:
        """Records in table order, without copying (do not mutate)."""
        over, deleted = self._over, self._deleted
        if not over and not deleted:
            return iter(self._base.records.values())
        changed = (over.get(k, r) for k, r in self._base.records.items() if k not in deleted)
        return chain(changed, (over[k] for k in self._new_keys))

    # -- MutableMapping ----------------------------------------------------------
    def __getitem__(self, key: str) -> Any:
        if key in self._over:
            return self._over[key]
        if key in self._deleted:
            raise KeyError(key)
        try:
            record = self._base.records[key]
        except (KeyError, TypeError):
            raise KeyError(key) from None
        mine = copy_value(record)
        self._over[key] = mine
        return mine

    def __setitem__(self, key: str, value: Any) -> None:
        if key not in self._over and (key in self._deleted or key not in self._base.records):
            if key not in self._new_keys:
                self._new_keys.append(key)
        self._deleted.discard(key)
        self._over[key] = value

    def __delitem__(self, key: str) -> None:
        if key not in self:
            raise KeyError(key)
        self._over.pop(key, None)
        if key in self._new_keys:
            self._new_keys.remove(key)
        if key in self._base.records:
            self._deleted.add(key)

    def __contains__(self, key: object) -> bool:
        if key in self._over:
            return True
        if key in self._deleted:
            return False
        return key in self._base.records

    def __iter__(self) -> Iterator[str]:
        deleted = self._deleted
        for key in self._base.records:
            if key not in deleted:
                yield key
        yield from self._new_keys

    def __len__(self) -> int:
        return len(self._base.records) - len(self._deleted) + len(self._new_keys)

    # -- copies and hashing ------------------------------------------------------
    def fork(self) -> "Table":
        """An independent copy of this world's table (records copied only if changed)."""
        twin = Table(self._base)
        twin._over = {k: copy_value(v) for k, v in self._over.items()}
        twin._deleted = set(self._deleted)
        twin._new_keys = list(self._new_keys)
        return twin

    def to_plain(self) -> dict[str, Any]:
        """A plain ``dict`` copy of the whole table, in table order."""
        return {k: copy_value(self.peek(k)) for k in self}

    def same_state(self, other: "Table") -> bool:
        """Whether both tables have equal canonical JSON, comparing only what changed.

        Tables forked from the same base differ only in their own copies, deletions and
        additions, so this costs O(changes), not O(table). Values compare by canonical
        JSON (``3`` differs from ``3.0``, as in the hash).
        """
        if self._base is not other._base:
            return self.canonical_json() == other.canonical_json()
        if self._deleted != other._deleted or set(self._new_keys) != set(other._new_keys):
            return False
        for key in self._over.keys() | other._over.keys():
            if canonical_value_json(self.peek(key)) != canonical_value_json(other.peek(key)):
                return False
        return True

    def canonical_json(self) -> str:
        parts = []
        for key in sorted(self):
            if key in self._over:
                text = canonical_value_json(self._over[key])
            else:
                text = self._base.record_json(key)
            parts.append(json.dumps(key) + ": " + text)
        return "{" + ", ".join(parts) + "}"


def _canonical(node: Any) -> str:
    if isinstance(node, Table):
        return node.canonical_json()
    if isinstance(node, dict):
        return "{" + ", ".join(
            json.dumps(k) + ": " + _canonical(node[k]) for k in sorted(node)
        ) + "}"
    return canonical_value_json(node)


def _same_tree(a: Any, b: Any) -> bool:
    if isinstance(a, Table) and isinstance(b, Table):
        return a.same_state(b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_tree(a[k], b[k]) for k in a)
    return _canonical(a) == _canonical(b)


def _fork_tree(node: Any) -> Any:
    if isinstance(node, _BaseTable):
        return Table(node)
    if isinstance(node, Table):
        return node.fork()
    if isinstance(node, dict):
        return {k: _fork_tree(v) for k, v in node.items()}
    return copy_value(node)


def _plain_tree(node: Any) -> Any:
    if isinstance(node, Table):
        return node.to_plain()
    if isinstance(node, dict):
        return {k: _plain_tree(v) for k, v in node.items()}
    return copy_value(node)


class Document:
    """A domain database: a tree whose record maps at ``table_paths`` are tables.

    Build the process-wide base once with :meth:`from_plain`, then :meth:`fork` it for
    each world. ``doc[name]`` gives a top-level section (a :class:`Table` or a plain
    value); nested tables (e.g. banking's ``db[table]["data"]``) are reached the same way.
    """

    __slots__ = ("root", "table_paths", "_is_base")

    def __init__(self, root: dict[str, Any], table_paths: Sequence[Path], is_base: bool):
        self.root = root
        self.table_paths = tuple(tuple(p) for p in table_paths)
        self._is_base = is_base

    @classmethod
    def from_plain(cls, data: dict[str, Any], table_paths: Iterable[Sequence[str]] = ()) -> "Document":
        """Make a read-only base from a normalised plain tree (which it takes over)."""
        paths = [tuple(p) for p in table_paths]
        for path in paths:
            parent = data
            for part in path[:-1]:
                parent = parent[part]
            records = parent[path[-1]]
            if not isinstance(records, dict):
                raise TypeError(f"table {'/'.join(path)} must be a dict of records")
            parent[path[-1]] = _BaseTable(records)
        return cls(data, paths, is_base=True)

    def fork(self) -> "Document":
        """A private, writable copy for one world (cheap: records are shared until written)."""
        return Document(_fork_tree(self.root), self.table_paths, is_base=False)

    def __getitem__(self, name: str) -> Any:
        if self._is_base:
            raise TypeError("the shared base DB is read-only: fork() it first")
        return self.root[name]

    def __setitem__(self, name: str, value: Any) -> None:
        if self._is_base:
            raise TypeError("the shared base DB is read-only: fork() it first")
        self.root[name] = value

    def __contains__(self, name: object) -> bool:
        return name in self.root

    def keys(self):
        return self.root.keys()

    def canonical_json(self) -> str:
        """tau2's canonical JSON text of the whole DB."""
        if self._is_base:
            return self.fork().canonical_json()
        if not self.table_paths:  # a plain tree: one C-level encode is the same text, faster
            return canonical_value_json(self.root)
        return _canonical(self.root)

    def same_state(self, other: "Document") -> bool:
        """Whether both DBs have the same tau2 hash, without hashing them.

        For two forks of one base this compares only the records either world changed
        (microseconds instead of re-encoding a multi-megabyte DB).
        """
        if self._is_base or other._is_base:
            return self.canonical_json() == other.canonical_json()
        return _same_tree(self.root, other.root)

    def hash(self) -> str:
        """tau2's DB hash: SHA-256 hex of :meth:`canonical_json`."""
        return hashlib.sha256(self.canonical_json().encode("utf-8")).hexdigest()

    def to_plain(self) -> dict[str, Any]:
        """The whole DB as a plain tree (a copy)."""
        if self._is_base:
            return self.fork().to_plain()
        return _plain_tree(self.root)

    def merge(self, patch: dict[str, Any]) -> list[Path]:
        """Deep-merge ``patch`` (tau2 ``initialization_data``) into this DB.

        Nested dicts merge key by key, anything else replaces. Returns the record paths
        that were touched, ``(table path..., record key)``, so the domain can re-normalise them.
        """
        touched: list[Path] = []
        _merge_into(self.root, patch, (), touched)
        return touched


def _merge_into(target: Any, patch: dict[str, Any], path: Path, touched: list[Path]) -> None:
    for key, value in patch.items():
        if isinstance(target, Table):
            if isinstance(value, dict) and key in target:
                _deep_merge_plain(target[key], value)
            else:
                target[key] = copy_value(value)
            touched.append(path + (key,))
            continue
        current = target.get(key, _MISSING) if isinstance(target, dict) else _MISSING
        if isinstance(value, dict) and isinstance(current, (dict, Table)):
            _merge_into(current, value, path + (key,), touched)
        else:
            target[key] = copy_value(value)
            touched.append(path + (key,))


def _deep_merge_plain(target: dict[str, Any], patch: dict[str, Any]) -> None:
    for key, value in patch.items():
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            _deep_merge_plain(target[key], value)
        else:
            target[key] = copy_value(value)
