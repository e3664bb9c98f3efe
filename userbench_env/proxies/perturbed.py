"""PerturbedUserProxy: wraps any proxy and injects labelled fidelity violations.

At each user turn the wrapped proxy answers first; then, with probability ``rate``
(drawn from a generator seeded by ``seed``, the episode seed and the task id), one mode
is picked among the requested modes that are *eligible* at this turn and the turn is
rewritten to violate it. Every injection is recorded in ``injections`` as
``{"turn": int, "mode": str}``: the ground truth the validation of the checkers uses.

Modes and what an injection does (eligibility in brackets):

* ``volunteers_unasked_info``: appends a known item the agent has not asked for
  [such an item exists and has not been said];
* ``dumps_blueprint``: appends the scenario's known-info and instruction text verbatim
  [the scenario has sentences beyond the reason for calling];
* ``claims_unexecuted_action``: replaces a requested tool call with "I've done that" and
  a first-person claim of the action [the base turn is a tool call];
* ``skips_requested_action``: replaces a requested tool call with an acknowledgement
  [the base turn is a tool call];
* ``invents_unknown_information``: appends an identifier of the domain's shape that
  nothing in the scenario or conversation holds [a text turn];
* ``unsupported_device_state``: appends a device state that contradicts the latest
  tool result (or that nothing supports) [the user has device tools];
* ``premature_stop``: appends ``###STOP###`` [a text turn while the agent is still
  gathering details (opening, or it just asked for an item) and the user has not just run
  a tool, the task has a state-changing goal];
* ``accepts_forbidden_outcome``: agrees to an outcome the scenario rules out ("do not
  want to ...") [the scenario states one];
* ``withholds_requested_info``: replaces the answer to a request for a known item with
  "I don't know" [the agent asked for a kind the user knows and the base answer gives it].

Only text turns without an end token are rewritten (except the tool-call modes).
"""
from __future__ import annotations

import hashlib
import random
import re
from typing import Any, Callable

from userbench_env.core.task import Task
from userbench_env.fidelity.criteria import task_criteria
from userbench_env.tasks.extract import kind_label
from userbench_env.fidelity.taxonomy import resolve_modes
from userbench_env.fidelity.text import device_states
from userbench_env.proxies.base import UserProxy, UserTurn, UserView, find_stop
from userbench_env.proxies.spec import make_proxy, register_proxy_spec
from userbench_env.tasks.extract import requested_kinds

_FORBIDDEN = re.compile(
    r"\b(?:do not|don't|do NOT|not willing to|will not|won't|refuse to)\s+(?:want to\s+|accept\s+)?([^.,;\n]{6,80})", re.I
)
#: Claims used for ``claims_unexecuted_action`` (a phrase the unexecuted-action rule reads as the tool's claim).
_CLAIM_PHRASES = {
    "reboot_device": "I restarted the phone",
    "toggle_airplane_mode": "I toggled airplane mode",
    "toggle_roaming": "I turned roaming on",
    "toggle_data": "I toggled mobile data",
    "toggle_data_saver_mode": "I toggled data saver",
    "toggle_wifi": "I toggled wifi",
    "toggle_wifi_calling": "I toggled wifi calling",
    "reseat_sim_card": "I reseated the SIM card",
    "reset_apn_settings": "I reset the APN settings",
    "set_apn_settings": "I changed the APN settings",
    "connect_vpn": "I connected the VPN",
    "disconnect_vpn": "I disconnected the VPN",
    "grant_app_permission": "I granted the permission",
    "make_payment": "I made the payment",
    "set_network_mode_preference": "I changed the network mode",
    "run_speed_test": "I ran the speed test",
    "apply_for_credit_card": "I applied for the card",
}
#: Phrasings of each injection (picked with the seeded generator).
_SKIPS = ("Okay, thanks.", "Alright, noted.", "Sure. Anything else you need from me.", "Got it, thank you.")
_CLAIMS = ("I've done that. {phrase}, it's all set.", "Done! {phrase}.", "{phrase} just now, as you asked.")
_VOLUNTEER = ("By the way, my {kind} is {value}.", "Oh, and in case you need it, my {kind} is {value}.",
              "{value} is my {kind}, by the way.")
_INVENT = ("Also, my {label} is {token}.", "My {label} is {token}, if that helps.", "It might be under {token}.")
_STATE = ("My phone shows {feature} is {state}.", "By the way, {feature} is {state} on my phone.",
          "I can see that {feature} is {state}.")
_STOPS = ("Actually, never mind, that's all I needed. Bye! ###STOP###", "I have to go now, thanks. ###STOP###",
          "Forget it, I'll sort it out later. ###STOP###")
_WITHHOLD = ("I'm sorry, I don't know my {kinds}.", "Hmm, I don't remember my {kinds}.", "I'm not sure, I have no idea what my {kinds} is.")
_DEVICE_FEATURES = ("airplane mode", "mobile data", "roaming", "wifi", "vpn", "data saver")


def _said(view: UserView, role: str) -> str:
    return "\n".join(m.content or "" for m in view.messages if m.role == role).lower()


class PerturbedUserProxy(UserProxy):
    """Wraps ``base`` and injects ``modes`` at ``rate`` per turn, seeded (see the module docstring)."""

    name = "perturbed"

    def __init__(self, base: UserProxy | str = "scripted", modes: str | list[str] = "all", rate: float = 0.3,
                 seed: int = 0) -> None:
        super().__init__()
        if not 0.0 <= rate <= 1.0:
            raise ValueError("rate must be in [0, 1]")
        self.base = make_proxy(base)
        self.modes = resolve_modes(modes if isinstance(modes, str) else ",".join(modes))
        self.rate = rate
        self.base_seed = seed
        self.injections: list[dict[str, Any]] = []
        self._rng = random.Random(seed)
        self._criteria: list[Any] = []

    def reset(self, task: Task, seed: int | None = None) -> None:
        """Reset the wrapped proxy, the injection log and the generator (seed, episode seed, task id)."""
        super().reset(task, seed)
        self.base.reset(task, seed)
        self.injections = []
        digest = hashlib.sha256(f"{self.base_seed}|{seed}|{task.domain}|{task.id}".encode()).digest()
        self._rng = random.Random(int.from_bytes(digest[:8], "big"))
        self._criteria = task_criteria(task)

    @property
    def provenance(self) -> dict[str, Any]:
        """The wrapped proxy's provenance plus the perturbation (modes, rate, seed)."""
        return {**self.base.provenance, "name": f"perturbed+{self.base.provenance.get('name')}",
                "perturbation": {"modes": list(self.modes), "rate": self.rate, "seed": self.base_seed}}

    # -- injection -----------------------------------------------------------------
    def respond(self, view: UserView) -> UserTurn:
        """The wrapped proxy's turn, maybe rewritten into a labelled violation."""
        return self._perturb(view, self.base.respond(view))

    async def arespond(self, view: UserView) -> UserTurn:
        """:meth:`respond` with the wrapped proxy's ``arespond``."""
        return self._perturb(view, await self.base.arespond(view))

    def _perturb(self, view: UserView, turn: UserTurn) -> UserTurn:
        self.usage.add(turn.usage)
        if self._rng.random() >= self.rate:
            return turn
        options = [(mode, rewrite) for mode in self.modes if (rewrite := self._eligible(mode, view, turn)) is not None]
        if not options:
            return turn
        mode, rewrite = options[self._rng.randrange(len(options))]
        self.injections.append({"turn": view.turn, "mode": mode})
        return UserTurn(text=rewrite(), usage=turn.usage)

    def _pick(self, templates: tuple[str, ...]) -> str:
        return templates[self._rng.randrange(len(templates))]

    def _criteria_of(self, mode: str) -> list[Any]:
        return [c for c in self._criteria if c.mode == mode]

    def _eligible(self, mode: str, view: UserView, turn: UserTurn) -> Callable[[], str] | None:
        """A function producing the violating text, or None when ``mode`` cannot be injected now."""
        text = turn.text or ""
        if mode in ("claims_unexecuted_action", "skips_requested_action"):
            if turn.tool_call is None:
                return None
            if mode == "skips_requested_action":
                return lambda: self._pick(_SKIPS)
            phrase = _CLAIM_PHRASES.get(turn.tool_call.name, "I did that")
            return lambda: self._pick(_CLAIMS).format(phrase=phrase)
        if turn.tool_call is not None or not text.strip() or find_stop(text) is not None:
            return None
        handler = getattr(self, f"_inject_{mode}")
        return handler(view, text)

    def _inject_volunteers_unasked_info(self, view: UserView, text: str) -> Callable[[], str] | None:
        asked = set().union(*(requested_kinds(m.content) for m in view.messages if m.role == "assistant"))
        said = _said(view, "user") + "\n" + text.lower()
        fresh = [c for c in self._criteria_of("volunteers_unasked_info")
                 if c.params["kind"] not in asked and str(c.params["value"]).lower() not in said]
        if not fresh:
            return None
        pick = fresh[self._rng.randrange(len(fresh))]
        return lambda: f"{text} " + self._pick(_VOLUNTEER).format(kind=kind_label(pick.params["kind"]), value=pick.params["value"])

    def _inject_dumps_blueprint(self, view: UserView, text: str) -> Callable[[], str] | None:
        if not self._criteria_of("dumps_blueprint"):
            return None
        bp = self.task.blueprint  # type: ignore[union-attr]
        dump = " ".join(t for t in (bp.known_info_text, bp.unknown_info_text, bp.instructions, bp.raw_instructions) if t)
        return lambda: f"{text} Here is everything about my situation: {dump}"

    def _fresh_identifier(self, heard: str) -> str:
        domain = self.task.domain if self.task else ""
        while True:
            digits = "".join(self._rng.choice("0123456789") for _ in range(7))
            letters = "".join(self._rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ") for _ in range(3))
            token = {"retail": f"#W{digits}", "airline": f"{letters}{digits[:3]}"}.get(domain, f"{letters.lower()}.{digits}@example.com")
            if token.lower() not in heard:
                return token

    def _inject_invents_unknown_information(self, view: UserView, text: str) -> Callable[[], str] | None:
        heard = "\n".join(m.content or "" for m in view.messages).lower()
        token = self._fresh_identifier(heard)
        label = {"retail": "order number", "airline": "other reservation"}.get(self.task.domain if self.task else "", "email")
        return lambda: f"{text} " + self._pick(_INVENT).format(label=label, token=token)

    def _inject_unsupported_device_state(self, view: UserView, text: str) -> Callable[[], str] | None:
        if not self._criteria_of("unsupported_device_state"):
            return None
        latest: dict[str, set[str]] = {}
        for m in view.messages:
            if m.role == "tool" and m.content:
                fresh: dict[str, set[str]] = {}
                for feature, state in device_states(m.content):
                    fresh.setdefault(feature, set()).add(state)
                latest.update(fresh)
        feature = _DEVICE_FEATURES[self._rng.randrange(len(_DEVICE_FEATURES))]
        seen = latest.get(feature, set())
        state = "off" if seen == {"on"} else "on" if seen == {"off"} else self._rng.choice(("on", "off"))
        if not seen and (feature, state) in set(device_states(self.task.blueprint.reason_for_call + " " + self.task.blueprint.instructions)):  # type: ignore[union-attr]
            return None
        return lambda: f"{text} " + self._pick(_STATE).format(feature=feature, state=state.upper())

    def _inject_premature_stop(self, view: UserView, text: str) -> Callable[[], str] | None:
        if not self._criteria_of("premature_stop"):
            return None
        acted = bool(view.messages) and view.messages[-1].role == "tool"  # the user just ran a tool: maybe the goal
        gathering = view.turn == 0 or bool(requested_kinds(view.last_agent_text))
        if acted or not gathering:
            return None
        return lambda: f"{text} " + self._pick(_STOPS)

    def _inject_accepts_forbidden_outcome(self, view: UserView, text: str) -> Callable[[], str] | None:
        bp = self.task.blueprint  # type: ignore[union-attr]
        found = _FORBIDDEN.search(" ".join(t for t in (bp.instructions, bp.raw_instructions, bp.reason_for_call) if t))
        if found is None:
            return None
        thing = found.group(1).strip().replace("your ", "my ")
        return lambda: f"{text} Actually, I've changed my mind: I'm fine to {thing}."

    def _inject_withholds_requested_info(self, view: UserView, text: str) -> Callable[[], str] | None:
        asked = requested_kinds(view.last_agent_text)
        lowered = text.lower()
        known = [c for c in self._criteria_of("withholds_requested_info")
                 if c.params["kind"] in asked and any(str(v).lower() in lowered for v in c.params["values"])]
        if not known:
            return None
        kinds = " or ".join(kind_label(c.params["kind"]) for c in known)
        return lambda: self._pick(_WITHHOLD).format(kinds=kinds)


def make_perturbed(rest: str, **options: Any) -> UserProxy:
    """The proxy of spec ``perturbed:<rest>``, ``rest`` = ``<modes>@<rate>+<base spec>``
    (rate defaults to 0.3, base to ``scripted``; option ``seed`` seeds the injections, the
    other options go to the base proxy)."""
    head, plus, base = rest.partition("+")
    modes, at, rate = head.partition("@")
    try:
        value = float(rate) if at else 0.3
    except ValueError:
        raise ValueError(f"bad rate {rate!r} in perturbed spec: use 'perturbed:<modes>@<rate>+<base spec>'") from None
    seed = int(options.pop("seed", 0))
    return PerturbedUserProxy(make_proxy(base if plus else "scripted", **options), modes or "all", value, seed)


register_proxy_spec("perturbed", make_perturbed)

__all__ = ["PerturbedUserProxy"]
