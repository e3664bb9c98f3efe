"""A blind rating packet: chosen turns of hand-written scripts, each shown with its scenario
and the conversation up to it as the customer saw it, shuffled under opaque ids; and its key
(which script and turn each id is), kept from the raters (see ``rater_brief.md``).

Usage (with ``USERBENCH_TAU2_DATA`` set):
``python make_packet.py PACKET KEY SEED FILE:CASE_ID:TURN ...`` (``TURN``: the 0-based index
into the case's turns of the entry to label).
"""
from __future__ import annotations

import json
import random
import sys

from userbench_env.fidelity.corpus import load_corpus, replay_case, _env
from userbench_env.proxies.prompt import render_tau2_scenario


def conversation(path: str, case_id: str, turn: int) -> tuple[str, list[str], int]:
    """The scenario, the visible conversation up to the case's entry ``turn`` (agent texts,
    customer texts and tool calls, the results the customer saw) and that entry's number."""
    case = next(c for c in load_corpus(path) if c.id == case_id)
    replay_case(case.model_copy(update={"turns": case.turns[: turn + 1]}))
    core = _env(case).unwrapped
    task = core.task
    scenario = render_tau2_scenario(task.user_scenario) if task.user_scenario else task.blueprint.raw_instructions
    lines, number = [], 0
    for m in core.messages:
        if m.role == "assistant" and m.content:
            lines.append(f"AGENT: {m.content}")
        elif m.role == "user" and m.tool_calls:
            for call in m.tool_calls:
                number += 1
                lines.append(f"CUSTOMER [{number}] runs phone tool: {call.name} {json.dumps(call.arguments)}")
        elif m.role == "user" and m.content is not None:
            number += 1
            lines.append(f"CUSTOMER [{number}]: {m.content}")
        elif m.role == "tool" and m.requestor == "user":
            lines.append(f"   (the customer's phone shows: {m.content})")
    return scenario, lines, number


def main(argv: list[str]) -> None:
    packet, key, seed, specs = argv[0], argv[1], int(argv[2]), argv[3:]
    items = []
    for spec in specs:
        path, case_id, turn = spec.rsplit(":", 2)
        items.append((spec, *conversation(path, case_id, int(turn))))
    random.Random(seed).shuffle(items)
    with open(packet, "w", encoding="utf-8") as out, open(key, "w", encoding="utf-8") as keys:
        for i, (spec, scenario, lines, number) in enumerate(items, 1):
            out.write(f"{'=' * 70}\nITEM Q{i}\n-- The customer's scenario (what the simulated customer was told) --\n"
                      f"{scenario}\n-- The conversation so far (agent tool work the customer never sees is left out) --\n"
                      + "\n".join(lines) + f"\n-- Label CUSTOMER [{number}], the last customer entry above. --\n\n")
            keys.write(json.dumps({"item": f"Q{i}", "spec": spec}) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
