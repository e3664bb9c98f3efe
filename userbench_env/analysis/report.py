"""The UserProxyBench numbers of a set of run records, as a JSON-able dict.

Definitions (records with ``error`` set are infrastructure errors: they count only in
``errors`` and are excluded from every rate):

* **cell** = (proxy, domain). Cell R_tau = mean reward over the episodes that score the
  agent (a user failure records no reward: it counts in UFS, not in R_tau); cell UFS = share of episodes
  passing among those with a verdict (``ufs_pass`` not None), ``n_ufs`` of them.
* **settings**: the question every record answers and each proxy's options
  (:func:`~userbench_env.runner.settings.common_settings`); records answering different
  questions are refused, never mixed.
* **per proxy**: R_tau and UFS are unweighted means over the proxy's domains (domains
  without a UFS verdict are left out of the UFS mean); cost per simulation and prompt /
  completion tokens are means per episode; the cost is ``None`` with ``priced`` false
  when any episode called a model with no known price (unpriced is unknown, not $0);
  ``success_fail_ufs`` is the share of agent-successful episodes (reward 1) with a
  verdict that fail UFS.
* **families**: frequency = share of a proxy's episodes with a verdict in which the
  family has at least one failed criterion. Effect on the agent's pass rate, per cell
  with at least ``min_side`` (5) judged episodes with the family failing and 5
  without: pass rate present minus pass rate absent; ``effect`` is the unweighted mean
  over eligible cells (None when no cell is eligible).
* **effort**: among successful episodes, per proxy, mean turns, agent tool calls and
  agent questions with and without a premature-disclosure failure.
* **correlation**: on tasks (domain, source, task id) every proxy completed without
  error, each proxy's mean turns, UFS and R_tau over those tasks' episodes; Pearson's r
  across proxies of turns with UFS and of turns with R_tau (None with fewer than three
  proxies or a constant side).
"""
from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any, Callable, Iterable

from userbench_env.analysis.stats import mean, pearson
from userbench_env.runner.record import is_success, user_cost
from userbench_env.runner.settings import common_settings

DISCLOSURE = "premature_disclosure"
MIN_SIDE = 5

Record = dict[str, Any]


def _group(records: Iterable[Record], key: Callable[[Record], Any]) -> dict[Any, list[Record]]:
    groups: dict[Any, list[Record]] = defaultdict(list)
    for record in records:
        groups[key(record)].append(record)
    return dict(groups)


def ok_records(records: Iterable[Record]) -> list[Record]:
    """Records that did not end in an infrastructure error."""
    return [r for r in records if not r.get("error")]


def judged(records: Iterable[Record]) -> list[Record]:
    """Records with a UFS verdict."""
    return [r for r in records if r.get("ufs_pass") is not None]


def ufs_rate(records: Iterable[Record]) -> float | None:
    """Share of judged records passing UFS (None when none is judged)."""
    return mean(bool(r["ufs_pass"]) for r in judged(records))


def family_failed(record: Record, family: str) -> bool:
    """True when ``family`` has at least one failed criterion in ``record``."""
    return bool((record.get("failures_per_family") or {}).get(family))


def cell_rates(records: list[Record]) -> dict[str, Any]:
    """n, R_tau, UFS and n_ufs of one group of non-errored records."""
    return {"n": len(records), "r_tau": mean(r.get("reward") for r in records),
            "ufs": ufs_rate(records), "n_ufs": len(judged(records))}


def proxy_rows(ok: list[Record], everything: list[Record]) -> list[dict[str, Any]]:
    """Per-proxy headline numbers (see the module docstring)."""
    rows = []
    errors = Counter(r.get("proxy", "") for r in everything if r.get("error"))
    for proxy, recs in _group(ok, lambda r: r.get("proxy", "")).items():
        domains = [cell_rates(d) for d in _group(recs, lambda r: r.get("domain", "")).values()]
        successes = judged(r for r in recs if is_success(r))
        hosting = Counter(r.get("hosting", "local") for r in recs).most_common(1)[0][0]
        costs = [user_cost(r) for r in recs]
        priced = None not in costs
        rows.append({
            "proxy": proxy,
            "hosting": hosting,
            "n": len(recs),
            "errors": errors.get(proxy, 0),
            "cost_per_sim": mean(costs) if priced else None,
            "priced": priced,
            "r_tau": mean(d["r_tau"] for d in domains),
            "ufs": mean(d["ufs"] for d in domains),
            "prompt_tokens": mean(r.get("user_prompt_tokens") or 0 for r in recs),
            "completion_tokens": mean(r.get("user_completion_tokens") or 0 for r in recs),
            "success_fail_ufs": mean(r["ufs_pass"] is False for r in successes),
            "n_success_judged": len(successes),
        })
    for proxy in sorted(set(errors) - {row["proxy"] for row in rows}):
        rows.append({"proxy": proxy, "hosting": None, "n": 0, "errors": errors[proxy], "cost_per_sim": None, "priced": None,
                     "r_tau": None, "ufs": None, "prompt_tokens": None, "completion_tokens": None,
                     "success_fail_ufs": None, "n_success_judged": 0})
    return rows


def domain_rows(ok: list[Record]) -> list[dict[str, Any]]:
    """Per (proxy, domain) R_tau and UFS with n."""
    cells = _group(ok, lambda r: (r.get("proxy", ""), r.get("domain", "")))
    return [{"proxy": p, "domain": d, **cell_rates(recs)} for (p, d), recs in cells.items()]


def families_of(records: Iterable[Record]) -> list[str]:
    """Every family named by a criterion or a failure count, sorted."""
    found: set[str] = set()
    for r in records:
        found.update(c.get("family") for c in r.get("criteria") or [] if c.get("family"))
        found.update(r.get("failures_per_family") or {})
    return sorted(found)


def family_rows(ok: list[Record], min_side: int = MIN_SIDE) -> list[dict[str, Any]]:
    """Per family: frequency per proxy, eligible cells with the pass-rate effect, mean effect."""
    rows = []
    by_proxy = _group(judged(ok), lambda r: r.get("proxy", ""))
    cells = _group(judged(ok), lambda r: (r.get("proxy", ""), r.get("domain", "")))
    for family in families_of(ok):
        frequency = {p: mean(family_failed(r, family) for r in recs) for p, recs in by_proxy.items()}
        effects = []
        for (proxy, domain), recs in cells.items():
            present = [r for r in recs if family_failed(r, family)]
            absent = [r for r in recs if not family_failed(r, family)]
            if len(present) >= min_side and len(absent) >= min_side:
                pass_present = mean(is_success(r) for r in present)
                pass_absent = mean(is_success(r) for r in absent)
                effects.append({"proxy": proxy, "domain": domain, "n_present": len(present), "n_absent": len(absent),
                                "pass_present": pass_present, "pass_absent": pass_absent,
                                "effect": pass_present - pass_absent})  # type: ignore[operator]
        rows.append({"family": family, "frequency": frequency, "cells": effects,
                     "effect": mean(e["effect"] for e in effects)})
    return rows


def effort_rows(ok: list[Record]) -> list[dict[str, Any]]:
    """Per proxy, successful episodes split by premature disclosure: n and mean effort."""
    rows = []
    for proxy, recs in _group([r for r in ok if is_success(r)], lambda r: r.get("proxy", "")).items():
        for disclosed in (True, False):
            part = [r for r in recs if family_failed(r, DISCLOSURE) == disclosed]
            rows.append({"proxy": proxy, "premature_disclosure": disclosed, "n": len(part),
                         "turns": mean(r.get("turns", 0) for r in part),
                         "tool_calls": mean(r.get("agent_tool_calls", 0) for r in part),
                         "questions": mean(r.get("agent_questions", 0) for r in part)})
    return rows


def task_of(record: Record) -> tuple[str, str, str]:
    """The task a record ran: (domain, source, task id)."""
    return (record.get("domain", ""), record.get("source", ""), record.get("task_id", ""))


def correlation(ok: list[Record]) -> dict[str, Any]:
    """Cross-proxy correlation of mean turns with UFS and R_tau on commonly completed tasks."""
    by_proxy = _group(ok, lambda r: r.get("proxy", ""))
    common: set[tuple[str, str, str]] | None = None
    for recs in by_proxy.values():
        tasks = {task_of(r) for r in recs}
        common = tasks if common is None else common & tasks
    common = common or set()
    proxies = []
    for proxy, recs in by_proxy.items():
        kept = [r for r in recs if task_of(r) in common]
        proxies.append({"proxy": proxy, "n": len(kept), "turns": mean(r.get("turns", 0) for r in kept),
                        "ufs": ufs_rate(kept), "r_tau": mean(r.get("reward") for r in kept)})
    turns = [p["turns"] for p in proxies]
    return {"tasks": len(common), "proxies": proxies,
            "turns_vs_ufs": pearson(turns, [p["ufs"] for p in proxies]),
            "turns_vs_r_tau": pearson(turns, [p["r_tau"] for p in proxies])}


def error_rows(records: Iterable[Record]) -> list[dict[str, Any]]:
    """Infrastructure errors per (proxy, domain), with their messages counted."""
    errored = [r for r in records if r.get("error")]
    rows = []
    for (proxy, domain), recs in _group(errored, lambda r: (r.get("proxy", ""), r.get("domain", ""))).items():
        messages = Counter(str(r["error"]).splitlines()[0][:160] for r in recs)
        rows.append({"proxy": proxy, "domain": domain, "n": len(recs), "messages": dict(messages.most_common())})
    return rows


def build_report(records: list[Record], min_side: int = MIN_SIDE) -> dict[str, Any]:
    """Every report section (see the module docstring) from run records."""
    settings = common_settings(records)
    ok = ok_records(records)
    return {
        "settings": settings,
        "episodes": len(records),
        "errors_total": len(records) - len(ok),
        "proxies": proxy_rows(ok, records),
        "domains": domain_rows(ok),
        "families": family_rows(ok, min_side),
        "effort": effort_rows(ok),
        "correlation": correlation(ok),
        "errors": error_rows(records),
    }


def summary(records: list[Record]) -> dict[str, Any]:
    """The short form printed by ``userbench eval``: per-proxy and per-task-set rates."""
    ok = ok_records(records)
    return {"proxies": proxy_rows(ok, records), "domains": domain_rows(ok), "errors": error_rows(records)}
