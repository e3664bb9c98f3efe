"""Generator of the bundled banking world (Harbor Point Bank), its knowledge base and tasks."""
from __future__ import annotations

from userbench_env.generate.banking.knowledge import PROMPT, document_files, knowledge_base
from userbench_env.generate.banking.tasks import TEMPLATES
from userbench_env.generate.banking.world import BankWorld
from userbench_env.generate.common import instantiate
from userbench_env.generate.pipeline import GeneratedWorld
from userbench_env.generate.rng import make_rng
from userbench_env.generate.writing import JsonFile


def generate(seed: int) -> GeneratedWorld:
    """The banking world of ``seed``: ``db.json``, ``documents/*.json``, the agent prompt, drafts."""
    world = BankWorld.seeded(seed, "banking")
    world.populate(users=25)
    drafts = instantiate("banking", TEMPLATES, world, seed)
    docs = knowledge_base(make_rng(seed, "banking/knowledge"))
    files: dict = {"db.json": JsonFile(world.document(), expand=3), "prompts/classic_rag_bm25.md": PROMPT}
    files.update({path: JsonFile(doc) for path, doc in document_files(docs).items()})
    return GeneratedWorld(files=files, drafts=drafts)
