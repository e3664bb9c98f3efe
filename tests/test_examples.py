"""Every example runs offline (no API key) as a script and prints what it promises."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run(name: str, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    done = subprocess.run([sys.executable, str(EXAMPLES / name), *args], env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_eval_loop_runs_then_resumes(tmp_path) -> None:
    out = str(tmp_path / "runs.jsonl")
    first = run("eval_loop.py", "--out", out, "--limit", "2", "--domain", "airline")
    assert "ran 4, skipped 0, infrastructure errors 0" in first and "Per domain" in first
    assert "ran 0, skipped 4" in run("eval_loop.py", "--out", out, "--limit", "2", "--domain", "airline")


def test_gated_collection_counts_rejections() -> None:
    out = run("gated_collection.py", "--episodes", "8")
    kept, rejected = map(int, re.search(r"kept (\d+) rollouts, rejected (\d+)", out).groups())
    assert kept + rejected == 8 and rejected > 0


def test_proxy_selection_prints_choices_and_plot(tmp_path) -> None:
    out = run("proxy_selection.py", "--rollouts", "1000", "--plot", str(tmp_path / "f.png"))
    assert "dominated: self-hosted-8b" in out and "U*(0.9) = mid-api-model; epoch of 1000 rollouts: $4.00" in out
    assert (tmp_path / "f.png").read_bytes()[:4] == b"\x89PNG"


def test_tiny_rl_loop_learns_to_prefer_the_oracle() -> None:
    out = run("tiny_rl_loop.py", "--epochs", "4", "--episodes", "6")
    probabilities = [float(p) for p in re.findall(r"P\(oracle\) = ([\d.]+)", out)]
    assert probabilities[0] == 0.5 and probabilities[-1] > 0.6
