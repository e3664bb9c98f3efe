"""Generator of the bundled retail world (Larkspur Goods) and its tasks."""
from __future__ import annotations

from userbench_env.generate.common import assign_splits, pick_persona
from userbench_env.generate.pipeline import GeneratedWorld
from userbench_env.generate.retail.policy import POLICY
from userbench_env.generate.retail.tasks import TEMPLATES
from userbench_env.generate.retail.world import RetailWorld
from userbench_env.generate.rng import make_faker, make_rng
from userbench_env.generate.writing import JsonFile


def generate(seed: int) -> GeneratedWorld:
    """The retail world of ``seed``: ``db.json``, ``policy.md`` and task drafts."""
    world = RetailWorld(rng=make_rng(seed, "retail/world"), fake=make_faker(seed, "retail/people"))
    world.add_catalog()
    world.populate(users=40, orders=90)
    persona_rng = make_rng(seed, "retail/personas")
    drafts = []
    for template, count in TEMPLATES:
        for n in range(count):
            draft = template(world)
            drafts.append(draft.model_copy(update={"id": f"retail_{template.__name__}_{n}", "persona": pick_persona(persona_rng)}))
    for draft, splits in zip(drafts, assign_splits(make_rng(seed, "retail/splits"), len(drafts))):
        draft.splits = splits
    return GeneratedWorld(files={"db.json": JsonFile(world.document(), expand=2), "policy.md": POLICY}, drafts=drafts)
