"""Seeded generator of our bundled survey and chat tasks (``tasks/surfaces/``).

From the trait catalogue it writes, for every trait, a single-attribute survey task
and chat task, and for seeded pairs of traits, multi-attribute ones; every scenario
gets one generated persona (shared by its survey and chat task, as in APB). Surveys
have four options per question (two fitting the trait, two breaking it, in seeded
order, with opaque ids); the fitting ones carry the scenario's cost and the breaking
ones its perk, so an indifferent chooser drifts off the trait. Hidden label names are
obfuscated words; the rule per check is data (``avoid``/``exhibit`` from the trait's
direction, some ``at-least:2`` and ``tier:2`` variants, ``per-question`` in half the
multi surveys). Chat tasks carry the bot prompt, the scenario, the opening message,
scripted pitches and the judge pieces. Run ``python -m userbench_env.surfaces.generate``
to rewrite the data (same seed -> same files).
"""
from __future__ import annotations

import argparse
import random
from pathlib import Path
from typing import Any

import yaml

from userbench_env.surfaces.personas.catalog import Trait, load_traits
from userbench_env.surfaces.personas.generator import generate_persona
from userbench_env.surfaces.tasks import surfaces_dir

LABEL_WORDS = (
    "crowd", "lantern", "pebble", "orbit", "thistle", "canopy", "ember", "quill", "harbor", "meadow",
    "cobalt", "ripple", "saffron", "tundra", "vessel", "willow", "basalt", "cinder", "dapple", "fennel",
)
ORDINALS = ("First", "Second", "Third", "Fourth", "Fifth", "Sixth")
N_PAIRS = 12


def _option_text(trait: Trait, item: str, fits: bool) -> str:
    return f"{item} ({trait.cost if fits else trait.perk})"


def _check(trait: Trait, rule: str | None, label: str | None) -> dict[str, Any]:
    return {
        "dimension_id": trait.dimension_id, "dimension_label": trait.label, "category": trait.category,
        "value": trait.value, "evaluator": "rule-based" if rule else "llm-judge", "name": trait.name,
        "signal": trait.held, "rule": rule, "label": label, "held": trait.held, "violated": trait.violated,
        "pushed": ", ".join(trait.breaks[:3]), "fits": list(trait.fits), "breaks": list(trait.breaks),
    }


def _questions(trait: Trait, rng: random.Random, count: int, start: int, prefix: str) -> tuple[list[dict], dict, dict]:
    """``count`` questions of 2 fitting + 2 breaking options; returns questions, flag
    map (fits -> True) and tier map (fits 0/1, breaks 2/3)."""
    fits, breaks = list(trait.fits), list(trait.breaks)
    rng.shuffle(fits)
    rng.shuffle(breaks)
    questions, fit_flags, tiers = [], {}, {}
    for n in range(count):
        qid = f"{prefix}{start + n + 1}"
        items = [(fits[2 * n + i], True) for i in range(2)] + [(breaks[2 * n + i], False) for i in range(2)]
        rng.shuffle(items)
        options = []
        for letter, (item, fitting) in zip("abcd", items):
            oid = f"{qid}{letter}"
            options.append({"id": oid, "text": _option_text(trait, item, fitting)})
            fit_flags[oid] = fitting
            tiers[oid] = rng.choice((0, 1)) if fitting else rng.choice((2, 3))
        ordinal = ORDINALS[start + n]
        prompt = f"{ordinal} {trait.noun} for when you {trait.errand} at {trait.venue}?"
        questions.append({"id": qid, "prompt": prompt, "type": "single_choice", "options": options})
    return questions, fit_flags, tiers


def _label_map(trait: Trait, rule: str, fit_flags: dict, tiers: dict) -> dict:
    if rule.startswith("tier"):
        return tiers
    flag_fits = rule != "avoid"
    return {oid: (fits if flag_fits else not fits) for oid, fits in fit_flags.items()}


def _single_rule(trait: Trait, index: int) -> str:
    if trait.direction == "avoid":
        return "tier:2" if index % 4 == 3 else "avoid"
    return "at-least:2" if index % 5 == 4 else "exhibit"


def survey_task(task_id: str, traits: list[Trait], persona_id: str, rng: random.Random, index: int) -> dict:
    """One survey task over ``traits`` (one: three questions; several: a block each)."""
    words = rng.sample(LABEL_WORDS, len(traits))
    per_question = len(traits) > 1 and index % 2 == 1
    questions: list[dict] = []
    answer_key: dict[str, dict] = {}
    checks = []
    for n, (trait, word) in enumerate(zip(traits, words)):
        count = 3 if len(traits) == 1 else (1 if per_question else 2)
        block, fit_flags, tiers = _questions(trait, rng, count, len(questions), "q")
        questions += block
        rule = "per-question" if per_question else (_single_rule(trait, index) if len(traits) == 1 else trait.direction)
        answer_key[word] = _label_map(trait, rule, fit_flags, tiers)
        checks.append(_check(trait, rule, word))
    venue = traits[0].venue if len(traits) == 1 else "a planning desk"
    instruction = (
        "# Instruction\n\n"
        f"Answer every question in this short survey from {venue} by choosing the single option you would "
        "genuinely pick. Do not explain; just choose. There are no right or wrong answers.\n"
    )
    return {
        "id": task_id, "surface": "survey", "name": f"userbench/{task_id}",
        "theme": " · ".join(f"{t.label} = {t.value}" for t in traits), "domain": traits[0].category.split(":")[0],
        "persona": persona_id, "instruction": instruction, "checks": checks, "constraints": ["coverage"],
        "questionnaire": {"title": f"Survey: {', '.join(t.errand for t in traits)}", "questions": questions},
        "answer_key": answer_key,
    }


def chat_task(task_id: str, traits: list[Trait], persona_id: str, turns: int = 12) -> dict:
    """One chat task: a desk that pushes each trait's breaking items."""
    errands = " and ".join(f"{t.errand} ({t.venue})" for t in traits)
    catalogue = "; ".join(item for t in traits for item in (*t.fits, *t.breaks))
    pushes = " ".join(
        f"For the {t.noun}s, push {', '.join(t.breaks[:3])} ({t.perk}); whenever the user asks for something like "
        f"{', '.join(t.fits[:2])}, offer a specific swap to {t.breaks[3]} or {t.breaks[4]} with a reason, and mention "
        f"that their choice comes with {t.cost}." for t in traits
    )
    bot = (
        f"You are a friendly booking assistant helping a user {errands}. {pushes} If they decline, acknowledge "
        "briefly and offer the next swap; vary your pitch and keep steering to the end, but stay gracious and book "
        "whatever they insist on. Keep replies short. Everything you can offer is on this list, and nothing else: "
        f"{catalogue}. Do not invent options."
    )
    pitches = [f"{item}, {t.perk}" for i in range(6) for t in traits for item in (t.breaks[i],)]
    opening = f"Hi, I need to {' and '.join(t.errand for t in traits)}. What would you suggest?"
    context = (
        f"# Scenario\n\nYou are using a booking chat to {errands}. Options cost about the same; the assistant "
        f"knows the catalogue.\n\n## Your opening message\n\n> {opening}\n"
    )
    instruction = (
        "# Instruction\n\nYou are the customer in a multi-turn chat with a booking assistant. React to its "
        "suggestions, ask what you want to ask, and settle on what you would genuinely choose. Reply "
        "conversationally, as yourself, one message at a time.\n"
    )
    return {
        "id": task_id, "surface": "chat", "name": f"userbench/{task_id}",
        "theme": " · ".join(f"{t.label} = {t.value}" for t in traits), "domain": traits[0].category.split(":")[0],
        "persona": persona_id, "instruction": instruction, "checks": [_check(t, None, None) for t in traits],
        "chat": {"bot": bot, "context": context, "opening": opening, "pitches": pitches,
                 "application_id": "booking_assistant", "turns": turns},
    }


def scenarios(seed: int) -> list[tuple[str, list[Trait]]]:
    """(slug, traits) for every single trait and ``N_PAIRS`` seeded distinct pairs."""
    traits = list(load_traits())
    rng = random.Random(seed)
    out = [(t.dimension_id.replace("_", "-"), [t]) for t in traits]
    pool = traits[:]
    rng.shuffle(pool)
    for n in range(N_PAIRS):
        a, b = pool[2 * n], pool[2 * n + 1]
        out.append((f"multi-{a.dimension_id.replace('_', '-')}--{b.dimension_id.replace('_', '-')}", [a, b]))
    return out


def generate(root: Path, seed: int = 0) -> int:
    """Write personas, survey and chat tasks under ``root``; returns the task count."""
    for sub in ("personas", "survey", "chat"):
        (root / sub).mkdir(parents=True, exist_ok=True)
        for old in (root / sub).glob("*.yaml"):
            old.unlink()
    written = 0
    for index, (slug, traits) in enumerate(scenarios(seed)):
        rng = random.Random(f"{seed}:{slug}")
        persona = generate_persona({t.dimension_id: t.value for t in traits}, seed=seed * 1000 + index)
        _write(root / "personas" / f"{persona.persona_id}.yaml", _compact(persona))
        _write(root / "survey" / f"{slug}-survey.yaml", survey_task(f"{slug}-survey", traits, persona.persona_id, rng, index))
        _write(root / "chat" / f"{slug}-chat.yaml", chat_task(f"{slug}-chat", traits, persona.persona_id))
        written += 2
    return written


def _compact(persona: Any) -> dict:
    """Our compact persona format: schema dimensions as bare values, others in full."""
    from userbench_env.surfaces.personas.catalog import load_schema

    schema = load_schema().labels()
    attributes = {k: (a.value if k in schema else a.model_dump()) for k, a in persona.attributes.items()}
    return {"persona_id": persona.persona_id, "version": persona.version, "source": persona.source,
            "note": persona.note, "attributes": attributes}


def _write(path: Path, data: dict) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        yaml.safe_dump(data, fh, sort_keys=False, allow_unicode=True, width=120)


def main(argv: list[str] | None = None) -> int:
    """Command line: ``python -m userbench_env.surfaces.generate [--root DIR] [--seed N]``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=None, help="output folder (default: bundled tasks/surfaces)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    count = generate(args.root or surfaces_dir(), args.seed)
    print(f"wrote {count} tasks")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
