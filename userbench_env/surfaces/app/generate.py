"""Seeded generator of our bundled app tasks (``tasks/surfaces/app/``).

Same scenarios and personas as the survey and chat generator
(:func:`userbench_env.surfaces.generate.scenarios`; one persona per scenario, shared
across surfaces as in APB). A single-trait app lists 8 rows (4 fitting the trait, 4
breaking it, shuffled, opaque ids, in two sections); fitting rows carry the scenario's
cost and breaking ones its perk, all at one price, so an indifferent chooser drifts off
the trait. The basket asks for exactly 2, 2-3 or exactly 3 rows (seeded by index); the
rule is the trait's direction (``avoid`` flags breaking rows, ``exhibit`` fitting
ones; every fifth exhibit task uses ``at-least:2`` of exactly 3). A two-trait app
follows APB's multi design: every row pairs one trait's side with the other's (fits or
breaks for each, two rows per combination), exactly 2 picks, one rule per trait.
Run ``python -m userbench_env.surfaces.app.generate`` to rewrite (same seed -> same files).
"""
from __future__ import annotations

import argparse
import random
from pathlib import Path
from typing import Any

from userbench_env.surfaces.generate import (
    LABEL_WORDS,
    _check,
    _compact,
    _write,
    scenarios,
)
from userbench_env.surfaces.personas.catalog import Trait
from userbench_env.surfaces.personas.generator import generate_persona
from userbench_env.surfaces.tasks import surfaces_dir

#: (submit button, confirmation, output file, list key) of the app variants
VARIANTS = (
    ("Place order", "Order placed", "order.json", "orderedItems"),
    ("Book now", "Booking confirmed", "bookings.json", "bookedItems"),
    ("Save plan", "Plan saved", "plan.json", "plannedItems"),
    ("Send request", "Request sent", "request.json", "requestedItems"),
)
LIMITS = ((2, 2), (2, 3), (3, 3))
PRICES = ("$12.00", "$9.50", "$15.00", "$20.00")


def _title(venue: str) -> str:
    words = venue.removeprefix("the ").split()
    return " ".join(w[:1].upper() + w[1:] for w in words)


def _count_text(low: int, high: int, noun: str) -> str:
    return f"exactly {low} {noun}s" if low == high else f"{low}-{high} {noun}s"


def _instruction(app: str, errand: str, noun: str, low: int, high: int, submit: str, confirmation: str) -> str:
    return (
        f"# {errand[:1].upper() + errand[1:]} in the {app} app\n\n"
        f"The **{app}** app is already open on screen. Use it to {errand}.\n\n"
        f"1. Browse the list and read what each {noun} is.\n"
        f"2. Click the **+** button next to **{_count_text(low, high, noun)}** you would genuinely choose "
        "(clicking it again removes one you did not mean).\n"
        f"3. When you are happy with your picks, click **{submit}**.\n\n"
        "Decide from what each one is, as yourself; the task does not tell you which to pick. Everything costs "
        f"the same. You are done once the app confirms with \"{confirmation}\".\n"
    )


def _ids(rng: random.Random, n: int) -> list[str]:
    return [f"{letter}{number:02d}" for letter, number in
            zip(rng.sample("abcdefghkmnpqrstuvwxyz", n), rng.sample(range(10, 99), n))]


def single_rows(trait: Trait, rng: random.Random) -> list[tuple[str, str, bool]]:
    """8 (name, description, fits) rows: 4 fitting, 4 breaking, shuffled."""
    rows = [(item, trait.cost, True) for item in rng.sample(list(trait.fits), 4)]
    rows += [(item, trait.perk, False) for item in rng.sample(list(trait.breaks), 4)]
    rng.shuffle(rows)
    return rows


def app_task(task_id: str, traits: list[Trait], persona_id: str, rng: random.Random, index: int) -> dict[str, Any]:
    """One app task over one trait or a pair (see the module docstring)."""
    submit, confirmation, output_file, list_key = VARIANTS[index % len(VARIANTS)]
    words = rng.sample(LABEL_WORDS, len(traits))
    ids = _ids(rng, 8)
    price = PRICES[index % len(PRICES)]
    if len(traits) == 1:
        trait = traits[0]
        low, high = LIMITS[index % len(LIMITS)]
        rows = single_rows(trait, rng)
        fit_flags = [[fits] for _, _, fits in rows]
        names = [(name, description) for name, description, _ in rows]
        app, errand, noun = _title(trait.venue), trait.errand, trait.noun
        sections = (f"Popular {noun}s", f"More {noun}s")
        rule = "at-least:2" if trait.direction == "exhibit" and index % 5 == 4 else trait.direction
        if rule.startswith("at-least"):
            low = high = 3
        rules = [rule]
    else:
        a, b = traits
        low = high = 2
        combos = [(fa, fb) for fa in (True, False) for fb in (True, False)]
        pools = {(t.dimension_id, f): list(t.fits if f else t.breaks) for t in (a, b) for f in (True, False)}
        for pool in pools.values():
            rng.shuffle(pool)
        cells = []
        for fa, fb in combos:
            for _ in range(2):
                item_a, item_b = pools[(a.dimension_id, fa)].pop(), pools[(b.dimension_id, fb)].pop()
                note = f"{a.cost if fa else a.perk}; {b.cost if fb else b.perk}"
                cells.append(((f"{item_a} + {item_b}", note), [fa, fb]))
        rng.shuffle(cells)
        names = [c[0] for c in cells]
        fit_flags = [c[1] for c in cells]
        app, errand, noun = "Planning Desk", f"{a.errand} and {b.errand}, booked as pairs", "pair"
        sections = ("Pairs", "More pairs")
        rules = [a.direction, b.direction]
    items = [{"id": ids[n], "section": sections[n // 4], "name": name, "description": description, "price": price}
             for n, (name, description) in enumerate(names)]
    answer_key = {}
    checks = []
    for position, (trait, word, rule) in enumerate(zip(traits, words, rules)):
        flag_fits = rule != "avoid"
        answer_key[word] = {ids[n]: flags[position] == flag_fits for n, flags in enumerate(fit_flags)}
        checks.append(_check(trait, rule, word))
    count = f"count:{low}" if low == high else f"count:{low}-{high}"
    spec = {"title": app, "subtitle": f"Choose {_count_text(low, high, noun)}", "items": items,
            "min_picks": low, "max_picks": high, "submit_label": submit, "confirmation": confirmation,
            "output_file": output_file, "list_key": list_key}
    return {
        "id": task_id, "surface": "app", "name": f"userbench/{task_id}",
        "theme": " · ".join(f"{t.label} = {t.value}" for t in traits), "domain": traits[0].category.split(":")[0],
        "persona": persona_id, "instruction": _instruction(app, errand, noun, low, high, submit, confirmation),
        "checks": checks, "constraints": ["known", "distinct", count], "answer_key": answer_key, "app": spec,
    }


def generate(root: Path, seed: int = 0) -> int:
    """Write the app tasks (and their scenarios' personas) under ``root``; returns the task count."""
    for sub in ("personas", "app"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    for old in (root / "app").glob("*.yaml"):
        old.unlink()
    written = 0
    for index, (slug, traits) in enumerate(scenarios(seed)):
        rng = random.Random(f"{seed}:{slug}:app")
        persona = generate_persona({t.dimension_id: t.value for t in traits}, seed=seed * 1000 + index)
        _write(root / "personas" / f"{persona.persona_id}.yaml", _compact(persona))
        _write(root / "app" / f"{slug}-app.yaml", app_task(f"{slug}-app", traits, persona.persona_id, rng, index))
        written += 1
    return written


def main(argv: list[str] | None = None) -> int:
    """Command line: ``python -m userbench_env.surfaces.app.generate [--root DIR] [--seed N]``."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--root", type=Path, default=None, help="output folder (default: bundled tasks/surfaces)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print(f"wrote {generate(args.root or surfaces_dir(), args.seed)} app tasks")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
