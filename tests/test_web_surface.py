"""The web surface in real Chromium: the page as text with numbered controls (and
nothing hidden or internal), the five actions and their results, the invalid-streak
and step-cap stops, the Set-of-Marks Dict observation, check_env, the LLM persona
player over real HTTP, and our bundled web tasks."""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import userbench_env  # noqa: F401  (registers the env ids)
from userbench_env.serve import ChatServer, Reply
from userbench_env.surfaces.players import LLMPersonaPlayer, run_episode
from userbench_env.surfaces.tasks import SurfaceTask, TraitCheck, load_surface_tasks
from userbench_env.surfaces.web.actions import InvalidAction, parse_action
from userbench_env.surfaces.web.artifact import served_html
from userbench_env.surfaces.web.backend import WebBackend
from userbench_env.surfaces.web.generate import generate
from userbench_env.surfaces.web.player import ScriptedWebPlayer, choose_items
from userbench_env.surfaces.web.spec import WebOutput, WebSpec

pytestmark = pytest.mark.browser

PAGE = """<!DOCTYPE html><html><head><title>Controls</title></head><body>
<!-- secret-comment-ww -->
<header id="secret-id-zz" class="secret-class-qq" data-answer="secret-data-vv"><h1>Shop</h1></header>
<nav><a href="#top">Home</a></nav>
<ul><li>First point</li></ul>
<div class="item" data-id="i1" data-secret="true"><span class="name">Red apple</span><button class="add">Add</button></div>
<div class="item" data-id="i2"><span class="name">Green pear</span><button class="add">Add</button></div>
<label>Your name <input type="text" id="nm"></label>
<textarea placeholder="Anything else?"></textarea>
<label><input type="checkbox" checked> Gift wrap</label>
<label><input type="radio" name="m" value="a"> Collect</label><label><input type="radio" name="m" value="b"> Deliver</label>
<label for="sz">Size</label><select id="sz"><option>Small</option><option>Large</option></select>
<div role="button" tabindex="0" aria-label="Help">?</div>
<button disabled>Pay now</button>
<div style="display:none"><button>Hidden one</button>secret-hidden-text</div>
<div hidden>secret-hidden-attr</div><div aria-hidden="true">secret-aria-hidden</div>
<div style="visibility:hidden">secret-invisible</div>
<div style="height:2000px"></div><button id="far">Far below</button>
<ul id="cart-items"></ul>
<script>
document.querySelectorAll('button.add').forEach(function (b) { b.addEventListener('click', function () {
  var li = document.createElement('li'); li.setAttribute('data-id', b.parentElement.getAttribute('data-id'));
  li.textContent = b.parentElement.querySelector('.name').textContent; document.getElementById('cart-items').appendChild(li);
}); });
</script></body></html>"""


def _task(tmp_path: Path) -> SurfaceTask:
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    (site / "index.html").write_text(PAGE)
    return SurfaceTask(
        id="controls", source="bundled", surface="web",
        instruction="# Instruction\n\nBuy fruit.\n\n## Files (container runs)\n\n- write /app/output/x.json\n",
        checks=[TraitCheck(dimension_id="x", value="y", rule="avoid", label="secret")],
        web=WebSpec(site=str(site), notes=["You are shopping."],
                    outputs=[WebOutput(kind="dom", selector="#cart-items li", attr="data-id", key="orderedItemIds"),
                             WebOutput(kind="text", selector="#cart-items", key="cart_text")]),
    )


@pytest.fixture()
def backend():
    backend = WebBackend(max_steps=20)
    yield backend
    backend.close()


def _last(observation: str) -> str:
    """The latest entry of the observation's action history."""
    return observation.split("# Recent actions\n")[1].split("\n\n")[0].splitlines()[-1]


def test_page_text_controls_and_goal(tmp_path: Path, backend: WebBackend) -> None:
    obs = backend.reset(_task(tmp_path), None, 0)
    lines = obs.splitlines()
    assert lines[:2] == ["# Goal", "Buy fruit."]
    assert "- You are shopping." in lines and "write /app/output" not in obs and "Files" not in obs
    for expected in (
        "# Shop", '[1] link "Home"', "- First point", "Red apple",
        '[2] button "Add" for "Red apple"', '[3] button "Add" for "Green pear"',
        '[4] textbox "Your name" (empty)', '[5] textbox "Anything else?" (empty)',
        '[6] checkbox "Gift wrap" (checked)', '[7] radio "Collect" (not checked)', '[8] radio "Deliver" (not checked)',
        '[9] dropdown "Size" (selected: Small; options: Small | Large)', '[10] button "Help"',
        '[11] button "Pay now" (disabled)', '[12] button "Far below"',
    ):
        assert expected in lines, expected
    assert not re.search(r"secret|nm\b|sz\b|\bfar\b|class|data-", obs)
    assert "controls on screen: 1-11" in obs and "# Recent actions\nnone yet" in obs


def test_actions_and_results(tmp_path: Path, backend: WebBackend) -> None:
    backend.reset(_task(tmp_path), None, 0)
    steps = [
        {"action": "click", "ref": 2}, {"action": "type", "ref": 4, "text": "Sam"},
        {"action": "select", "ref": 9, "option": "large"}, {"action": "click", "ref": 8},
        {"action": "click", "ref": 11}, {"action": "select", "ref": 9, "option": "Huge"},
        {"action": "click", "ref": 10},
    ]
    for action in steps:
        result = backend.step("Sure! " + json.dumps(action))
        assert not result.done and not result.invalid
    history = result.observation.split("# Recent actions\n")[1].splitlines()
    assert history[:7] == [
        "1. click [2] -> ok", '2. type [4] "Sam" -> ok', '3. select [9] "large" -> ok', "4. click [8] -> ok",
        "5. click [11] -> failed: [11] is disabled",
        '6. select [9] "Huge" -> failed: no option "Huge"; options are: Small | Large',
        "7. click [10] -> ok (no visible change)",
    ]
    obs = result.observation
    assert '[4] textbox "Your name" (value: "Sam")' in obs and '(selected: Large;' in obs
    assert '[8] radio "Deliver" (checked)' in obs
    positions = []
    while len(positions) < 5:
        result = backend.step('{"action": "scroll", "direction": "down"}')
        positions.append(backend.snapshot.scroll_y)
        if _last(result.observation).endswith("(no visible change)"):
            break
    assert len(positions) >= 3 and positions[0] == 700 and positions[1] == 1400 and positions[-1] == positions[-2]
    assert "controls on screen: 12" in result.observation
    assert _last(backend.step('{"action": "scroll", "direction": "up"}').observation).endswith("scroll up -> ok")
    assert backend.artifact() == {"orderedItemIds": ["i1"], "cart_text": "Red apple"}


def test_invalid_streak_ends_the_episode(tmp_path: Path, backend: WebBackend) -> None:
    backend.reset(_task(tmp_path), None, 0)
    assert backend.step("I'd like the apple").invalid
    assert backend.step('{"action": "click", "ref": 2}').done is False  # a valid action resets the streak
    for reply in ('{"action": "click", "ref": 99}', '{"action": "type", "ref": 2, "text": "x"}'):
        result = backend.step(reply)
        assert result.invalid and not result.done
    result = backend.step('{"action": "fly"}')
    assert result.done and result.invalid
    assert result.observation.startswith("Stopped after 3 invalid actions in a row.")
    assert "invalid: there is no control [99] on the page" in result.observation
    assert "invalid: [2] is a button, not a text field" in result.observation
    assert backend.artifact() == {"orderedItemIds": ["i1"], "cart_text": "Red apple"}


def test_step_cap(tmp_path: Path) -> None:
    backend = WebBackend(max_steps=3)
    try:
        backend.reset(_task(tmp_path), None, 0)
        assert not backend.step('{"action": "scroll"}').done
        assert not backend.step('{"action": "scroll", "direction": "up"}').done
        result = backend.step('{"action": "click", "ref": 3}')
        assert result.done and result.observation.startswith("Step limit (3) reached.")
        assert backend.artifact()["orderedItemIds"] == ["i2"]
    finally:
        backend.close()


def test_click_on_a_covered_control_fails(tmp_path: Path, backend: WebBackend) -> None:
    task = _task(tmp_path)
    (Path(task.web.site) / "index.html").write_text(
        '<title>Veil</title><button>Under</button><div style="position:fixed;inset:0;background:#0004">Modal veil</div>')
    backend.reset(task, None, 0)
    result = backend.step('{"action": "click", "ref": 1}')
    assert _last(result.observation) == '1. click [1] -> failed: [1] is covered by another element ("Modal veil")'


@pytest.mark.parametrize("reply", ["no json here", '{"action": "click"}', '{"action": "scroll", "direction": "left"}',
                                   '{"action": "click", "ref": 0}', "[1, 2]"])
def test_unusable_replies_are_invalid(reply: str) -> None:
    with pytest.raises(InvalidAction):
        parse_action(reply)


def test_first_valid_object_wins() -> None:
    assert parse_action('{"note": 1} then {"action": "click", "ref": "[4]"} {"action": "done"}').ref == 4


def test_screenshot_observation_and_check_env(tmp_path: Path) -> None:
    env = gym.make("UserBench/Web-v0", tasks=[_task(tmp_path)], surface_options={"screenshot": True})
    try:
        obs, _ = env.reset(seed=0)
        assert isinstance(env.observation_space, gym.spaces.Dict)
        assert env.observation_space.contains(obs)
        image = obs["image"]
        assert image.shape == (900, 1280, 3) and image.dtype == np.uint8
        control = env.unwrapped.backend.snapshot.controls[1]  # [2] button "Add"
        x, y, _, h = (round(v) for v in control.box)
        assert tuple(image[y + h // 2, x]) == (0, 130, 200)  # the box outline in the colour of mark 2
        assert "Add" in obs["text"]
        obs, *_ = env.step('{"action": "scroll", "direction": "down"}')
        assert obs["image"].shape == (900, 1280, 3)
    finally:
        env.close()
    for kwargs in ({}, {"surface_options": {"screenshot": True}}):
        env = gym.make("UserBench/Web-v0", tasks=[_task(tmp_path)], **kwargs)
        try:
            check_env(env.unwrapped, skip_render_check=True)
        finally:
            env.close()


def test_check_env_on_bundled_tasks() -> None:
    env = gym.make("UserBench/Web-v0")
    try:
        check_env(env.unwrapped, skip_render_check=True)
    finally:
        env.close()


class WebResponder:
    """A stand-in model: clicks the first three "Add" controls it sees, then says done."""

    def reply(self, request: dict[str, Any]) -> Reply:
        last = request["messages"][-1]["content"]
        history = last.split("# Recent actions\n")[1]
        if history.count("-> ok") >= 3:
            return Reply(text='All set.\n{"action": "done"}')
        ref = re.search(r'^\[(\d+)\] button "Add (?!to)[^"]*"$', last, re.MULTILINE)
        return Reply(text=f'I will add this. {{"action": "click", "ref": {ref.group(1)}}}')


def test_llm_persona_player_drives_web(apb_sample: Path) -> None:
    with ChatServer(WebResponder()) as server:
        env = gym.make("UserBench/Web-v0", task_source="apb", path=str(apb_sample / "tasks"), task_id="vegan-web")
        player = LLMPersonaPlayer({"model": "openai/local-test", "base_url": server.base_url, "retries": 0, "timeout": 30})
        info = run_episode(env, player, seed=0)
        env.close()
        bodies = server.stats.bodies
    episode = info["episode_record"]
    assert episode["artifact"] == {"orderedItemIds": ["m01", "m02", "m03"]}
    assert episode["status"] == "fail" and episode["checks"][0]["offside"] == ["m01", "m03"]
    system = bodies[0]["messages"][0]["content"]
    assert "# Your profile" in system and "## How to use the website" in system
    assert '[3] button "Add Margherita pizza (mozzarella, basil)"' in bodies[0]["messages"][1]["content"]
    assert len(bodies) == 4 and info["turn"] == 4


def test_bundled_web_tasks_are_generated_and_well_formed(tmp_path: Path) -> None:
    tasks = load_surface_tasks("web")
    assert len(tasks) >= 50 and sum(t.multi for t in tasks) >= 10
    assert {t.web.page.template for t in tasks} == {"shop", "booking", "signup"}
    assert generate(tmp_path, seed=0) == len(tasks)  # the data is what the seeded generator writes
    bundled = Path(tasks[0].path).parent
    for task in tasks:
        assert (tmp_path / "web" / Path(task.path).name).read_text() == Path(task.path).read_text()
        html = served_html(task)
        assert set(re.findall(r"data-[a-z-]+", html)) <= {"data-id", "data-on", "data-off"}  # no label on the page
        assert len(choose_items(task, True)) == len(choose_items(task, False)) == 3
        assert task.persona_file and Path(task.persona_file).parent == bundled.parent / "personas"
    assert sorted(p.name for p in (tmp_path / "web").iterdir()) == sorted(p.name for p in bundled.iterdir())


@pytest.mark.parametrize("task_id", ["acad-algebra-web", "acad-chemistry-web", "att-animal-welfare-web",
                                     "multi-health-knee-injury--lstyle-diet-type-web"])
def test_bundled_tasks_hold_and_break_in_the_browser(task_id: str) -> None:
    env = gym.make("UserBench/Web-v0", task_id=task_id)
    try:
        task = env.unwrapped.tasks[task_id]
        for hold in (True, False):
            episode = run_episode(env, ScriptedWebPlayer(task, hold=hold), seed=0)["episode_record"]
            assert episode["status"] == ("pass" if hold else "fail"), (task.web.page.template, episode)
            assert episode["artifact"]["orderedItemIds"] == choose_items(task, hold)
            assert episode["artifact"]["state"] == {"submitted": False, "cart": choose_items(task, hold)}
    finally:
        env.close()
