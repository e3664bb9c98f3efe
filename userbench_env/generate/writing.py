"""Writing a generated world to disk, byte-stable.

JSON is written with a fixed layout (ASCII escapes, insertion order, trailing newline)
so the same data always gives the same bytes. ``expand`` is how many levels of
containers are spread over lines; deeper containers stay on one line, which keeps a DB
file small while still giving one record per line.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def dump_json(data: Any, expand: int = 99) -> str:
    """The canonical text of ``data``: indented ``expand`` levels deep, then compact."""
    return _dump(data, expand, 0) + "\n"


def _dump(value: Any, expand: int, level: int) -> str:
    if level >= expand or not isinstance(value, (dict, list)) or not value:
        return json.dumps(value, ensure_ascii=True)
    pad, inner = " " * level, " " * (level + 1)
    if isinstance(value, dict):
        items = [f"{inner}{json.dumps(k, ensure_ascii=True)}: {_dump(v, expand, level + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    items = [f"{inner}{_dump(v, expand, level + 1)}" for v in value]
    return "[\n" + ",\n".join(items) + f"\n{pad}]"


def write_json(path: Path, data: Any, expand: int = 99) -> Path:
    """Write ``data`` as canonical JSON to ``path`` (parents created); returns the path."""
    return write_text(path, dump_json(data, expand))


def write_text(path: Path, text: str) -> Path:
    """Write ``text`` (UTF-8, ``\\n`` line ends, one trailing newline) to ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text.rstrip("\n") + "\n", encoding="utf-8", newline="\n")
    return path


def folder_files(folder: Path) -> dict[str, int]:
    """Relative path -> size in bytes of every file under ``folder`` (sorted)."""
    return {
        str(p.relative_to(folder)): p.stat().st_size
        for p in sorted(folder.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


class JsonFile:
    """JSON content of a generated file with its layout depth (see :func:`dump_json`)."""

    def __init__(self, data: Any, expand: int = 99):
        self.data = data
        self.expand = expand

    def write(self, path: Path) -> Path:
        """Write the content to ``path``."""
        return write_json(path, self.data, self.expand)


def dump_toml(data: dict[str, Any]) -> str:
    """TOML text of ``data``: top-level lists of tables as ``[[name]]``, dicts as ``[name]``.

    Nested dicts and lists of dicts inside a table are written inline; ``None`` values are
    left out (TOML has no null: the reader's defaults apply). Supports str, bool, int,
    float and lists of those, which is all the generated worlds use.
    """
    out: list[str] = []
    for name, value in data.items():
        if isinstance(value, list):
            for record in value:
                out.append(f"[[{name}]]")
                out.extend(_toml_pairs(record))
                out.append("")
        elif isinstance(value, dict):
            out.append(f"[{name}]")
            out.extend(_toml_pairs(value))
            out.append("")
        else:
            out.insert(0, f"{name} = {_toml_value(value)}")
    return "\n".join(out)


def _toml_pairs(record: dict[str, Any]) -> list[str]:
    return [f"{key} = {_toml_value(value)}" for key, value in record.items() if value is not None]


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return json.dumps(value, ensure_ascii=True)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items() if v is not None) + "}"
    raise TypeError(f"cannot write {type(value).__name__} as TOML")


class TomlFile:
    """TOML content of a generated file (see :func:`dump_toml`)."""

    def __init__(self, data: dict[str, Any]):
        self.data = data

    def write(self, path: Path) -> Path:
        """Write the content to ``path``."""
        return write_text(path, dump_toml(self.data))
