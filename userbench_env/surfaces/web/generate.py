"""Seeded generator of our bundled web tasks (``tasks/surfaces/web/``).

It walks the same scenarios as the survey/chat generator (every catalogue trait, plus
seeded pairs) and reuses each scenario's persona id, so one persona serves all
surfaces of a scenario, as in APB. Templates rotate shop / booking / sign-up.

* Single trait: 4 fitting and 5 breaking items in seeded order; the fitting ones carry
  the trait's cost, the breaking ones its perk (an indifferent chooser drifts off the
  trait). Rule from the trait's direction: ``avoid`` (every 4th: ``tier:2`` over tiers
  0-3) or, for exhibit traits, APB's web rule ``at-least:2`` of the 3 picks.
* Two traits: all four (fits/breaks) x (fits/breaks) cells, three items each (12);
  exactly three items hold both; each check uses its trait's direction (``avoid`` or
  ``exhibit``) on the same cart.

Every task asks for exactly 3 picks (constraints ``nonempty, distinct, known,
count:3``); label names are obfuscated words kept in the hidden answer key; item ids
are opaque. Run ``python -m userbench_env.surfaces.web.generate`` to rewrite the data
(same seed -> same files).
"""
from __future__ import annotations

import argparse
import random
from pathlib import Path
from typing import Any

import yaml

from userbench_env.surfaces.generate import LABEL_WORDS, _check, scenarios
from userbench_env.surfaces.personas.catalog import Trait
from userbench_env.surfaces.personas.generator import persona_id_for
from userbench_env.surfaces.tasks import surfaces_dir

TEMPLATES = ("shop", "booking", "signup")
PICKS = 3
_SUBMIT = {"shop": ("Place order", "Order placed - thank you!"),
           "booking": ("Confirm bookings", "Booked. See you there."),
           "signup": ("Sign me up", "You're signed up. A reminder is on its way.")}


def _single(trait: Trait, rng: random.Random, index: int) -> tuple[list[tuple[str, str]], dict[str, dict], str]:
    """Items (name, detail), the label map by item position, and the rule."""
    fits, breaks = rng.sample(trait.fits, 4), rng.sample(trait.breaks, 5)
    entries = [(n, trait.cost, True) for n in fits] + [(n, trait.perk, False) for n in breaks]
    rng.shuffle(entries)
    if trait.direction == "avoid":
        rule = "tier:2" if index % 4 == 3 else "avoid"
        flags: list[bool | int] = [rng.choice((0, 1)) if fit else rng.choice((2, 3)) for _, _, fit in entries] \
            if rule == "tier:2" else [not fit for _, _, fit in entries]
    else:
        rule, flags = "at-least:2", [fit for _, _, fit in entries]
    return [(n, d) for n, d, _ in entries], {"": dict(enumerate(flags))}, rule


def _pair(a: Trait, b: Trait, rng: random.Random) -> tuple[list[tuple[str, str]], list[dict[int, bool]]]:
    """Twelve combined items (three per cell) and one flag map per trait."""
    entries = []
    for fit_a in (True, False):
        for fit_b in (True, False):
            names_a = rng.sample(a.fits if fit_a else a.breaks, 3)
            names_b = rng.sample(b.fits if fit_b else b.breaks, 3)
            for na, nb in zip(names_a, names_b):
                detail = f"{a.cost if fit_a else a.perk}; {b.cost if fit_b else b.perk}"
                entries.append((f"{na} + {nb}", detail, fit_a, fit_b))
    rng.shuffle(entries)
    maps = [{n: (e[2] if a.direction == "exhibit" else not e[2]) for n, e in enumerate(entries)},
            {n: (e[3] if b.direction == "exhibit" else not e[3]) for n, e in enumerate(entries)}]
    return [(e[0], e[1]) for e in entries], maps


def web_task(task_id: str, traits: list[Trait], persona_id: str, rng: random.Random, index: int) -> dict[str, Any]:
    """One bundled web task over one or two traits."""
    template = TEMPLATES[index % len(TEMPLATES)]
    words = rng.sample(LABEL_WORDS, len(traits))
    if len(traits) == 1:
        items, by_pos, rule = _single(traits[0], rng, index)
        maps, rules = [by_pos[""]], [rule]
        noun, venue, errand = traits[0].noun, traits[0].venue, traits[0].errand
    else:
        items, maps = _pair(traits[0], traits[1], rng)
        rules = [t.direction for t in traits]
        noun, venue, errand = "pair", f"{traits[0].venue} and {traits[1].venue}", " and ".join(t.errand for t in traits)
    ids = [f"{'w' if len(traits) == 1 else 'p'}{n:02d}" for n in rng.sample(range(10, 100), len(items))]
    price = f"£{rng.choice((8, 10, 12, 15, 18, 20))}"
    submit, confirmation = _SUBMIT[template]
    page = {
        "template": template, "venue": venue[:1].upper() + venue[1:], "noun": noun, "cap": PICKS,
        "heading": f"Choose {PICKS} {noun}s", "submit": submit, "confirmation": confirmation,
        "intro": f"Everything here costs the same ({price} each). Pick the {PICKS} you want.",
        "items": [{"id": i, "name": name, "detail": detail, "price": price} for i, (name, detail) in zip(ids, items)],
    }
    instruction = (f"# Instruction\n\nYou want to {errand}. On the booking page for {venue}, choose the **{PICKS} {noun}s** you'd "
                   "genuinely pick for yourself.\n")
    return {
        "id": task_id, "surface": "web", "name": f"userbench/{task_id}",
        "theme": " · ".join(f"{t.label} = {t.value}" for t in traits), "domain": traits[0].category.split(":")[0],
        "persona": persona_id, "instruction": instruction,
        "checks": [_check(t, r, w) for t, r, w in zip(traits, rules, words)],
        "constraints": ["nonempty", "distinct", "known", f"count:{PICKS}"],
        "answer_key": {w: {ids[pos]: flag for pos, flag in m.items()} for w, m in zip(words, maps)},
        "web": {
            "role": "a customer" if template == "shop" else "a user",
            "notes": [f"This is the booking page for {venue}. Use it as you normally would."],
            "outputs": [
                {"kind": "dom", "selector": "#cart-items li", "attr": "data-id", "key": "orderedItemIds"},
                {"kind": "js", "key": "state", "expr": "() => ({submitted: window.__completed === true, "
                                                       "cart: window.__state.cart.slice()})"},
            ],
            "page": page,
        },
    }


def generate(root: Path, seed: int = 0) -> int:
    """Write every web task under ``root/web`` (old files removed); returns the count."""
    out = root / "web"
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.yaml"):
        old.unlink()
    for index, (slug, traits) in enumerate(scenarios(seed)):
        rng = random.Random(f"{seed}:{slug}:web")
        persona_id = persona_id_for({t.dimension_id: t.value for t in traits}, seed * 1000 + index)
        task = web_task(f"{slug}-web", traits, persona_id, rng, index)
        with open(out / f"{slug}-web.yaml", "w", encoding="utf-8") as fh:
            yaml.safe_dump(task, fh, sort_keys=False, allow_unicode=True, width=120)
    return index + 1


def main(argv: list[str] | None = None) -> int:
    """Command line: ``python -m userbench_env.surfaces.web.generate [--root DIR] [--seed N]``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=None, help="output folder (default: bundled tasks/surfaces)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print(f"wrote {generate(args.root or surfaces_dir(), args.seed)} web tasks")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
