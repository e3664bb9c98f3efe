"""Generator of the bundled airline world (Meridian Air) and its tasks."""
from __future__ import annotations

from userbench_env.generate.airline.policy import POLICY
from userbench_env.generate.airline.tasks import TEMPLATES
from userbench_env.generate.airline.world import AirlineWorld
from userbench_env.generate.common import assign_splits, pick_persona
from userbench_env.generate.pipeline import GeneratedWorld
from userbench_env.generate.rng import make_faker, make_rng
from userbench_env.generate.writing import JsonFile


def generate(seed: int) -> GeneratedWorld:
    """The airline world of ``seed``: ``db.json``, ``policy.md`` and task drafts.

    The background population is made first, then each template adds its fixtures, so
    the same seed always gives the same world and tasks.
    """
    world = AirlineWorld(rng=make_rng(seed, "airline/world"), fake=make_faker(seed, "airline/people"))
    world.add_flights()
    world.populate(users=30, reservations=70)
    persona_rng = make_rng(seed, "airline/personas")
    drafts = []
    for template, count in TEMPLATES:
        for n in range(count):
            draft = template(world)
            drafts.append(draft.model_copy(update={"id": f"airline_{template.__name__}_{n}", "persona": pick_persona(persona_rng)}))
    for draft, splits in zip(drafts, assign_splits(make_rng(seed, "airline/splits"), len(drafts))):
        draft.splits = splits
    return GeneratedWorld(files={"db.json": JsonFile(world.document(), expand=2), "policy.md": POLICY}, drafts=drafts)
