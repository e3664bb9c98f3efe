"""Generator of the bundled airline world (Meridian Air) and its tasks."""
from __future__ import annotations

from userbench_env.generate.airline.policy import POLICY
from userbench_env.generate.airline.tasks import TEMPLATES
from userbench_env.generate.airline.world import AirlineWorld
from userbench_env.generate.common import instantiate
from userbench_env.generate.pipeline import GeneratedWorld
from userbench_env.generate.writing import JsonFile


def generate(seed: int) -> GeneratedWorld:
    """The airline world of ``seed``: ``db.json``, ``policy.md`` and task drafts.

    The background population is made first, then each template adds its fixtures, so
    the same seed always gives the same world and tasks.
    """
    world = AirlineWorld.seeded(seed, "airline")
    world.add_flights()
    world.populate(users=30, reservations=70)
    drafts = instantiate("airline", TEMPLATES, world, seed)
    return GeneratedWorld(files={"db.json": JsonFile(world.document(), expand=2), "policy.md": POLICY}, drafts=drafts)
