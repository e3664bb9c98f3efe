"""``userbench eval`` end to end: two proxies on bundled tasks, then report and frontier with figures
(no API key), and an LLM proxy over real HTTP through litellm with tokens, cost and infrastructure errors."""
from __future__ import annotations

import json

import pytest

from userbench_env.cli import main
from userbench_env.runner.evaluation import EvalConfig, run_eval
from userbench_env.runner.store import EpisodeStore
from userbench_env.serve import ChatServer, ScriptedUserResponder
from userbench_env.tasks import load_tasks

pytestmark = pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")

PERTURBED = "perturbed:volunteers_unasked_info@0.5+scripted"


@pytest.fixture
def no_keys(monkeypatch):
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def test_two_proxies_then_report_and_frontier_with_plots(tmp_path, capsys, no_keys) -> None:
    out, figs = tmp_path / "runs.jsonl", tmp_path / "figs"
    args = ["eval", "--proxy", "scripted", "--proxy", PERTURBED, "--domain", "airline", "--domain", "retail",
            "--limit", "8", "--concurrency", "4", "--no-progress", "--out", str(out)]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "32 episodes run, 0 already in" in text and "Per task set" in text and PERTURBED in text
    records = list(EpisodeStore(out).records())
    assert len(records) == 32 and not any(r["error"] for r in records)
    perturbed = [r for r in records if r["proxy"] == PERTURBED]
    assert any(r["injections"] for r in perturbed)  # the ground truth of the perturbed proxy is recorded
    assert all(r["user_provenance"]["name"] for r in records)
    assert {r["hosting"] for r in records} == {"local"}

    assert main(["report", str(out), "--json", "--plots", str(figs)]) == 0
    report = json.loads(capsys.readouterr().out)
    rows = {p["proxy"]: p for p in report["proxies"]}
    assert rows["scripted"]["ufs"] == 1.0 and rows["scripted"]["r_tau"] == 1.0
    assert rows[PERTURBED]["ufs"] < 1.0  # volunteered information is caught by the rule checks
    for name in ("rates.png", "domains.png", "families.png"):
        assert (figs / name).read_bytes()[:4] == b"\x89PNG"

    assert main(["frontier", str(out), "--q", "0.99", "--plots", str(figs), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert {k: result[k] for k in ("frontier", "dominated", "selection")} == {
        "frontier": ["scripted"], "dominated": [PERTURBED], "selection": {"0.99": "scripted"}}
    assert sorted(p["proxy"] for p in result["points"]) == sorted(["scripted", PERTURBED])
    assert result["epoch_costs"] == {"0.99": 0.0}
    assert (figs / "frontier.png").read_bytes()[:4] == b"\x89PNG"
    assert main(args) == 0
    assert "0 episodes run, 32 already in" in capsys.readouterr().out


def test_llm_proxy_over_http_records_tokens_cost_and_separates_infrastructure_errors(tmp_path) -> None:
    tasks = load_tasks("retail", "bundled", None)[:3]
    prices = {"openai/local-user": {"input": 2.0, "output": 10.0}}
    with ChatServer(ScriptedUserResponder(tasks), faults="500") as server:  # the very first request fails
        config = EvalConfig(
            proxies=["litellm:openai/local-user"], domains=["retail"], task_ids=[t.id for t in tasks], concurrency=1,
            out=str(tmp_path / "runs.jsonl"), progress=False,
            proxy_options={"base_url": server.base_url, "api_key": "sk-local", "max_retries": 0, "backoff": 0.001,
                           "timeout": 10.0, "price_override": prices},
        )
        first = run_eval(config)
        assert (first.ran, first.errors) == (3, 1)
        records = {r["task_id"]: r for r in EpisodeStore(config.out).records()}
        failed = records[tasks[0].id]
        assert failed["termination"] == "error" and "500" in failed["error"]
        for task in tasks[1:]:
            r = records[task.id]
            assert r["error"] is None and r["reward"] == 1.0 and r["hosting"] == "self-hosted"
            assert r["user_prompt_tokens"] > 0 and r["user_completion_tokens"] > 0
            assert r["user_cost_usd"] == pytest.approx((r["user_prompt_tokens"] * 2 + r["user_completion_tokens"] * 10) / 1e6)
            assert r["user_provenance"]["model"] == "openai/local-user" and r["user_provenance"]["prompt_hash"]
        retried = run_eval(config.model_copy(update={"retry_errors": True}))
        assert (retried.skipped, retried.ran, retried.errors) == (2, 1, 0)
    from userbench_env.analysis.load import load_records
    from userbench_env.analysis.report import build_report

    report = build_report(load_records([config.out]))
    assert report["errors_total"] == 0 and report["proxies"][0]["n"] == 3 and report["proxies"][0]["r_tau"] == 1.0


def test_bad_proxy_spec_is_a_clear_error_before_any_episode(tmp_path, capsys) -> None:
    assert main(["eval", "--proxy", "nonsense:x", "--domain", "airline", "--out", str(tmp_path / "r.jsonl")]) == 2
    assert "unknown user proxy spec 'nonsense:x'" in capsys.readouterr().err
    assert not (tmp_path / "r.jsonl").exists()
