"""Persona surfaces: worlds where a persona user runs an errand and is scored on its picks.

Parts: ``personas`` (model, renderer, APB loader, trait catalogue, generator), ``tasks``
(APB task folders and our bundled format), ``rules`` (data-driven decision rules),
``scoring`` (pass / fail / error statuses), ``base`` (the backend protocol every
surface implements), ``survey`` and ``chat`` backends, ``players`` (persona policies).
Nothing here imports a heavy package at module level.
"""
