"""Seeded randomness for the world generators.

Every generator draws from named streams derived from one integer seed, so adding draws
to one part of a world (say, more flights) does not reshuffle another (the users).
Same seed and same installed Faker version -> the same values, run after run.
"""
from __future__ import annotations

import hashlib
import random

from faker import Faker


def stream_seed(seed: int, stream: str) -> int:
    """A 64-bit integer derived from ``seed`` and the stream name (stable across runs)."""
    digest = hashlib.sha256(f"{seed}:{stream}".encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


def make_rng(seed: int, stream: str) -> random.Random:
    """An independent :class:`random.Random` for one named stream of ``seed``."""
    return random.Random(stream_seed(seed, stream))


def make_faker(seed: int, stream: str, locale: str = "en_US") -> Faker:
    """A Faker instance seeded for one named stream of ``seed`` (instance-local seed)."""
    fake = Faker(locale)
    fake.seed_instance(stream_seed(seed, stream))
    return fake

