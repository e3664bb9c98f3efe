"""YAML reading for surface data: libyaml's safe loader when available (much faster)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_yaml(path: str | Path) -> Any:
    """Parse one YAML file with the safe loader."""
    with open(path, encoding="utf-8") as fh:
        return yaml.load(fh, Loader=_LOADER)
