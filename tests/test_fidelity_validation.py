"""The perturbed proxy's ground truth and a reduced run of the checker validation (recall, false positives)."""
from __future__ import annotations

import json
from collections import Counter

import pytest

from userbench_env.cli import main
from userbench_env.envs.conversation import ConversationEnv
from userbench_env.fidelity.taxonomy import TAXONOMY, injectable_modes
from userbench_env.fidelity.validate import run_episode, validate_fidelity
from userbench_env.proxies import make_proxy
from userbench_env.proxies.perturbed import PerturbedUserProxy


def test_the_spec_string_builds_a_perturbed_proxy():
    proxy = make_proxy("perturbed:premature_disclosure,premature_stop@0.5+scripted", seed=3)
    assert isinstance(proxy, PerturbedUserProxy)
    assert proxy.modes == ["volunteers_unasked_info", "dumps_blueprint", "premature_stop"]
    assert proxy.rate == 0.5 and proxy.base.name == "scripted"
    assert make_proxy("perturbed:all").modes == injectable_modes()
    with pytest.raises(ValueError, match="bad rate"):
        make_proxy("perturbed:all@lots+scripted")


def _episode(spec, task_id: str, seed: int) -> tuple[dict, list]:
    env = ConversationEnv("retail", task_source="tau2", user_proxy=spec)
    episode = run_episode(env, task_id, seed=seed)
    return episode, [m.content for m in env.messages]


def test_injections_are_seeded_recorded_in_the_episode_and_detected():
    first, texts = _episode(PerturbedUserProxy("scripted", "all", 0.6, seed=5), "0", 11)
    again, texts_again = _episode(PerturbedUserProxy("scripted", "all", 0.6, seed=5), "0", 11)
    assert first["injections"] and first["injections"] == again["injections"] and texts == texts_again
    assert first["user_proxy"]["perturbation"] == {"modes": injectable_modes(), "rate": 0.6, "seed": 5}
    failed = {(c["mode"], c["evidence_turn"]) for c in first["criteria"] if c["verdict"] == "fail"}
    for injection in first["injections"]:
        if TAXONOMY[injection["mode"]].coverage == "rule":
            assert any(mode == injection["mode"] for mode, _ in failed), injection
    assert first["ufs_pass"] is False and sum(first["failures_per_family"].values()) >= 1
    clean, _ = _episode("scripted", "0", 11)
    assert "injections" not in clean and clean["ufs_pass"] is True


def test_reduced_validation_meets_the_acceptance_bars():
    injected: Counter[str] = Counter()
    detected: Counter[str] = Counter()
    clean = flagged = 0
    for domain, episodes in (("airline", 150), ("retail", 150), ("telecom", 150)):
        table = validate_fidelity(domain, "tau2", episodes=episodes, seed=7, rate=0.4)  # clean: every base task once
        for mode, row in table["modes"].items():
            if row["coverage"] == "rule":
                injected[mode] += row["injected"]
                detected[mode] += row["detected"]
            else:
                assert row["detected"] is None and row["recall"] is None  # judge-only, no judge configured
        clean += table["clean_episodes"]
        flagged += round(table["false_positive_rate"] * table["clean_episodes"])
    rule_injectable = [m for m in injectable_modes() if TAXONOMY[m].coverage == "rule"]
    assert all(injected[m] >= 20 for m in rule_injectable), injected
    for mode in rule_injectable:
        assert detected[mode] / injected[mode] >= 0.95, (mode, injected[mode], detected[mode])
    assert clean == 50 + 114 + 114 and flagged / clean <= 0.02


def test_the_cli_writes_the_table(tmp_path, capsys, tau2_data):
    out = tmp_path / "table.json"
    assert main(["validate-fidelity", "--domain", "telecom", "--source", "tau2", "--episodes", "6", "--seed", "1",
                 "--clean-episodes", "3", "--json", str(out)]) == 0
    table = json.loads(out.read_text())
    assert set(table) >= {"modes", "clean_episodes", "false_positive_rate"}
    assert table["clean_episodes"] == 3 and table["perturbed_episodes"] == 6
    for row in table["modes"].values():
        assert set(row) >= {"injected", "detected", "recall"}
    assert sum(row["injected"] for row in table["modes"].values()) >= 1
    assert "false-positive rate" in capsys.readouterr().out
