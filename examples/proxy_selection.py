"""Pick the cheapest user proxy that meets a required fidelity (the cost-fidelity frontier).

Points come from a run store (our own measurements) and from published numbers in a
CSV (``proxy,cost_per_sim,ufs``); the example writes an illustrative CSV of made-up
points so it runs offline. For each required UFS q it prints U*(q) and the cost of an
RL epoch of N rollouts with it, and saves the frontier plot.

    python examples/proxy_selection.py --rollouts 10000 --plot runs/frontier.png
"""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from userbench_env.analysis import frontier as fr
from userbench_env.analysis.plots import frontier_figure

#: illustrative (made-up) external points: proxy, USD per simulation, UFS
EXAMPLE_POINTS = """proxy,cost_per_sim,ufs
large-api-model,0.0300,0.93
mid-api-model,0.0040,0.90
small-api-model,0.0006,0.78
self-hosted-8b,0.0009,0.74
"""


def main() -> None:
    """Print the frontier, the dominated proxies and the selections."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", help="CSV of points (default: the illustrative ones above)")
    parser.add_argument("--rollouts", type=int, default=10_000)
    parser.add_argument("--plot", default=None, help="PNG path for the frontier plot")
    args = parser.parse_args()
    if args.points:
        points = fr.read_points(args.points)
    else:
        path = Path(tempfile.mkdtemp()) / "points.csv"
        path.write_text(EXAMPLE_POINTS, encoding="utf-8")
        points = fr.read_points(path)
    qs = [0.75, 0.85, 0.9, 0.95]
    result = fr.frontier_result(points, qs)
    epochs = fr.epoch_costs(points, qs, args.rollouts)
    print("frontier:", ", ".join(result["frontier"]))
    print("dominated:", ", ".join(result["dominated"]) or "none")
    for q, proxy in result["selection"].items():
        cost = "-" if epochs[q] is None else f"${epochs[q]:.2f}"
        print(f"U*({q}) = {proxy or 'none'}; epoch of {args.rollouts} rollouts: {cost}")
    if args.plot:
        print("plot:", frontier_figure(points, result["frontier"], args.plot))


if __name__ == "__main__":
    main()
