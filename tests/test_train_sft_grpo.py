"""The SFT-then-GRPO pipeline end to end at smoke scale (markers ``slow`` and ``realmodel``).

Runs ``examples/train_sft_grpo.py`` on two train-split demonstrations, one SFT epoch of the
top two layers, one GRPO step (one task, two rollouts), and evaluates the SFT+GRPO
checkpoint on one TEST-split task through ``userbench models serve --model-dir`` and
``userbench eval``. Asserts the pipeline's contracts, never the model's quality:

* every phase ran and was timed; demonstrations are fidelity-gated records that call only
  the offered tool, under the compact system prompt;
* the checkpoints are saved directories the server loads (the eval reached the served
  policy: its record names ``direct:policy`` and has no infrastructure error);
* the evaluated task is from the test split and was never trained on; the eval used the
  training prompt and tools;
* a GRPO step logged its rollouts' R_tau, gated share, tokens and time.

Skipped (one-line reason) without torch/transformers/gguf or the model file.
"""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import resources
from userbench_env.tasks import load_tasks

pytestmark = [pytest.mark.slow, pytest.mark.realmodel]

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "train_sft_grpo.py"
TERMINATIONS = {"user_stop", "agent_stop", "max_turns", "too_many_errors", "error"}


def example_module():
    spec = importlib.util.spec_from_file_location("train_sft_grpo", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory):
    from userbench_env.serve.gguf import ModelNotInstalled, default_gguf_path

    for name in ("torch", "transformers", "gguf"):
        if importlib.util.find_spec(name) is None:
            resources.go_without(f"{name} is not installed: pip install -e '.[local]'", "local-model")
    try:
        default_gguf_path()
    except ModelNotInstalled as exc:
        resources.go_without(str(exc), "local-model")
    out = tmp_path_factory.mktemp("smoke")
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), "--out", str(out), "--train-tasks", "2", "--epochs", "1", "--train-layers", "2",
         "--grpo-steps", "1", "--group", "2", "--tasks-per-step", "1", "--eval", "sft-grpo", "--eval-limit", "1"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=3000)
    assert done.returncode == 0, done.stderr[-3000:]
    log = [json.loads(line) for line in (out / "log.jsonl").read_text().splitlines()]
    return out, log


def test_every_phase_ran_and_was_timed(smoke_run) -> None:
    _, log = smoke_run
    timed = {e["phase"] for e in log if e.get("event") == "done" and e.get("seconds", -1) >= 0}
    assert {"demonstrations", "load", "sft", "grpo", "eval-sft-grpo"} <= timed
    assert log[-1]["phase"] == "end"
    sft = [e for e in log if e["phase"] == "sft" and "step" in e]
    assert sft and all(e["loss"] > 0 and e["tokens"] > 0 for e in sft)
    grpo = [e for e in log if e["phase"] == "grpo" and "step" in e]
    assert len(grpo) == 1 and 0.0 <= grpo[0]["r_tau"] <= 1.0 and 0.0 <= grpo[0]["gated_share"] <= 1.0
    assert grpo[0]["tokens"] > 0 and grpo[0]["seconds"] > 0


def test_demonstrations_are_gated_and_use_the_offered_tools(smoke_run) -> None:
    out, _ = smoke_run
    example = example_module()
    records = [json.loads(line) for line in (out / "demonstrations.jsonl").read_text().splitlines()]
    assert len(records) == 2
    for record in records:
        assert record["r_tau"] == 1.0 and record["ufs_pass"] is True
        assert record["messages"][0] == {"role": "system", "content": example.SYSTEM_PROMPT}
        assert [t["function"]["name"] for t in record["tools"]] == example.TOOLS
        calls = [c["function"]["name"] for m in record["messages"] for c in m.get("tool_calls") or []]
        assert calls and set(calls) <= set(example.TOOLS)


def test_the_served_checkpoint_was_evaluated_on_an_unseen_test_task(smoke_run) -> None:
    out, log = smoke_run
    example = example_module()
    for name in ("sft", "sft-grpo"):
        assert (out / name / "config.json").is_file()
    records = [json.loads(line) for line in (out / "eval-sft-grpo.jsonl").read_text().splitlines()]
    assert len(records) == 1
    record = records[0]
    trained = {json.loads(line)["task_id"] for line in (out / "demonstrations.jsonl").read_text().splitlines()}
    assert record["task_id"] in {t.id for t in load_tasks("telecom", "bundled", "test")} and record["task_id"] not in trained
    assert record["agent"] == "direct:policy" and record["error"] is None and record["termination"] in TERMINATIONS
    command = next(e for e in log if e["phase"] == "eval-sft-grpo" and e.get("event") == "command")
    assert "--model-dir" in command["serve"] and str(out / "sft-grpo") in command["serve"]
    prompt_file = command["eval"][command["eval"].index("--agent-system-prompt") + 1]
    assert Path(prompt_file).read_text() == example.SYSTEM_PROMPT
    assert [command["eval"][i + 1] for i, a in enumerate(command["eval"]) if a == "--agent-tool"] == example.TOOLS
    finished = next(e for e in log if e["phase"] == "eval-sft-grpo" and e.get("event") == "finished")
    assert finished["exit"] == 0


def test_serving_a_folder_without_a_checkpoint_is_one_line_and_exit_2(tmp_path) -> None:
    done = subprocess.run([sys.executable, "-m", "userbench_env.cli", "models", "serve", "--model-dir", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 2 and "no config.json" in done.stderr and len(done.stderr.strip().splitlines()) == 1
