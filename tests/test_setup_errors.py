"""Setup mistakes a new user makes, each one line that says what to do (exit 2 on the
command line): serving a model without torch, the fidelity corpus without tau2's data,
a misspelt user-proxy option, an unknown task id (and ``userbench tasks``, which lists
the ids)."""
from __future__ import annotations

import sys

import gymnasium as gym
import pytest

import userbench_env  # noqa: F401  (registers the ids)
from userbench_env.cli import main
from userbench_env.datapaths import TAU2_ENV_VAR
from userbench_env.errors import TORCH_CPU_HINT, UnknownTaskId, UserError
from userbench_env.tasks import load_tasks


def _one_line(capsys, command: str) -> str:
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert out == "" and len(lines) == 1 and lines[0].startswith(f"userbench {command}: "), err
    return lines[0]


def test_models_serve_without_torch_names_the_cpu_build_and_the_extra(monkeypatch, capsys) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)  # as if torch were not installed
    assert main(["models", "serve", "--engine", "transformers", "--port", "0"]) == 2
    line = _one_line(capsys, "models")
    assert TORCH_CPU_HINT in line and '"userbench-env[local]"' in line and "'torch'" not in line


def test_the_corpus_without_tau2_data_is_one_line_saying_where_to_get_it(monkeypatch, capsys) -> None:
    monkeypatch.delenv(TAU2_ENV_VAR, raising=False)
    assert main(["validate-fidelity", "--corpus", "--episodes", "0"]) == 2
    line = _one_line(capsys, "validate-fidelity")
    assert f"{TAU2_ENV_VAR} is not set" in line and "tau2-bench" in line


@pytest.mark.parametrize("spec", ["litellm:openai/gpt-4.1", "direct:local",
                                  "perturbed:volunteers_unasked_info@1.0+litellm:openai/gpt-4.1"])
def test_a_misspelt_proxy_option_is_named_with_the_valid_ones(spec) -> None:
    options = {"temprature": 0.2, "base_url": "http://127.0.0.1:9/v1"}
    with pytest.raises(ValueError, match=r"unknown option\(s\) 'temprature' for the '(litellm|direct)' user proxy "
                                         r"\(user_proxy_options\); valid options: .*\btemperature\b") as caught:
        gym.make("UserBench/Airline-v0", user_proxy=spec, user_proxy_options=options)
    assert "model" not in str(caught.value).split("valid options: ")[1].split(", ")  # the spec sets the model


def test_a_correct_proxy_option_still_builds() -> None:
    env = gym.make("UserBench/Airline-v0", user_proxy="litellm:openai/gpt-4.1", user_proxy_options={"temperature": 0.2})
    assert env.unwrapped.user_proxy.temperature == 0.2


def test_an_unknown_task_id_names_the_listing_command_and_it_lists_the_ids(capsys) -> None:
    with pytest.raises(UnknownTaskId, match=r"no task 'nonsense' in airline \(bundled\): "
                                            r"`userbench tasks --domain airline --split all` lists") as caught:
        gym.make("UserBench/Airline-v0", task_id="nonsense")
    assert isinstance(caught.value, KeyError) and isinstance(caught.value, UserError)
    assert main(["tasks", "--domain", "airline", "--split", "all"]) == 0
    out, err = capsys.readouterr()
    listed = [line.split("\t")[0] for line in out.splitlines()]
    assert listed == [t.id for t in load_tasks("airline", split=None)] and f"{len(listed)} task(s)" in err
    env = gym.make("UserBench/Airline-v0")
    for task_id in (listed[0], listed[-1]):  # the listed ids are what an env takes
        assert env.reset(options={"task_id": task_id})[1]["task_id"] == task_id
    assert main(["tasks", "--domain", "airline", "--split", "train"]) == 0
    train = [line.split("\t") for line in capsys.readouterr()[0].splitlines()]
    assert train and all("train" in splits.split(",") for _, splits in train)


def test_an_unknown_surface_task_id_names_the_listing_command(capsys) -> None:
    env = gym.make("UserBench/Survey-v0", split="multi")
    with pytest.raises(UnknownTaskId, match=r"no survey task 'nonsense': `userbench tasks --surface survey` lists"):
        env.reset(options={"task_id": "nonsense"})
    assert main(["tasks", "--surface", "survey", "--split", "multi"]) == 0
    listed = capsys.readouterr()[0].split()
    assert listed and set(listed) == set(env.unwrapped.tasks)


def test_the_tasks_command_refuses_what_it_cannot_list(capsys) -> None:
    assert main(["tasks"]) == 2
    assert "--domain" in _one_line(capsys, "tasks")
    assert main(["tasks", "--surface", "web", "--split", "base"]) == 2
    assert "all, single, multi" in _one_line(capsys, "tasks")
    assert main(["tasks", "--domain", "nowhere"]) == 2
    _one_line(capsys, "tasks")
