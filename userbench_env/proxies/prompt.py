"""The simulated user's system prompt: simulation guidelines plus the task's scenario.

Layout (tau2-bench's, so prompts built with tau2's own guideline files are
byte-identical to tau2's): the guidelines, an empty line, ``<scenario>``, the rendered
scenario, ``</scenario>``, the whole stripped. Two guideline texts exist per source:
one for users without tools and one for users with tools (speak *or* call one tool).

Sources of guidelines: ``"userbench"`` (ours, shipped in ``proxies/guidelines/``) or
``"tau2"`` (read from the tau2 data folder at run time, never copied here).
"""
from __future__ import annotations

import hashlib
import os
import textwrap
from functools import lru_cache
from importlib.resources import files
from typing import Any, Literal, Mapping

from userbench_env.core.task import Blueprint, Task
from userbench_env.datapaths import tau2_root

GuidelineSource = Literal["userbench", "tau2"]

_FILES: dict[GuidelineSource, tuple[str, str]] = {
    # source -> (without tools, with tools)
    "userbench": ("user.md", "user_tools.md"),
    "tau2": ("simulation_guidelines.md", "simulation_guidelines_tools.md"),
}


def _indent(text: str) -> str:
    """Prefix every non-blank line with one tab (blank lines stay as they are)."""
    return textwrap.indent(text, "\t")


def render_tau2_scenario(scenario: Mapping[str, Any]) -> str:
    """A tau2 ``user_scenario`` rendered exactly as tau2-bench renders it.

    ``Persona:`` + indented persona (when present), then ``Instructions:`` + the
    indented instructions: a plain string as is, or the structured block of
    ``Domain``, ``Reason for call``, ``Known info`` / ``Unknown info`` (only when not
    null) and ``Task instructions``, each field's text indented once more.
    """
    lines: list[str] = []
    persona = scenario.get("persona")
    if persona is not None:
        lines += ["Persona:", _indent(persona)]
    instructions = scenario.get("instructions")
    if isinstance(instructions, Mapping):
        block = [f"Domain: {instructions.get('domain')}", "Reason for call:", _indent(instructions.get("reason_for_call") or "")]
        for label, key in (("Known info:", "known_info"), ("Unknown info:", "unknown_info")):
            if instructions.get(key) is not None:
                block += [label, _indent(instructions[key])]
        block += ["Task instructions:", _indent(instructions.get("task_instructions") or "")]
        body = "\n".join(block)
    else:
        body = instructions or ""
    lines += ["Instructions:", _indent(body)]
    return "\n".join(lines)


def blueprint_scenario(blueprint: Blueprint) -> dict[str, Any]:
    """A blueprint in tau2's ``user_scenario`` shape (free texts win over structured items).

    Known-info items without a free text render as their blueprint sentence (``span``)
    or ``<kind>: <value>``, one per line.
    """
    if blueprint.raw_instructions is not None:
        return {"persona": blueprint.persona, "instructions": blueprint.raw_instructions}
    known = blueprint.known_info_text
    if known is None and blueprint.known_info:
        known = "\n".join(item.span or f"{item.kind.replace('_', ' ')}: {item.value}" for item in blueprint.known_info)
    unknown = blueprint.unknown_info_text
    if unknown is None and blueprint.unknown_info:
        unknown = "\n".join(blueprint.unknown_info)
    return {
        "persona": blueprint.persona,
        "instructions": {
            "domain": blueprint.domain,
            "reason_for_call": blueprint.reason_for_call,
            "known_info": known,
            "unknown_info": unknown,
            "task_instructions": blueprint.instructions,
        },
    }


def render_scenario(task: Task) -> str:
    """The task's scenario text: tau2's own scenario when the task has one, else its blueprint."""
    return render_tau2_scenario(task.user_scenario if task.user_scenario else blueprint_scenario(task.blueprint))


@lru_cache(maxsize=8)
def load_guidelines(with_tools: bool, source: GuidelineSource = "userbench", tau2_data: str | None = None) -> str:
    """The guideline text for a user with or without tools, from ``source``.

    ``"tau2"`` reads ``user_simulator/`` of the tau2 data folder (``tau2_data`` or
    ``$USERBENCH_TAU2_DATA``).
    """
    if source not in _FILES:
        raise ValueError(f"unknown guideline source {source!r}: use one of {sorted(_FILES)}")
    name = _FILES[source][1 if with_tools else 0]
    if source == "tau2":
        return (tau2_root(tau2_data) / "user_simulator" / name).read_text(encoding="utf-8")
    return (files("userbench_env.proxies") / "guidelines" / name).read_text(encoding="utf-8")


def assemble_system_prompt(guidelines: str, scenario: str) -> str:
    """Guidelines and a rendered scenario joined in tau2's layout."""
    return f"{guidelines}\n\n<scenario>\n{scenario}\n</scenario>".strip()


def system_prompt(
    task: Task,
    with_tools: bool,
    source: GuidelineSource = "userbench",
    tau2_data: str | os.PathLike[str] | None = None,
) -> str:
    """The simulated user's full system prompt for ``task``."""
    guidelines = load_guidelines(with_tools, source, None if tau2_data is None else str(tau2_data))
    return assemble_system_prompt(guidelines, render_scenario(task))


def prompt_hash(prompt: str) -> str:
    """sha256 (hex) of a prompt's UTF-8 bytes, as recorded in proxy provenance."""
    return hashlib.sha256(prompt.encode("utf-8")).hexdigest()
