"""Unpriced models are ``unpriced``, not $0 (issue 23, item 4).

A ``direct:`` proxy served by the local chat server (real HTTP, real token counts) has
no known price: every table says ``unpriced``, the frontier and routing leave it out,
and a price table (``--prices``) brings it back. Scripted proxies call no model and
really cost $0.
"""
from __future__ import annotations

import json

import pytest

import userbench_env  # noqa: F401  (registers the env ids)
from userbench_env.cli import main
from userbench_env.runner.progress import RunningStats
from userbench_env.serve import ChatServer, ScriptedUserResponder
from userbench_env.tasks import load_tasks

BASE = ["eval", "--domain", "airline", "--limit", "3", "--no-progress"]


def _row(text: str, proxy: str, title: str) -> str:
    """The row of ``proxy`` in the table titled ``title`` of a text report."""
    table = text.split(title, 1)[1].split("\n\n", 1)[0]
    return next(line for line in table.splitlines() if line.startswith(proxy + " "))


@pytest.fixture(scope="module")
def unpriced_store(tmp_path_factory):
    """A store of ``direct:local`` (no price) and ``scripted`` on 3 airline tasks, and the live server."""
    tasks = load_tasks("airline", "bundled", "default")
    store = tmp_path_factory.mktemp("unpriced") / "runs.jsonl"
    with ChatServer(ScriptedUserResponder(tasks)) as server:
        code = main(BASE + ["--out", str(store), "--proxy", "direct:local", "--proxy", "scripted",
                            "--base-url", server.base_url])
        assert code == 0
        yield store, server


def test_tables_say_unpriced_and_scripted_is_free(unpriced_store, capsys) -> None:
    store, _ = unpriced_store
    capsys.readouterr()
    assert main(["report", str(store), "--json"]) == 0
    rows = {p["proxy"]: p for p in json.loads(capsys.readouterr().out)["proxies"]}
    assert rows["direct:local"]["prompt_tokens"] > 0  # it did call a model, at no known price
    assert (rows["direct:local"]["cost_per_sim"], rows["direct:local"]["priced"]) == (None, False)
    assert (rows["scripted"]["cost_per_sim"], rows["scripted"]["priced"]) == (0.0, True)
    assert main(["report", str(store)]) == 0
    text = capsys.readouterr().out
    assert "unpriced" in _row(text, "direct:local", "Proxies (").split()
    assert "unpriced" not in _row(text, "scripted", "Proxies (")


def test_the_frontier_and_u_star_leave_unpriced_out_unless_prices_cover_them(unpriced_store, tmp_path, capsys) -> None:
    store, _ = unpriced_store
    capsys.readouterr()
    assert main(["frontier", str(store), "--q", "0.9", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["selection"] == {"0.9": "scripted"} and out["unpriced"] == ["direct:local"]
    assert out["frontier"] == ["scripted"] and out["dominated"] == []
    assert {p["proxy"]: p["cost_per_sim"] for p in out["points"]} == {"direct:local": None, "scripted": 0.0}
    assert main(["frontier", str(store), "--q", "0.9"]) == 0
    text = capsys.readouterr().out
    assert _row(text, "direct:local", "Cost-fidelity points").split()[1:] == ["unpriced", "1.000", "unpriced"]
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"local": {"input": 1.0, "output": 2.0}}), encoding="utf-8")
    assert main(["frontier", str(store), "--q", "0.9", "--json", "--prices", str(prices)]) == 0
    out = json.loads(capsys.readouterr().out)
    costs = {p["proxy"]: p["cost_per_sim"] for p in out["points"]}
    assert costs["direct:local"] > 0 and out["unpriced"] == [] and out["dominated"] == ["direct:local"]


def test_routing_leaves_unpriced_candidates_out_unless_prices_cover_them(unpriced_store, tmp_path, capsys) -> None:
    store, server = unpriced_store
    route = BASE + ["--proxy", "direct:local", "--base-url", server.base_url, "--route", "0.9", "--frontier", str(store)]
    capsys.readouterr()
    assert main(route + ["--out", str(tmp_path / "refused.jsonl")]) == 2
    error = capsys.readouterr().err.strip()
    assert "\n" not in error and "no candidate has a known price (direct:local" in error and "--prices" in error
    both = BASE + ["--proxy", "direct:local", "--proxy", "scripted", "--base-url", server.base_url, "--route", "0.9",
                   "--frontier", str(store), "--out", str(tmp_path / "routed.jsonl")]
    assert main(both) == 0
    assert "route q=0.9: scripted" in capsys.readouterr().err
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"local": {"input": 1.0, "output": 2.0}}), encoding="utf-8")
    assert main(route + ["--out", str(tmp_path / "priced.jsonl"), "--prices", str(prices)]) == 0
    assert "route q=0.9: direct:local" in capsys.readouterr().err


def test_the_progress_bar_counts_unpriced_episodes_apart() -> None:
    stats = RunningStats()
    for record in ({"reward": 1.0, "user_cost_usd": 0.5, "user_provenance": {"priced": True}},
                   {"reward": 1.0, "user_cost_usd": 0.0, "user_provenance": {"model": "local", "priced": False}},
                   {"reward": 1.0, "user_cost_usd": 0.0, "user_provenance": {"name": "scripted"}}):
        stats.add(record)
    assert (stats.cost, stats.unpriced) == (0.5, 1)
    assert stats.postfix()["cost"] == "$0.500 +1 unpriced"
