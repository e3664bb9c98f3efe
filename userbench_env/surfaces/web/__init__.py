"""The web surface: the persona user drives a real page in headless Chromium.

Parts: ``spec`` (a task's ``web.json``: role, notes, outputs, page source), ``browser``
(one Playwright-driven Chromium per process, every request outside the task's page
blocked), ``site`` (how a task's page is served), ``snapshot`` (page -> text with
numbered controls), ``marks`` (Set-of-Marks screenshot), ``actions`` (the JSON action
format), ``backend`` (:class:`WebBackend`, the ``SurfaceEnv`` backend), ``artifact``
(output extraction and scoring), ``templates`` and ``generate`` (our bundled pages and
tasks). Importing this package loads no browser code; Playwright is imported lazily.
"""
