"""LLM-written rubrics: a writer proposes 4-8 judge criteria per task, a verifier reviews them.

:func:`generate_rubric` sends the writer (through litellm, the judge plumbing of
:mod:`userbench_env.evaluation.nl_judge`) the task's scenario, our simulation guidelines,
the user's tool surface and one sample conversation (by default the scripted oracle
agent with the scripted user), and asks for criteria as JSON. Each proposed criterion
is first checked deterministically: known family, a taxonomy mode of that family, a
grounding span found verbatim in the scenario or the guidelines, no duplicate
statement. The survivors go to an independent verifier model, which reviews each for
grounding, falsifiability, scope, user attribution, achievability, taxonomy fit and
redundancy. Every rejected criterion is dropped with its reason kept in
``Rubric.rejected``. Replies are parsed strictly; a malformed reply raises
:class:`~userbench_env.evaluation.nl_judge.JudgeReplyError`.

:func:`generate_rubrics` does this for many tasks and writes versioned rubric files
(:mod:`userbench_env.fidelity.rubrics`) that the envs load with ``rubrics=<root>``; a
task whose file exists is skipped, so a rerun resumes, and one task's failure does not
stop the others (``userbench generate-rubrics`` runs it from the command line).
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Callable, Iterable

from userbench_env.core.messages import Message
from userbench_env.core.rubric import Criterion, Rubric
from userbench_env.core.task import Task
from userbench_env.evaluation.nl_judge import JudgeReplyError, JudgeSpec, judge_completion, strip_fence
from userbench_env.fidelity.criteria import is_grounded, user_tool_names
from userbench_env.fidelity.judge import render_for_judge
from userbench_env.fidelity.rubrics import rubric_path, save_rubric
from userbench_env.fidelity.taxonomy import FAMILIES, MODES, TAXONOMY
from userbench_env.fidelity.text import scenario_text
from userbench_env.proxies.prompt import load_guidelines

MIN_CRITERIA, MAX_CRITERIA = 4, 8
REVIEW_ASPECTS = ("grounding", "falsifiability", "scope", "user attribution", "achievability", "taxonomy fit", "redundancy")

WRITER_INSTRUCTIONS = f"""You write a fidelity rubric for a SIMULATED CUSTOMER in a customer-service conversation.
The customer is played by a model that must follow the scenario and the guidelines below.
Write between {MIN_CRITERIA} and {MAX_CRITERIA} criteria, each one falsifiable statement about the CUSTOMER's
behaviour (never the agent's) in this task. Each criterion names a family and a mode from the
taxonomy, and quotes a grounding span copied character for character from the scenario or the
guidelines.

Answer with one JSON object and nothing else:
{{"criteria": [{{"family": "...", "mode": "...", "statement": "...", "grounding": "..."}}, ...]}}"""

VERIFIER_INSTRUCTIONS = f"""You review a fidelity rubric for a simulated customer. For each criterion decide whether
to accept it, checking: {", ".join(REVIEW_ASPECTS)}. Reject a criterion that is not supported by
its grounding, cannot be decided from a transcript, is out of the task's scope, is about the
agent rather than the customer, cannot be satisfied, is in the wrong family or mode, or repeats
another criterion.

Answer with one JSON object and nothing else:
{{"reviews": [{{"index": <criterion index>, "accept": true or false, "reason": "<one sentence>"}}, ...]}}
Give exactly one review per criterion."""


def taxonomy_text() -> str:
    """The taxonomy as the writer sees it: ``family / mode: description`` lines."""
    return "\n".join(f"{m.family} / {m.name}: {m.description}" for m in MODES)


def tool_surface(task: Task) -> str:
    """The user's tools as ``name: description`` lines ('(none)' when the user has none)."""
    from userbench_env.domains import make_world

    names = user_tool_names(task)
    if not names:
        return "(none)"
    schemas = make_world(task.domain, task.source, task).tool_schemas("user", names)
    return "\n".join(f"{s['function']['name']}: {s['function'].get('description', '')}" for s in schemas)


def sample_conversation(task: Task, source: str | None = None) -> list[Message]:
    """One conversation of ``task``: the scripted oracle agent with the scripted user."""
    from userbench_env.envs.conversation import ConversationEnv
    from userbench_env.fidelity.validate import run_episode

    env = ConversationEnv(task.domain, task_source=source or task.source, split=None, user_proxy="scripted")
    run_episode(env, task.id)
    return list(env.messages)


def writer_messages(task: Task, sample: list[Message]) -> list[dict[str, str]]:
    """The chat messages sent to the writer."""
    with_tools = user_tool_names(task) != []
    user = (
        f"Taxonomy (family / mode: description):\n{taxonomy_text()}\n\n"
        f"Guidelines:\n{load_guidelines(with_tools)}\n\nScenario:\n{scenario_text(task.blueprint)}\n\n"
        f"Customer tools:\n{tool_surface(task)}\n\nSample conversation:\n{render_for_judge(sample)}"
    )
    return [{"role": "system", "content": WRITER_INSTRUCTIONS}, {"role": "user", "content": user}]


def verifier_messages(task: Task, proposed: list[dict[str, str]]) -> list[dict[str, str]]:
    """The chat messages sent to the verifier (criteria indexed from 0)."""
    listing = "\n".join(f"{i}. {json.dumps(c)}" for i, c in enumerate(proposed))
    user = f"Scenario:\n{scenario_text(task.blueprint)}\n\nTaxonomy:\n{taxonomy_text()}\n\nCriteria:\n{listing}"
    return [{"role": "system", "content": VERIFIER_INSTRUCTIONS}, {"role": "user", "content": user}]


def _json_object(reply: str) -> dict[str, Any]:
    try:
        data = json.loads(strip_fence(reply))
    except (TypeError, ValueError) as exc:
        raise JudgeReplyError(f"reply is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise JudgeReplyError("reply is not a JSON object")
    return data


def parse_writer_reply(reply: str) -> list[dict[str, str]]:
    """The proposed criteria (dicts of four strings); JudgeReplyError unless 4-8 well-formed ones."""
    items = _json_object(reply).get("criteria")
    if not isinstance(items, list) or not MIN_CRITERIA <= len(items) <= MAX_CRITERIA:
        raise JudgeReplyError(f"the writer must give {MIN_CRITERIA}-{MAX_CRITERIA} criteria in a 'criteria' list")
    out = []
    for item in items:
        if not isinstance(item, dict) or not all(isinstance(item.get(k), str) for k in ("family", "mode", "statement", "grounding")):
            raise JudgeReplyError(f"malformed criterion: {item!r}")
        out.append({k: item[k] for k in ("family", "mode", "statement", "grounding")})
    return out


def parse_verifier_reply(reply: str, count: int) -> list[tuple[bool, str]]:
    """(accept, reason) per criterion index; JudgeReplyError unless every index 0..count-1 is reviewed once."""
    reviews = _json_object(reply).get("reviews")
    if not isinstance(reviews, list):
        raise JudgeReplyError("the verifier reply has no 'reviews' list")
    found: dict[int, tuple[bool, str]] = {}
    for review in reviews:
        index = review.get("index") if isinstance(review, dict) else None
        accept = review.get("accept") if isinstance(review, dict) else None
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < count or index in found:
            raise JudgeReplyError(f"bad or repeated review index: {review!r}")
        if not isinstance(accept, bool):
            raise JudgeReplyError(f"no boolean 'accept' in review {index}")
        reason = review.get("reason", "")
        found[index] = (accept, reason if isinstance(reason, str) else "")
    if len(found) != count:
        raise JudgeReplyError(f"the verifier reviewed {len(found)} of {count} criteria")
    return [found[i] for i in range(count)]


def precheck(task: Task, proposed: list[dict[str, str]]) -> list[str | None]:
    """Per proposed criterion, the deterministic reason to reject it (None = goes to the verifier)."""
    reasons: list[str | None] = []
    seen: set[str] = set()
    for item in proposed:
        mode = TAXONOMY.get(item["mode"])
        statement = " ".join(item["statement"].lower().split())
        if item["family"] not in FAMILIES:
            reasons.append(f"unknown family {item['family']!r}")
        elif mode is None or mode.family != item["family"]:
            reasons.append(f"mode {item['mode']!r} is not a mode of {item['family']}")
        elif not statement:
            reasons.append("empty statement")
        elif not is_grounded(item["grounding"], task.blueprint):
            reasons.append("grounding span not found verbatim in the scenario or the guidelines")
        elif statement in seen:
            reasons.append("duplicate statement")
        else:
            reasons.append(None)
        seen.add(statement)
    return reasons


def _independent(writer: JudgeSpec | str | dict[str, Any], verifier: JudgeSpec | str | dict[str, Any]) -> tuple[JudgeSpec, JudgeSpec]:
    """The parsed writer and verifier specs; ValueError when they name the same model."""
    writer_spec, verifier_spec = JudgeSpec.parse(writer), JudgeSpec.parse(verifier)
    if (writer_spec.model, writer_spec.base_url) == (verifier_spec.model, verifier_spec.base_url):
        raise ValueError("the verifier must be a different model from the writer")
    return writer_spec, verifier_spec


def generate_rubric(
    task: Task,
    writer: JudgeSpec | str | dict[str, Any],
    verifier: JudgeSpec | str | dict[str, Any],
    sample: list[Message] | None = None,
    version: str = "1",
) -> Rubric:
    """A reviewed rubric of judge criteria for ``task`` (see the module docstring).

    ``writer`` and ``verifier`` must be different models (the review is independent).
    """
    writer_spec, verifier_spec = _independent(writer, verifier)
    conversation = sample if sample is not None else sample_conversation(task)
    proposed = parse_writer_reply(judge_completion(writer_spec, writer_messages(task, conversation)))
    reasons = precheck(task, proposed)
    candidates = [i for i, r in enumerate(reasons) if r is None]
    if candidates:
        reviews = parse_verifier_reply(
            judge_completion(verifier_spec, verifier_messages(task, [proposed[i] for i in candidates])), len(candidates)
        )
        for i, (accept, reason) in zip(candidates, reviews):
            if not accept:
                reasons[i] = f"verifier: {reason}"
    kept: list[Criterion] = []
    rejected: list[dict[str, Any]] = []
    for i, (item, reason) in enumerate(zip(proposed, reasons)):
        if reason is not None:
            rejected.append({**item, "reason": reason})
            continue
        kept.append(Criterion(id=f"generated/{i}-{item['mode']}", family=item["family"], mode=item["mode"],  # type: ignore[arg-type]
                              statement=item["statement"], grounding=item["grounding"], check="judge"))
    return Rubric(task_id=task.id, version=version, generator=f"generate:{writer_spec.model}|verify:{verifier_spec.model}",
                  criteria=kept, rejected=rejected)


class RubricGenerationError(RuntimeError):
    """Some tasks got no rubric; ``failures`` maps their ids to the error (the others were written)."""

    def __init__(self, failures: dict[str, str]):
        super().__init__(f"{len(failures)} task(s) got no rubric: " + "; ".join(f"{k}: {v}" for k, v in failures.items()))
        self.failures = failures


#: What :func:`generate_rubrics` reports per task: the task, the file (written or found),
#: whether it already existed, and the error when the task failed (the file is then None).
Progress = Callable[[Task, "Path | None", bool, "str | None"], None]


def generate_rubrics(
    tasks: Iterable[Task],
    writer: JudgeSpec | str | dict[str, Any],
    verifier: JudgeSpec | str | dict[str, Any],
    root: str | os.PathLike[str],
    version: str = "1",
    progress: Progress | None = None,
) -> list[Path]:
    """Generate and save rubric ``version`` for every task that has no file of that version
    yet; returns the written paths. A task whose generation fails (a malformed reply, a
    provider error) is skipped; once every task was tried, :class:`RubricGenerationError`
    names the failed ones. ``progress`` hears of every task as it is done."""
    writer, verifier = _independent(writer, verifier)  # a bad pair fails every task alike: refuse it at once
    written: list[Path] = []
    failures: dict[str, str] = {}
    for task in tasks:
        path = rubric_path(root, task.source, task.domain, task.id, version)
        if path.exists():
            if progress is not None:
                progress(task, path, True, None)
            continue
        try:
            rubric = generate_rubric(task, writer, verifier, version=version)
        except Exception as exc:  # noqa: BLE001 - a provider outage or a malformed reply fails this task only
            failures[task.id] = f"{type(exc).__name__}: {exc}"
            if progress is not None:
                progress(task, None, False, failures[task.id])
            continue
        written.append(save_rubric(root, task.source, task.domain, rubric))
        if progress is not None:
            progress(task, written[-1], False, None)
    if failures:
        raise RubricGenerationError(failures)
    return written
