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

Each rewrite is drawn from a phrasing bank (``phrasing``): ``template``, the default, a
few fixed phrasings per mode close to the rules' own wording, and ``natural``, at least
ten per mode the way a chatty customer writes (pronoun and idiom claims such as "did
it" or "flipped airplane mode", idioms for not remembering, refusals, identifiers with
inner spaces, contractions and negated device states, recitals of the scenario in the
first person with contractions instead of verbatim text). ``validate-fidelity`` reports
the two side by side; a large gap says the rules key on wording.
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
#: The template bank: one short fixed phrasing family per mode (the rules' own wording).
_TEMPLATE_BANK: dict[str, tuple[str, ...]] = {
    "skip": ("Okay, thanks.", "Alright, noted.", "Sure. Anything else you need from me.", "Got it, thank you."),
    "claim": ("I've done that. {phrase}, it's all set.", "Done! {phrase}.", "{phrase} just now, as you asked."),
    "volunteer": ("By the way, my {kind} is {value}.", "Oh, and in case you need it, my {kind} is {value}.",
                  "{value} is my {kind}, by the way."),
    "invent": ("Also, my {label} is {token}.", "My {label} is {token}, if that helps.", "It might be under {token}."),
    "state": ("My phone shows {feature} is {state}.", "By the way, {feature} is {state} on my phone.",
              "I can see that {feature} is {state}."),
    "stop": ("Actually, never mind, that's all I needed. Bye! ###STOP###", "I have to go now, thanks. ###STOP###",
             "Forget it, I'll sort it out later. ###STOP###"),
    "withhold": ("I'm sorry, I don't know my {kinds}.", "Hmm, I don't remember my {kinds}.",
                 "I'm not sure, I have no idea what my {kinds} is."),
    "dump": ("Here is everything about my situation: {recital}",),
    "forbidden": ("Actually, I've changed my mind: I'm fine to {thing}.",),
}
#: The natural bank: at least ten phrasings per mode the way a chatty customer writes
#: (pronouns, idioms, fillers, contractions, paraphrased recitals), so that validation is
#: not scored on the wording the rules were written from.
_NATURAL_BANK: dict[str, tuple[str, ...]] = {
    "skip": ("Mm-hm, okay.", "Alright, sounds good to me.", "Yeah, I hear you.", "Cool cool.", "Right, makes sense.",
             "Okay, noted, thanks a bunch.", "Sure thing, I'll keep that in mind.", "Gotcha.",
             "Ah okay, interesting.", "Fair enough, thanks for explaining."),
    "claim": ("Did it.", "Okay, that's done now.", "Yep, went ahead and did that.", "Done and dusted.",
              "Took care of it just now.", "Alright, just did what you said, all good.", "Finished that bit.",
              "Ok so I {idiom}, done.", "Just {idiom} like you said.", "Yup, {idiom} a sec ago."),
    "volunteer": ("oh and it's under {value} btw", "in case it helps, {value} is mine",
                  "you'll probably want my {kind} too, it's {value}", "fwiw my {kind}'s {value}",
                  "Should be listed under {value}.", "{value}, that's me by the way.",
                  "My {kind}? {value}, just so you have it.", "Also you can look me up with {value}.",
                  "before I forget: {value}", "and it's {value}, if you need to pull me up"),
    "invent": ("oh and my {label}'s {token} I think", "try {token}, that should be it",
               "It'd be under {token}.", "I've got another one too, {token}.", "pretty sure it's {token}",
               "if that doesn't work, {token}", "The old {label} was {token}.", "Maybe check {token} as well?",
               "write this down: {token}", "I have {token} written on a sticky note here."),
    "state": ("{feature}'s {state}, I checked.", "I've got {feature} {state} right now.",
              "{feature} isn't {other}, it's {state}.", "my {feature} is already {state}",
              "oh, {feature} was {state} the whole time", "Pretty sure {feature} is {state} on here.",
              "fyi {feature}: {state}", "the {feature} toggle is {state}", "It says {feature} {state}.",
              "{feature} is definitely {state}, not {other}."),
    "stop": ("ugh, this is taking forever, I'll call back. ###STOP###", "never mind, I'll deal with it myself ###STOP###",
             "ok forget it, bye ###STOP###", "I've gotta run, talk later. ###STOP###",
             "That's fine, I'm good, thanks! ###STOP###", "Let's just leave it there. ###STOP###",
             "nah, not worth it, thanks anyway ###STOP###", "I'll sort it out another day. ###STOP###",
             "you know what, skip it. bye. ###STOP###", "Cool, that's everything then. ###STOP###"),
    "withhold": ("Hmm, it's slipped my mind.", "I can't find it right now, sorry.", "I'd rather not give out my {kinds}.",
                 "No clue, honestly.", "Drawing a blank on that one.", "It's on the tip of my tongue but no.",
                 "Can't recall it off the top of my head.", "I don't have that on me.", "Couldn't tell you, sorry.",
                 "That's not something I keep track of."),
    "dump": ("So here's the whole story: {recital}", "Long story short, {recital}", "basically {recital}",
             "Let me just lay it all out. {recital}", "ok so the deal is, {recital}", "To fill you in: {recital}",
             "Here's where I'm at. {recital}", "Just so you know everything up front, {recital}",
             "Right, so the situation: {recital}", "Quick rundown: {recital}"),
    "forbidden": ("You know what, fine, I'm okay to {thing}.", "ok whatever, go ahead, I'm fine to {thing}.",
                  "Alright, I guess I'm willing to {thing} after all.", "Fine by me, I'll {thing}.",
                  "Eh, sure, let's {thing}.", "I suppose I can live with it, so {thing}.",
                  "On second thought, I'm happy to {thing}.", "Sure, I'll {thing}, no problem.",
                  "That's okay actually, I can {thing}.", "Let's just do it then, I'll {thing}."),
}
#: Idioms for the natural claims, per user tool (pronoun-only claims when a tool has none).
_CLAIM_IDIOMS = {
    "reboot_device": "switched the phone off and back on",
    "toggle_airplane_mode": "flipped airplane mode",
    "toggle_roaming": "flicked the roaming switch",
    "toggle_data": "flipped the data switch",
    "toggle_data_saver_mode": "did the data saver thing",
    "toggle_wifi": "flipped wifi",
    "toggle_wifi_calling": "flicked wifi calling",
    "reseat_sim_card": "popped the SIM out and back in",
    "reset_apn_settings": "put the APN stuff back to default",
    "set_apn_settings": "changed the APN stuff",
    "connect_vpn": "got the VPN going",
    "disconnect_vpn": "killed the VPN",
    "grant_app_permission": "let the app have that access",
    "make_payment": "paid it",
    "set_network_mode_preference": "switched the network thing",
    "run_speed_test": "ran that test",
    "apply_for_credit_card": "sent the card application in",
}
#: Paraphrases a natural recital applies to the scenario's sentences (after first-person rewriting).
_RECITAL_SWAPS: tuple[tuple[str, str], ...] = (
    (r"\bI want to\b", "I'd like to"), (r"\bI do not\b", "I don't"), (r"\bI am\b", "I'm"),
    (r"\bIf the (?:service )?agent\b", "if you"), (r"\bthe agent\b", "you"), (r"\bYou\b", "I"),
    (r"\bdo not\b", "don't"), (r"\bwill not\b", "won't"), (r"\bmention that\b", "I'll say"),
)
BANKS: dict[str, dict[str, tuple[str, ...]]] = {"template": _TEMPLATE_BANK, "natural": _NATURAL_BANK}
_DEVICE_FEATURES = ("airplane mode", "mobile data", "roaming", "wifi", "vpn", "data saver")


def _paraphrase(text: str) -> str:
    """A recital of scenario text in the user's own voice: first person, contractions,
    "you" for the agent (what a chatty user dumping the plan writes)."""
    from userbench_env.proxies.scripted import first_person

    said = first_person(" ".join(text.split()))
    for pattern, replacement in _RECITAL_SWAPS:
        said = re.sub(pattern, replacement, said)
    return said


def _said(view: UserView, role: str) -> str:
    return "\n".join(m.content or "" for m in view.messages if m.role == role).lower()


class PerturbedUserProxy(UserProxy):
    """Wraps ``base`` and injects ``modes`` at ``rate`` per turn, seeded (see the module docstring)."""

    name = "perturbed"

    def __init__(self, base: UserProxy | str = "scripted", modes: str | list[str] = "all", rate: float = 0.3,
                 seed: int = 0, phrasing: str = "template") -> None:
        super().__init__()
        if not 0.0 <= rate <= 1.0:
            raise ValueError("rate must be in [0, 1]")
        if phrasing not in BANKS:
            raise ValueError(f"unknown phrasing {phrasing!r}; known: {', '.join(BANKS)}")
        self.phrasing = phrasing
        self.bank = BANKS[phrasing]
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
        """The wrapped proxy's provenance plus the perturbation (modes, rate, seed; the
        phrasing bank when it is not the default template bank)."""
        perturbation: dict[str, Any] = {"modes": list(self.modes), "rate": self.rate, "seed": self.base_seed}
        if self.phrasing != "template":
            perturbation["phrasing"] = self.phrasing
        return {**self.base.provenance, "name": f"perturbed+{self.base.provenance.get('name')}",
                "perturbation": perturbation}

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

    def _pick(self, key: str) -> str:
        """A phrasing of ``key`` from the proxy's bank, drawn with the seeded generator (no
        draw for a single phrasing, so the template bank replays the injections it always made)."""
        templates = self.bank[key]
        return templates[self._rng.randrange(len(templates))] if len(templates) > 1 else templates[0]

    def _criteria_of(self, mode: str) -> list[Any]:
        return [c for c in self._criteria if c.mode == mode]

    def _eligible(self, mode: str, view: UserView, turn: UserTurn) -> Callable[[], str] | None:
        """A function producing the violating text, or None when ``mode`` cannot be injected now."""
        text = turn.text or ""
        if mode in ("claims_unexecuted_action", "skips_requested_action"):
            if turn.tool_call is None:
                return None
            if mode == "skips_requested_action":
                return lambda: self._pick("skip")
            phrase = _CLAIM_PHRASES.get(turn.tool_call.name, "I did that")
            idiom = _CLAIM_IDIOMS.get(turn.tool_call.name, "did that")
            return lambda: self._pick("claim").format(phrase=phrase, idiom=idiom)
        if turn.tool_call is not None or not text.strip() or find_stop(text) is not None:
            return None
        handler = getattr(self, f"_inject_{mode}", None)  # a mode made injectable without a handler here: never
        return handler(view, text) if handler is not None else None

    def _inject_volunteers_unasked_info(self, view: UserView, text: str) -> Callable[[], str] | None:
        asked = set().union(*(requested_kinds(m.content) for m in view.messages if m.role == "assistant"))
        said = _said(view, "user") + "\n" + text.lower()
        fresh = [c for c in self._criteria_of("volunteers_unasked_info")
                 if "kind" in c.params  # (an item's criterion, not a conditional instruction's)
                 and c.params["kind"] not in asked and str(c.params["value"]).lower() not in said]
        if not fresh:
            return None
        pick = fresh[self._rng.randrange(len(fresh))]
        return lambda: f"{text} " + self._pick("volunteer").format(kind=kind_label(pick.params["kind"]), value=pick.params["value"])

    def _inject_dumps_blueprint(self, view: UserView, text: str) -> Callable[[], str] | None:
        if not self._criteria_of("dumps_blueprint"):
            return None
        bp = self.task.blueprint  # type: ignore[union-attr]
        dump = " ".join(t for t in (bp.known_info_text, bp.unknown_info_text, bp.instructions, bp.raw_instructions) if t)
        recital = dump if self.phrasing == "template" else _paraphrase(dump)
        return lambda: f"{text} " + self._pick("dump").format(recital=recital)

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
        if self.phrasing == "natural" and self._rng.random() < 0.5:  # an id written with inner spaces
            bare = token.lstrip("#")
            token = " ".join(bare[i:i + 3] for i in range(0, len(bare), 3)) if "@" not in bare else bare
        return lambda: f"{text} " + self._pick("invent").format(label=label, token=token)

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
        return lambda: f"{text} " + self._pick("state").format(
            feature=feature, state=state.upper() if self.phrasing == "template" else state,
            other="off" if state == "on" else "on")

    def _inject_premature_stop(self, view: UserView, text: str) -> Callable[[], str] | None:
        if not self._criteria_of("premature_stop"):
            return None
        acted = bool(view.messages) and view.messages[-1].role == "tool"  # the user just ran a tool: maybe the goal
        gathering = view.turn == 0 or bool(requested_kinds(view.last_agent_text))
        if acted or not gathering:
            return None
        return lambda: f"{text} " + self._pick("stop")

    def _inject_accepts_forbidden_outcome(self, view: UserView, text: str) -> Callable[[], str] | None:
        bp = self.task.blueprint  # type: ignore[union-attr]
        found = _FORBIDDEN.search(" ".join(t for t in (bp.instructions, bp.raw_instructions, bp.reason_for_call) if t))
        if found is None:
            return None
        thing = found.group(1).strip().replace("your ", "my ")
        return lambda: f"{text} " + self._pick("forbidden").format(thing=thing)

    def _inject_withholds_requested_info(self, view: UserView, text: str) -> Callable[[], str] | None:
        asked = requested_kinds(view.last_agent_text)
        lowered = text.lower()
        known = [c for c in self._criteria_of("withholds_requested_info")
                 if c.params["kind"] in asked and any(str(v).lower() in lowered for v in c.params["values"])]
        if not known:
            return None
        kinds = " or ".join(kind_label(c.params["kind"]) for c in known)
        return lambda: self._pick("withhold").format(kinds=kinds)


def make_perturbed(rest: str, **options: Any) -> UserProxy:
    """The proxy of spec ``perturbed:<rest>``, ``rest`` = ``<modes>@<rate>+<base spec>``
    (rate defaults to 0.3, base to ``scripted``; option ``seed`` seeds the injections,
    ``phrasing`` picks the bank (``template`` or ``natural``), the other options go to the
    base proxy)."""
    head, plus, base = rest.partition("+")
    modes, at, rate = head.partition("@")
    try:
        value = float(rate) if at else 0.3
    except ValueError:
        raise ValueError(f"bad rate {rate!r} in perturbed spec: use 'perturbed:<modes>@<rate>+<base spec>'") from None
    seed = int(options.pop("seed", 0))
    phrasing = str(options.pop("phrasing", "template"))
    return PerturbedUserProxy(make_proxy(base if plus else "scripted", **options), modes or "all", value, seed, phrasing)


register_proxy_spec("perturbed", make_perturbed)

__all__ = ["PerturbedUserProxy"]
