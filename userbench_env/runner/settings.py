"""The question a run store answers: the settings that change an episode's outcome.

An episode's key names its proxy spec, agent spec, domain, source, task and trial. Its
outcome also depends on settings the key does not name:

* the run's **question**, shared by every episode of a store: the agent spec and its
  outcome options, the agent-turn budget (``max_turns``), the judge, the rubric root, the
  task source and split;
* the **proxy options** of an LLM proxy spec (temperature, guidelines, max tokens, ...),
  which are part of *which* proxy was measured (a scripted or replay proxy takes none).

Options that only say where and how a model is reached (:data:`CONNECTION_OPTIONS`:
endpoint, key, timeout, retries, backoff, prices) never change an outcome and are not
settings; an option not in that list is.

Every record carries its :class:`RunSettings` under ``settings``. A store answers one
question: :func:`check_append` refuses to add episodes whose question differs from the
stored one, or whose proxy spec is stored with other options (:class:`SettingsMismatch`,
one line). Records written before settings were recorded have none; a store holding such
records is refused as well, since nothing says what they answered. :func:`common_settings`
is the report's side of the same rule: records that answer different questions are never
summarised together.
"""
from __future__ import annotations

import json
from collections import defaultdict
from typing import Any, Iterable, Mapping

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from userbench_env.errors import UserError

#: options that say where and how a model is reached, not what it does
CONNECTION_OPTIONS = frozenset({
    "base_url", "api_key", "api_key_env", "timeout", "max_retries", "backoff", "max_backoff", "price_override",
})
#: what a record without settings (written before settings were recorded) is shown as
UNRECORDED = "unrecorded"


class SettingsMismatch(UserError, ValueError):
    """Episodes answering another question than the store's (or the report's other records)."""


def outcome_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` without the :data:`CONNECTION_OPTIONS`, as JSON values (sorted keys)."""
    kept = {key: value for key, value in options.items() if key not in CONNECTION_OPTIONS}
    return json.loads(json.dumps(kept, sort_keys=True, default=str))


class RunSettings(BaseModel):
    """The settings of one episode besides its key (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    agent: str
    agent_options: dict[str, Any] = Field(default_factory=dict)
    max_turns: int
    judge: str | None = None
    rubrics: str | None = None
    source: str
    split: str | None = None
    proxy_options: dict[str, Any] = Field(default_factory=dict)

    def question(self) -> dict[str, Any]:
        """The settings every episode of a store shares (all but ``proxy_options``)."""
        return self.model_dump(exclude={"proxy_options"})


#: how :func:`differences` names the two sides: a store against a new run, or two groups of records
STORE_VS_RUN = ("there", "now")
SOME_VS_OTHERS = ("in some records", "in others")


def differences(first: Mapping[str, Any], second: Mapping[str, Any], sides: tuple[str, str] = STORE_VS_RUN,
                prefix: str = "") -> list[str]:
    """``"<prefix><field> <first> <side 1>, <second> <side 2>"`` for each field whose values differ."""
    return [f"{prefix}{name} {show_value(first.get(name))} {sides[0]}, {show_value(second.get(name))} {sides[1]}"
            for name in sorted(set(first) | set(second)) if first.get(name) != second.get(name)]


def show_value(value: Any) -> str:
    """A setting's value as text: ``-`` for none, JSON for a mapping or list."""
    return "-" if value is None else json.dumps(value, sort_keys=True) if isinstance(value, (dict, list)) else str(value)


def recorded(record: Mapping[str, Any]) -> RunSettings | None:
    """The settings a record carries, or ``None`` for a record written before settings were
    recorded (or whose ``settings`` is not a valid :class:`RunSettings`)."""
    settings = record.get("settings")
    if not isinstance(settings, Mapping):
        return None
    try:
        return RunSettings.model_validate(settings)
    except ValidationError:  # a malformed field reads as none recorded
        return None


def check_append(path: str, stored: Iterable[Mapping[str, Any]], planned: Mapping[str, RunSettings]) -> None:
    """Refuse (:class:`SettingsMismatch`) to append episodes with ``planned`` settings (by proxy spec)
    to a store holding ``stored`` records that answer another question (see the module docstring)."""
    if not planned:
        return
    question = next(iter(planned.values())).question()
    for record in stored:
        settings = recorded(record)
        if settings is None:
            raise SettingsMismatch(f"{path} holds episodes written before run stores recorded their settings, so "
                                   "nothing says whether they answer this run's question: write to another --out")
        found = differences(settings.question(), question)
        new = planned.get(str(record.get("proxy", "")))
        if new is not None:
            found += differences(settings.proxy_options, new.proxy_options, prefix="proxy option ")
        if found:
            raise SettingsMismatch(f"{path} holds episodes run with other settings ({'; '.join(found)}): write these "
                                   "to another --out, or repeat the store's settings to resume it")


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def common_settings(records: Iterable[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The question the records share and each proxy's options:
    ``{"question": {...}, "proxy_options": {proxy: {...}}}``, or ``None`` when no record carries
    settings. Raises :class:`SettingsMismatch` naming the first difference when they answer
    different questions, or one proxy appears with different options (see the module docstring)."""
    questions: dict[str, dict[str, Any] | None] = {}
    options: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    unrecorded = 0
    for record in records:
        settings = recorded(record)
        question = settings.question() if settings is not None else None
        questions.setdefault(_canonical(question), question)
        unrecorded += settings is None
        if settings is not None:
            options[str(record.get("proxy", ""))].setdefault(_canonical(settings.proxy_options), settings.proxy_options)
    if len(questions) > 1:
        first, second = list(questions.values())[:2]
        if first is None or second is None:
            found = [f"settings {UNRECORDED} in {unrecorded} records"]
        else:
            found = differences(first, second, SOME_VS_OTHERS)
        raise SettingsMismatch(f"the records answer different questions ({'; '.join(found)}): report the stores of "
                               "each question separately")
    for proxy, seen in options.items():
        if len(seen) > 1:
            first, second = list(seen.values())[:2]
            found = differences(first, second, SOME_VS_OTHERS, prefix=f"{proxy} option ")
            raise SettingsMismatch(f"the records measure one proxy with different options ({'; '.join(found)}): "
                                   "report the stores of each setting separately")
    question = next(iter(questions.values()), None)
    if question is None:
        return None
    return {"question": question, "proxy_options": {proxy: next(iter(seen.values())) for proxy, seen in options.items()}}
