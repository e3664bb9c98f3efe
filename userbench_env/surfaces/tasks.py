"""Surface tasks: AgentPersonaBench task folders and our bundled format, one model.

APB folders (found by their ``task.toml``, at any depth) give the checks (``value`` or
``anchor_value``), the errand (``instruction.md``), the persona (``persona.yaml`` when
present), the surface inputs (``input/questionnaire.yaml``, ``input/bot.md``,
``input/context.md``) and the hidden key (``tests/answer_key.yaml``); a
``tests/verifier.py`` is remembered so scoring can run it. APB keeps its decision
rules in code, so rules for upstream tasks come from a data overlay
(``tasks/surfaces/apb_rules.yaml``) or the caller. A task outside the overlay gets
what the newer upstream verifiers enforce: a survey the ``coverage`` and ``known``
constraints (exactly one answer per question, no unknown id); a web or app task whose
errand names its pick count in bold ("Add the **3 Wednesdays** ...", "**exactly 2
options**", "**2–3 dishes**") exactly that many distinct, known picks (``nonempty,
distinct, known, count:N`` or ``count:A-B``; :func:`pick_count`); a web task whose page
carries exactly one boolean ``data-*`` label (besides ``data-id``) that label as its
check's label map.

A task folder is untrusted input: every file is read through
:func:`~userbench_env.surfaces.sandbox.inside` (no symlink leads out of the folder),
YAML through the bounded reader (:mod:`.yamlio`), and anything malformed is a
:class:`~userbench_env.surfaces.sandbox.TaskError` naming the file.

Our bundled tasks are one YAML file each under ``tasks/surfaces/<surface>/``; their
personas live in ``tasks/surfaces/personas/`` and every check carries its rule and
label name as data.
"""
from __future__ import annotations

import csv
import re
import tomllib
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from userbench_env.datapaths import bundled_root
from userbench_env.surfaces.app.spec import AppSpec
from userbench_env.surfaces.personas.model import Persona, load_persona
from userbench_env.surfaces.rules import Constraint, Rule
from userbench_env.surfaces.sandbox import TaskError, inside
from userbench_env.surfaces.web.items import boolean_labels, html_items
from userbench_env.surfaces.web.spec import WebSpec, load_web_spec
from userbench_env.surfaces.yamlio import read_yaml

SurfaceName = Literal["survey", "chat", "web", "app"]
Split = Literal["all", "single", "multi"]
#: constraints of a survey task the rules overlay does not name (newer APB verifiers)
DEFAULT_SURVEY_CONSTRAINTS = ("coverage", "known")
#: constraints of a web or app task the overlay does not name, whose errand states the
#: pick count (then followed by that ``count:``); newer APB verifiers check exactly these
DEFAULT_PICK_CONSTRAINTS = ("nonempty", "distinct", "known")
_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
                 "ten": 10}
_NUMBER = r"(\d+|" + "|".join(_NUMBER_WORDS) + r")"
#: a bold count of things in an errand: **3 dishes**, **exactly 2 options**, **2–3 dishes**, **two to three items**
_PICK_COUNT = re.compile(r"\*\*\s*(?:exactly\s+)?" + _NUMBER + r"(?:\s*(?:[-–—]|to)\s*" + _NUMBER + r")?\s+[^*\n\d]+?\*\*",
                         re.IGNORECASE)


class TraitCheck(BaseModel):
    """One pinned trait and how it is checked.

    ``rule`` and ``label`` (the answer-key map the rule reads) are set for rule-scored
    surfaces; ``held``/``violated``/``pushed`` feed the chat judge; ``fits``/``breaks``
    name choices that hold or break the trait (used by scripted players).
    """

    model_config = ConfigDict(extra="forbid")

    dimension_id: str
    dimension_label: str = ""
    category: str = ""
    value: str
    evaluator: str = "rule-based"
    name: str = ""
    signal: str = ""
    rule: str | None = None
    label: str | None = None
    held: str = ""
    violated: str = ""
    pushed: str = ""
    fits: list[str] = Field(default_factory=list)
    breaks: list[str] = Field(default_factory=list)

    def model_post_init(self, __context: Any) -> None:
        if not self.name:
            self.name = f"{self.dimension_id}={self.value}"
        if not self.dimension_label:
            self.dimension_label = self.dimension_id


class Option(BaseModel):
    """One answer option: an opaque id and its text."""

    model_config = ConfigDict(extra="ignore")

    id: str
    text: str


class Question(BaseModel):
    """One single-choice question."""

    model_config = ConfigDict(extra="ignore")

    id: str
    prompt: str
    type: str = "single_choice"
    options: list[Option]


class Questionnaire(BaseModel):
    """A questionnaire as the persona sees it (no labels)."""

    model_config = ConfigDict(extra="ignore")

    title: str = ""
    introduction: str = ""
    questions: list[Question]

    def groups(self) -> dict[str, list[str]]:
        """Question id -> its option ids."""
        return {q.id: [o.id for o in q.options] for q in self.questions}


class ChatSpec(BaseModel):
    """The chat counterpart and the user's framing.

    ``bot`` is the bot's system prompt, ``context`` the scenario shown to the user,
    ``opening`` the user's first message, ``pitches`` the scripted bot's lines (empty:
    derived from the quoted phrases of ``bot``), ``turns`` the forced dialogue length.
    """

    model_config = ConfigDict(extra="forbid")

    bot: str
    context: str = ""
    opening: str = ""
    pitches: list[str] = Field(default_factory=list)
    application_id: str = "assistant"
    turns: int = 12


class SurfaceTask(BaseModel):
    """A persona-surface task from any source; ``path`` is its folder or file."""

    model_config = ConfigDict(extra="forbid")

    id: str
    source: Literal["apb", "bundled"]
    surface: SurfaceName
    name: str = ""
    theme: str = ""
    domain: str = ""
    instruction: str
    checks: list[TraitCheck]
    persona: Persona | None = None
    persona_file: str | None = None
    questionnaire: Questionnaire | None = None
    answer_key: dict[str, dict[str, bool | int]] = Field(default_factory=dict)
    constraints: list[str] = Field(default_factory=list)
    chat: ChatSpec | None = None
    web: WebSpec | None = None
    app: AppSpec | None = None
    path: str | None = None
    verifier: str | None = None
    verifier_timeout: float = 60.0

    @property
    def multi(self) -> bool:
        """Whether the task pins more than one trait."""
        return len(self.checks) > 1

    def load_persona(self) -> Persona | None:
        """The task's persona with its pins: inline, else read from ``persona_file``
        (parsed once per file), else ``None``."""
        if self.persona is not None:
            return self.persona
        if self.persona_file is None:
            return None
        return _persona_file(self.persona_file).with_pins(self.pins)

    @property
    def pins(self) -> dict[str, str]:
        """dimension id -> pinned value."""
        return {c.dimension_id: c.value for c in self.checks}

    def labels_for(self, check: TraitCheck) -> dict[str, bool | int]:
        """The answer-key map a check reads (``KeyError`` when the key lacks it)."""
        if check.label is None:
            raise KeyError(f"check {check.name} names no answer-key label")
        return self.answer_key[check.label]

    def rules(self) -> list[Rule]:
        """Each check's parsed rule (``ValueError`` when a check has none)."""
        missing = [c.name for c in self.checks if not c.rule]
        if missing:
            raise ValueError(f"task {self.id}: no decision rule for {missing}; give one as data (--rule)")
        return [Rule.parse(c.rule or "") for c in self.checks]

    def parsed_constraints(self) -> list[Constraint]:
        """The task-wide constraints, parsed."""
        return [Constraint.parse(c) for c in self.constraints]

    def with_rules(self, rules: list[str]) -> "SurfaceTask":
        """A copy whose checks use ``rules`` (one for all checks, or one per check)."""
        if len(rules) not in (1, len(self.checks)):
            raise ValueError(f"{len(rules)} rules for {len(self.checks)} checks: give one, or one per check")
        for text in rules:
            Rule.parse(text)
        picked = rules * len(self.checks) if len(rules) == 1 else rules
        checks = [c.model_copy(update={"rule": r}) for c, r in zip(self.checks, picked)]
        return self.model_copy(update={"checks": checks, "verifier": None})

    def with_labels(self, labels: list[str]) -> "SurfaceTask":
        """A copy whose checks read the label maps ``labels`` (one per check, in order)."""
        if len(labels) != len(self.checks):
            raise ValueError(f"{len(labels)} labels for {len(self.checks)} checks: give one per check")
        checks = [c.model_copy(update={"label": name}) for c, name in zip(self.checks, labels)]
        return self.model_copy(update={"checks": checks})


# --------------------------------------------------------------------------- APB


class TaskIndexRow(BaseModel):
    """One row of APB's ``tasks.csv``."""

    model_config = ConfigDict(extra="ignore")

    path: str
    surface: str
    bucket: str
    family: str
    n_checks: int


def read_tasks_csv(path: str | Path) -> list[TaskIndexRow]:
    """Read APB's ``tasks.csv`` (CRLF or LF line endings)."""
    with open(path, encoding="utf-8", newline="") as fh:
        return [TaskIndexRow.model_validate(row) for row in csv.DictReader(fh)]


def find_apb_tasks(root: str | Path) -> list[Path]:
    """Every APB task folder under ``root`` (folders holding a ``task.toml``), sorted."""
    root = Path(root)
    if (root / "task.toml").is_file():
        return [root]
    return sorted(p.parent for p in root.rglob("task.toml"))


def load_apb_task(folder: str | Path, overlay: Mapping[str, Any] | None = None) -> SurfaceTask:
    """Load one APB task folder (:class:`TaskError` when it is not one, or is malformed).

    ``overlay`` (default: the bundled ``apb_rules.yaml``) supplies rules, label names
    and constraints by task name when the task's verifier is not available; a task it
    does not name gets the defaults in the module docstring.
    """
    folder = Path(folder)
    if not (folder / "task.toml").is_file():
        raise TaskError(f"{folder} is not an APB task folder (no task.toml); "
                        "give an APB task folder or a bundled task file")
    try:
        toml = tomllib.loads(_read_text(folder, "task.toml"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise TaskError(f"{folder / 'task.toml'} is not valid TOML: {exc}") from exc
    try:
        return _apb_task(folder, toml, overlay if overlay is not None else apb_overlay())
    except ValidationError as exc:
        raise TaskError(f"{folder}: {_first_error(exc)}") from exc
    except (KeyError, TypeError, AttributeError) as exc:
        raise TaskError(f"{folder}: malformed task data ({type(exc).__name__}: {exc})") from exc


def _apb_task(folder: Path, toml: dict[str, Any], overlay: Mapping[str, Any]) -> SurfaceTask:
    meta, task_meta = toml.get("metadata", {}), toml.get("task", {})
    name = str(task_meta.get("name") or folder.name)
    extra = overlay.get(name)
    extra_checks = (extra or {}).get("checks", [])
    checks = []
    for index, raw in enumerate(toml.get("checks", [])):
        value = raw.get("value", raw.get("anchor_value"))
        if value is None:
            raise TaskError(f"{folder}: check {index} has neither value nor anchor_value")
        data = extra_checks[index] if index < len(extra_checks) else {}
        checks.append(TraitCheck(
            dimension_id=raw["dimension_id"], dimension_label=raw.get("dimension_label", ""),
            category=raw.get("category", ""), value=str(value), evaluator=raw.get("evaluator", "rule-based"),
            name=raw.get("evaluator_name", ""), signal=raw.get("adherence_signal", ""),
            rule=data.get("rule"), label=data.get("label"),
        ))
    surface = meta.get("type")
    if surface not in ("survey", "chat", "web", "app"):
        raise TaskError(f"{folder}: unknown surface {surface!r} in [metadata] type")
    persona = load_persona(inside(folder, "persona.yaml", "persona")) if (folder / "persona.yaml").is_file() else None
    if persona is not None:
        persona = persona.with_pins({c.dimension_id: c.value for c in checks})
    key = _read_yaml(folder, "tests/answer_key.yaml") or {}
    if not isinstance(key, Mapping):
        raise TaskError(f"{folder / 'tests/answer_key.yaml'}: an answer key is a mapping of label maps")
    answer_key = {str(k): {str(i): v for i, v in m.items()} for k, m in key.items() if isinstance(m, Mapping)}
    checks = _default_labels(checks, answer_key)
    web = load_web_spec(folder) if surface == "web" else None
    if web is not None:
        checks = _page_label(checks, web)
    questionnaire = None
    if (folder / "input" / "questionnaire.yaml").is_file():
        questionnaire = Questionnaire.model_validate(_read_yaml(folder, "input/questionnaire.yaml"))
    chat = None
    if (folder / "input" / "bot.md").is_file():
        context = _read_text(folder, "input/context.md")
        chat = ChatSpec(
            bot=_read_text(folder, "input/bot.md"), context=context, opening=opening_message(context),
            application_id=str(meta.get("application_id") or "assistant"),
        )
    verifier = folder / "tests" / "verifier.py"
    instruction = _read_text(folder, "instruction.md")
    constraints = list(extra.get("constraints", [])) if extra is not None else default_constraints(surface, instruction)
    return SurfaceTask(
        id=folder.name, source="apb", surface=surface, name=name, theme=str(task_meta.get("theme", "")),
        domain=str(meta.get("domain", "")), instruction=instruction, checks=checks,
        persona=persona, questionnaire=questionnaire, answer_key=answer_key,
        constraints=constraints, chat=chat, path=str(folder), web=web,
        verifier=str(inside(folder, "tests/verifier.py", "verifier")) if verifier.is_file() else None,
        verifier_timeout=float(toml.get("verifier", {}).get("timeout_sec", 60.0)),
    )


def opening_message(context: str) -> str:
    """The user's first message: the block quote under a heading mentioning "message"."""
    lines = context.splitlines()
    for index, line in enumerate(lines):
        if line.startswith("#") and "message" in line.lower():
            quote: list[str] = []
            for follow in lines[index + 1:]:
                if follow.startswith(">"):
                    quote.append(follow.lstrip(">").strip())
                elif quote or follow.startswith("#"):
                    break
            if quote:
                return " ".join(q for q in quote if q)
    return ""


def pick_count(instruction: str) -> str | None:
    """The count constraint an errand states: its first bold count of things ("Add the **3
    things**" -> ``count:3``, "**2–3 dishes**" -> ``count:2-3``), outside its ``## Files``
    part; ``None`` when it states none."""
    match = _PICK_COUNT.search(errand_text(instruction))
    if match is None:
        return None
    low, high = (_number(word) for word in match.groups())
    return f"count:{low}" if high is None or high == low else f"count:{low}-{high}"


def _number(word: str | None) -> int | None:
    """A count written in digits or as a word (one to ten)."""
    return None if word is None else _NUMBER_WORDS.get(word.lower()) or int(word)


def default_constraints(surface: str, instruction: str) -> list[str]:
    """The constraints of an APB task the overlay does not name (see the module docstring)."""
    if surface == "survey":
        return list(DEFAULT_SURVEY_CONSTRAINTS)
    count = pick_count(instruction) if surface in ("web", "app") else None
    return [*DEFAULT_PICK_CONSTRAINTS, count] if count else []


@lru_cache(maxsize=1)
def apb_overlay() -> dict[str, Any]:
    """Rules as data for upstream APB tasks, by task name (bundled ``apb_rules.yaml``)."""
    return _read_yaml(surfaces_dir(), "apb_rules.yaml") or {}


def _default_labels(checks: list[TraitCheck], answer_key: Mapping[str, Any]) -> list[TraitCheck]:
    """Pair unlabelled checks with answer-key maps in file order when the counts match."""
    if any(c.label for c in checks) or len(answer_key) != len(checks):
        return checks
    return [c.model_copy(update={"label": label}) for c, label in zip(checks, answer_key)]


def _page_label(checks: list[TraitCheck], web: WebSpec) -> list[TraitCheck]:
    """Give a lone unlabelled check the page's label when the served page carries exactly
    one boolean ``data-*`` label besides ``data-id``."""
    if len(checks) != 1 or checks[0].label or web.site is None or web.page is not None:
        return checks
    entry = inside(web.site, web.entry, "web.json entry")
    if not entry.is_file():
        return checks
    labels = boolean_labels(html_items(entry.read_text(encoding="utf-8", errors="replace")))
    return [checks[0].model_copy(update={"label": labels[0]})] if len(labels) == 1 else checks


# ----------------------------------------------------------------------- bundled


def surfaces_dir() -> Path:
    """Our bundled surface data folder (``tasks/surfaces``)."""
    return bundled_root() / "surfaces"


def load_bundled_task(path: str | Path) -> SurfaceTask:
    """Load one bundled task file; its persona (read on first use) is
    ``personas/<persona>.yaml`` next to the surface folders."""
    path = Path(path)
    data = _read_yaml(path.parent, path.name)
    if not isinstance(data, dict):
        raise TaskError(f"{path} is not a task file (a YAML mapping with id, surface, instruction, checks)")
    persona_ref = data.pop("persona", None)
    persona_file = None
    if persona_ref:
        persona_file = str(inside(path.parent.parent / "personas", f"{persona_ref}.yaml", "persona"))
    try:
        task = SurfaceTask.model_validate({**data, "source": "bundled", "path": str(path), "persona_file": persona_file})
    except ValidationError as exc:
        raise TaskError(f"{path}: {_first_error(exc)}") from exc
    for check in task.checks:
        if check.rule:
            Rule.parse(check.rule)
    task.parsed_constraints()
    return task


def load_surface_tasks(
    surface: str | None = None,
    source: str = "bundled",
    split: Split = "all",
    path: str | Path | None = None,
) -> list[SurfaceTask]:
    """Tasks of one surface (or all) from ``bundled`` data or an ``apb`` folder.

    ``split`` keeps ``single`` or ``multi`` attribute tasks. For ``apb`` the path is
    the APB ``tasks/`` folder (or any folder under it).
    """
    if source == "apb":
        if path is None:
            raise ValueError("source='apb' needs the path of an APB tasks folder")
        tasks = [load_apb_task(folder) for folder in find_apb_tasks(path)]
    elif source == "bundled":
        root = Path(path) if path is not None else surfaces_dir()
        surfaces = [surface] if surface else ["survey", "chat"]
        tasks = [load_bundled_task(f) for s in surfaces for f in sorted((root / s).glob("*.yaml"))]
    else:
        raise ValueError(f"unknown task source {source!r}: use 'bundled' or 'apb'")
    tasks = [t for t in tasks if surface is None or t.surface == surface]
    if split == "single":
        tasks = [t for t in tasks if not t.multi]
    elif split == "multi":
        tasks = [t for t in tasks if t.multi]
    return tasks


@lru_cache(maxsize=256)
def _persona_file(path: str) -> Persona:
    return load_persona(path)


def _read_yaml(folder: Path, name: str) -> Any:
    """The YAML file ``name`` inside ``folder`` (``None`` when absent)."""
    path = inside(folder, name, "file")
    return read_yaml(path) if path.is_file() else None


def _read_text(folder: Path, name: str) -> str:
    """The text file ``name`` inside ``folder`` (empty when absent)."""
    path = inside(folder, name, "file")
    try:
        return path.read_text(encoding="utf-8") if path.is_file() else ""
    except UnicodeDecodeError as exc:
        raise TaskError(f"{path} is not UTF-8 text") from exc


def _first_error(exc: ValidationError) -> str:
    """The first validation problem, on one line."""
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"])
    return f"{where + ': ' if where else ''}{first['msg']} ({exc.error_count()} problem(s))"


_FILES_HEADING = re.compile(r"^##\s+Files\b.*$", re.MULTILINE)


def errand_text(instruction: str) -> str:
    """The instruction without its ``## Files`` part (container paths are not for the persona)."""
    match = _FILES_HEADING.search(instruction)
    return (instruction[: match.start()] if match else instruction).strip()
