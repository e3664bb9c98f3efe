"""One chat-completion call through litellm, shared by the chat bot, the judge and the
persona player.

litellm is imported inside :meth:`LLMConfig.complete` with its price map read locally
(``LITELLM_LOCAL_MODEL_COST_MAP=True``), so importing this module is cheap. Any
provider failure after retries, or an empty reply, raises :class:`LLMError`; callers
turn it into an episode or check **error**, never a verdict.
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict


class LLMError(RuntimeError):
    """The model could not be reached or returned nothing usable."""


class LLMConfig(BaseModel):
    """Which model to call and how: a litellm model name, optional OpenAI-compatible
    ``base_url`` and key, sampling settings, timeout and retry count."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str
    base_url: str | None = None
    api_key: str | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    timeout: float = 120.0
    retries: int = 2
    seed: int | None = None

    @classmethod
    def coerce(cls, spec: "LLMConfig | Mapping[str, Any] | str", **defaults: Any) -> "LLMConfig":
        """Build from a config, a dict of fields, or a model name; ``defaults`` fill unset fields."""
        if isinstance(spec, LLMConfig):
            return spec
        data = {"model": spec} if isinstance(spec, str) else dict(spec)
        return cls(**{**defaults, **data})

    def complete(self, messages: Sequence[Mapping[str, str]]) -> str:
        """The assistant text for ``messages``; raises :class:`LLMError` on failure."""
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        import litellm

        kwargs: dict[str, Any] = {"model": self.model, "messages": [dict(m) for m in messages],
                                  "timeout": self.timeout, "num_retries": self.retries}
        if self.base_url:
            kwargs["api_base"] = self.base_url
            kwargs["api_key"] = self.api_key or "sk-local"
        elif self.api_key:
            kwargs["api_key"] = self.api_key
        for name in ("temperature", "max_tokens", "seed"):
            if getattr(self, name) is not None:
                kwargs[name] = getattr(self, name)
        try:
            response = litellm.completion(**kwargs)
        except Exception as exc:  # every provider failure is an infrastructure error
            raise LLMError(f"{self.model}: {type(exc).__name__}: {exc}") from exc
        text = response.choices[0].message.content if response.choices else None
        if not text or not text.strip():
            raise LLMError(f"{self.model}: empty reply")
        return text
