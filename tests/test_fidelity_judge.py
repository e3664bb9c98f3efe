"""The fidelity judge, deferred grading and rubric generation, end to end through litellm and the local server."""
from __future__ import annotations

import json

import pytest

from userbench_env.cli import main
from userbench_env.core.rubric import Criterion, Rubric
from userbench_env.envs.conversation import ConversationEnv
from userbench_env.evaluation.nl_judge import JudgeReplyError
from userbench_env.fidelity.generate import generate_rubric
from userbench_env.fidelity.judge import FidelityJudge
from userbench_env.fidelity.rubrics import load_rubric, rubric_versions, save_rubric
from userbench_env.fidelity.validate import run_episode
from userbench_env.serve import CannedResponder, ChatServer
from userbench_env.tasks import load_task

TASK = "33"  # retail, no NL assertions: the judge only grades fidelity criteria
FAIL = json.dumps({"verdict": "fail", "evidence_turn": 1, "reasoning": "The customer invented an order."})
PASS = json.dumps({"verdict": "pass", "evidence_turn": None, "reasoning": "Fine."})
CRITERION = Criterion(id="generated/0-self_contradiction", family="groundedness", mode="self_contradiction",
                      statement="The customer never contradicts an earlier statement.",
                      grounding="Stay in character for the whole conversation.", check="judge")


def _spec(server, model="openai/fidelity-judge"):
    return {"model": model, "base_url": server.base_url, "api_key": "sk-local"}


@pytest.fixture
def rubric_root(tmp_path):
    save_rubric(tmp_path, "tau2", "retail", Rubric(task_id=TASK, version="1", generator="test", criteria=[CRITERION]))
    return tmp_path


def _run(judge, rubric_root, proxy="scripted"):
    env = ConversationEnv("retail", task_source="tau2", user_proxy=proxy, judge=judge, rubrics=rubric_root)
    return env, run_episode(env, TASK)


def _judged(episode):
    return next(c for c in episode["criteria"] if c["id"] == CRITERION.id)


def test_env_grades_rubric_criteria_with_a_pinned_blind_judge(rubric_root):
    with ChatServer(CannedResponder([FAIL])) as server:
        env, episode = _run(_spec(server), rubric_root, proxy="perturbed:invents_unknown_information@0.0+scripted")
        body = server.stats.bodies[-1]
    verdict = _judged(episode)
    assert verdict["verdict"] == "fail" and verdict["source"] == "judge" and verdict["evidence_turn"] == 1
    assert verdict["judge_model"] == "openai/fidelity-judge" and verdict["judge_temperature"] == 0.0
    assert episode["ufs_pass"] is False and episode["failures_per_family"] == {"groundedness": 1}
    assert body["temperature"] == 0.0 and len(server.stats.bodies) == 1  # one criterion, one call
    sent = json.dumps(body["messages"]).lower()
    assert CRITERION.statement.lower() in sent and "customer:" in sent
    assert "scripted" not in sent and "perturbed" not in sent  # blind to the proxy


def test_verdicts_are_cached_by_criterion_transcript_and_model(tmp_path):
    task = load_task("retail", TASK, source="tau2")
    env = ConversationEnv("retail", task_source="tau2")
    run_episode(env, task.id)
    with ChatServer(CannedResponder([PASS])) as server:
        judge = FidelityJudge(_spec(server), cache_dir=tmp_path)
        first = judge.grade(CRITERION.statement, CRITERION.grounding, env.messages)
        again = judge.grade(CRITERION.statement, CRITERION.grounding, env.messages)
        assert (first.cached, again.cached, server.stats.requests) == (False, True, 1)
        FidelityJudge(_spec(server), cache_dir=tmp_path).grade(CRITERION.statement, CRITERION.grounding, env.messages)
        assert server.stats.requests == 1  # the file cache is shared across judges
        judge.grade(CRITERION.statement, CRITERION.grounding, env.messages[:-1])
        FidelityJudge(_spec(server, "openai/other"), cache_dir=tmp_path).grade(CRITERION.statement, CRITERION.grounding, env.messages)
        assert server.stats.requests == 3  # a new transcript or model is a new question


@pytest.mark.parametrize("reply", ["It passes, I think.", json.dumps({"verdict": "ok"}),
                                   json.dumps({"verdict": "pass", "evidence_turn": "two"})])
def test_an_unparseable_verdict_is_an_error_never_a_pass(reply, rubric_root):
    env = ConversationEnv("retail", task_source="tau2")
    run_episode(env, TASK)
    with ChatServer(CannedResponder([reply])) as server:
        with pytest.raises(JudgeReplyError):
            FidelityJudge(_spec(server)).grade(CRITERION.statement, CRITERION.grounding, env.messages)
        _, episode = _run(_spec(server, "openai/strict-judge"), rubric_root)
    verdict = _judged(episode)
    assert verdict["verdict"] == "error" and "JudgeReplyError" in verdict["error"]
    assert episode["ufs_pass"] is None and episode["error"] is None


def test_without_a_judge_judge_criteria_are_unjudged(rubric_root):
    _, episode = _run(None, rubric_root)
    assert _judged(episode)["verdict"] == "not_applicable" and _judged(episode)["source"] == "unjudged"
    assert episode["ufs_pass"] is True


def test_deferred_verdicts_are_graded_by_the_grade_command(rubric_root, tmp_path, monkeypatch):
    env, episode = _run("deferred", rubric_root)
    pending = _judged(episode)
    assert pending["verdict"] == "pending" and pending["statement"] == CRITERION.statement
    assert episode["ufs_pass"] is None
    record = {**episode, "domain": "retail", "source": "tau2", "messages": [m.model_dump() for m in env.messages]}
    results = tmp_path / "results.jsonl"
    results.write_text(json.dumps(record) + "\n" + json.dumps({**record, "task_id": "again"}) + "\n")
    monkeypatch.setenv("LOCAL_JUDGE_KEY", "sk-local")
    with ChatServer(CannedResponder([FAIL])) as server:
        code = main(["grade", str(results), "--judge", "openai/batch-judge", "--judge-base-url", server.base_url,
                     "--judge-api-key-env", "LOCAL_JUDGE_KEY", "--out", str(tmp_path / "graded.jsonl")])
        assert code == 0 and server.stats.requests == 1  # the same transcript twice: graded once
    graded = [json.loads(line) for line in (tmp_path / "graded.jsonl").read_text().splitlines()]
    assert [g["task_id"] for g in graded] == [TASK, "again"]
    for g in graded:
        assert _judged(g)["verdict"] == "fail" and _judged(g)["judge_model"] == "openai/batch-judge"
        assert g["ufs_pass"] is False and g["failures_per_family"] == {"groundedness": 1}


def _writer_reply(task) -> str:
    known = task.blueprint.known_info[0].span
    return json.dumps({"criteria": [
        {"family": "premature_disclosure", "mode": "volunteers_unasked_info",
         "statement": "The customer gives their name only when asked.", "grounding": known},
        {"family": "groundedness", "mode": "self_contradiction",
         "statement": "The customer never contradicts an earlier statement.", "grounding": "Stay in character for the whole conversation."},
        {"family": "goal_deviation", "mode": "premature_stop",
         "statement": "The customer does not end before the exchange is done.", "grounding": "Follow the scenario."},
        {"family": "groundedness", "mode": "invents_unknown_information",
         "statement": "The customer invents no order.", "grounding": "This sentence is in no scenario."},
        {"family": "missed_information", "mode": "premature_stop",
         "statement": "Wrong family for the mode.", "grounding": "Follow the scenario."},
    ]})


def test_generate_writes_reviewed_versioned_rubrics_that_envs_load(tmp_path):
    task = load_task("retail", TASK, source="tau2")
    verifier_reply = json.dumps({"reviews": [
        {"index": 0, "accept": True, "reason": "grounded"},
        {"index": 1, "accept": True, "reason": "falsifiable"},
        {"index": 2, "accept": False, "reason": "redundant with the rule check"},
    ]})
    with ChatServer(CannedResponder([_writer_reply(task)])) as writer, ChatServer(CannedResponder([verifier_reply])) as verifier:
        rubric = generate_rubric(task, _spec(writer, "openai/writer"), _spec(verifier, "openai/verifier"))
        writer_sent = json.dumps(writer.stats.bodies[0]["messages"])
        assert "Sample conversation" in writer_sent and "Customer:" in writer_sent and "volunteers_unasked_info" in writer_sent
        assert len(verifier.stats.bodies) == 1 and "Wrong family" not in json.dumps(verifier.stats.bodies[0]["messages"])
        with pytest.raises(ValueError, match="different model"):
            generate_rubric(task, _spec(writer, "openai/writer"), _spec(writer, "openai/writer"))
    assert [c.mode for c in rubric.criteria] == ["volunteers_unasked_info", "self_contradiction"]
    assert all(c.check == "judge" for c in rubric.criteria)
    reasons = [r["reason"] for r in rubric.rejected]
    assert reasons == ["verifier: redundant with the rule check",
                       "grounding span not found verbatim in the scenario or the guidelines",
                       "mode 'premature_stop' is not a mode of missed_information"]
    save_rubric(tmp_path, "tau2", "retail", rubric)
    save_rubric(tmp_path, "tau2", "retail", rubric.model_copy(update={"version": "2", "criteria": rubric.criteria[:1]}))
    with pytest.raises(FileExistsError):
        save_rubric(tmp_path, "tau2", "retail", rubric)
    assert rubric_versions(tmp_path, "tau2", "retail", TASK) == ["1", "2"]
    assert len(load_rubric(tmp_path, task).criteria) == 1 and len(load_rubric(tmp_path, task, "1").criteria) == 2
    _, episode = _run("deferred", tmp_path)
    assert [c["id"] for c in episode["criteria"] if c["verdict"] == "pending"] == ["generated/0-volunteers_unasked_info"]


def test_malformed_writer_or_verifier_replies_raise(tmp_path):
    task = load_task("retail", TASK, source="tau2")
    too_few = json.dumps({"criteria": json.loads(_writer_reply(task))["criteria"][:3]})
    with ChatServer(CannedResponder([too_few])) as writer, ChatServer(CannedResponder(["{}"])) as verifier:
        with pytest.raises(JudgeReplyError, match="4-8"):
            generate_rubric(task, _spec(writer, "openai/writer"), _spec(verifier, "openai/verifier"), sample=[])
    with ChatServer(CannedResponder([_writer_reply(task)])) as writer, ChatServer(CannedResponder(['{"reviews": []}'])) as verifier:
        with pytest.raises(JudgeReplyError, match="reviewed 0 of 3"):
            generate_rubric(task, _spec(writer, "openai/writer"), _spec(verifier, "openai/verifier"), sample=[])


def test_validation_grades_judge_only_modes_when_a_judge_is_configured():
    from userbench_env.fidelity.validate import validate_fidelity

    with ChatServer(CannedResponder([FAIL])) as server:
        table = validate_fidelity("retail", "tau2", episodes=6, seed=3, modes="accepts_forbidden_outcome", rate=1.0,
                                  clean_episodes=2, judge=_spec(server, "openai/validation-judge"))
        calls = server.stats.requests
    row = table["modes"]["accepts_forbidden_outcome"]
    assert row["coverage"] == "judge" and row["injected"] >= 1
    assert row["detected"] == row["injected"] and row["recall"] == 1.0  # the canned judge always answers "fail"
    assert table["judge"] == {"model": "openai/validation-judge", "temperature": 0.0, "modes": ["accepts_forbidden_outcome"]}
    assert table["judge_false_positive_rate"] == 1.0 and table["false_positive_rate"] == 0.0
    assert calls >= 3  # one question per judged episode and per clean episode (transcripts differ)


GUIDELINE_REPLY = json.dumps({"criteria": [
    {"family": "groundedness", "mode": "self_contradiction",
     "statement": "The customer never contradicts an earlier statement.", "grounding": "Stay in character for the whole conversation."},
    {"family": "groundedness", "mode": "invents_unknown_information",
     "statement": "The customer states no id the scenario does not give.", "grounding": "Never invent facts."},
    {"family": "premature_disclosure", "mode": "volunteers_unasked_info",
     "statement": "The customer gives each detail only when asked.", "grounding": "Do not volunteer everything at once."},
    {"family": "premature_disclosure", "mode": "dumps_blueprint",
     "statement": "The customer never recites the scenario.", "grounding": "Put the scenario in your own words rather than reciting it."},
]})
ACCEPT_ALL = json.dumps({"reviews": [{"index": i, "accept": True, "reason": "fine"} for i in range(4)]})


def test_generate_rubrics_cli_writes_resumes_and_reports_failed_tasks(tmp_path, capsys, monkeypatch, tau2_data):
    ids = ["33", "34"]
    monkeypatch.setenv("LOCAL_KEY", "sk-local")

    def run(writer, verifier, tasks=ids, verifier_model="openai/verifier"):
        return main(["generate-rubrics", "--domain", "retail", "--source", "tau2", "--tasks", ",".join(tasks), "--out", str(tmp_path),
                     "--writer", "openai/writer", "--writer-base-url", writer.base_url, "--writer-api-key-env", "LOCAL_KEY",
                     "--verifier", verifier_model, "--verifier-base-url", verifier.base_url, "--verifier-api-key-env", "LOCAL_KEY"])

    with ChatServer(CannedResponder([GUIDELINE_REPLY])) as writer, ChatServer(CannedResponder([ACCEPT_ALL])) as verifier:
        assert run(writer, verifier) == 0
        assert (writer.stats.requests, verifier.stats.requests) == (2, 2)
        assert run(writer, verifier) == 0 and writer.stats.requests == 2  # a rerun keeps the written files
    out = capsys.readouterr().out
    assert "[1/2] 33: written:" in out and "[2/2] 34: exists, kept" in out
    for task_id in ids:
        rubric = load_rubric(tmp_path, load_task("retail", task_id, source="tau2"))
        assert [c.mode for c in rubric.criteria] == ["self_contradiction", "invents_unknown_information",
                                                     "volunteers_unasked_info", "dumps_blueprint"]
        assert rubric.generator == "generate:openai/writer|verify:openai/verifier"
    with ChatServer(CannedResponder(["not json"])) as writer, ChatServer(CannedResponder([ACCEPT_ALL])) as verifier:
        assert run(writer, verifier, ["33", "35", "36"]) == 1  # 33 is kept; 35 and 36 fail, neither stops the other
        assert writer.stats.requests == 2 and verifier.stats.requests == 0
    captured = capsys.readouterr()
    assert "[2/3] 35: failed: JudgeReplyError" in captured.out and "2 of 3 tasks got no rubric" in captured.err
    assert rubric_versions(tmp_path, "tau2", "retail", "35") == []
    with ChatServer(CannedResponder([GUIDELINE_REPLY])) as writer:
        assert run(writer, writer, ["35"], "openai/writer") == 2  # the verifier must be another model: refused at once
        assert writer.stats.requests == 0
