"""The survey surface: the persona answers a questionnaire; picks are scored by rules.

Observation: the errand and the questionnaire (option ids are opaque; the answer key
stays hidden). Actions are JSON: ``{"answers": [{"questionId", "selectedOptionId"}]}``
for several answers at once, a single ``{"questionId", "selectedOptionId"}`` object,
a list of them, or a ``{"<questionId>": "<optionId>"}`` map. An answer may be changed
until every question is answered, which ends the episode. The artifact is APB's
``survey_result.json`` shape.
"""
from __future__ import annotations

import json
from typing import Any

from userbench_env.core.limits import decode_json
from userbench_env.surfaces.artifacts import ArtifactError, score_picks
from userbench_env.surfaces.base import SurfaceStep
from userbench_env.surfaces.personas.model import Persona
from userbench_env.surfaces.rules import Pick
from userbench_env.surfaces.scoring import Outcome
from userbench_env.surfaces.tasks import Question, Questionnaire, SurfaceTask, errand_text

GUIDANCE = (
    "## How to answer\n"
    "Answer with JSON only. Either all answers at once: "
    '{"answers": [{"questionId": "<id>", "selectedOptionId": "<option id>"}, ...]} '
    'or one answer per message: {"questionId": "<id>", "selectedOptionId": "<option id>"}. '
    "Use the exact ids shown. Pick exactly one option per question."
)


def render_question(question: Question) -> str:
    """One question as the persona sees it: id, prompt and ``[option id] text`` lines."""
    lines = [f"{question.id}. {question.prompt}"]
    lines += [f"  [{o.id}] {o.text}" for o in question.options]
    return "\n".join(lines)


def render_questionnaire(questionnaire: Questionnaire) -> str:
    """The whole questionnaire as text."""
    head = [t for t in (questionnaire.title, questionnaire.introduction) if t]
    return "\n\n".join(head + [render_question(q) for q in questionnaire.questions])


def parse_answers(action: str | Any) -> list[tuple[str, str]]:
    """(question id, option id) pairs from a JSON action; ``ValueError`` when malformed
    (JSON text is read under the input policy, :func:`~userbench_env.core.limits.decode_json`)."""
    data = decode_json(action) if isinstance(action, str) else action
    if isinstance(data, dict) and "answers" in data:
        data = data["answers"]
    if isinstance(data, dict) and "questionId" not in data:
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()) or not data:
            raise ValueError("a question -> option map needs string ids")
        return list(data.items())
    items = data if isinstance(data, list) else [data]
    pairs = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("questionId"), str) \
                or not isinstance(item.get("selectedOptionId"), str):
            raise ValueError("each answer needs string questionId and selectedOptionId")
        pairs.append((item["questionId"], item["selectedOptionId"]))
    if not pairs:
        raise ValueError("no answers given")
    return pairs


class SurveyArtifact:
    """The ``survey`` artifact kind: ``{"answers": [{"questionId", "selectedOptionId"}]}``."""

    name = "survey"
    filename = "survey_result.json"

    def matches(self, data: Any) -> bool:
        """A dict with an ``answers`` list."""
        return isinstance(data, dict) and isinstance(data.get("answers"), list)

    def picks(self, data: Any) -> list[Pick]:
        """The answers as picks (group = question id); ``ArtifactError`` when malformed."""
        if not self.matches(data):
            raise ArtifactError('survey artifact must be {"answers": [...]}')
        try:
            return [Pick(id=o, group=q) for q, o in parse_answers({"answers": data["answers"]})]
        except ValueError as exc:
            raise ArtifactError(f"survey artifact: {exc}") from exc

    def score(self, task: SurfaceTask, data: Any, judge: Any = None) -> Outcome:
        """Rule scoring against the task's hidden answer key."""
        if task.questionnaire is None:
            raise ValueError(f"task {task.id} has no questionnaire")
        return score_picks(task, self.picks(data), task.questionnaire.groups())


SURVEY_ARTIFACT = SurveyArtifact()


class SurveyBackend:
    """Survey world state for one episode (see the module docstring)."""

    surface = "survey"
    role = "a user"
    artifact_kind = "survey"

    def __init__(self) -> None:
        self._task: SurfaceTask | None = None
        self._answers: dict[str, str] = {}

    @property
    def questionnaire(self) -> Questionnaire:
        """The current task's questionnaire."""
        if self._task is None or self._task.questionnaire is None:
            raise RuntimeError("reset the survey with a task that has a questionnaire")
        return self._task.questionnaire

    def guidance(self, task: SurfaceTask) -> str:
        """The answer format."""
        return GUIDANCE

    def reset(self, task: SurfaceTask, persona: Persona, seed: int | None) -> str:
        """Show the errand and the questionnaire."""
        self._task, self._answers = task, {}
        return f"{errand_text(task.instruction)}\n\n{render_questionnaire(self.questionnaire)}\n\n{GUIDANCE}"

    def step(self, action: str) -> SurfaceStep:
        """Record the answers in ``action``; done when every question is answered."""
        groups = self.questionnaire.groups()
        try:
            pairs = parse_answers(action)
        except ValueError as exc:
            return SurfaceStep(observation=f"Invalid answer: {exc}. {GUIDANCE}", invalid=True)
        for question, option in pairs:
            if question not in groups:
                return SurfaceStep(observation=f"Invalid answer: no question {question!r}.", invalid=True)
            if option not in groups[question]:
                return SurfaceStep(
                    observation=f"Invalid answer: {option!r} is not an option of {question}.", invalid=True)
        self._answers.update(pairs)
        open_questions = [q for q in self.questionnaire.questions if q.id not in self._answers]
        recorded = ", ".join(f"{q}={o}" for q, o in pairs)
        if not open_questions:
            return SurfaceStep(observation=f"Recorded {recorded}. All questions answered; thank you.", done=True)
        return SurfaceStep(observation=f"Recorded {recorded}. Next:\n{render_question(open_questions[0])}")

    def sample_action(self, rng: Any) -> str:
        """A valid answer to the first open question (random option)."""
        open_questions = [q for q in self.questionnaire.questions if q.id not in self._answers] \
            or self.questionnaire.questions
        question = open_questions[0]
        option = question.options[int(rng.integers(len(question.options)))]
        return json.dumps({"questionId": question.id, "selectedOptionId": option.id})

    def artifact(self) -> dict[str, Any] | None:
        """The answers so far in questionnaire order, or ``None`` when none was given."""
        if not self._answers:
            return None
        order = [q.id for q in self.questionnaire.questions]
        return {"answers": [{"questionId": q, "selectedOptionId": self._answers[q]}
                            for q in order if q in self._answers]}

    def close(self) -> None:
        """Nothing to release."""
