"""Pieces every domain generator uses: split assignment, personas, id helpers."""
from __future__ import annotations

import random
from typing import Any, Callable, Iterable

from userbench_env.generate.draft import TaskDraft
from userbench_env.generate.rng import make_rng

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


def with_splits(drafts: list[TaskDraft], seed: int, domain: str, test_fraction: float = 0.4) -> list[TaskDraft]:
    """Put every draft in ``base`` and in ``train`` or ``test`` (in place; returns ``drafts``).

    Exactly ``round(len(drafts) * test_fraction)`` drafts go to ``test``, chosen by the
    ``<domain>/splits`` stream of ``seed``.
    """
    rng = make_rng(seed, f"{domain}/splits")
    test = set(rng.sample(range(len(drafts)), round(len(drafts) * test_fraction)))
    for i, draft in enumerate(drafts):
        draft.splits = ["base", "test" if i in test else "train"]
    return drafts


def instantiate(domain: str, templates: Iterable[tuple[Callable[[Any], TaskDraft], int]], world: Any, seed: int) -> list[TaskDraft]:
    """Run each template ``count`` times on ``world``; ids ``<domain>_<template>_<n>``.

    Each draft gets a persona from the ``<domain>/personas`` stream and its splits.
    """
    persona_rng = make_rng(seed, f"{domain}/personas")
    drafts = [
        template(world).model_copy(update={"id": f"{domain}_{template.__name__}_{n}", "persona": pick_persona(persona_rng)})
        for template, count in templates
        for n in range(count)
    ]
    return with_splits(drafts, seed, domain)


def digits(rng: random.Random, n: int) -> str:
    """``n`` random decimal digits (the first one non-zero)."""
    return str(rng.randint(1, 9)) + "".join(str(rng.randint(0, 9)) for _ in range(n - 1))

