"""The web artifact: what ``web.json`` outputs read from the final page, and its scoring.

The artifact is one JSON object: each ``dom`` output's list under its key (APB's
``{"orderedItemIds": [...]}``), each ``js`` output's value and each ``text`` output's
string under their names. Scoring takes the picks under the task's pick key, the
label maps from the hidden answer key or, failing that, from the ``data-<label>``
attributes of the **served HTML** (never the live DOM, which the page could rewrite),
and applies the task's constraints and rules (:func:`score_picks`). The known ids are
the page's ``data-id`` items (ours: the template's items) plus the answer key's ids.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from userbench_env.surfaces.artifacts import ArtifactError, score_picks
from userbench_env.surfaces.rules import Pick
from userbench_env.surfaces.sandbox import inside
from userbench_env.surfaces.scoring import Outcome
from userbench_env.surfaces.tasks import SurfaceTask
from userbench_env.surfaces.web.items import html_items, label_value
from userbench_env.surfaces.web.spec import DEFAULT_PICK_KEY, WebOutput

#: page-side code for each output kind (arguments: selector / attribute)
_DOM_JS = "([sel, attr]) => Array.from(document.querySelectorAll(sel)).map(e => e.getAttribute(attr)).filter(v => v !== null)"
_TEXT_JS = "(sel) => { const el = sel ? document.querySelector(sel) : document.body; return el ? el.innerText : ''; }"


async def extract_outputs(page: Any, outputs: list[WebOutput]) -> dict[str, Any]:
    """Evaluate every output on the live page (Playwright async ``Page``)."""
    data: dict[str, Any] = {}
    for out in outputs:
        if out.kind == "dom":
            data[out.name] = await page.evaluate(_DOM_JS, [out.selector, out.attr or "data-id"])
        elif out.kind == "js":
            data[out.name] = await page.evaluate(out.expr)
        else:
            data[out.name] = await page.evaluate(_TEXT_JS, out.selector)
    return data


def item_names(task: SurfaceTask) -> dict[str, str]:
    """Item id -> its name on the page (our template's names, or the served HTML's first text)."""
    spec = task.web
    if spec is not None and spec.page is not None:
        return {i.id: i.name for i in spec.page.items}
    return {i.id: i.name for i in html_items(served_html(task))}


def served_html(task: SurfaceTask) -> str:
    """The task's page as served: the site's entry file, or our rendered template."""
    spec = task.web
    if spec is None:
        raise ValueError(f"task {task.id} has no web spec")
    if spec.page is not None:
        from userbench_env.surfaces.web.templates import render_page

        return render_page(spec.page)
    if spec.site is None:
        raise FileNotFoundError(f"task {task.id} has no site folder")
    return inside(spec.site, spec.entry, "web.json entry").read_text(encoding="utf-8")


def page_labels(task: SurfaceTask) -> tuple[dict[str, dict[str, bool | int]], list[str]]:
    """(label name -> id -> label, known ids) for a web task (see the module docstring)."""
    spec = task.web
    labels = {k: dict(v) for k, v in task.answer_key.items()}
    if spec is not None and spec.page is not None:
        known = [i.id for i in spec.page.items]
    else:
        items = html_items(served_html(task))
        known = [i.id for i in items]
        for check in task.checks:
            if check.label and check.label not in labels:
                attr = f"data-{check.label}"
                try:
                    found = {i.id: label_value(i.attrs[attr]) for i in items if attr in i.attrs}
                except ValueError as exc:
                    raise ArtifactError(str(exc)) from exc
                if found:
                    labels[check.label] = found
    known += [i for m in labels.values() for i in m if i not in known]
    return labels, known


def picks_of(value: Any) -> list[str]:
    """Pick ids from an artifact value: a list of ids, or a mapping whose values are ids."""
    if isinstance(value, Mapping):
        value = [v for vs in value.values() for v in (vs if isinstance(vs, list) else [vs])]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ArtifactError("web artifact picks must be a list of id strings")
    return value


class WebArtifact:
    """The ``web`` artifact kind (see the module docstring)."""

    name = "web"
    filename = "order.json"

    def matches(self, data: Any) -> bool:
        """A dict (not survey answers) holding at least one list of strings."""
        return isinstance(data, dict) and "answers" not in data and any(
            isinstance(v, list) and all(isinstance(i, str) for i in v) for v in data.values())

    def score(self, task: SurfaceTask, data: Any, judge: Any = None) -> Outcome:
        """Rule scoring of the picks under the task's pick key."""
        if not isinstance(data, dict):
            raise ArtifactError("web artifact must be a JSON object")
        key = task.web.picks_from if task.web else DEFAULT_PICK_KEY
        if key not in data:
            raise ArtifactError(f"web artifact has no {key!r}")
        labels, known = page_labels(task)
        picks = [Pick(id=i) for i in picks_of(data[key])]
        return score_picks(task, picks, {"items": known}, labels)


WEB_ARTIFACT = WebArtifact()
