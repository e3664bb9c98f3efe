"""Pieces every domain generator uses: split assignment, personas, id helpers."""
from __future__ import annotations

import random
from typing import Callable

#: Short temperaments used as airline/retail/banking personas (our own wording).
PERSONAS: tuple[str, ...] = (
    "You are polite and to the point; you answer exactly what is asked.",
    "You are in a hurry and write short messages, sometimes without greeting.",
    "You are friendly and chatty, and you thank the agent often.",
    "You are a little anxious about getting this right and like to double-check details.",
    "You are skeptical of companies and ask the agent to explain its reasons.",
    "You are calm and patient, and you let the agent lead the conversation.",
    "You are direct and slightly impatient when the agent asks many questions.",
    "You are not very familiar with online services and need things explained simply.",
)


def pick_persona(rng: random.Random) -> str:
    """One persona from :data:`PERSONAS`."""
    return rng.choice(PERSONAS)


def assign_splits(rng: random.Random, count: int, test_fraction: float = 0.4) -> list[list[str]]:
    """Split memberships for ``count`` tasks: all in ``base``, each in ``train`` or ``test``.

    Exactly ``round(count * test_fraction)`` tasks go to ``test`` (chosen by ``rng``).
    """
    test = set(rng.sample(range(count), round(count * test_fraction)))
    return [["base", "test" if i in test else "train"] for i in range(count)]


def digits(rng: random.Random, n: int) -> str:
    """``n`` random decimal digits (the first one non-zero)."""
    return str(rng.randint(1, 9)) + "".join(str(rng.randint(0, 9)) for _ in range(n - 1))


def unique(rng: random.Random, make: Callable[[random.Random], str], taken: set[str]) -> str:
    """``make(rng)`` redrawn until the value is not in ``taken``; the value is added to it."""
    while True:
        value = make(rng)
        if value not in taken:
            taken.add(value)
            return value
