"""Render a persona into the role-play system prompt (APB's layout, our own wording).

Placeholder-like values (none, n/a, unknown, ...) are dropped, except for pinned
dimensions, whose value always survives. Attributes are grouped into ten sections in
a fixed order by their category; within a section file order is kept. Each line is
``- <label>: <value>``. An optional character budget truncates whole lines, never a
pinned one.
"""
from __future__ import annotations

from userbench_env.surfaces.personas.model import Persona

#: values (lower-cased) treated as "nothing to say" and left out of the prompt
PLACEHOLDERS = frozenset({
    "", "none", "n/a", "na", "null", "undefined", "none notable", "not applicable",
    "prefer not to say", "no coding activity", "not a developer", "no interest", "unknown",
})

#: (section title, category prefixes), in prompt order; the last section takes the rest
SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Identity", ("Demographic:",)),
    ("Career & education", ("Professional", "Learning", "Developer:")),
    ("Language & communication", ("Linguistic",)),
    ("Personality & values", ("Personality:", "Values & Motivation", "Risk & Decision")),
    ("Current interaction state", ("State: Emotional", "Behavior: Time", "Behavior: Work")),
    ("Worldview", ("Worldview",)),
    ("Interests", ("Interests:",)),
    ("Skills & expertise", ("Skills", "Expertise")),
    ("Lifestyle & health", ("Health", "Behavior: Preferences", "Behavior: Habits")),
    ("Other", ()),
)

PREAMBLE = (
    "You are role-playing {role} with the profile below. Everything you do and write in "
    "this session comes from this person: let their traits, tastes and habits shape your "
    "choices and your wording the way they would in real life, without listing them. "
    "Stay in character from start to finish and never say that you are role-playing, "
    "that this is a simulation, or that you were given a profile."
)


def section_of(category: str) -> str:
    """The prompt section a category belongs to."""
    for title, prefixes in SECTIONS:
        if any(category == p.rstrip(":") or category.startswith(p) for p in prefixes):
            return title
    return "Other"


def profile_lines(persona: Persona) -> dict[str, list[tuple[str, bool]]]:
    """Section -> ``(line, pinned)`` pairs after placeholder filtering, in prompt order."""
    sections: dict[str, list[tuple[str, bool]]] = {title: [] for title, _ in SECTIONS}
    for dim, attr in persona.attributes.items():
        pinned = dim in persona.pinned
        value = persona.pinned[dim] if pinned else attr.value
        if not pinned and value.strip().lower() in PLACEHOLDERS:
            continue
        sections[section_of(attr.category)].append((f"- {attr.label}: {value}", pinned))
    return {title: lines for title, lines in sections.items() if lines}


def render_persona(persona: Persona, role: str = "a user", max_chars: int | None = None) -> str:
    """The full system prompt: preamble, ``# Your profile`` and the sections.

    ``max_chars`` (default: no limit) drops unpinned lines from the end until the
    prompt fits; pinned lines are always kept.
    """
    sections = profile_lines(persona)
    if max_chars is not None:
        sections = _fit(sections, max_chars - len(PREAMBLE.format(role=role)) - 20)
    body = "\n\n".join(f"### {title}\n" + "\n".join(line for line, _ in lines) for title, lines in sections.items() if lines)
    return f"{PREAMBLE.format(role=role)}\n\n# Your profile\n\n{body}\n"


def _fit(sections: dict[str, list[tuple[str, bool]]], budget: int) -> dict[str, list[tuple[str, bool]]]:
    """Drop unpinned lines from the last section backwards until ``budget`` chars remain."""
    kept = {title: list(lines) for title, lines in sections.items()}
    size = sum(len(title) + 6 + sum(len(line) + 1 for line, _ in lines) for title, lines in kept.items())
    for title in reversed(list(kept)):
        lines = kept[title]
        for index in range(len(lines) - 1, -1, -1):
            if size <= budget:
                return kept
            if not lines[index][1]:
                size -= len(lines[index][0]) + 1
                del lines[index]
    return kept
