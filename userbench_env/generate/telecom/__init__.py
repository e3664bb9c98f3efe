"""Generator of the bundled telecom world (Brightwave Mobile) and its fault tasks."""
from __future__ import annotations

from userbench_env.generate.common import with_splits
from userbench_env.generate.pipeline import GeneratedWorld
from userbench_env.generate.rng import make_rng
from userbench_env.generate.telecom.policy import MAIN_POLICY, TECH_SUPPORT_MANUAL
from userbench_env.generate.telecom.tasks import PERSONAS, combinations, make_draft
from userbench_env.generate.telecom.world import TelecomWorld, phone_defaults
from userbench_env.generate.writing import TomlFile


def generate(seed: int) -> GeneratedWorld:
    """The telecom world of ``seed``: ``db.toml``, ``user_db.toml``, policy, manual, drafts.

    Every fault combination is made once per persona.
    """
    world = TelecomWorld.seeded(seed, "telecom")
    world.populate(customers=6)
    rng = make_rng(seed, "telecom/tasks")
    drafts = []
    for family, faults in combinations(rng):
        for persona in PERSONAS:
            drafts.append(make_draft(world, rng, family, faults, persona, len(drafts)))
    with_splits(drafts, seed, "telecom")
    return GeneratedWorld(
        files={
            "db.toml": TomlFile(world.document()),
            "user_db.toml": TomlFile(phone_defaults()),
            "main_policy.md": MAIN_POLICY,
            "tech_support_manual.md": TECH_SUPPORT_MANUAL,
        },
        drafts=drafts,
    )
