"""Personas: the profile a persona user role-plays.

``model`` (attributes in groups, pinned traits, APB ``persona.yaml`` loading),
``render`` (the role-play system prompt), ``catalog`` (our trait catalogue and persona
schema, as data) and ``generator`` (seeded complete profiles around pinned traits).
"""
from userbench_env.surfaces.personas.model import Attribute, Persona, load_persona
from userbench_env.surfaces.personas.render import render_persona

__all__ = ["Attribute", "Persona", "load_persona", "render_persona"]
