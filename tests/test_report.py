"""Every number of ``userbench report`` against a hand computation on a small fixture."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from report_fixture import records
from userbench_env.analysis.report import build_report
from userbench_env.analysis.stats import pearson
from userbench_env.cli import main
from userbench_env.runner.store import EpisodeStore


@pytest.fixture(scope="module")
def report():
    return build_report(records())


def by(rows, **match):
    found = [r for r in rows if all(r[k] == v for k, v in match.items())]
    assert len(found) == 1, (match, rows)
    return found[0]


def test_counts_and_errors_are_separate(report) -> None:
    assert report["episodes"] == 20 and report["errors_total"] == 1
    assert report["errors"] == [{"proxy": "A", "domain": "retail", "n": 1, "messages": {"ProxyError: provider down": 1}}]


def test_per_domain_rates_with_n(report) -> None:
    a_air = by(report["domains"], proxy="A", domain="airline")
    assert (a_air["n"], a_air["r_tau"], a_air["ufs"], a_air["n_ufs"]) == (10, 6 / 10, 5 / 10, 10)
    a_ret = by(report["domains"], proxy="A", domain="retail")  # the errored r9 is not counted
    assert (a_ret["n"], a_ret["r_tau"], a_ret["ufs"], a_ret["n_ufs"]) == (4, 2 / 4, pytest.approx(2 / 3), 3)
    b_ret = by(report["domains"], proxy="B", domain="retail")
    assert (b_ret["n"], b_ret["r_tau"], b_ret["ufs"], b_ret["n_ufs"]) == (1, 0.0, None, 0)


def test_per_proxy_unweighted_means_over_domains(report) -> None:
    a = by(report["proxies"], proxy="A")
    assert a["hosting"] == "api" and a["n"] == 14 and a["errors"] == 1
    assert a["r_tau"] == pytest.approx((0.6 + 0.5) / 2)  # not the pooled 8/14
    assert a["ufs"] == pytest.approx((0.5 + 2 / 3) / 2)  # not the pooled 7/13
    assert a["cost_per_sim"] == pytest.approx(0.02) and a["prompt_tokens"] == 1000 and a["completion_tokens"] == 100
    b = by(report["proxies"], proxy="B")
    assert (b["hosting"], b["r_tau"], b["ufs"], b["cost_per_sim"]) == ("self-hosted", 0.5, 1.0, pytest.approx(0.001))
    c = by(report["proxies"], proxy="C")
    assert (c["hosting"], c["r_tau"], c["ufs"], c["cost_per_sim"]) == ("local", 0.5, 0.5, 0.0)


def test_share_of_successful_episodes_failing_ufs(report) -> None:
    # A's judged successes: t0, t4 (fail), t5, t6, t7, t9, r0 (pass); r1 has no verdict
    a = by(report["proxies"], proxy="A")
    assert (a["success_fail_ufs"], a["n_success_judged"]) == (pytest.approx(2 / 7), 7)
    assert by(report["proxies"], proxy="B")["success_fail_ufs"] == 0.0
    assert by(report["proxies"], proxy="C")["success_fail_ufs"] == 0.0


def test_family_frequency_and_effect_with_five_per_side(report) -> None:
    pd = by(report["families"], family="premature_disclosure")
    assert pd["frequency"] == {"A": pytest.approx(5 / 13), "B": 0.0, "C": 0.5}
    # only A/airline has >= 5 judged episodes on each side: present 2/5 pass, absent 4/5
    assert pd["cells"] == [{"proxy": "A", "domain": "airline", "n_present": 5, "n_absent": 5,
                            "pass_present": 0.4, "pass_absent": 0.8, "effect": pytest.approx(-0.4)}]
    assert pd["effect"] == pytest.approx(-0.4)
    gd = by(report["families"], family="goal_deviation")
    assert gd["frequency"]["A"] == pytest.approx(1 / 13) and gd["cells"] == [] and gd["effect"] is None
    assert [f["family"] for f in build_report(records(), min_side=6)["families"]] == ["goal_deviation", "premature_disclosure"]
    assert by(build_report(records(), min_side=6)["families"], family="premature_disclosure")["cells"] == []


def test_effort_with_and_without_premature_disclosure(report) -> None:
    with_pd = by(report["effort"], proxy="A", premature_disclosure=True)  # t0 and t4
    assert (with_pd["n"], with_pd["turns"], with_pd["tool_calls"], with_pd["questions"]) == (2, 6.5, 2.0, 2.0)
    without = by(report["effort"], proxy="A", premature_disclosure=False)  # t5 t6 t7 t9 r0 r1
    assert (without["n"], without["turns"], without["tool_calls"], without["questions"]) == (6, 5.0, 2.0, 1.0)
    c_with = by(report["effort"], proxy="C", premature_disclosure=True)  # C's only PD episode failed the task
    assert (c_with["n"], c_with["turns"]) == (0, None)


def test_cross_proxy_correlation_on_tasks_all_proxies_completed(report) -> None:
    corr = report["correlation"]
    assert corr["tasks"] == 2  # airline t1 and retail r1 (C never ran t2; A's r9 errored)
    means = {p["proxy"]: (p["n"], p["turns"], p["ufs"], p["r_tau"]) for p in corr["proxies"]}
    assert means == {"A": (2, 7.5, 0.0, 0.5), "B": (2, 3.5, 1.0, 0.5), "C": (2, 6.0, 0.5, 0.5)}
    xs, ys = [7.5, 3.5, 6.0], [0.0, 1.0, 0.5]
    mx, my = sum(xs) / 3, sum(ys) / 3
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    by_hand = sxy / math.sqrt(sum((x - mx) ** 2 for x in xs) * sum((y - my) ** 2 for y in ys))
    assert by_hand == pytest.approx(-2.0 / math.sqrt((49 / 6) * 0.5))
    assert corr["turns_vs_ufs"] == pytest.approx(by_hand)
    assert corr["turns_vs_r_tau"] is None  # R_tau is 0.5 for every proxy: r is undefined


def test_pearson_needs_three_points_and_variance() -> None:
    assert pearson([1, 2], [1, 2]) is None
    assert pearson([1, 2, 3], [2, 4, 6.5]) == pytest.approx(4.5 / math.sqrt(2 * (61 / 6)))  # sxy / sqrt(sxx syy)
    assert pearson([1, 2, 3], [2, 4, 6.5]) == pytest.approx(float(np.corrcoef([1, 2, 3], [2, 4, 6.5])[0, 1]))
    assert pearson([1, None, 3, 4], [1, 5, None, 2]) is None


def test_report_cli_json_and_text_and_latest_record_wins(tmp_path, capsys) -> None:
    store = EpisodeStore(tmp_path / "runs.jsonl")
    for r in records():
        store.append(r)
    # a retried error supersedes its errored record (same key)
    fixed = dict(records()[14], error=None, reward=1, ufs_pass=True,
                 criteria=[{"family": "premature_disclosure", "verdict": "pass"}])
    store.append(fixed)
    assert main(["report", str(store.path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["errors_total"] == 0 and data["episodes"] == 20
    assert by(data["domains"], proxy="A", domain="retail")["n"] == 5
    assert main(["report", str(store.path)]) == 0
    text = capsys.readouterr().out
    assert "Per domain" in text and "premature_disclosure" in text and "r(turns, UFS) = -0.990" in text
    assert main(["report", str(tmp_path / "missing.jsonl")]) == 2
