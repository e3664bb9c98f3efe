"""Seeded generators of our bundled worlds (``tasks/<domain>/`` in the source tree).

>>> from userbench_env.generate import generate_domain
>>> report = generate_domain("airline", seed=DEFAULT_SEED, out_root=Path("tasks"))  # doctest: +SKIP

Each domain module returns a :class:`~userbench_env.generate.pipeline.GeneratedWorld`
(world files + task drafts); the shared pipeline writes the files, completes each draft
by running its gold actions on the written world (:mod:`.builder`) and checks that every
gold transcript scores reward 1 under the real evaluator (:mod:`.verify`). Same seed ->
byte-identical files. Nothing here is imported by ``import userbench_env``.
"""
from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from userbench_env.generate.pipeline import GenerationReport

#: The seed the committed bundled worlds were generated with.
DEFAULT_SEED = 2026

#: Domain -> module providing ``generate(seed) -> GeneratedWorld``.
GENERATORS: dict[str, str] = {
    "airline": "userbench_env.generate.airline",
    "retail": "userbench_env.generate.retail",
    "banking": "userbench_env.generate.banking",
    "telecom": "userbench_env.generate.telecom",
}


def generate_domain(domain: str, seed: int = DEFAULT_SEED, out_root: Path | None = None, verify: bool = True) -> "GenerationReport":
    """Generate ``domain`` with ``seed`` into ``out_root/<domain>`` (default: the bundled root).

    With ``verify`` every gold transcript must score reward 1 under the evaluator.
    """
    from userbench_env.generate.pipeline import write_world

    if domain not in GENERATORS:
        raise ValueError(f"no generator for {domain!r}; known: {', '.join(GENERATORS)}")
    if out_root is None:
        from userbench_env.datapaths import bundled_root

        out_root = bundled_root()
    world = importlib.import_module(GENERATORS[domain]).generate(seed)
    return write_world(domain, Path(out_root) / domain, world, verify=verify)


__all__ = ["DEFAULT_SEED", "GENERATORS", "generate_domain"]
