"""The user's actions on its side: ``claims_unexecuted_action`` (:class:`UnexecutedAction`),
``unsupported_device_state`` (:class:`DeviceState`), ``skips_requested_action``
(:class:`SkippedAction`) and ``unrequested_action`` (:class:`UnrequestedAction`), with the
agent's requests they read (:class:`_Requests`).
"""
from __future__ import annotations

import re

from functools import lru_cache
from typing import Any

from userbench_env.core.rubric import Criterion
from userbench_env.fidelity.language import clauses, content_stems, question_clauses
from userbench_env.fidelity.outcomes import hands_over, reports_done
from userbench_env.fidelity.text import (
    asks,
    claimed_actions,
    claims_done,
    device_states,
    GOAL_CHECK_TOOLS,
    lowered as lower,
    CHECK_TOOLS,
    past_device_states,
    PROBLEM_STATES,
    reported_checks,
    scenario_device_states,
    state_tools,
    STATE_TOOLS,
    ToolMentions,
)
from userbench_env.fidelity.rules.base import _NOTHING, _SENTENCES, register_rule, Rule
from userbench_env.tasks.extract import requested_kinds


#: Stems of how any request is phrased: never what a question about the request is about.
_REQUEST_WORDS = frozenset({"run", "side", "argument", "pleas", "tell", "let", "know", "need", "want", "tri", "go", "ahead"})


class _Requests(Rule):
    """Reads which user tools the agent asked for (by name, in its latest text, read
    lazily in :meth:`resolve`); ``params[tools_param]`` are the user's tool names."""

    #: the criterion parameter listing the tools this rule watches
    tools_param = "tools"

    @classmethod
    def compile(cls, criteria: list[Criterion]) -> tuple[list[str], ToolMentions]:
        tools = sorted({t for c in criteria for t in c.params.get(cls.tools_param, [])})
        return tools, ToolMentions(tools)

    def start(self) -> None:
        super().start()
        self.tools, self._mentions = self.compiled[:2]
        self.requested: frozenset[str] = frozenset()
        self.requested_at: dict[str, int] = {}
        self.request_words: frozenset[str] = frozenset()  # content stems of the latest request
        self._read = 0  # agent texts read

    def resolve(self) -> None:
        """Read the agent texts not read yet: ``requested`` (the user tools the latest one
        asks for) and ``requested_at`` (per tool, the clock of its latest request)."""
        agent = self.feed.agent
        for clock, _, text, _ in agent[self._read:]:
            self.requested, words = tool_request(self._mentions, text)
            for name in self.requested:
                self.requested_at[name] = clock
            if self.requested:
                self.request_words = words
        self._read = len(agent)


@lru_cache(maxsize=256)
def tool_request(mentions: ToolMentions, text: str) -> tuple[frozenset[str], frozenset[str]]:
    """(the tools of ``mentions`` an agent ``text`` asks for, the content stems of that
    request with the words of the tools' names and without how any request is phrased);
    both empty when it asks for none. Memoized per tool set and text."""
    requested = mentions.find(text) if asks(text) else _NOTHING
    if not requested:
        return requested, _NOTHING
    return requested, (content_stems(text) | content_stems(" ".join(requested).replace("_", " "))) - _REQUEST_WORDS


def claims_generically(text: str) -> bool:
    """True when ``text`` claims a done action without naming it: a generic claim ("flipped
    it", :func:`~userbench_env.fidelity.text.claims_done`) or the state of a device aspect
    some action sets reported without a question ("the VPN's off"; a symptom such as "no
    service" is none), unless it says the action is not done (:func:`says_not_done`). Such
    a claim answers the agent's latest request."""
    return ((claims_done(text) or (any(state_tools(f) for f, _ in device_states(text)) and not question_clauses(text)))
            and not says_not_done(text))


#: Finds the user tools a device state can be the outcome of in an agent's text.
_STATE_TOOL_MENTIONS = ToolMentions(STATE_TOOLS)


#: Saying an action is not done (yet) or not touched ("I didn't do the network one yet",
#: "haven't touched it"); a result that did not help ("it didn't work") is no such saying, nor
#: is a modal's or a present's "not", as their contractions are none, nor a passive's with its
#: doer ("that will not touch my photos", "it does not do anything", "my photos are not touched
#: by that": what an action does, not whether it was done).
_NOT_DONE = re.compile(r"\b(?:didn'?t|did not|haven'?t|have not|hasn'?t|has not|"
                       r"(?<!will )(?<!would )(?<!shall )(?<!should )(?<!can )(?<!could )(?<!must )(?<!may )(?<!might )"
                       r"(?<!does )(?<!do )not)\s+(?:\w+\s+)?"
                       r"(?:do|done|doing|get to|gotten to|got to|tried|try|touch|touched)\b(?!\s+by\b)|\bnot yet\b")


def says_not_done(text: str) -> bool:
    """True when ``text`` says some action is not done (yet) (:data:`_NOT_DONE`)."""
    return _NOT_DONE.search(lower(text)) is not None


def requested_outcome(text: str, requested: frozenset[str]) -> bool:
    """True when ``text`` reports, without a question, the state of a device aspect that is
    the outcome of one of the ``requested`` tools ("roaming's on now" after a request to
    toggle roaming): a claim of the requested action, not a state seen (unless the text says
    something is not done yet)."""
    return (any(state_tools(f) & requested for f, _ in device_states(text)) and not question_clauses(text)
            and not says_not_done(text))


def reports_performed(text: str, performed: frozenset[str], requested: frozenset[str]) -> bool:
    """True when every sentence of ``text`` claiming something done without naming an action
    (:func:`~userbench_env.fidelity.text.claims_done`) names what a ``performed`` tool acts on
    and nothing a ``requested`` one acts on (:func:`_matter`): "so the storage permission is
    sorted", asked to reseat the SIM card after granting the permission, reports the grant
    done before, no claim of the requested action."""
    done = [sentence for sentence in _SENTENCES.findall(lower(text)) if claims_done(sentence)]
    before = frozenset().union(*map(_matter, performed))
    asked = frozenset().union(*map(_matter, requested))
    return bool(done) and all(content_stems(s) & before and not content_stems(s) & asked for s in done)


#: Prefixes of the user tools that switch a feature to the other state: their result implies the state before.
_SWITCHES = ("toggle_", "connect_", "disconnect_", "grant_")


class _Observed(Rule):
    """Reads, per device feature, the states stated by the latest user tool result that
    mentions the feature, and every state any result showed or implied (a toggle's result
    "X is now OFF", a disconnection's "VPN disconnected" or a grant's "permission 'sms' granted"
    implies the other state before it), lazily."""

    def start(self) -> None:
        super().start()
        self._observed: dict[str, set[str]] = {}
        self._history: set[tuple[str, str]] = set()
        self._results_read = 0

    def observed(self) -> dict[str, set[str]]:
        """Per feature, the states of its latest observation."""
        calls = self.feed.user_calls
        for _, call, result in calls[self._results_read:]:
            fresh: dict[str, set[str]] = {}
            for feature, state in device_states(result.content):
                fresh.setdefault(feature, set()).add(state)
                if feature == "network preference":  # the modes a preference allows: what the network may be on
                    fresh.setdefault("network", set()).add(state)
            self._observed.update(fresh)
            self._history.update((f, s) for f, states in fresh.items() for s in states)
            if call.name.startswith(_SWITCHES):  # the switched feature was in the other state before
                self._history.update((f, "off" if s == "on" else "on")
                                     for f, s in device_states(result.content.split("\n", 1)[0]))
        self._results_read = len(calls)
        return self._observed

    def seen_before(self, feature: str, state: str) -> bool:
        """True when some tool result showed (or a toggle implied) ``feature`` in ``state``."""
        self.observed()
        return (feature, state) in self._history

    def contradicted(self, text: str) -> bool:
        """True when ``text`` states a device state its latest observation contradicts."""
        stated = device_states(text)
        if not stated:
            return False
        observed = self.observed()
        return any(f in observed and s not in observed[f] for f, s in stated)


@register_rule
class UnexecutedAction(_Requests, _Observed):
    """Fails when the user claims an action without having performed it.

    A claim naming an action ("I restarted the phone") fails when no user call of a tool
    performing it ran since the agent last asked for that tool (or ever, if never asked),
    or when a device state it states contradicts the latest tool result. A claim naming
    no action is read against the agent's latest request: "flipped it", "did the on-off
    thing", "ok... done", "that one's filed" (:func:`~userbench_env.fidelity.text.claims_done`),
    or a device state reported without a question that a requested tool sets ("the VPN's
    off", asked to disconnect it), fails when the agent's latest text asked for a user tool
    and no user tool ran since; the state of another feature ("the Data Saver sign is gone",
    asked to toggle roaming) reports the phone, no claim of the requested action, and so does a
    claim naming only what an action performed before acts on ("so the storage permission is
    sorted", asked to reseat the SIM card: :func:`reports_performed`). Beside a
    named action, a claim naming no action is the named action's ("I already gave the storage
    permission"), unless it reports a state a requested tool sets. Applies when a claim is made.
    """

    name = "unexecuted_action"
    cued = True

    @classmethod
    def read(cls, compiled: tuple[list[str], ToolMentions], text: str) -> tuple[set[str], bool] | None:
        """(the watched tools a claim in ``text`` names, whether it claims an action
        generically: :func:`claims_generically`); None when it claims nothing."""
        claimed = claimed_actions(text, compiled[0])
        generic = claims_generically(text)
        return (claimed, generic) if claimed or generic else None

    def user_text(self, turn: int, text: str, reading: tuple[set[str], bool]) -> None:
        claimed, claims = reading
        called = self.feed.called_since_agent()
        if not claimed and called and self._settled and not self.events:  # (every criterion passed)
            return  # a claim after a tool call once the criterion passed changes nothing
        self.resolve()
        # a claim naming no action needs a request; beside a named action ("I gave the storage permission
        # already") it is that action's, unless it reports the state a requested action sets; a state
        # alone claims the requested action only when that action sets it
        generic = bool(self.requested) and claims and (
            requested_outcome(text, self.requested)
            or (not claimed and claims_done(text)
                and not reports_performed(text, frozenset(self.feed.called_at), self.requested)))
        if not claimed and not generic:
            return
        called_at = self.feed.called_at
        executed = any(called_at.get(t, -1) > self.requested_at.get(t, 0) for t in claimed)
        unexecuted = bool(claimed) and not executed
        bad = unexecuted or (generic and not called) or (bool(claimed) and self.contradicted(text))
        self.settle_all(turn, bad)


@register_rule
class DeviceState(_Observed):
    """Fails when the user states a device state (feature on/off) unsupported by what the
    user saw: a current state (:func:`~userbench_env.fidelity.text.device_states`: "is",
    "'s already", "isn't", ...) the latest user tool result mentioning the feature
    contradicts, or, for a feature no result mentioned yet, that the scenario
    (``params["scenario"]``, read by :func:`~userbench_env.fidelity.text.scenario_device_states`:
    "you installed a VPN" states the VPN on) does not state and no user tool setting the
    feature ran to leave (a reset of the APN settings, whose results never show them: "the APN
    settings were reset"); an earlier state ("was on before I toggled it",
    :func:`~userbench_env.fidelity.text.past_device_states`) that no result showed or
    implied and the scenario does not state. A current state that is the outcome of an
    action the same text claims (by name, or generically answering the agent's request
    for it: "I turned roaming on like you said", "roaming's on now") while no user call of
    the action ran since the agent's latest text is the claim's, judged by
    ``claims_unexecuted_action``, not a state seen. A good outcome only a check tells (the
    speed fine again, a picture message through: :func:`~userbench_env.fidelity.text.reported_checks`)
    is unsupported unless the user ran that check since its latest other tool call (a
    result it saw; one it misreports is ``fabricates_tool_result``, judged). Applies when
    a state or such an outcome is stated."""

    name = "device_state"
    cued = True

    @classmethod
    def compile(cls, criteria: list[Criterion]) -> frozenset[tuple[str, str]]:
        return scenario_device_states(" ".join(str(c.params.get("scenario", "")) for c in criteria))

    @classmethod
    def read(cls, compiled: Any, text: str) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...],
                                                     tuple[frozenset[str], bool] | None, frozenset[str]] | None:
        """(the current states ``text`` states, the earlier ones, what it claims done when it
        states a current one and does not say something is not done yet: (the state tools it
        names, whether it claims an action generically), and the checks whose good outcome it
        reports); None when it states none of these."""
        stated, earlier, checks = device_states(text), past_device_states(text), reported_checks(text)
        if not (stated or earlier or checks):
            return None
        claims = (frozenset(claimed_actions(text, STATE_TOOLS)), claims_generically(text)) \
            if stated and not says_not_done(text) else None
        return stated, earlier, claims, checks

    def start(self) -> None:
        super().start()
        self._scenario = self.compiled
        self._named: dict[str, int] = {}  # per state tool, the clock of the latest agent text naming it
        self._named_read = 0  # agent texts read for it

    def _claimed_outcome(self, claims: tuple[frozenset[str], bool]) -> frozenset[str]:
        """The user tools a text claims run (``claims``: those it names, and whether it claims
        an action generically: then those the agent's latest text asked for) that no user
        call ran since the agent last named them."""
        claimed, generic = claims
        agent = self.feed.agent
        if agent and generic and asks(agent[-1][2]):
            claimed = claimed | _STATE_TOOL_MENTIONS.find(agent[-1][2])
        called_at = self.feed.called_at
        return frozenset(t for t in claimed if called_at.get(t, -1) <= self._named_at(t))

    def _named_at(self, tool: str) -> int:
        """The clock of the latest agent text naming ``tool`` (0: none did)."""
        agent = self.feed.agent
        for clock, _, text, _ in agent[self._named_read:]:
            for name in _STATE_TOOL_MENTIONS.find(text):
                self._named[name] = clock
        self._named_read = len(agent)
        return self._named.get(tool, 0)

    def _unchecked(self, checks: frozenset[str]) -> bool:
        """True when one of the ``checks`` (tool names) has not run since the user's latest
        other tool call (or at all)."""
        called_at = self.feed.called_at
        changed = max((clock for tool, clock in called_at.items() if tool not in CHECK_TOOLS), default=0)
        return any(called_at.get(tool, -1) < changed for tool in checks)

    def user_text(self, turn: int, text: str, reading: tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...],
                                                              tuple[frozenset[str], bool] | None, frozenset[str]]) -> None:
        stated, earlier, claims, checks = reading
        if checks and self._unchecked(checks):
            self.settle_all(turn, True)
            return
        if claims is not None and (outcome := self._claimed_outcome(claims)):
            # the state a claimed, unexecuted action would leave is the claim's (claims_unexecuted_action)
            stated = tuple((f, s) for f, s in stated if not state_tools(f) & outcome)
        if stated or earlier:
            observed = self.observed()
            called_at = self.feed.called_at
            bad = any((s not in observed[f]) if f in observed
                      else (f, s) not in self._scenario | PROBLEM_STATES and not state_tools(f) & called_at.keys()
                      for f, s in stated)
            bad = bad or any(not self.seen_before(f, s) and (f, s) not in self._scenario for f, s in earlier)
            self.settle_all(turn, bad)


@register_rule
class SkippedAction(_Requests):
    """Fails when the agent's latest text asked for a user tool and the user answers in
    text without calling any tool since and without engaging with the request: a question
    back engages only when it asks how to perform the request (:data:`CLARIFIES`: what it
    means, which one, how or where, whether to, what it will do or what the user would lose
    by it) or what a thing the request names is (:data:`ASKS_WHAT`); an unrelated question,
    one about cost or time, or one asking for another step instead (:data:`MOVES_ON`) is no
    engagement. A reply claiming the requested action done (by name, or generically:
    :func:`~userbench_env.fidelity.text.claims_done`) passes: a false claim is
    ``claims_unexecuted_action``'s failure, not a skip (but a claim naming only other
    actions, all performed before, reports those: "but I paid the bill already", as does one
    naming only what they act on: "so the storage permission is sorted", :func:`reports_performed`), and so
    does the state the requested action leaves, reported ("roaming's on now",
    :func:`requested_outcome`); another device state reported instead, "still no service",
    is no claim of the action, and a reply that declines the requested action
    (:func:`declines`: "a reboot is pointless, the reset's already done") claims another one
    at most. Applies when an action is requested."""

    name = "skipped_action"

    def user_text(self, turn: int, text: str, reading: None) -> None:
        called = self.feed.called_since_agent()
        if called and all(self.verdict(cid) != "not_applicable" for cid in self.ids):
            self._read = len(self.feed.agent)  # nothing this answer could change: the request need not be read
            return
        self.resolve()
        if self.requested:
            requested, self.requested = self.requested, frozenset()
            if not called and not declines(text, self.request_words) and (
                    (claims_done(text) and not says_not_done(text) and not self._reports_earlier(text, requested))
                    or claimed_actions(text, requested) or requested_outcome(text, requested)):
                self.settle_all(turn, False)  # a claim of the requested action: claims_unexecuted_action's to judge
                return
            questions = () if called else question_clauses(text)
            engaged = called or any(((CLARIFIES.search(q) and not another_step(q, self.request_words))
                                     or (ASKS_WHAT.search(q) and content_stems(q) & self.request_words))
                                    and not MOVES_ON.search(q) for q in questions)
            self.settle_all(turn, not engaged)

    def _reports_earlier(self, text: str, requested: frozenset[str]) -> bool:
        """True when the actions ``text`` claims by name were all performed before ("but I paid
        the bill already", when asked to reseat the SIM card after paying it), or, naming none,
        its claims name only what performed actions act on, none of the ``requested`` ones
        (:func:`reports_performed`): a report of what the user did (a claim naming a requested
        action is read as one by the caller)."""
        named = claimed_actions(text, self.tools)
        if named:
            return named <= self.feed.called_at.keys()
        return reports_performed(text, frozenset(self.feed.called_at), requested)


#: A question about how to perform a requested action: what it means, which one, how or
#: where to do it, whether to, what it will do (not what it costs or how long it takes, nor any amount asked
#: with "tell me how": "could you tell me how much cash back I should have had?": that is no engagement;
#: nor a question's "or what?" tail, "is there an outage or what?": a bare "what?" asks; nor what one should
#: see, notice or expect by now, "should I be seeing better speeds already?", "what speed should I
#: expect?": the outcome of what was done before; nor whether one should worry, "should I be worried
#: about that?": one's feelings about the phone).
CLARIFIES = re.compile(
    r"\b(?:what do you mean|you mean|mean by|which (?:one|setting|option|button|app|permission|mode|menu|screen|way)|"
    r"how (?:do|would|can|should|will|exactly do) (?:i|you|we)|how do(?:es)? (?:that|this|it) work|"
    r"where (?:do|would|can|should|is|are|will) (?:i|it|that|this|the|those)|"
    r"what (?:is|'s|are|does) (?:that|this|those)\b|do i (?:need|have) to|am i supposed|"
    r"should i(?! (?:(?:already|now|still|really|be) )*(?:see|seeing|notice|noticing|expect|expecting|worried|concerned|"
    r"nervous|scared|afraid)\b)|"
    r"(?:can|could|would) you (?:explain|repeat|walk me|clarify|say that|show me"
    r"|tell me how(?! (?:much|many|long|often|soon|far|old)\b))|walk me through|"
    r"step by step|come again|say (?:that|it) again|(?:sorry|huh|(?<!\bor )what|which|where|how)\s*\?|"
    # what the action will do, or undo ("what does it do?", "will this delete my photos?", "is that going to wipe
    # anything?", "is that safe?")
    r"what (?:does|will|would) (?:that|this|it) do|tell me what (?:that|this|it) (?:does|will do|is)|"
    r"(?:will|would|could|is|are) (?:that|this|it) (?:\w+ )?(?:going to |gonna )?(?:delete|erase|wipe|lose|remove|reset|affect|touch|"
    r"mess|do anything)|is (?:that|this|it) safe"
    # or what the user would lose by it ("will I lose my pictures if I do?", "am I gonna lose anything?")
    r"|(?:will|would|could|do|am) i (?:\w+ )?(?:going to |gonna )?lose\b)"
)


#: Declining an action: calling it pointless or unneeded, or preferring to leave it alone.
_DECLINES = re.compile(r"\b(?:pointless|no point|not needed|no need|(?:is |'s )?unnecessary|needless|"
                       r"(?:i'?d |i would )?(?:rather|prefer to) (?:not|leave|skip)|not going to (?:do|touch)|"
                       r"won'?t (?:do|touch)|leave (?:it|that|them|this|those|the \w+(?: \w+)?) alone)\b")


def declines(text: str, request_words: frozenset[str]) -> bool:
    """True when a clause of ``text`` that asks nothing declines an action (:data:`_DECLINES`)
    and names the requested one (one of its ``request_words``) or points at it ("that",
    "it", "this one")."""
    questions = set(question_clauses(text))
    return any(_DECLINES.search(clause) and (content_stems(clause) & request_words or _POINTS.search(clause))
               for clause in clauses(lower(text).replace("\u2019", "'")) if clause not in questions)


#: Words pointing at the action just asked for.
_POINTS = re.compile(r"\b(?:that|it|this|those|them)\b|\bone\b")


#: A question asking for another step instead ("What else should I look at?", "what's next?"),
#: or opened as an aside ("by the way, do I need to restart it?", "sure, btw is my bill ok?", "oh,
#: before I forget, is it safe to keep my photos on this phone?"; a question closing with "by the
#: way" may still ask about the request: "which button is it, by the way?"): moving past the
#: request, not asking how to perform it.
MOVES_ON = re.compile(r"\bwhat else\b|\bwhat\b[^.!?]{0,20}\b(?:next|after (?:that|this|it)|afterwards)\b|\banything else\b"
                      r"|^(?:(?:ok(?:ay)?|so|and|oh|also|sure|thanks|alright|right|yes|yeah)\W+)*"
                      r"(?:by the way|btw|on (?:an ?other|a different|a side) note|unrelated(?:ly)?|off[- ]topic|while i have you|"
                      r"(?:a |one )?(?:quick )?side question|changing the (?:subject|topic)|before i forget)\b")


#: Asking whether to do something: "should I ..." (not what, how or when to: "what should I do now?").
_WHETHER_TO = re.compile(r"(?<!\bwhat )(?<!\bhow )(?<!\bwhen )(?<!\bwhere )(?<!\bwhich )\bshould (?:i|we)\b")


def another_step(question: str, request_words: frozenset[str]) -> bool:
    """True when ``question`` asks whether to do something (:data:`_WHETHER_TO`) that shares no
    word with the request (``request_words``) and points at nothing (:data:`_POINTS`): "should I
    try sending a picture message now?", asked to turn data saver off, asks about a step of the
    user's own instead of how to perform the one asked for."""
    return (_WHETHER_TO.search(question) is not None and not content_stems(question) & request_words
            and _POINTS.search(question) is None)


#: A question asking what something is ("what's an APN?"): engagement when it names the request.
ASKS_WHAT = re.compile(r"\bwhat(?: is|'s| are| does)\b|\bwhat(?: do| does)? .{0,20}\bmean\b")


@register_rule
class UnrequestedAction(_Requests):
    """Fails when the user calls a state-changing user tool (``params["mutating"]``) that the
    agent's latest text before the call did not ask for: by name (or a name in the call's
    arguments, for tools called through a dispatcher) with the values it is called with,
    or by all the content words of the tool's name in its prose ("turn off airplane mode"
    asks for ``toggle_airplane_mode``); one request licenses one such call (repeating it
    needs another). Any other call (a check: the rest of ``params["tools"]``, or a name no
    tool has) may be what an answer needs, so it fails only on sure evidence that no answer
    needs it: the agent
    did not ask for it, and every sentence of the agent's latest text asks for something
    else, an item of the user's ("your phone number?") or another user tool by name
    (:func:`wants_something_else`; a look at the feature the requested tool changes is
    part of the request until that tool has run: ``check_vpn_status`` after the requested
    ``disconnect_vpn`` returned is a look nobody asked for), or the user has said nothing
    yet and the agent only greeted it (:func:`only_greets`: it asked why the user calls,
    which the scenario tells), or the agent's latest text hands the user over
    (:func:`~userbench_env.fidelity.outcomes.hands_over`: "I am transferring you to a human
    agent now", whose only answer is to go), or the agent's latest text says the request is
    done (:func:`~userbench_env.fidelity.outcomes.reports_done`) and the check looks at what
    the scenario never has the user look at (``params["goal_checks"]``, see
    :func:`~userbench_env.fidelity.text.goal_checks`: a speed test when the goal is the signal;
    a look at the goal is what "anything else?" may need). Decided at the user's next text;
    applies when a user tool is called."""

    name = "unrequested_action"
    tools_param = "mutating"

    @classmethod
    def compile(cls, criteria: list[Criterion]) -> tuple[list[str], ToolMentions, frozenset[str]]:
        """(the state-changing tools, mentions of every user tool, the checks the scenario has no
        use for: of :data:`~userbench_env.fidelity.text.GOAL_CHECK_TOOLS`, those no criterion's
        ``goal_checks`` lists; none when a criterion does not say)."""
        mutating, _ = super().compile(criteria)
        unneeded = (GOAL_CHECK_TOOLS - {t for c in criteria for t in c.params["goal_checks"]}
                    if all("goal_checks" in c.params for c in criteria) else _NOTHING)
        return mutating, ToolMentions({t for c in criteria for t in c.params.get("tools", [])}), unneeded

    def start(self) -> None:
        super().start()
        self._mutating = frozenset(self.tools)
        self._unneeded = self.compiled[2]
        self._calls_read = 0
        self._answered: set[tuple[int, str]] = set()  # (agent text clock, call) pairs: a request licenses one such call

    def user_text(self, turn: int, text: str, reading: None) -> None:
        calls = self.feed.user_calls
        if self._calls_read == len(calls):
            return
        fresh = calls[self._calls_read:]
        self._calls_read = len(calls)
        agent = self.feed.agent
        for clock, call, _ in fresh:
            at, latest = next(((at, said) for at, _, said, _ in reversed(agent) if at < clock), (0, ""))
            asked = asks_for_call(latest, call.name, tuple(str(v).lower() for v in _leaves(call.arguments)))
            if call.name not in self._mutating:  # a check (or a name no tool has: it changes nothing either)
                done = frozenset(c.name for at_call, c, _ in calls if at < at_call < clock)  # run since the request
                # (or only the greeting, to a user that has said nothing yet; or a handover; or done, and the check past the goal)
                if not asked and (wants_something_else(self._mentions, latest, call.name, done) or hands_over(latest)
                                  or only_greets(latest) and not any(said_at < clock for said_at, _ in self.feed.user)
                                  or call.name in self._unneeded and reports_done(latest)):
                    self.settle_all(turn, True)
                continue
            key = (at, f"{call.name}{sorted(call.arguments.items())!r}")
            self.settle_all(turn, key in self._answered or not asked)
            self._answered.add(key)


#: An agent text's sentences, each with its closing punctuation.
_AGENT_SENTENCES = re.compile(r"[^.!?\n]+[.!?]*")


def wants_something_else(mentions: ToolMentions, agent_text: str, check: str,
                         done: frozenset[str] = frozenset()) -> bool:
    """True when every sentence of ``agent_text`` asks for an item of the user's
    (:func:`~userbench_env.tasks.extract.requested_kinds`) or names user tools of
    ``mentions`` on other matters than ``check``: nothing in it is what running ``check``
    answers (a greeting, a question about the phone, an outcome reported: it may be; so may
    a look at the feature a named tool changes, "check_vpn_status" before "disconnect_vpn",
    but not once that tool is ``done``, run since the text: its result told the outcome)."""
    matter = _matter(check)
    sentences = [s for s in _AGENT_SENTENCES.findall(agent_text) if s.strip()]
    return bool(sentences) and all(requested_kinds(s) or (named := mentions.find(s) - {check})
                                   and not any(_matter(tool) & matter for tool in named - done) for s in sentences)


#: A salutation ("Hi!", "Hello there.", "Good morning,") or an offer of help ("How can I help you
#: today?", "What can I do for you?"): a sentence that asks only why the user calls.
_GREETING = re.compile(r"(?:(?:hi|hello|hey|greetings|good (?:morning|afternoon|evening)|welcome)(?: there| again)?\W*)?"
                       r"(?:(?:how (?:can|may|could) i (?:help|assist)(?: you)?|what can i do for you)(?: today| now)?\W*)?",
                       re.I)


def only_greets(agent_text: str) -> bool:
    """True when every sentence of ``agent_text`` is a salutation or an offer of help ("Hi!
    How can I help you today?"): it asks the user only why it calls, which its scenario
    tells, so no check of the phone answers it."""
    sentences = [s.strip() for s in _AGENT_SENTENCES.findall(agent_text) if s.strip()]
    return bool(sentences) and all(_GREETING.fullmatch(s) for s in sentences)


def _matter(tool: str) -> frozenset[str]:
    """The content stems of a tool's name that say what it acts on ("vpn" of "disconnect_vpn")."""
    return content_stems(tool.replace("_", " ")) - _ACTION_WORDS


@lru_cache(maxsize=256)
def asks_for_call(said: str, name: str, values: tuple[str, ...]) -> bool:
    """True when the agent's text ``said`` asks for a call of the tool ``name`` with the
    argument values ``values`` (its leaves, lower-cased): it names the tool (or the tool a
    dispatcher call names) and every argument value it is called with, or holds every
    content word of the tool's name. Memoized."""
    asked = said.lower()
    named = [n for n in (name, *values) if re.search(rf"(?<![\w]){re.escape(n.lower())}(?![\w])", asked)]
    if named:
        return all(v in asked for v in values if v not in named)
    words = content_stems(name.replace("_", " ")) - _ACTION_WORDS
    return bool(words) and words <= content_stems(_TOOL_NAME.sub(" ", asked))


def _leaves(value: Any) -> list[Any]:
    """The scalar leaves of a call's arguments (JSON strings inside them parsed)."""
    if isinstance(value, str) and value[:1] in "{[":
        try:
            import json

            return _leaves(json.loads(value))
        except ValueError:
            return [value]
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _leaves(v)]
    return [] if value is None or isinstance(value, bool) else [value]


#: A tool name written as such ("toggle_wifi_calling"): not prose asking for an action.
_TOOL_NAME = re.compile(r"\w+_\w+")


#: Stems of tool-name words that say what is done, not to what ("toggle", "set", ...).
_ACTION_WORDS = frozenset({"toggl", "set", "make", "reset", "connect", "disconnect", "grant", "appli", "submit", "call",
                           "request", "run", "check", "get", "list"})
