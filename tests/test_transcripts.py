"""``userbench score-transcripts`` and ``userbench export``: other harnesses' transcripts scored by
the env's own rule tracker, fed what the env feeds it.

Real data: tau-bench's 92 GPT-4o airline trajectories (``../shared/real-transcripts``), scored
whole, replayed through the env itself for comparison, and matched to tau2 tasks without their
``tau2_task_id``; env runs with perturbed users in every domain, exported as tau2 results and
scored back to the env's own verdicts; a hand-made tau2 results file covering the schema (a
multi-tool message, user tool calls, text beside a tool call); bad input.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from tests.resources import real_transcripts, tau2_data
from userbench_env.cli import main
from userbench_env.fidelity.transcripts import TaskChoice, score_file
from userbench_env.fidelity.transcripts.tasks import TaskIndex, UnknownTask
from userbench_env.runner import EvalConfig, run_eval

REAL = "taubench-gpt4o-airline.json"


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


# -- the 92 real trajectories ---------------------------------------------------------------
@pytest.fixture(scope="module")
def real(tmp_path_factory) -> tuple[list[dict], list[dict]]:
    """(tau-bench's entries, their scored lines) via the command of the issue."""
    tau2_data()
    path = real_transcripts() / REAL
    out = tmp_path_factory.mktemp("real") / "f.jsonl"
    assert main(["score-transcripts", str(path), "--format", "taubench", "--domain", "airline", "--source", "tau2",
                 "--out", str(out)]) == 0
    return json.loads(path.read_text(encoding="utf-8")), _lines(out)


def test_every_real_trajectory_is_scored_with_flags_pointing_at_its_user_messages(real) -> None:
    entries, lines = real
    assert len(lines) == len(entries) == 92
    by_episode = {f"tb{e['task_id']}-t{e['trial']}": e for e in entries}
    assert {line["episode"] for line in lines} == set(by_episode)
    flagged = 0
    for line in lines:
        entry = by_episode[line["episode"]]
        assert line["task_id"] == entry["tau2_task_id"] and line["trial"] == entry["trial"]
        assert line["proxy"] == "taubench-gpt4o-airline" and line["reward"] == entry["reward"]
        failed = {c["id"] for c in line["criteria"] if c["verdict"] == "fail"}
        assert line["ufs_pass"] is (False if failed else True)
        assert sum(line["failures_per_family"].values()) == len(failed)
        assert {flag["criterion"] for flag in line["flags"]} == failed  # every failure was logged as it happened
        for flag in line["flags"]:
            said = entry["traj"][flag["message_index"]]
            assert said["role"] == "user" and said["content"] == flag["user_text"]
            assert set(flag) == {"mode", "criterion", "verdict", "message_index", "user_text"}
            flagged += 1
        assert line["turns"] == sum(m["role"] == "assistant" for m in entry["traj"])
        assert line["agent_tool_calls"] == sum(len(m.get("tool_calls") or ()) for m in entry["traj"])
    assert flagged and any(line["ufs_pass"] for line in lines)


def test_real_trajectories_replayed_in_the_env_get_the_same_verdicts(real) -> None:
    """The env itself, its user replaying GPT-4o's turns and its agent replaying the recorded
    agent's actions, reaches the verdicts the scorer reads off the file."""
    from userbench_env.envs.conversation import ConversationEnv
    from userbench_env.fidelity.transcripts.taubench import one_instruction
    from userbench_env.proxies.replay import ReplayUserProxy

    entries, lines = real
    scored = {line["episode"]: line for line in lines}
    compared = 0
    for entry in entries[::9]:
        traj = entry["traj"]
        user = ReplayUserProxy([{"text": m["content"]} for m in traj if m["role"] == "user"])
        env = ConversationEnv("airline", task_source="tau2", task_id=entry["tau2_task_id"], user_proxy=user,
                              max_errors=1000)
        env.tasks = [one_instruction(task) for task in env.tasks]  # its user briefed as tau-bench's was
        env.reset(seed=0)
        info: dict = {}
        for message in traj:
            if message["role"] != "assistant":
                continue
            calls = [{"name": c["function"]["name"], "arguments": json.loads(c["function"]["arguments"])}
                     for c in message.get("tool_calls") or ()]
            _, _, terminated, truncated, info = env.step(calls or message["content"])
            if terminated or truncated:
                break
        if "episode_record" not in info:  # the conversation ended on the agent's turn: end it as the env would
            _, info = env.end_episode("max_turns")
        line = scored[f"tb{entry['task_id']}-t{entry['trial']}"]
        assert info["episode_record"]["criteria"] == line["criteria"], line["episode"]
        compared += 1
    assert compared >= 10


def test_taubench_entries_without_a_tau2_id_are_matched_or_refused_in_one_line() -> None:
    tau2_data()
    entries = json.loads((real_transcripts() / REAL).read_text(encoding="utf-8"))
    index = TaskIndex.from_source("airline", "tau2")
    matched = refused = 0
    for entry in entries:
        brief = entry["info"]["task"]
        try:
            task = index.match(brief["user_id"], brief["instruction"])
        except UnknownTask as exc:
            assert "\n" not in str(exc) and "ambiguous" in str(exc) and brief["user_id"] in str(exc)
            refused += 1
            continue
        assert task.id == entry["tau2_task_id"], entry["task_id"]  # never a wrong task
        matched += 1
    assert matched >= 60 and refused >= 1  # 76 and 16 (4 of the 23 tasks) today


def test_report_and_frontier_read_a_scored_file(real, tmp_path, capsys) -> None:
    _, lines = real
    out = tmp_path / "f.jsonl"
    out.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    capsys.readouterr()
    assert main(["report", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    [row] = report["proxies"]
    passed = sum(line["ufs_pass"] for line in lines)
    assert row["proxy"] == "taubench-gpt4o-airline" and row["n"] == 92 and row["ufs"] == pytest.approx(passed / 92)
    assert {f["family"] for f in report["families"]} >= {"premature_disclosure", "goal_deviation"}
    assert main(["frontier", str(out)]) == 0
    assert "taubench-gpt4o-airline" in capsys.readouterr().out


def test_a_judge_grades_what_the_rules_could_not_decide(tmp_path, monkeypatch) -> None:
    """With ``--judge``, the rule verdicts a rule marked ambiguous go to the judge (over real
    HTTP to the local server) as in the env; the flags then carry the judge's final verdict."""
    from userbench_env.serve import CannedResponder, ChatServer

    tau2_data()
    entries = json.loads((real_transcripts() / REAL).read_text(encoding="utf-8"))
    every = tmp_path / "all.json"
    every.write_text(json.dumps(entries), encoding="utf-8")
    common = ["--format", "taubench", "--domain", "airline", "--source", "tau2"]
    assert main(["score-transcripts", str(every), *common, "--out", str(tmp_path / "all.jsonl")]) == 0
    # the first trajectory holding a rule verdict its rule could not decide
    ruled = next(line for line in _lines(tmp_path / "all.jsonl") if any("ambiguous" in c for c in line["criteria"]))
    unsure = {c["id"] for c in ruled["criteria"] if "ambiguous" in c}
    path = tmp_path / "one.json"
    path.write_text(json.dumps([e for e in entries if f"tb{e['task_id']}-t{e['trial']}" == ruled["episode"]]), encoding="utf-8")
    args = ["score-transcripts", str(path), *common]
    monkeypatch.setenv("LOCAL_JUDGE_KEY", "sk-local")
    passed = json.dumps({"verdict": "pass", "evidence_turn": None, "reasoning": "The customer answered when asked."})
    with ChatServer(CannedResponder([passed])) as server:
        assert main([*args, "--out", str(tmp_path / "judged.jsonl"), "--judge", "openai/judge",
                     "--judge-base-url", server.base_url, "--judge-api-key-env", "LOCAL_JUDGE_KEY"]) == 0
        assert server.stats.requests == len(unsure)
    [judged] = _lines(tmp_path / "judged.jsonl")
    for criterion in judged["criteria"]:
        if criterion["id"] in unsure:
            assert criterion["verdict"] == "pass" and criterion["source"] == "judge" and "rule_verdict" in criterion
    assert all(flag["verdict"] == "pass" for flag in judged["flags"] if flag["criterion"] in unsure)


# -- the round trip: env runs -> tau2 results -> the env's verdicts -----------------------------
@pytest.mark.parametrize("domain", ["airline", "retail", "telecom", "banking"])
def test_an_exported_run_scores_back_to_the_envs_own_verdicts(domain, tmp_path) -> None:
    store = tmp_path / "runs.jsonl"
    run_eval(EvalConfig(proxies=["perturbed:all@0.5+scripted"], domains=[domain], limit=5, trials=2,
                        out=str(store), progress=False))
    records = {r["key"]: r for r in _lines(store)}
    assert sum(r["ufs_pass"] is False for r in records.values()) >= 2  # failures to reproduce
    results = tmp_path / "results.json"
    assert main(["export", "--format", "tau2", str(store), "--out", str(results)]) == 0
    exported = json.loads(results.read_text(encoding="utf-8"))
    assert len(exported["simulations"]) == len(records)
    if domain == "telecom":  # the user's own tool calls travel too
        assert any(m["role"] == "user" and m["tool_calls"] for s in exported["simulations"] for m in s["messages"])
    back = tmp_path / "back.jsonl"
    assert main(["score-transcripts", str(results), "--format", "tau2", "--domain", domain, "--out", str(back)]) == 0
    lines = {line["episode"]: line for line in _lines(back)}
    assert set(lines) == set(records)
    for key, record in records.items():
        line = lines[key]
        assert (line["criteria"], line["ufs_pass"], line["failures_per_family"]) == \
            (record["criteria"], record["ufs_pass"], record["failures_per_family"]), key
        assert line["proxy"] == record["proxy"] and line["reward"] == record["reward"]
        counters = ("turns", "agent_tool_calls", "user_tool_calls", "tool_errors", "agent_questions")
        assert {c: line[c] for c in counters} == {c: record[c] for c in counters}, key


def test_a_tau2_run_scores_back_from_the_tasks_in_its_file(tmp_path) -> None:
    tau2_data()
    store = tmp_path / "runs.jsonl"
    run_eval(EvalConfig(proxies=["perturbed:all@0.5+scripted"], domains=["airline"], source="tau2", limit=4,
                        out=str(store), progress=False))
    results = tmp_path / "results.json"
    assert main(["export", "--format", "tau2", str(store), "--out", str(results)]) == 0
    back = tmp_path / "back.jsonl"
    assert main(["score-transcripts", str(results), "--format", "tau2", "--domain", "airline", "--file-tasks",
                 "--out", str(back)]) == 0
    records = {r["key"]: r for r in _lines(store)}
    for line in _lines(back):
        assert line["criteria"] == records[line["episode"]]["criteria"] and line["source"] == "file"


def test_export_of_a_store_with_several_proxies_names_the_flag(tmp_path, capsys) -> None:
    store = tmp_path / "runs.jsonl"
    run_eval(EvalConfig(proxies=["scripted", "perturbed:all@0.5+scripted"], domains=["airline"], limit=1,
                        out=str(store), progress=False))
    capsys.readouterr()
    assert main(["export", "--format", "tau2", str(store)]) == 2
    assert "pass --proxy" in capsys.readouterr().err
    assert main(["export", "--format", "tau2", str(store), "--proxy", "scripted"]) == 0
    assert len(json.loads(capsys.readouterr().out)["simulations"]) == 1


# -- a hand-made tau2 results file ------------------------------------------------------------
GREETING = {"role": "assistant", "content": "Hi! How can I help you today?", "turn_idx": 0}
OPENING = {"role": "user", "content": "I want to book a flight from New York to Seattle on May 20."}
ASK = "Could you tell me your user id, please?"
ANSWER = {"role": "user", "content": "Sure, my user id is mia_li_3668."}


def _results(*simulations: dict) -> dict:
    return {"timestamp": "2025-06-01T00:00:00", "info": {"user_info": {"implementation": "user_simulator",
            "llm": "gpt-4.1"}, "agent_info": {"implementation": "llm_agent", "llm": "gpt-4.1"},
            "environment_info": {"domain_name": "airline"}}, "tasks": [], "simulations": list(simulations)}


def _simulation(sim_id: str, messages: list[dict], task_id: str = "20") -> dict:
    return {"id": sim_id, "task_id": task_id, "trial": 0, "termination_reason": "user_stop",
            "reward_info": {"reward": 1.0}, "user_cost": 0.01, "messages": messages}


def _score(tmp_path: Path, results: dict, **choice) -> tuple[dict[str, dict], list]:
    path = tmp_path / "results.json"
    path.write_text(json.dumps(results), encoding="utf-8")
    scored = score_file(path, "tau2", TaskChoice("airline", **{"source": "tau2", **choice}))
    return {line["episode"]: line for line in scored.lines}, scored.skipped


def test_text_beside_a_tool_call_is_not_shown_to_the_user(tmp_path) -> None:
    """The agent's question travels beside two tool calls (answered by one multi-tool message):
    the user never saw it, so its answer volunteers the id; asked in its own message, it does not."""
    tau2_data()
    beside = [GREETING, OPENING,
              {"role": "assistant", "content": ASK, "tool_calls": [
                  {"id": "c1", "name": "list_all_airports", "arguments": {}, "requestor": "assistant"},
                  {"id": "c2", "name": "get_flight_status", "arguments": {"flight_number": "HAT136", "date": "2024-05-20"},
                   "requestor": "assistant"}]},
              {"role": "tool", "tool_messages": [
                  {"role": "tool", "id": "c1", "content": "{}", "requestor": "assistant"},
                  {"role": "tool", "id": "c2", "content": "available", "requestor": "assistant"}]},
              {"role": "assistant", "content": "Thank you for waiting."},
              ANSWER]
    asked = [GREETING, OPENING, {"role": "assistant", "content": ASK}, ANSWER]
    lines, skipped = _score(tmp_path, _results(_simulation("beside", beside), _simulation("asked", asked)))
    assert skipped == []
    [flag] = lines["beside"]["flags"]
    assert flag == {"mode": "volunteers_unasked_info", "criterion": "premature_disclosure/user_id", "verdict": "fail",
                    "message_index": 5, "user_text": ANSWER["content"]}
    assert lines["beside"]["agent_tool_calls"] == 2 and lines["beside"]["turns"] == 2
    assert lines["asked"]["flags"] == [] and lines["asked"]["ufs_pass"] is True
    # the same conversation with the multi-tool message flattened into two tool messages
    flat = beside[:3] + beside[3]["tool_messages"] + beside[4:]
    lines_flat, _ = _score(tmp_path, _results(_simulation("beside", flat)))
    assert lines_flat["beside"]["criteria"] == lines["beside"]["criteria"]
    assert lines_flat["beside"]["flags"][0]["message_index"] == 6


def test_the_users_own_tool_calls_and_results_are_fed_as_the_users(tmp_path) -> None:
    """A user text quoting the user's own tool result is reported evidence: the quoted id is
    not volunteered. The call sits in a ``user`` message (tau2 defaults a call's requestor to
    ``assistant``; the message's role decides) and its result comes back with requestor user."""
    tau2_data()
    profile = "Profile: name Mia Li, user id mia_li_3668, member since 2021"
    quoting = {"role": "user", "content": f"I want to book a flight. {profile}"}
    own_call = [GREETING,
                {"role": "user", "content": None, "tool_calls": [{"id": "u1", "name": "check_profile", "arguments": {}}]},
                {"role": "tool", "id": "u1", "content": profile, "requestor": "user", "error": False},
                quoting]
    no_call = [GREETING, quoting]
    lines, skipped = _score(tmp_path, _results(_simulation("own", own_call), _simulation("none", no_call)))
    assert skipped == []
    assert lines["own"]["user_tool_calls"] == 1 and lines["own"]["agent_tool_calls"] == 0
    assert [f["criterion"] for f in lines["own"]["flags"]] == []
    assert "premature_disclosure/user_id" in [f["criterion"] for f in lines["none"]["flags"]]


# -- bad input ------------------------------------------------------------------------------
def test_a_file_of_the_other_format_is_one_line(tmp_path, capsys) -> None:
    tau2_data()
    taubench_list = tmp_path / "list.json"
    taubench_list.write_text(json.dumps([{"task_id": 0, "trial": 0, "traj": []}]), encoding="utf-8")
    results = tmp_path / "results.json"
    results.write_text(json.dumps(_results()), encoding="utf-8")
    for path, fmt, says in ((taubench_list, "tau2", "use --format taubench"), (results, "taubench", "use --format tau2")):
        capsys.readouterr()
        assert main(["score-transcripts", str(path), "--format", fmt, "--domain", "airline", "--source", "tau2",
                     "--out", str(tmp_path / "o.jsonl")]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and says in err and str(path) in err


def test_bad_entries_are_skipped_one_line_each_and_strict_fails(tmp_path, capsys) -> None:
    tau2_data()
    good = _simulation("good", [GREETING, OPENING, {"role": "assistant", "content": ASK}, ANSWER])
    unknown = _simulation("unknown", [GREETING, OPENING], task_id="999")
    malformed = _simulation("malformed", [GREETING, {"role": "robot", "content": "beep"}])
    orphan = _simulation("orphan", [GREETING, {"role": "tool", "id": "nowhere", "content": "x", "requestor": "assistant"}])
    path = tmp_path / "results.json"
    path.write_text(json.dumps(_results(good, unknown, malformed, orphan)), encoding="utf-8")
    out = tmp_path / "o.jsonl"
    args = ["score-transcripts", str(path), "--format", "tau2", "--domain", "airline", "--source", "tau2", "--out", str(out)]
    capsys.readouterr()
    assert main(args) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert [line["episode"] for line in _lines(out)] == ["good"]
    skipped = [line for line in err if "skipped " in line and str(path) in line]
    assert len(skipped) == 3
    assert "simulation 1 (id unknown)" in skipped[0] and "'999'" in skipped[0]
    assert "simulation 2 (id malformed)" in skipped[1] and "malformed: messages.1.role" in skipped[1]
    assert "episode orphan" in skipped[2] and "answers no pending tool call" in skipped[2]
    assert "skipped 3" in err[-1]
    out.unlink()
    assert main([*args, "--strict"]) == 2
    assert "3 entries could not be scored (--strict)" in capsys.readouterr().err and not out.exists()


def test_a_malformed_taubench_entry_is_skipped_and_the_rest_scored(tmp_path) -> None:
    tau2_data()
    entries = json.loads((real_transcripts() / REAL).read_text(encoding="utf-8"))[:3]
    broken = copy.deepcopy(entries[1])
    call = next(m for m in broken["traj"] if m.get("tool_calls"))
    call["tool_calls"][0]["function"]["arguments"] = "{not json"
    unknown = copy.deepcopy(entries[2])
    unknown["tau2_task_id"] = "no-such-task"
    path = tmp_path / "list.json"
    path.write_text(json.dumps([entries[0], broken, unknown]), encoding="utf-8")
    scored = score_file(path, "taubench", TaskChoice("airline", source="tau2"))
    assert [line["episode"] for line in scored.lines] == [f"tb{entries[0]['task_id']}-t{entries[0]['trial']}"]
    assert [bad.entry.split(" (")[0] for bad in scored.skipped] == ["entry 1", "entry 2"]
    assert "arguments that are not JSON" in scored.skipped[0].reason
    assert "'no-such-task'" in scored.skipped[1].reason
