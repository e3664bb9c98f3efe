"""The common base of the generated worlds: seeded random sources and the id registry."""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable, TypeVar

from faker import Faker

from userbench_env.generate.rng import make_faker, make_rng

W = TypeVar("W", bound="SeededWorld")


@dataclass
class SeededWorld:
    """A world under construction: its random stream, its Faker, and every id handed out
    so far (``taken``: an id is never given twice)."""

    rng: random.Random
    fake: Faker
    taken: set[str] = field(default_factory=set)

    @classmethod
    def seeded(cls: type[W], seed: int, domain: str) -> W:
        """An empty world drawing from the ``<domain>/world`` and ``<domain>/people``
        streams of ``seed``."""
        return cls(rng=make_rng(seed, f"{domain}/world"), fake=make_faker(seed, f"{domain}/people"))

    def new_id(self, make: Callable[[random.Random], str]) -> str:
        """``make(rng)`` redrawn until the value is not taken; the value is then taken."""
        while True:
            value = make(self.rng)
            if value not in self.taken:
                self.taken.add(value)
                return value
