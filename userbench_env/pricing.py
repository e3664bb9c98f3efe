"""Cost of one LLM call in USD: an override table first, then litellm's price map.

The override table is for models litellm does not know (self-hosted, fine-tuned,
local servers): dollars per *million* input and output tokens, keyed by model name,
given as a dict or read from a JSON/YAML file of the form
``{"openai/my-model": {"input": 0.2, "output": 0.8}}``.

litellm is imported lazily (and only through :func:`import_litellm`) so that
``import userbench_env`` stays light; its bundled price map is used instead of a
network fetch.
"""
from __future__ import annotations

import importlib.util
import json
import os
import sys
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Any, Mapping, Union

from pydantic import BaseModel, ConfigDict, Field

PriceSource = Union[str, os.PathLike[str], Mapping[str, Any], "PriceTable", None]

#: litellm's bundled price map, read without importing litellm
LITELLM_PRICE_FILE = "model_prices_and_context_window_backup.json"


def import_litellm() -> ModuleType:
    """The litellm module, imported with its local price map and its banner silenced."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    return litellm


class Price(BaseModel):
    """Dollars per million input (prompt) and output (completion) tokens."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    input: float = Field(ge=0)
    output: float = Field(ge=0)

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        """The cost in USD of a call with these token counts."""
        return (prompt_tokens * self.input + completion_tokens * self.output) / 1_000_000


class PriceTable(BaseModel):
    """Price overrides by model name.

    A name matches exactly, or without its provider prefix (``openai/m`` finds ``m``).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    prices: dict[str, Price] = Field(default_factory=dict)

    def lookup(self, model: str) -> Price | None:
        """The override price of ``model``, or ``None``."""
        found = self.prices.get(model)
        if found is None and "/" in model:
            found = self.prices.get(model.split("/", 1)[1])
        return found


def load_prices(source: PriceSource) -> PriceTable:
    """A :class:`PriceTable` from a table, a mapping, a JSON/YAML file path, or ``None``.

    Raises ``ValueError`` (with the offending entry) on a malformed table.
    """
    if source is None:
        return PriceTable()
    if isinstance(source, PriceTable):
        return source
    if isinstance(source, Mapping):
        data: Any = source
    else:
        path = Path(source)
        text = path.read_text(encoding="utf-8")
        if path.suffix in (".yaml", ".yml"):
            import yaml

            data = yaml.safe_load(text)
        else:
            data = json.loads(text)
    try:
        return PriceTable(prices=dict(data))
    except Exception as exc:  # pydantic's message names the entry and field
        raise ValueError(f"invalid price table: {exc}") from exc


def call_cost(model: str, prompt_tokens: int, completion_tokens: int, overrides: PriceSource = None) -> float | None:
    """The cost in USD of one call, or ``None`` when the model has no known price.

    An override wins; otherwise litellm prices the call with the actual token counts
    (so tiered prices apply).
    """
    price = load_prices(overrides).lookup(model)
    if price is not None:
        return price.cost(prompt_tokens, completion_tokens)
    litellm = import_litellm()
    try:
        per_input, per_output = litellm.cost_per_token(
            model=model, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens
        )
    except Exception:  # litellm raises for unmapped models; an unknown price is not an error
        return None
    return float(per_input + per_output)


@lru_cache(maxsize=1)
def litellm_price_map() -> Mapping[str, Any]:
    """litellm's model price map: ``litellm.model_cost`` when litellm is already loaded,
    else its bundled JSON file read directly (no litellm import); ``{}`` when neither exists."""
    loaded = sys.modules.get("litellm")
    if loaded is not None and isinstance(getattr(loaded, "model_cost", None), Mapping):
        return loaded.model_cost
    spec = importlib.util.find_spec("litellm")
    if spec is None or spec.origin is None:
        return {}
    path = Path(spec.origin).parent / LITELLM_PRICE_FILE
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def flat_price(model: str, overrides: PriceSource = None) -> Price | None:
    """The per-token price of ``model`` as a :class:`Price`: an override, else litellm's map
    entry (by full name or without the provider prefix); ``None`` when unknown.

    For callers that price every call without litellm (tiered prices are not applied:
    the base input/output price per token is used).
    """
    price = load_prices(overrides).lookup(model)
    if price is not None:
        return price
    table = litellm_price_map()
    entry = table.get(model)
    if entry is None and "/" in model:
        entry = table.get(model.split("/", 1)[1])
    if not isinstance(entry, Mapping):
        return None
    per_input, per_output = entry.get("input_cost_per_token"), entry.get("output_cost_per_token")
    if not isinstance(per_input, (int, float)) or not isinstance(per_output, (int, float)):
        return None
    return Price(input=per_input * 1_000_000, output=per_output * 1_000_000)
