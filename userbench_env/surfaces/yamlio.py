"""YAML reading for surface data, safe on untrusted files.

libyaml's safe loader when available (much faster), plus bounds that keep a hostile
file from stalling or exhausting the reader: at most :data:`MAX_YAML_BYTES` of input,
and at most :data:`MAX_YAML_NODES` nodes once aliases are expanded (a 1 KB "billion
laughs" alias bomb expands to ~10^9 nodes: refused before anything is built).
Recursive aliases and nesting too deep to build are refused too. Every refusal, and
every syntax error, is a :class:`~userbench_env.surfaces.sandbox.TaskError` naming the
file.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from userbench_env.surfaces.sandbox import TaskError

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
#: the largest YAML file read
MAX_YAML_BYTES = 20 * 2**20
#: the most nodes a document may have with every alias expanded
MAX_YAML_NODES = 2_000_000


def read_yaml(path: str | Path) -> Any:
    """Parse one YAML file with the safe loader, within the bounds above."""
    path = Path(path)
    size = path.stat().st_size
    if size > MAX_YAML_BYTES:
        raise TaskError(f"{path}: {size} bytes of YAML, over the {MAX_YAML_BYTES}-byte limit")
    with open(path, encoding="utf-8") as fh:
        loader = _LOADER(fh)
        try:
            node = loader.get_single_node()
            if node is None:
                return None
            expanded_nodes(node, MAX_YAML_NODES, path)
            return loader.construct_document(node)
        except yaml.YAMLError as exc:
            raise TaskError(f"{path} is not valid YAML: {' '.join(str(exc).split())[:300]}") from exc
        except (RecursionError, UnicodeDecodeError) as exc:
            raise TaskError(f"{path} cannot be read as YAML: {type(exc).__name__}") from exc
        finally:
            loader.dispose()


def expanded_nodes(root: yaml.Node, limit: int, where: object = "YAML") -> int:
    """How many nodes ``root`` holds with aliases expanded; :class:`TaskError` past
    ``limit`` or on a recursive alias. Iterative, memoised per node: linear in the file."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if key in sizes:
            continue
        children = _children(node)
        if children_done:
            open_nodes.discard(key)
            sizes[key] = 1 + sum(sizes[id(c)] for c in children)
            if sizes[key] > limit:
                raise TaskError(f"{where}: more than {limit} nodes once aliases are expanded (an alias bomb?)")
            continue
        if key in open_nodes:
            raise TaskError(f"{where}: a recursive alias (a node that contains itself)")
        open_nodes.add(key)
        stack.append((node, True))
        for child in children:
            if id(child) in open_nodes:
                raise TaskError(f"{where}: a recursive alias (a node that contains itself)")
            if id(child) not in sizes:
                stack.append((child, False))
    return sizes[id(root)]


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []
