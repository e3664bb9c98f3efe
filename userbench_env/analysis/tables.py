"""Terminal text tables of a report (see :mod:`userbench_env.analysis.report`)."""
from __future__ import annotations

import math
from typing import Any, Sequence


def money(value: float | None, digits: int = 3) -> str:
    """Dollars with ``digits`` significant digits in plain notation, so a small cost never
    prints as zero (``0.000099`` -> ``0.0000990``), and at least cents; ``-`` for None."""
    if value is None:
        return "-"
    if value == 0:
        return "0"
    return f"{value:.{max(digits - 1 - math.floor(math.log10(abs(value))), 2)}f}"


#: what a table shows for a cost that is not known (a model with no price): never $0
UNPRICED = "unpriced"


def cost_cell(cost: float | None, priced: bool | None = True) -> str:
    """A cost column's cell: :data:`UNPRICED` when the cost is not known, else :func:`money`."""
    return UNPRICED if priced is False else money(cost)


def fmt(value: Any, digits: int = 3) -> str:
    """A cell: ``-`` for None, fixed decimals for floats, ``str`` otherwise."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def format_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], title: str | None = None) -> str:
    """Left-aligned columns separated by two spaces, with a rule under the headers."""
    cells = [[fmt(v) for v in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(headers)]
    lines = [title] if title else []
    lines.append("  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip())
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
    return "\n".join(lines)


def _errors_by_cell(report: dict[str, Any]) -> dict[tuple[str, str], int]:
    return {(e["proxy"], e["domain"]): e["n"] for e in report["errors"]}


def summary_table(records: list[dict[str, Any]]) -> str:
    """Per proxy and task set (domain): n, R_tau, UFS (n judged), errors, mean cost."""
    from userbench_env.analysis.report import summary

    report = summary(records)
    errors = _errors_by_cell(report)
    rows = [[d["proxy"], d["domain"], d["n"], d["r_tau"], d["ufs"], d["n_ufs"], errors.pop((d["proxy"], d["domain"]), 0)]
            for d in report["domains"]]
    rows += [[p, d, 0, None, None, 0, n] for (p, d), n in errors.items()]
    table = format_table(["proxy", "task set", "n", "R_tau", "UFS", "n_ufs", "errors"], rows, "Per task set")
    head = [[p["proxy"], p["r_tau"], p["ufs"], cost_cell(p["cost_per_sim"], p["priced"]), p["errors"]]
            for p in report["proxies"]]
    return table + "\n\n" + format_table(["proxy", "R_tau", "UFS", "cost/sim $", "errors"], head,
                                         "Per proxy (unweighted means over task sets)")


def settings_text(settings: dict[str, Any]) -> str:
    """The settings every record answers, and each proxy's options (see the report's ``settings``)."""
    from userbench_env.runner.settings import show_value

    question = ", ".join(f"{name} {show_value(value)}" for name, value in settings["question"].items())
    lines = [f"Settings: {question}"]
    lines += [f"  {proxy} options: {show_value(options)}" for proxy, options in settings["proxy_options"].items() if options]
    return "\n".join(lines)


def report_text(report: dict[str, Any]) -> str:
    """Every report section as text tables (the settings first, when the records carry them)."""
    parts = [settings_text(report["settings"])] if report.get("settings") else []
    parts.append(format_table(
        ["proxy", "hosting", "n", "errors", "cost/sim $", "R_tau", "UFS", "prompt tok", "compl tok", "succ&UFS-fail"],
        [[p["proxy"], p["hosting"], p["n"], p["errors"], cost_cell(p["cost_per_sim"], p["priced"]), p["r_tau"], p["ufs"],
          fmt(p["prompt_tokens"], 1), fmt(p["completion_tokens"], 1), p["success_fail_ufs"]] for p in report["proxies"]],
        f"Proxies ({report['episodes']} episodes, {report['errors_total']} infrastructure errors excluded from rates)",
    ))
    parts.append(format_table(["proxy", "domain", "n", "R_tau", "UFS", "n_ufs"],
                              [[d["proxy"], d["domain"], d["n"], d["r_tau"], d["ufs"], d["n_ufs"]] for d in report["domains"]],
                              "Per domain"))
    proxies = [p["proxy"] for p in report["proxies"]]
    parts.append(format_table(["family", *[f"freq {p}" for p in proxies], "eligible cells", "effect on pass rate"],
                              [[f["family"], *[f["frequency"].get(p) for p in proxies], len(f["cells"]), f["effect"]]
                               for f in report["families"]],
                              "Failure families (effect = pass rate present - absent, cells with >= 5 per side)"))
    parts.append(format_table(["proxy", "premature disclosure", "n", "turns", "tool calls", "questions"],
                              [[e["proxy"], e["premature_disclosure"], e["n"], e["turns"], e["tool_calls"], e["questions"]]
                               for e in report["effort"]],
                              "Agent effort among successful episodes"))
    corr = report["correlation"]
    parts.append(format_table(["proxy", "n", "turns", "UFS", "R_tau"],
                              [[c["proxy"], c["n"], c["turns"], c["ufs"], c["r_tau"]] for c in corr["proxies"]],
                              f"Across proxies on {corr['tasks']} tasks all completed: r(turns, UFS) = "
                              f"{fmt(corr['turns_vs_ufs'])}, r(turns, R_tau) = {fmt(corr['turns_vs_r_tau'])}"))
    if report["errors"]:
        parts.append(format_table(["proxy", "domain", "n", "first message"],
                                  [[e["proxy"], e["domain"], e["n"], next(iter(e["messages"]))] for e in report["errors"]],
                                  "Infrastructure errors (not in any rate)"))
    return "\n\n".join(parts)
