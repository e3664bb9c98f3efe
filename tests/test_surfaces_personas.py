"""Personas: APB persona loading, the role-play renderer, the trait catalogue and the generator."""
from __future__ import annotations

from pathlib import Path

import pytest

from userbench_env.surfaces.personas import load_persona, render_persona
from userbench_env.surfaces.personas.catalog import load_schema, load_traits
from userbench_env.surfaces.personas.generator import generate_persona
from userbench_env.surfaces.personas.render import SECTIONS, section_of

VEGETARIAN = "tasks/single-attribute/health-lifestyle/diet-type/vegetarian/vegetarian-web/persona.yaml"


@pytest.fixture(scope="module")
def apb_persona(apb_sample: Path):
    return load_persona(apb_sample / VEGETARIAN)


def test_apb_persona_loads_every_attribute(apb_persona) -> None:
    assert apb_persona.persona_id == "hf-270713407"
    assert len(apb_persona.attributes) == 778
    assert len(apb_persona.groups()) == 43
    diet = apb_persona.attributes["lstyle_diet_type"]
    assert (diet.value, diet.label, diet.category) == ("Vegetarian", "Diet type", "Health: Lifestyle")


def test_render_follows_section_order_and_filters_placeholders(apb_persona) -> None:
    prompt = render_persona(apb_persona.with_pins({"lstyle_diet_type": "Vegetarian"}))
    assert "# Your profile" in prompt and "role-playing a user" in prompt
    assert "- Diet type: Vegetarian" in prompt
    titles = [line[4:] for line in prompt.splitlines() if line.startswith("### ")]
    order = [t for t, _ in SECTIONS]
    assert titles == sorted(titles, key=order.index)
    assert "Not applicable" not in prompt  # placeholder values are dropped
    lines = [line for line in prompt.splitlines() if line.startswith("- ")]
    assert 600 < len(lines) < 778


def test_pinned_placeholder_value_survives(apb_persona) -> None:
    dim = next(k for k, a in apb_persona.attributes.items() if a.value == "Not applicable")
    label = apb_persona.attributes[dim].label
    assert f"- {label}: Not applicable" not in render_persona(apb_persona)
    assert f"- {label}: Not applicable" in render_persona(apb_persona.with_pins({dim: "Not applicable"}))


def test_char_budget_never_drops_the_pin(apb_persona) -> None:
    pinned = apb_persona.with_pins({"lstyle_diet_type": "Vegetarian"})
    short = render_persona(pinned, max_chars=3000)
    assert len(short) <= 3000 and "- Diet type: Vegetarian" in short


def test_pin_conflict_is_rejected(apb_persona) -> None:
    with pytest.raises(ValueError, match="pins"):
        apb_persona.with_pins({"lstyle_diet_type": "Vegan"})


def test_section_mapping() -> None:
    assert section_of("Developer: AI Adoption") == "Career & education"
    assert section_of("Behavior: Work") == "Current interaction state"
    assert section_of("Behavior: Habits") == "Lifestyle & health"
    assert section_of("Something new") == "Other"


def test_catalogue_has_forty_dimensions_with_behaviours() -> None:
    traits = load_traits()
    assert len({t.dimension_id for t in traits}) >= 40
    for trait in traits:
        assert trait.value in trait.values and len(trait.values) >= 3
        assert trait.held and trait.violated and trait.held != trait.violated
        assert len(trait.fits) >= 6 and len(trait.breaks) >= 6 and not set(trait.fits) & set(trait.breaks)


def test_generator_fills_a_full_profile_around_pins() -> None:
    pins = {"lstyle_diet_type": "Vegetarian", "lang_spanish": "None"}
    first, again, other = generate_persona(pins, 7), generate_persona(pins, 7), generate_persona(pins, 8)
    assert first == again and first.attributes != other.attributes
    assert len(first.attributes) >= len(load_schema().dimensions) >= 400
    assert all(first.value(k) == v for k, v in pins.items())
    assert first.pinned == pins
    prompt = render_persona(first)
    assert "- Language: Spanish: None" in prompt  # pinned placeholder-like value kept
    assert prompt.count("\n- ") > 350
