"""The natural-language fidelity corpus: hand-written, labelled user scripts and their scoring.

Format (the repository's ``tests/fidelity_corpus/`` and any hidden evaluation set use it):
a directory of ``*.jsonl`` files (or one such file), one case per line, blank lines
ignored::

    {"id": "airline-0001", "writer": "house", "domain": "airline", "source": "tau2",
     "split": "base", "task_id": "12", "turns": [{"text": "hi, I need to ..."},
                                {"tool_call": {"name": "toggle_data", "arguments": {}}}],
     "expect": [{"mode": "volunteers_unasked_info", "turn": 0}], "note": "what it tests"}

* ``writer``: who wrote the script (a short name). Validity is reported per writer, so a
  rule tuned on one writer's style is seen failing on another's (leave one writer out).
  ``house`` marks the cases written alongside the rules by the sessions that tuned them.
* ``domain``: ``airline``, ``retail``, ``telecom`` or ``banking``; ``source``: ``tau2`` or
  ``bundled``; ``split`` (optional): the task split, default the source's default split;
  ``task_id``: the task the script is written for.
* ``turns``: the user's turns, replayed in order by
  :class:`~userbench_env.proxies.replay.ReplayUserProxy` against the
  :class:`~userbench_env.agents.scripted.ScriptedAgent` (whose messages are fixed per task:
  it reads neither observations nor info) in ``gym.make("UserBench/<Domain>-v0",
  task_source=source, split=split, user_proxy=...)`` reset with
  ``options={"task_id": task_id}``. Each entry is ``{"text": str}`` or
  ``{"tool_call": {"name": str, "arguments": {...}}}``; the env asks the user once per
  agent text message (the greeting first) and keeps asking while the user calls tools.
* ``expect``: the violations the script holds, each ``{"mode": <taxonomy mode>, "turn":
  <0-based index into turns of the entry that shows it>}``; ``[]`` marks a clean case.
* ``note``: one line saying what the case tests.

Ids are unique across the corpus; an unknown key, mode or domain, a label pointing past
the turns, bad JSON or a duplicate id is a :class:`CorpusError` naming ``file:line``.

Scoring (:func:`score_corpus`): each case is replayed (:func:`replay_case`). A labelled
violation is *detected* when a rule logged a violation of a criterion of that mode at the
env turn at which the labelled entry was replayed; a violation of another mode logged at
that turn (and not itself labelled there) is a *wrong-mode detection*. A clean case with
any logged violation is a *false alarm*. A script that does not fit its episode (the
turns run out, turns are left over when the episode ends, the task or env cannot be
built) is a *replay error*: reported, never counted as a detection or a miss. A script
whose turns run out after a text with no end token (its writer left the request open at
the close) is cut off there: scored on what it said, with termination ``cut_off``. Recall and
the false-alarm rate carry a 95% Wilson interval. With a judge, labelled judge-only modes
are graded by asking the judge the mode's criterion on the replayed conversation.
"""
from __future__ import annotations

import json
import math
from collections import defaultdict
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from userbench_env.datapaths import Tau2DataNotFound
from userbench_env.fidelity.taxonomy import TAXONOMY
from userbench_env.proxies.base import UserTurn, UserView
from userbench_env.proxies.replay import ReplayUserProxy

Domain = Literal["airline", "retail", "telecom", "banking"]

#: The z value of a two-sided 95% interval.
Z95 = 1.959963984540054


class CorpusError(ValueError):
    """A corpus file or line that cannot be loaded (the message names ``file:line``)."""


class CorpusToolCall(BaseModel):
    """A user tool call of a script: tool name and JSON arguments."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    arguments: dict[str, Any] = Field(default_factory=dict)


class CorpusTurn(BaseModel):
    """One user turn of a script: text or one tool call (exactly one of them)."""

    model_config = ConfigDict(extra="forbid")

    text: str | None = None
    tool_call: CorpusToolCall | None = None

    @model_validator(mode="after")
    def _one_of(self) -> "CorpusTurn":
        if (self.text is None) == (self.tool_call is None):
            raise ValueError("a turn is either {'text': ...} or {'tool_call': {...}}")
        if self.text is not None and not self.text.strip():
            raise ValueError("a text turn must not be empty")
        return self

    def replay(self) -> dict[str, Any]:
        """The turn as :class:`ReplayUserProxy` reads it."""
        return self.model_dump(exclude_none=True)


class Expectation(BaseModel):
    """A labelled violation: its taxonomy mode and the index of the turn that shows it."""

    model_config = ConfigDict(extra="forbid")

    mode: str
    turn: int = Field(ge=0)

    @field_validator("mode")
    @classmethod
    def _known_mode(cls, mode: str) -> str:
        if mode not in TAXONOMY:
            raise ValueError(f"unknown mode {mode!r}; known: {', '.join(TAXONOMY)}")
        return mode


class CorpusCase(BaseModel):
    """One labelled user script (see the module docstring). ``origin`` (``file:line``) is
    set by the loader, not read from the file."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    writer: str = Field(min_length=1)
    domain: Domain
    source: Literal["tau2", "bundled"]
    split: str | None = None
    task_id: str = Field(min_length=1)
    turns: list[CorpusTurn] = Field(min_length=1)
    expect: list[Expectation] = Field(default_factory=list)
    note: str = ""
    origin: str = Field(default="", exclude=True)

    @field_validator("task_id", mode="before")
    @classmethod
    def _task_id_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int) else value

    @model_validator(mode="after")
    def _labels_in_range(self) -> "CorpusCase":
        for label in self.expect:
            if label.turn >= len(self.turns):
                raise ValueError(f"expect turn {label.turn} is past the last turn ({len(self.turns) - 1})")
        return self

    @property
    def clean(self) -> bool:
        """True when the script holds no labelled violation."""
        return not self.expect


def _files(path: Path) -> list[Path]:
    if path.is_dir():
        found = sorted(path.glob("*.jsonl"))
        if not found:
            raise CorpusError(f"{path}: no *.jsonl corpus files")
        return found
    if path.is_file():
        return [path]
    raise CorpusError(f"{path}: no such corpus file or directory")


def _why(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'case'}: {e['msg']}" for e in exc.errors())


def load_corpus(path: str | Path) -> list[CorpusCase]:
    """The cases of a corpus file or directory (its ``*.jsonl`` files, sorted), in order.

    ``CorpusError`` naming ``file:line`` for bad JSON, a line that is not a valid case
    (unknown key, mode or domain, a label past the turns, ...) or an id seen before.
    """
    cases: list[CorpusCase] = []
    seen: dict[str, str] = {}
    for file in _files(Path(path)):
        for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            where = f"{file}:{number}"
            try:
                raw = json.loads(line)
            except json.JSONDecodeError as exc:
                raise CorpusError(f"{where}: not JSON: {exc.msg} (column {exc.colno})") from None
            if not isinstance(raw, dict):
                raise CorpusError(f"{where}: a case is a JSON object, got {type(raw).__name__}")
            if "origin" in raw:
                raise CorpusError(f"{where}: 'origin' is set by the loader, not written in the file")
            try:
                case = CorpusCase.model_validate(raw)
            except ValidationError as exc:
                raise CorpusError(f"{where}: {_why(exc)}") from None
            if case.id in seen:
                raise CorpusError(f"{where}: duplicate id {case.id!r} (first at {seen[case.id]})")
            seen[case.id] = where
            cases.append(case.model_copy(update={"origin": where}))
    return cases


class _TracingReplay(ReplayUserProxy):
    """A replay proxy that records the env turn at which each entry was replayed."""

    def __init__(self, turns: list[dict[str, Any]]) -> None:
        super().__init__(turns)
        self.replayed_at: list[int] = []

    def respond(self, view: UserView) -> UserTurn:
        turn = super().respond(view)
        self.replayed_at.append(view.turn)
        return turn

    def cut_off(self, turns: list[CorpusTurn]) -> bool:
        """True when every scripted entry was replayed and the last one is a text: the
        conversation ends there, without an end token."""
        return len(self.replayed_at) == len(turns) and bool(turns) and turns[-1].text is not None


class CaseResult(BaseModel):
    """What one replay gave: the env turn of each replayed entry, the logged violations
    (``{"mode", "turn"}``, env turns), the env's final step reward (the task reward, or
    the reward without NL assertions when those are left to a judge) and termination, or
    a replay error."""

    id: str
    replayed_at: list[int] = Field(default_factory=list)
    events: list[dict[str, Any]] = Field(default_factory=list)
    reward: float | None = None
    termination: str | None = None
    error: str | None = None
    judged: dict[str, bool] = Field(default_factory=dict)

    def modes_at(self, entry: int) -> set[str]:
        """Modes of the violations logged at the env turn at which ``entry`` was replayed."""
        if entry >= len(self.replayed_at):
            return set()
        turn = self.replayed_at[entry]
        return {e["mode"] for e in self.events if e["turn"] == turn}

    def entries_at(self, env_turn: int) -> list[int]:
        """Indices of the entries replayed at ``env_turn``."""
        return [i for i, t in enumerate(self.replayed_at) if t == env_turn]


_ENVS: dict[tuple[str, str, str | None], Any] = {}


def _env(case: CorpusCase) -> Any:
    """The (cached) gym env of the case's domain, source and split."""
    import gymnasium as gym

    from userbench_env.registration import register_envs

    key = (case.domain, case.source, case.split)
    if key not in _ENVS:
        register_envs()
        options: dict[str, Any] = {"task_source": case.source}
        if case.split is not None:
            options["split"] = case.split
        _ENVS[key] = gym.make(f"UserBench/{case.domain.capitalize()}-v0", **options)
    return _ENVS[key]


def replay_case(case: CorpusCase, judge: Any = None) -> CaseResult:
    """Replay ``case`` against the scripted agent (see the module docstring).

    A script that does not fit comes back with ``error`` set; missing tau2 data for a tau2
    case raises :class:`~userbench_env.datapaths.Tau2DataNotFound`. With ``judge`` (a
    :class:`~userbench_env.fidelity.judge.FidelityJudge`), each labelled judge-only mode is
    graded on the conversation (``judged[mode]``: the judge found it).
    """
    from userbench_env.agents.scripted import ScriptedAgent
    from userbench_env.fidelity.validate import judge_fails

    proxy = _TracingReplay([t.replay() for t in case.turns])
    try:
        env = _env(case)
        core = env.unwrapped
        core.user_proxy = proxy  # one cached env per (domain, source, split); each case brings its own script
        agent = ScriptedAgent()
        observation, info = env.reset(options={"task_id": case.task_id})
        agent.reset(core.task)
        reward = 0.0
        while "episode_record" not in info:
            if proxy.cut_off(case.turns):
                return CaseResult(id=case.id, replayed_at=proxy.replayed_at, events=core.tracker.events(),
                                  reward=0.0, termination="cut_off")
            observation, reward, _, _, info = env.step(agent.act(observation, info))
    except Tau2DataNotFound:
        raise  # the setup's problem, not the case's: one error for the whole run, saying where the data is
    except Exception as exc:  # an unknown task or split, a script the env rejects
        return CaseResult(id=case.id, replayed_at=proxy.replayed_at, error=f"{type(exc).__name__}: {exc}")
    episode = info["episode_record"]
    result = CaseResult(id=case.id, replayed_at=proxy.replayed_at, events=core.tracker.events(),
                        reward=float(reward), termination=episode.get("termination"), error=episode.get("error"))
    left = len(case.turns) - len(proxy.replayed_at)
    if result.error is None and left:
        result.error = f"the episode ended ({result.termination}) with {left} scripted turn(s) left unreplayed"
    if judge is not None and result.error is None:
        for label in case.expect:
            if TAXONOMY[label.mode].coverage == "judge":
                result.judged[label.mode] = judge_fails(judge, label.mode, core)
    return result


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of a proportion (None when there are no trials)."""
    if trials <= 0:
        return None
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def _text(case: CorpusCase, entry: int) -> str:
    turn = case.turns[entry]
    return turn.text if turn.text is not None else f"<tool call {turn.tool_call.name if turn.tool_call else ''}>"


class _WriterTally:
    """One writer's cases in :func:`score_corpus`: false alarms on their clean scripts and
    detections of their labelled violations, per mode."""

    def __init__(self) -> None:
        self.cases = self.clean = self.flagged = 0
        self.modes: dict[str, list[int]] = defaultdict(lambda: [0, 0])

    def label(self, mode: str, found: bool) -> None:
        self.modes[mode][0] += 1
        self.modes[mode][1] += found

    def report(self) -> dict[str, Any]:
        labels = sum(cases for cases, _ in self.modes.values())
        detected = sum(hits for _, hits in self.modes.values())
        return {"cases": self.cases, "clean_episodes": self.clean, "false_alarm_episodes": self.flagged,
                "false_alarm_rate": self.flagged / self.clean if self.clean else None,
                "labels": labels, "detected": detected, "recall": detected / labels if labels else None,
                "modes": {mode: {"cases": cases, "detected": hits} for mode, (cases, hits) in sorted(self.modes.items())}}


def score_corpus(cases: list[CorpusCase], judge: Any = None) -> dict[str, Any]:
    """Replay every case and score the rules (and the judge, when given) on them.

    Returns ``{"cases", "clean_episodes", "false_alarm_episodes", "false_alarm_rate",
    "false_alarm_ci", "false_alarms": [{"id", "mode", "turn", "text"}], "modes": {mode:
    {"coverage", "cases", "detected", "recall", "ci", "wrong_mode", "wrong_modes": [{"id", "turn",
    "text", "logged"}], "false_alarms", "false_alarm_rate", "misses": [{"id", "turn", "text",
    "logged"}]}}, "replay_errors":
    [{"id", "origin", "error"}], "clean_reward_failures": [{"id", "reward"}],
    "by_domain": {domain: {"cases", "clean", "violations"}}, "by_writer": {writer: {"cases",
    "clean_episodes", "false_alarm_episodes", "false_alarm_rate", "labels", "detected",
    "recall", "modes": {mode: {"cases", "detected"}}}}}``. ``cases`` counts the cases scored
    (a case with a replay error is listed, not counted). ``detected``/``recall`` are
    None for a judge-only mode without a judge; recall is None for a mode with no case.
    Raises :class:`~userbench_env.datapaths.Tau2DataNotFound` when tau2 cases lack their data.
    """
    from userbench_env.fidelity.grading import judge_for

    grader = judge_for(judge) if judge is not None else None
    modes: dict[str, dict[str, Any]] = defaultdict(lambda: {"cases": 0, "detected": 0, "wrong_mode": 0, "misses": [], "wrong_modes": [],
                                                            "false_alarms": 0})
    errors: list[dict[str, Any]] = []
    false_alarms: list[dict[str, Any]] = []
    reward_failures: list[dict[str, Any]] = []
    by_domain: dict[str, dict[str, int]] = defaultdict(lambda: {"cases": 0, "clean": 0, "violations": 0})
    by_writer: dict[str, _WriterTally] = defaultdict(_WriterTally)
    clean = flagged = 0
    for case in cases:
        result = replay_case(case, grader)
        if result.error is not None:
            errors.append({"id": case.id, "origin": case.origin, "error": result.error})
            continue
        counts = by_domain[case.domain]
        counts["cases"] += 1
        writer = by_writer[case.writer]
        writer.cases += 1
        if case.clean:
            counts["clean"] += 1
            clean += 1
            flagged += bool(result.events)
            writer.clean += 1
            writer.flagged += bool(result.events)
            for mode in sorted({e["mode"] for e in result.events}):
                modes[mode]["false_alarms"] += 1
            for event in result.events:
                entries = result.entries_at(event["turn"]) or [len(case.turns) - 1]
                false_alarms.append({"id": case.id, "mode": event["mode"], "turn": entries[-1],
                                     "text": _text(case, entries[-1])})
            if result.reward != 1.0:
                reward_failures.append({"id": case.id, "reward": result.reward, "termination": result.termination})
            continue
        counts["violations"] += len(case.expect)
        labelled = {(label.turn, label.mode) for label in case.expect}
        for label in case.expect:
            row = modes[label.mode]
            row["cases"] += 1
            logged = result.modes_at(label.turn)
            if TAXONOMY[label.mode].coverage == "judge" and label.mode not in logged:
                found = result.judged.get(label.mode) if grader is not None else None
            else:
                found = label.mode in logged
            writer.label(label.mode, bool(found))
            if found:
                row["detected"] += 1
            elif found is False:
                row["misses"].append({"id": case.id, "turn": label.turn, "text": _text(case, label.turn),
                                      "logged": sorted(logged)})
            others = sorted(other for other in logged if other != label.mode and (label.turn, other) not in labelled)
            if others:
                row["wrong_mode"] += 1
                row["wrong_modes"].append({"id": case.id, "turn": label.turn, "text": _text(case, label.turn), "logged": others})
    table: dict[str, Any] = {}
    for mode in [m for m in TAXONOMY if m in modes]:
        row = modes[mode]
        measured = TAXONOMY[mode].coverage == "rule" or grader is not None or row["detected"] > 0
        recall = row["detected"] / row["cases"] if row["cases"] and measured else None
        table[mode] = {
            "coverage": TAXONOMY[mode].coverage,
            "cases": row["cases"],
            "detected": row["detected"] if measured else None,
            "recall": recall,
            "ci": wilson(row["detected"], row["cases"]) if recall is not None else None,
            "wrong_mode": row["wrong_mode"],
            "wrong_modes": row["wrong_modes"],
            "false_alarms": row["false_alarms"],
            "false_alarm_rate": row["false_alarms"] / clean if clean else None,
            "misses": row["misses"],
        }
    return {
        "cases": len(cases) - len(errors),
        "clean_episodes": clean,
        "false_alarm_episodes": flagged,
        "false_alarm_rate": flagged / clean if clean else None,
        "false_alarm_ci": wilson(flagged, clean),
        "false_alarms": false_alarms,
        "modes": table,
        "replay_errors": errors,
        "clean_reward_failures": reward_failures,
        "by_domain": dict(by_domain),
        "by_writer": {name: tally.report() for name, tally in sorted(by_writer.items())},
        "judge": getattr(getattr(grader, "spec", None), "model", None),
    }


def default_corpus_dir() -> Path:
    """The repository's ``tests/fidelity_corpus`` (``CorpusError`` when this install has none)."""
    here = Path(__file__).resolve().parents[2] / "tests" / "fidelity_corpus"
    if not here.is_dir():
        raise CorpusError(f"no corpus directory given and none at {here} (the corpus ships with the repository, "
                          "not the package): pass --corpus DIR")
    return here


__all__ = ["CaseResult", "CorpusCase", "CorpusError", "CorpusTurn", "Expectation", "default_corpus_dir", "load_corpus",
           "replay_case", "score_corpus", "wilson"]
