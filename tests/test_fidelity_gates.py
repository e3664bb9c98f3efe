"""The substring gates of the fidelity text readings only skip searches that cannot match.

Each gated reading must equal its plain regex reading on real task texts (every tau2
scenario sentence of three domains, asked back as a question) and on texts holding the
non-ASCII letters that case-insensitive matching equates with ASCII ones.
"""
from __future__ import annotations

import pytest

from userbench_env.fidelity import text as T
from userbench_env.fidelity.text import (
    ASK_GATES,
    asked_among,
    claims_done,
    denies,
    folded,
)
from userbench_env.tasks import load_tasks
from userbench_env.tasks.extract import ASK_PATTERNS, requested_kinds

_TRICKY = ["What is your \u0130D and ph\u0131ne?", "Your addre\u017fs, please?", "I d\u0131d that.", "DONE",
           "I DID IT", "Could you share your e-mail or postal code?", "I don't know my zip.", "\u212aeep your card?",
           "I've just re-inserted the SIM", "I turned on Wi-Fi calling.", "I RAN the speed test", "VPN: off"]


@pytest.fixture(scope="module")
def texts(tau2_data) -> list[str]:
    out = list(_TRICKY)
    for domain in ("airline", "retail", "telecom"):
        for task in load_tasks(domain, source="tau2", split=None):
            for sentence in T.scenario_text(task.blueprint).split("."):
                out += [sentence, f"Could you tell me {sentence}?", f"I did that. {sentence}"]
    return out


def test_ask_gates_cover_every_pattern():
    assert set(ASK_GATES) == set(ASK_PATTERNS)


def test_asked_among_equals_requested_kinds(texts):
    every = frozenset(ASK_PATTERNS)
    for text in texts:
        assert asked_among(text, every) == requested_kinds(text), text
        assert asked_among(text, frozenset({"name", "zip"})) == requested_kinds(text) & {"name", "zip"}, text


def test_fidelity_asks_are_asked_behind_their_gates(texts):
    for kind, (_, pattern) in T.FIDELITY_ASKS.items():
        for text in [*texts, "What is your annual income?", "How much do you make a year?", "Your SALARY, please?"]:
            assert (kind in asked_among(text, frozenset({kind}))) == (T.asks(text) and pattern.search(text) is not None), text


def test_gated_readings_equal_plain_regexes(texts):
    for text in texts:
        asked = [m.span() for m in T._YES_NO_QUESTION.finditer(text)]  # (a claim inside a yes/no question is asked)
        assert claims_done(text) == any(not any(start <= m.start() < end for start, end in asked)
                                        for m in T.GENERIC_CLAIM.finditer(text)), text
        assert denies(text.lower()) == (T.DENIAL.search(text.lower()) is not None), text
        assert T._CLAIM_START.search(text) is None or T._CLAIM_GATE.search(folded(text)) is not None, text
        assert T._FEATURE.search(text.lower()) is None or T.gated(T._FEATURE_GATES, text.lower()), text


def test_folded_maps_case_insensitive_letters():
    assert folded("\u0130D \u0131 \u017f \u212a") == "id i s k"
    assert folded("Plain ASCII") == "plain ascii"
