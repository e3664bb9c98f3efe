"""The text space of every UserBench env: any Unicode string, sampled as a valid action."""
from __future__ import annotations

import string
from typing import Any, Callable

import numpy as np
from gymnasium import spaces
from gymnasium.error import CustomSpaceError
from gymnasium.vector.utils.shared_memory import create_shared_memory

#: Messages :meth:`AnyText.sample` draws from: every one is a valid agent action.
SAMPLE_MESSAGES: tuple[str, ...] = (
    "Hello! How can I help you today?",
    "Could you please tell me your user id?",
    "Could you give me more details about your request?",
    "Thank you, let me check that for you.",
    "Is there anything else I can help you with?",
)


class AnyText(spaces.Text):
    """A :class:`gymnasium.spaces.Text` accepting every string up to ``max_length`` characters.

    ``contains`` checks only the type and length (any Unicode character is allowed);
    ``sample`` returns ``sampler(np_random)`` when a sampler is given (a surface's valid
    action), else one of :data:`SAMPLE_MESSAGES` (a plain text message, valid as an
    agent action), using the space's seeded generator.
    """

    def __init__(
        self,
        max_length: int = 1_000_000,
        seed: int | np.random.Generator | None = None,
        sampler: Callable[[np.random.Generator], str] | None = None,
    ):
        super().__init__(max_length, min_length=0, charset=string.printable, seed=seed)
        self.sampler = sampler

    def contains(self, x: Any) -> bool:
        """True for any ``str`` of at most ``max_length`` characters."""
        return isinstance(x, str) and len(x) <= self.max_length

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        """A valid action, drawn with the space's generator."""
        if self.sampler is not None:
            return self.sampler(self.np_random)
        return SAMPLE_MESSAGES[int(self.np_random.integers(len(SAMPLE_MESSAGES)))]

    def __repr__(self) -> str:
        return f"AnyText(max_length={self.max_length})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, AnyText) and other.max_length == self.max_length


@create_shared_memory.register(AnyText)
def _no_shared_memory(space: AnyText, n: int = 1, ctx: Any = None) -> Any:
    """Free-length Unicode text cannot live in fixed shared buffers: make AsyncVectorEnv say so."""
    raise CustomSpaceError("AnyText observations are arbitrary Unicode strings; use AsyncVectorEnv(..., shared_memory=False)")
