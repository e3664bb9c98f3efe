"""PNG figures of a report and of the frontier (matplotlib, imported here only, Agg backend)."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from userbench_env.errors import require_module


def require_matplotlib() -> None:
    """Raise :class:`~userbench_env.errors.MissingDependency` naming the ``plot`` extra without matplotlib."""
    require_module("matplotlib", "--plots", "plot")


def _pyplot() -> Any:
    require_matplotlib()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _bars(ax: Any, labels: list[str], series: dict[str, list[float | None]]) -> None:
    width = 0.8 / max(len(series), 1)
    for i, (name, values) in enumerate(series.items()):
        xs = [j + i * width for j in range(len(labels))]
        ax.bar(xs, [v if v is not None else 0.0 for v in values], width, label=name)
    ax.set_xticks([j + width * (len(series) - 1) / 2 for j in range(len(labels))], labels, rotation=20, ha="right")
    ax.legend(fontsize=8)


def report_figures(report: dict[str, Any], out_dir: str | os.PathLike[str]) -> list[Path]:
    """Write ``rates.png`` (R_tau and UFS per proxy), ``domains.png`` (per domain and
    proxy) and ``families.png`` (failure-family frequency per proxy); return the paths."""
    plt = _pyplot()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    proxies = [p["proxy"] for p in report["proxies"]]
    written = []

    fig, ax = plt.subplots(figsize=(6, 4))
    _bars(ax, proxies, {"R_tau": [p["r_tau"] for p in report["proxies"]], "UFS": [p["ufs"] for p in report["proxies"]]})
    ax.set_ylim(0, 1.05)
    ax.set_title("Agent R_tau and user UFS per proxy")
    written.append(out / "rates.png")
    fig.tight_layout()
    fig.savefig(written[-1], dpi=100)
    plt.close(fig)

    domains = sorted({d["domain"] for d in report["domains"]})
    cells = {(d["proxy"], d["domain"]): d for d in report["domains"]}
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, metric in zip(axes, ("r_tau", "ufs")):
        _bars(ax, domains, {p: [(cells.get((p, d)) or {}).get(metric) for d in domains] for p in proxies})
        ax.set_ylim(0, 1.05)
        ax.set_title(f"{'R_tau' if metric == 'r_tau' else 'UFS'} per domain")
    written.append(out / "domains.png")
    fig.tight_layout()
    fig.savefig(written[-1], dpi=100)
    plt.close(fig)

    families = [f["family"] for f in report["families"]]
    fig, ax = plt.subplots(figsize=(6, 4))
    _bars(ax, families or ["(none)"], {p: [f["frequency"].get(p) for f in report["families"]] or [0.0] for p in proxies})
    ax.set_ylim(0, 1.05)
    ax.set_title("Failure-family frequency per proxy")
    written.append(out / "families.png")
    fig.tight_layout()
    fig.savefig(written[-1], dpi=100)
    plt.close(fig)
    return written


def frontier_figure(points: list[Any], frontier: list[str], path: str | os.PathLike[str]) -> Path:
    """UFS against cost per simulation on a log axis, the frontier drawn as a step line.

    Free proxies (cost 0) are drawn at a tenth of the cheapest paid cost (or 1e-6 $)
    and labelled ``(free)``.
    """
    plt = _pyplot()
    paid = [p.cost_per_sim for p in points if p.cost_per_sim > 0]
    floor = min(paid) / 10 if paid else 1e-6
    x = {p.proxy: p.cost_per_sim if p.cost_per_sim > 0 else floor for p in points}
    fig, ax = plt.subplots(figsize=(6, 4))
    for p in points:
        on = p.proxy in frontier
        ax.scatter(x[p.proxy], p.ufs, color="tab:blue" if on else "tab:gray", zorder=3)
        ax.annotate(p.proxy + ("" if p.cost_per_sim > 0 else " (free)"), (x[p.proxy], p.ufs), fontsize=7,
                    xytext=(4, 4), textcoords="offset points")
    line = sorted((x[p.proxy], p.ufs) for p in points if p.proxy in frontier)
    if line:
        ax.step([a for a, _ in line], [b for _, b in line], where="post", color="tab:blue", label="efficient frontier")
        ax.legend(fontsize=8)
    ax.set_xscale("log")
    ax.set_xlabel("user cost per simulation (USD, log)")
    ax.set_ylabel("UFS")
    ax.set_title("Cost-fidelity frontier")
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out
