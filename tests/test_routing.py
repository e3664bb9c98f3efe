"""Routing to the cheapest faithful proxy (``route:q=<q>``) in ``collect`` and ``eval --route``.

The candidates are the scripted proxy and a perturbed one (really measured: their points
come from an eval store and ``userbench frontier --json``, or from a calibration slice
played for the purpose); the real local model as a candidate is in ``test_realmodel.py``.
"""
from __future__ import annotations

import json

import pytest

from userbench_env.analysis.frontier import Point
from userbench_env.cli import main
from userbench_env.runner import collect
from userbench_env.runner.routing import Route, RoutingError, choose, parse_route, read_frontier_points
from userbench_env.runner.store import EpisodeStore

PERTURBED = "perturbed:volunteers_unasked_info@0.5+scripted"
CANDIDATES = [PERTURBED, "scripted"]
ENV = "UserBench/Airline-v0"


@pytest.fixture(scope="module")
def frontier_file(tmp_path_factory) -> dict:
    """An eval store of both candidates on bundled airline, and its ``frontier --json`` file."""
    root = tmp_path_factory.mktemp("route")
    store = root / "runs.jsonl"
    argv = ["eval", "--domain", "airline", "--limit", "4", "--no-progress", "--out", str(store)]
    assert main(argv + ["--proxy", "scripted", "--proxy", PERTURBED]) == 0
    return {"store": store, "root": root}


def _frontier_json(store, capsys, path) -> dict:
    capsys.readouterr()
    assert main(["frontier", str(store), "--json"]) == 0
    text = capsys.readouterr().out
    path.write_text(text, encoding="utf-8")
    return json.loads(text)


def test_route_specs_parse_or_fail_clearly() -> None:
    assert parse_route("route:q=0.9") == Route(q=0.9)
    assert parse_route("route: q=0.5 , on_miss=fail") == Route(q=0.5, on_miss="fail")
    for bad, message in [("route:", "needs q"), ("route:q", "key=value"), ("route:q=2", "less than or equal"),
                         ("route:q=0.9,on_miss=maybe", "on_miss")]:
        with pytest.raises(ValueError, match=message):
            parse_route(bad)


def test_choose_takes_the_cheapest_reaching_q_else_falls_back_or_fails() -> None:
    points = [Point(proxy="big", cost_per_sim=0.03, ufs=0.95), Point(proxy="mid", cost_per_sim=0.004, ufs=0.9),
              Point(proxy="small", cost_per_sim=0.0005, ufs=0.6), Point(proxy="other", cost_per_sim=0.0, ufs=1.0)]
    pick = choose(Route(q=0.9), ["small", "mid", "big"], points, "test")
    assert (pick.proxy, pick.ufs, pick.cost_per_sim, pick.met) == ("mid", 0.9, 0.004, True)
    assert pick.candidates == ["small", "mid", "big"]  # "other" is no candidate
    miss = choose(Route(q=0.99), ["small", "mid", "big"], points, "test")
    assert (miss.proxy, miss.met) == ("big", False)
    with pytest.raises(RoutingError, match="no candidate reaches UFS >= 0.99: the most faithful is big"):
        choose(Route(q=0.99, on_miss="fail"), ["small", "mid", "big"], points, "test")
    with pytest.raises(RoutingError, match="no cost-fidelity point"):
        choose(Route(q=0.5), ["absent"], points, "test")


def test_collect_routes_from_a_frontier_file_and_records_the_choice(frontier_file, capsys) -> None:
    path = frontier_file["root"] / "frontier.json"
    data = _frontier_json(frontier_file["store"], capsys, path)
    measured = {p["proxy"]: p["ufs"] for p in data["points"]}
    assert measured["scripted"] == 1.0 and measured[PERTURBED] < 1.0
    assert read_frontier_points(path) == read_frontier_points(frontier_file["store"])  # the JSON and the store agree
    result = collect(ENV, "scripted", 2, concurrency=2, gate=None, user_proxy="route:q=0.9", candidates=CANDIDATES,
                     frontier=str(path))
    assert result.route["proxy"] == "scripted" and result.route["met"] and result.route["ufs"] == 1.0
    assert len(result.records) == 2
    assert all(r["proxy"] == "scripted" and r["route"] == result.route for r in result.records)
    # only the perturbed proxy offered: below q, so it is the fallback, flagged as such; or the run refuses
    fallback = collect(ENV, "scripted", 1, gate=None, user_proxy="route:q=1.0", candidates=[PERTURBED], frontier=str(path))
    assert fallback.route["proxy"] == PERTURBED and fallback.route["met"] is False
    assert fallback.records[0]["route"]["ufs"] == measured[PERTURBED]
    with pytest.raises(RoutingError, match="no candidate reaches"):
        collect(ENV, "scripted", 1, user_proxy="route:q=1.0,on_miss=fail", candidates=[PERTURBED], frontier=str(path))


def test_collect_without_a_frontier_measures_a_calibration_slice_first() -> None:
    result = collect(ENV, "scripted", 2, concurrency=2, gate=None, user_proxy="route:q=0.9", candidates=CANDIDATES,
                     calibration=3)
    assert result.route["source"] == "calibration" and result.route["proxy"] == "scripted"
    assert all(r["route"]["proxy"] == "scripted" and r["seed"] in (0, 1) for r in result.records)


def test_eval_route_with_a_frontier_file_and_with_calibration(frontier_file, capsys, tmp_path) -> None:
    out = tmp_path / "routed.jsonl"
    base = ["eval", "--domain", "airline", "--limit", "2", "--no-progress", "--proxy", PERTURBED, "--proxy", "scripted"]
    assert main(base + ["--out", str(out), "--route", "0.9", "--frontier", str(frontier_file["store"])]) == 0
    assert "route q=0.9: scripted (UFS 1.000" in capsys.readouterr().err
    records = list(EpisodeStore(out).records())
    assert len(records) == 2 and {r["proxy"] for r in records} == {"scripted"}
    assert all(r["route"]["source"].startswith("frontier file") and r["route"]["met"] for r in records)
    calibrated = tmp_path / "calibrated.jsonl"
    assert main(base + ["--out", str(calibrated), "--route", "0.9", "--calibration", "2"]) == 0
    assert {r["route"]["source"] for r in EpisodeStore(calibrated).records()} == {"calibration"}
    assert len(list(EpisodeStore(f"{calibrated}.calibration.jsonl").records())) == 4  # 2 tasks x 2 candidates
    only_perturbed = ["eval", "--domain", "airline", "--limit", "2", "--no-progress", "--proxy", PERTURBED,
                      "--out", str(tmp_path / "refused.jsonl"), "--frontier", str(frontier_file["store"]), "--route", "1.0"]
    capsys.readouterr()
    assert main(only_perturbed + ["--route-on-miss", "fail"]) == 2
    assert "no candidate reaches UFS >= 1" in capsys.readouterr().err
    assert not (tmp_path / "refused.jsonl").exists()
