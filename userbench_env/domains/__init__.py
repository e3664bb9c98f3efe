"""Tool-use worlds, one package per domain, behind one replay API.

>>> from userbench_env.domains import make_world
>>> world = make_world("airline", source="tau2", task=task)     # doctest: +SKIP
>>> world.call("get_user_details", {"user_id": "mia_li_3668"}).content  # doctest: +SKIP

Domain packages are imported on first use, so ``import userbench_env`` stays fast.
"""
from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING, Any

from userbench_env.datapaths import domain_folder

if TYPE_CHECKING:
    from userbench_env.core.task import Task
    from userbench_env.domains.base import Domain
    from userbench_env.domains.world import World

#: Our domain name -> "module:class" of its :class:`Domain`.
DOMAINS: dict[str, str] = {
    "airline": "userbench_env.domains.airline:AirlineDomain",
    "retail": "userbench_env.domains.retail:RetailDomain",
    "telecom": "userbench_env.domains.telecom:TelecomDomain",
    "banking": "userbench_env.domains.banking:BankingDomain",
}

#: tau2's names for our domains, accepted everywhere a domain name is.
ALIASES = {"banking_knowledge": "banking"}

_instances: dict[str, "Domain"] = {}


def canonical_domain_name(name: str) -> str:
    """Our name for ``name`` (accepts tau2's ``banking_knowledge``); ValueError if unknown."""
    key = ALIASES.get(name.lower(), name.lower())
    if key not in DOMAINS:
        raise ValueError(f"unknown domain {name!r}; known: {', '.join(sorted(DOMAINS))}")
    return key


def get_domain(name: str) -> "Domain":
    """The process-wide :class:`Domain` object for ``name``."""
    key = canonical_domain_name(name)
    found = _instances.get(key)
    if found is None:
        module_name, class_name = DOMAINS[key].split(":")
        found = getattr(importlib.import_module(module_name), class_name)()
        _instances[key] = found
    return found


def make_world(
    domain: str,
    source: str = "bundled",
    task: "Task | None" = None,
    data_path: str | os.PathLike[str] | None = None,
) -> "World":
    """A fresh world of ``domain`` with ``task``'s initial state applied (if a task is given).

    ``source`` is ``bundled`` (our data in ``tasks/``) or ``tau2`` (``$USERBENCH_TAU2_DATA``
    or ``data_path``). The DB is forked from a per-process base: nothing is re-read.
    """
    from userbench_env.domains.world import World

    spec = get_domain(domain)
    folder = domain_folder(spec.tau2_name, spec.name, source, data_path)
    agent_base, user_base, policy = spec.base(folder, source)
    world = World(
        spec,
        source,
        agent_base.fork(),
        user_base.fork() if user_base is not None else None,
        policy,
    )
    world.data_folder = folder
    if task is not None:
        spec.configure(world, task)
        world.apply_initial_state(task.initial_state)
    else:
        world.sync()
    return world


__all__ = ["DOMAINS", "canonical_domain_name", "get_domain", "make_world"]


def __getattr__(name: str) -> Any:  # pragma: no cover - convenience re-exports
    if name == "World":
        from userbench_env.domains.world import World

        return World
    raise AttributeError(name)
