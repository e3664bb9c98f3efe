"""Generator of the bundled retail world (Larkspur Goods) and its tasks."""
from __future__ import annotations

from userbench_env.generate.common import instantiate
from userbench_env.generate.pipeline import GeneratedWorld
from userbench_env.generate.retail.policy import POLICY
from userbench_env.generate.retail.tasks import TEMPLATES
from userbench_env.generate.retail.world import RetailWorld
from userbench_env.generate.writing import JsonFile


def generate(seed: int) -> GeneratedWorld:
    """The retail world of ``seed``: ``db.json``, ``policy.md`` and task drafts."""
    world = RetailWorld.seeded(seed, "retail")
    world.add_catalog()
    world.populate(users=40, orders=90)
    drafts = instantiate("retail", TEMPLATES, world, seed)
    return GeneratedWorld(files={"db.json": JsonFile(world.document(), expand=2), "policy.md": POLICY}, drafts=drafts)
