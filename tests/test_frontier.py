"""The cost-fidelity frontier, dominated proxies, U*(q), epoch cost, CSV points and the PNG."""
from __future__ import annotations

import json

import pytest

from report_fixture import records
from userbench_env.analysis import frontier as fr
from userbench_env.analysis.report import build_report
from userbench_env.cli import main
from userbench_env.runner.store import EpisodeStore

P = fr.Point


def test_points_from_runs_use_the_report_means() -> None:
    points = {p.proxy: p for p in fr.points_from_report(build_report(records()))}
    assert points["A"].cost_per_sim == pytest.approx(0.02) and points["A"].ufs == pytest.approx((0.5 + 2 / 3) / 2)
    assert (points["B"].cost_per_sim, points["B"].ufs) == (pytest.approx(0.001), 1.0)
    assert (points["C"].cost_per_sim, points["C"].ufs) == (0.0, 0.5)


def test_frontier_dominance_and_selection_by_hand() -> None:
    pts = [P(proxy="free", cost_per_sim=0.0, ufs=0.5), P(proxy="mid", cost_per_sim=0.001, ufs=0.9),
           P(proxy="pricey", cost_per_sim=0.02, ufs=0.85),   # dominated by mid (cheaper, better)
           P(proxy="top", cost_per_sim=0.05, ufs=0.97),
           P(proxy="twin", cost_per_sim=0.05, ufs=0.97),     # identical to top: neither dominates
           P(proxy="same-cost-worse", cost_per_sim=0.05, ufs=0.96)]  # dominated by top (same cost, lower UFS)
    assert fr.frontier(pts) == ["free", "mid", "top", "twin"]
    assert fr.dominated(pts) == ["pricey", "same-cost-worse"]
    assert fr.select(pts, 0.5) == "free" and fr.select(pts, 0.51) == "mid" and fr.select(pts, 0.9) == "mid"
    assert fr.select(pts, 0.95) == "top" and fr.select(pts, 0.98) is None
    assert fr.epoch_costs(pts, [0.95, 0.5, 0.99], 10_000) == {"0.95": pytest.approx(500.0), "0.5": 0.0, "0.99": None}
    assert fr.frontier_result(pts, [0.9, 0.99]) == {
        "frontier": ["free", "mid", "top", "twin"], "dominated": ["pricey", "same-cost-worse"], "unpriced": [],
        "selection": {"0.9": "mid", "0.99": None}}


def test_frontier_cli_json_from_runs_exact_shape(tmp_path, capsys) -> None:
    store = EpisodeStore(tmp_path / "runs.jsonl")
    for r in records():
        store.append(r)
    assert main(["frontier", str(store.path), "--q", "0.5", "--q", "0.6", "--q", "1.0", "--json"]) == 0
    # A ($0.02, 0.583) is dominated by B ($0.001, 1.0); C is free at 0.5
    out = json.loads(capsys.readouterr().out)
    assert {k: out.pop(k) for k in ("points", "rollouts", "epoch_costs")} == {
        "points": [{"proxy": "A", "cost_per_sim": pytest.approx(0.02), "ufs": pytest.approx(7 / 12)},
                   {"proxy": "B", "cost_per_sim": pytest.approx(0.001), "ufs": 1.0},
                   {"proxy": "C", "cost_per_sim": 0.0, "ufs": 0.5}],
        "rollouts": 1000, "epoch_costs": {"0.5": 0.0, "0.6": pytest.approx(1.0), "1": pytest.approx(1.0)}}
    assert out == {"frontier": ["C", "B"], "dominated": ["A"], "unpriced": [],
                   "selection": {"0.5": "C", "0.6": "B", "1": "B"}}


def test_frontier_cli_points_csv_epoch_cost_and_plot(tmp_path, capsys) -> None:
    csv = tmp_path / "points.csv"
    csv.write_text("proxy,cost_per_sim,ufs\ngpt-x,0.004,0.92\nsmall,0.0005,0.7\nbig,0.03,0.9\n", encoding="utf-8")
    assert main(["frontier", "--points", str(csv), "--q", "0.9", "--q", "0.95", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["epoch_costs"] == {"0.9": pytest.approx(4.0), "0.95": None} and len(out["points"]) == 3
    assert {k: out[k] for k in ("frontier", "dominated", "selection")} == {
        "frontier": ["small", "gpt-x"], "dominated": ["big"], "selection": {"0.9": "gpt-x", "0.95": None}}
    assert main(["frontier", "--points", str(csv), "--q", "0.9", "--rollouts", "2500", "--plots", str(tmp_path / "figs")]) == 0
    out = capsys.readouterr().out
    assert "gpt-x" in out and "10.00" in out and "0.000500" in out  # 2500 x $0.004; small's cost in significant digits
    png = tmp_path / "figs" / "frontier.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bad_points_file_is_a_clear_error(tmp_path, capsys) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("proxy,cost\nx,1\n", encoding="utf-8")
    assert main(["frontier", "--points", str(bad)]) == 2
    assert "missing columns cost_per_sim, ufs" in capsys.readouterr().err
    bad.write_text("proxy,cost_per_sim,ufs\nx,cheap,0.5\n", encoding="utf-8")
    with pytest.raises(ValueError, match="line 2"):
        fr.read_points(bad)


def test_reprice_with_override_file(tmp_path, capsys) -> None:
    rows = [dict(r, user_provenance={"model": "openai/self-hosted-user"}) for r in records() if r["proxy"] == "A"]
    store = EpisodeStore(tmp_path / "runs.jsonl")
    for r in rows:
        store.append(r)
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"openai/self-hosted-user": {"input": 1.0, "output": 10.0}}), encoding="utf-8")
    assert main(["report", str(store.path), "--prices", str(prices), "--json"]) == 0
    a = json.loads(capsys.readouterr().out)["proxies"][0]
    assert a["cost_per_sim"] == pytest.approx((1000 * 1.0 + 100 * 10.0) / 1e6)
