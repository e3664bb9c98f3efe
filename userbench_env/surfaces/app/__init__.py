"""The app surface: a Tk desktop app on a virtual display, driven by screenshot and click.

Parts: ``spec`` (the app catalogue a task carries), ``tkapp`` (the one Tk app every task
runs, standalone), ``driver`` (display, app launch, xdotool actions, screenshots;
standalone so it also runs inside the container), ``runtime`` (local Xvfb or Docker),
``backend`` (the :class:`~userbench_env.surfaces.base.SurfaceBackend`), ``artifact``
(scoring the written file) and ``generate`` (our bundled app tasks). Nothing here
imports a heavy package at module level.
"""
