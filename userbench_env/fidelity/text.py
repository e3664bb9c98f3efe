"""Text readings shared by the fidelity rules and the perturbed proxy (pure functions, precompiled).

* :func:`scenario_text` / :func:`scenario_sentences`: what the blueprint says, raw and as
  person-neutral normalized sentences (so "You want" and "I want" read the same);
* :func:`identifiers`: id-shaped tokens (order, reservation and user ids, emails, phone
  numbers, payment ids) in a text;
* :func:`device_states`: (feature, on/off) pairs a text asserts about a phone;
* :func:`claimed_actions`: which user tools a first-person claim says were used;
* :class:`ToolMentions`: which of a set of tool names a text mentions (agent requests).

Readings of message text are memoized (small LRU caches keyed by the text): several
rules read the same message, and the tracker runs in every ``step()``. Costly regexes sit
behind substring gates: words every match must contain, looked up in :func:`folded`
text first (a gate only skips a search that cannot match; the search itself is unchanged).
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable

from userbench_env.core.task import Blueprint
from userbench_env.fidelity.conditions import conditions
from userbench_env.fidelity.language import clause_start, standard_spelling
from userbench_env.tasks.extract import ASK_PATTERNS, asking_part, is_question

_CACHE = 256


@lru_cache(maxsize=1024)
def whole_token(value: str) -> re.Pattern[str]:
    """Finds ``value`` as a whole token: not inside a longer word or identifier (a first name
    inside the user id "lucas_santos_6600" states the id, not the name). Match lower-cased
    values on lower-cased text (:func:`lowered`)."""
    return re.compile(rf"(?<!\w){re.escape(value)}(?!\w)")


@lru_cache(maxsize=_CACHE)
def lowered(text: str) -> str:
    """``text.lower()``, memoized (every rule reads the same message)."""
    return text.lower()


#: The non-ASCII letters that case-insensitive matching equates with ASCII letters, as
#: those letters ("K", KELVIN SIGN, already lower-cases to "k").
_FOLDS = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s"})


@lru_cache(maxsize=_CACHE)
def folded(text: str) -> str:
    """``text`` lower-cased with the non-ASCII letters that ``re.I`` matches as ASCII ones
    mapped to them: whatever an ASCII word matches case-insensitively in ``text`` (as
    ``re.search(word, text, re.I)``) is a substring of ``folded(text)``, so the word is a
    sound gate before a case-insensitive search. Equal to :func:`lowered` for most texts."""
    if text.isascii() or not any(c in text for c in "\u0130\u0131\u017f"):
        return lowered(text)
    return text.translate(_FOLDS).lower()


def gated(gates: tuple[str, ...], text: str) -> bool:
    """True when some gate word occurs in ``text`` (an empty ``gates`` never blocks)."""
    return not gates or any(gate in text for gate in gates)


@lru_cache(maxsize=_CACHE)
def asks(text: str) -> bool:
    """:func:`~userbench_env.tasks.extract.is_question`, memoized (a question mark answers it at once)."""
    return "?" in text or is_question(text)


#: Per item kind, words one of which every match of its request pattern
#: (:func:`~userbench_env.tasks.extract.requested_kinds`) contains, case-folded.
ASK_GATES: dict[str, tuple[str, ...]] = {
    "name": ("name",), "first_name": ("name",), "last_name": ("name",),
    "user_id": ("id", "username"), "email": ("mail",), "zip": ("zip", "postal code"),
    "phone_number": ("phone", "mobile number"), "reservation_id": ("reservation", "confirmation", "booking"),
    "order_id": ("order",), "item_id": ("item",), "payment_method": ("payment", "card"),
    "address": ("address",), "date": ("date", "when"),
}


#: Item kinds the fidelity rules watch requests for beyond the extractor's
#: (:data:`~userbench_env.tasks.extract.ASK_PATTERNS`), each with its gates (as in
#: :data:`ASK_GATES`) and request pattern: an annual income.
FIDELITY_ASKS: dict[str, tuple[tuple[str, ...], re.Pattern[str]]] = {
    "income": (("income", "salary", "earn", "make"),
               re.compile(r"\b(?:income|salary|earnings|(?:earn|make) (?:a|per|each|in a) year|earn annually)\b", re.I)),
}


@lru_cache(maxsize=64)
def _ask_checks(kinds: frozenset[str]) -> tuple[tuple[str, tuple[str, ...], re.Pattern[str]], ...]:
    """(kind, gates, request pattern) of the kinds among ``kinds`` that have a pattern."""
    return tuple((kind, ASK_GATES.get(kind, ()), ASK_PATTERNS[kind]) if kind in ASK_PATTERNS else (kind, *FIDELITY_ASKS[kind])
                 for kind in sorted(kinds) if kind in ASK_PATTERNS or kind in FIDELITY_ASKS)


@lru_cache(maxsize=_CACHE)
def asked_among(text: str, kinds: frozenset[str]) -> frozenset[str]:
    """The kinds among ``kinds`` that the agent's ``text`` asks for: exactly
    ``requested_kinds(text) & kinds`` (:func:`~userbench_env.tasks.extract.requested_kinds`,
    with the kinds of :data:`FIDELITY_ASKS`), searching only those kinds' patterns, each
    behind its :data:`ASK_GATES`."""
    if not kinds:
        return frozenset()
    low = folded(text)
    checks = [(kind, pattern) for kind, gates, pattern in _ask_checks(kinds) if gated(gates, low)]
    if not checks:
        return frozenset()
    asking = asking_part(text)  # (an item named in a statement is not asked for)
    return frozenset(kind for kind, pattern in checks if pattern.search(asking))

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_TOKEN = re.compile(r"[a-z0-9]+")
_PERSON = {"you": "p", "your": "p", "yours": "p", "yourself": "p", "i": "p", "my": "p", "me": "p", "mine": "p",
           "myself": "p", "am": "be", "are": "be", "re": "be", "m": "be"}


@lru_cache(maxsize=_CACHE)
def normalize(text: str) -> str:
    """Lower-case tokens with first/second-person words merged, space-joined and space-padded."""
    return " " + " ".join(_PERSON.get(t, t) for t in _TOKEN.findall(text.lower())) + " "


def scenario_text(blueprint: Blueprint) -> str:
    """Every scenario text of the blueprint, newline-joined, plus its known values."""
    parts = [blueprint.persona, blueprint.reason_for_call, blueprint.known_info_text, blueprint.unknown_info_text,
             blueprint.instructions, blueprint.raw_instructions, *blueprint.unknown_info,
             *(f"{i.span or ''} {i.value}" for i in blueprint.known_info)]
    return "\n".join(p for p in parts if p)


#: A sentence of the reason for calling that states a fallback plan or a condition (what
#: to do if ..., what to accept instead): scenario content, not the reason itself.
_FALLBACK = re.compile(
    r"\b(?:if|otherwise|unless|in case|else|fall ?back|as long as|only when|settle|would go|'d go|would accept|"
    r"'d accept|would take|'d take)\b",
    re.I,
)


#: Verbs of finding out, before an "if" or "whether" that asks rather than sets a condition.
_FINDING_OUT = r"know|knowing|wonder|wondering|check|see"
#: "If" asking whether, after a verb of finding out, its clause running to the sentence's end
#: ("you want to know the tracking number, and if the order is still in transit", "you wonder
#: if the agent can split the payment"): a question the user has, no condition.
_WHETHER_IF = re.compile(rf"\b(?:{_FINDING_OUT}|find out)\b(?:(?!\bif\b)[^.;])*\bif\b(?=[^,;]*$)", re.I)


def states_condition(sentence: str) -> bool:
    """True when ``sentence`` states a fallback plan or a condition (:data:`_FALLBACK`), an
    "if" asking whether (:data:`_WHETHER_IF`) aside."""
    whether = {m.end() - 2 for m in _WHETHER_IF.finditer(sentence)}
    return any(m.start() not in whether for m in _FALLBACK.finditer(sentence))


def _split(text: str | None) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text or "") if s.strip()]


def quoted_lines(blueprint: Blueprint) -> list[list[str]]:
    """The scenario's lines quoted for the user to say (:data:`_QUOTED_LINE`) that run over
    two sentences or more, each as its sentences (as :func:`scenario_sentences` splits them):
    said on its own, such a line is one line of the script, not several sentences of the brief."""
    lines: list[list[str]] = []
    for text in (blueprint.persona or "", blueprint.instructions or "", blueprint.raw_instructions or ""):
        breaks = list(_SENTENCE.finditer(text))
        starts = [0, *(end.end() for end in breaks)]
        ends = [*(end.start() for end in breaks), len(text)]
        for quote in _QUOTED_LINE.finditer(text):
            if len(quote.group().strip("\"\u201c\u201d")) < QUOTE_LENGTH:
                continue
            line = [sentence for start, end in zip(starts, ends)
                    if start < quote.end() and end > quote.start() and (sentence := text[start:end].strip())]
            if len(line) >= 2 and line not in lines:
                lines.append(line)
    return lines


#: A quote mark opening a quotation: one followed by a space, a punctuation mark or its
#: line's end closes one. Typed quotes pair by position, so a stray or doubled mark
#: (``it. ""``, ``say "today").``) cannot turn the scenario's quotations inside out.
_OPENS = r"[\"\u201c](?![\s.,;:!?)\]])"
#: The fewest characters of a quotation that is a line to say (shorter ones, "today", name a word).
QUOTE_LENGTH = 8
#: A line quoted in a scenario, within one line of its text, however short (so that its
#: closing mark is never read as an opening one; :func:`quoted_lines` keeps those of
#: :data:`QUOTE_LENGTH`); a quote its scenario leaves unclosed runs to the end of that line.
_QUOTED_LINE = re.compile(_OPENS + r"[^\"\u201d\n]*(?:[\"\u201d]|$)", re.M)


_PARAGRAPH = re.compile(r"\n\s*\n")
#: A line opening a heading or a list item: a paragraph holding one ends a scenario's description.
_STRUCTURE = re.compile(r"^\s*(?:#|\d+[.)]\s|[-*]\s)", re.M)
#: Words quoted in a scenario, however short (:func:`_quotes` keeps what it tells the user
#: to say); a quote its scenario leaves unclosed runs to the end of its line.
_QUOTED = re.compile(_OPENS + r"([^\"\u201d]*(?=[\"\u201d])|[^\"\u201d\n]*$)[\"\u201d]?", re.M)
#: A scenario line labelled as the user's opening ("1. **Opening:** ...", "Start naturally: ...").
_OPENING_LINE = re.compile(r"^\W*(?:\d+[.)]\s*)?\W*(?:open|start|begin)\w*\b", re.I)


def opening_quotes(text: str) -> list[str]:
    """The words ``text`` (a scenario's instructions) quotes for the user's opening, on a
    line labelled as the opening (:data:`_OPENING_LINE`): what the user says when it calls,
    like its reason for calling. Words quoted for later moments ("when discussing savings:
    '...'") are not: said unasked, all in one message, they recite the scenario."""
    return [q for line in text.splitlines() if _OPENING_LINE.match(line) for q in _quotes(line)]


def _quotes(text: str) -> list[str]:
    """The words ``text`` quotes (:data:`_QUOTED`), each quotation of at least :data:`QUOTE_LENGTH` characters."""
    return [q for q in _QUOTED.findall(text) if len(q) >= QUOTE_LENGTH]


#: An annual income a scenario gives ("Your annual income is $95,000", "who earns $100,000 annually").
_INCOME = re.compile(r"\b(?:annual income|yearly income|income|salary)(?: is|:)\s*(\$\s?[\d,]+k?)"
                     r"|\bearns? (\$\s?[\d,]+k?) (?:annually|a year|per year|each year)", re.I)


def scenario_income(blueprint: Blueprint) -> tuple[str, str] | None:
    """(the income, the words stating it) as the scenario writes them (the first one), or None."""
    m = _INCOME.search(scenario_text(blueprint))
    return (m.group(1) or m.group(2), m.group(0)) if m else None


def reason_text(blueprint: Blueprint) -> str:
    """The reason for calling; for a scenario without one, its description: the paragraphs of
    its instructions before the first one holding a heading or a list item (all of them when
    it has neither: then its first paragraph only, and the one after it too when the first
    casts the user in its role, :data:`_CASTING`, whose request then follows), but for one
    labelled as the user's character (:data:`_CHARACTER`)."""
    if blueprint.reason_for_call.strip():
        return blueprint.reason_for_call
    paragraphs = [p for p in _PARAGRAPH.split(blueprint.instructions or blueprint.raw_instructions or "") if p.strip()]
    lead = []
    for paragraph in paragraphs:
        if _STRUCTURE.search(paragraph):
            break
        if not _CHARACTER.match(paragraph):  # who the user is, not why it calls
            lead.append(paragraph)
    if len(lead) < len(paragraphs):
        return "\n".join(lead)
    if len(paragraphs) < 2 or not _CASTING.match(paragraphs[0]):
        return "\n".join(paragraphs[:1])
    return "\n".join((paragraphs[0], " ".join(_told_at_once(paragraphs[1]))))


#: A paragraph casting the user in its role ("You are playing the role of a customer contacting
#: a customer service representative agent. Your character is ..."): the frame, before the request.
_CASTING = re.compile(r"\W*you are playing the role of\b", re.I)
#: A sentence holding something back until the agent asks or says it ("DO NOT bring this up unless
#: asked", "do not mention what type of card"); one pointing back ("bring this up") holds back
#: what comes before it too.
_HOLDS_BACK = re.compile(r"\b(?:do not|don'?t|never)\s+(?:bring|mention|reveal|volunteer|share|say)\b"
                         r"|\bunless (?:you are |you're )?asked\b|\bonly (?:mention|say|tell|give|share|provide|bring)\b", re.I)
_HOLDS_BACK_EARLIER = re.compile(r"\b(?:bring|mention|reveal|volunteer|share|say|give) "
                                 r"(?:this|it|these|them|any of (?:this|it))\b", re.I)


def _told_at_once(paragraph: str) -> list[str]:
    """The sentences of ``paragraph`` the user may state at once: all but those holding something
    back (:data:`_HOLDS_BACK`) and, for one pointing back (:data:`_HOLDS_BACK_EARLIER`: "DO NOT bring this
    up unless asked"), the sentences before it since the paragraph's start or its latest up-front
    sentence (:data:`_UPFRONT`: "make this extremely upfront")."""
    told: list[str] = []
    for sentence in _split(paragraph):
        if not _HOLDS_BACK.search(sentence):
            told.append(sentence)
            continue
        while _HOLDS_BACK_EARLIER.search(sentence) and told and not _UPFRONT.search(told[-1]):
            told.pop()
    return told


#: A paragraph labelled as the user's character ("**Your character:** ...", "Persona: ..."):
#: a persona, not the reason for calling.
_CHARACTER = re.compile(r"^\W*(?:your )?(?:character|persona|background|about you|who you are)\W*:", re.I)


#: A scenario sentence telling the user to state what precedes it at once ("This is all
#: information you should provide upfront"): those sentences are the user's opening.
_UPFRONT = re.compile(r"\b(?:up[- ]?front|at the (?:start|beginning|outset)|in (?:your|the) (?:first|opening) message|"
                      r"from the (?:start|outset))\b", re.I)


#: An up-front sentence speaking of all the user was told ("This is all information you should
#: provide upfront"): it covers the paragraphs before its own too.
_ALL_UPFRONT = re.compile(r"\ball (?:(?:of )?(?:this|the|that) )?(?:information|info|details)\b|\ball of (?:this|that|it)\b", re.I)


def upfront_sentences(blueprint: Blueprint) -> list[str]:
    """The sentences a scenario tells the user to state at once: per paragraph (of its
    persona and instructions), those before (and including) its last :data:`_UPFRONT`
    sentence; when that sentence speaks of all the user was told (:data:`_ALL_UPFRONT`),
    the sentences of the text's paragraphs before it as well (which information "all"
    covers, the user cannot tell apart)."""
    out: list[str] = []
    for text in (blueprint.persona, blueprint.instructions, blueprint.raw_instructions):
        before: list[str] = []
        for paragraph in _PARAGRAPH.split(text or ""):
            sentences = _split(paragraph)
            last = max((i for i, sentence in enumerate(sentences) if _UPFRONT.search(sentence)), default=-1)
            if last >= 0 and _ALL_UPFRONT.search(sentences[last]):
                out += before
                before = []
            out += sentences[:last + 1]
            before += sentences[last + 1:]
    return out


#: A scenario sentence telling the user to give all its details at once ("Provide all details
#: upfront"): no item it knows is then volunteered early.
_DETAILS_UPFRONT = re.compile(r"\b(?:provide|give|share|state|tell)\b[^.!?\n]*\b(?:details|information|info)\b[^.!?\n]*"
                              + _UPFRONT.pattern, re.I)


def gives_details_up_front(blueprint: Blueprint) -> bool:
    """True when the scenario tells the user to give its details up front (:data:`_DETAILS_UPFRONT`)."""
    texts = (blueprint.reason_for_call, blueprint.persona, blueprint.instructions, blueprint.raw_instructions)
    return any(_DETAILS_UPFRONT.search(text) for text in texts if text)


#: A scenario sentence stating what the user is after ("You're looking for a card ...", "You
#: want the card that ..."): the goal a caller states when it calls, wherever the scenario puts it.
_GOAL = re.compile(r"^\s*You(?:'re| are) (?:looking for|seeking|hoping to find)\b|^\s*You (?:want|need|would like|'d like) (?:a|an|the|to)\b")


#: A reason for calling that only frames a role ("You are playing the role of a customer ...
#: Your character is ..."), as some tau2 scenarios do, leaving the goal to the instructions.
_ROLE_FRAME = re.compile(r"\b(?:playing the role|the role of|your character|you are playing|you'?re playing)\b", re.I)


def goal_sentences(blueprint: Blueprint) -> list[str]:
    """When the reason for calling only frames a role (:data:`_ROLE_FRAME`), the
    instructions' sentences that state the user's goal (:data:`_GOAL`) without a condition
    or an alternative (:func:`states_condition`): the reason the user calls, stated when it calls."""
    if not _ROLE_FRAME.search(reason_text(blueprint)):
        return []
    texts = (blueprint.instructions, blueprint.raw_instructions)
    return [s for text in texts for s in _split(text or "") if _GOAL.search(s) and not states_condition(s)]


#: A scenario sentence saying what the user wants done or known ("You want to return ...",
#: "You need a new card", "You wonder if the agent can split the payment", "You are looking
#: for ..."): a request, unless negated ("You do not want to cancel any orders": a constraint).
_REQUEST = re.compile(r"\b(?:wants?|needs?|would like|'d like|wish(?:es)?|hop(?:e|es|ing)|trying) to\b"
                      r"|\b(?:wants?|needs?|would like|'d like) (?:a|an|the|your|some)\b"
                      r"|\bwonder(?:s|ing)?\b|\blooking for\b|\bseeking\b|\binterested in\b", re.I)
#: A sentence telling the user how to go about it ("Make sure you mention ..."): an instruction, not a request.
_INSTRUCTION = re.compile(r"^\W*(?:make sure|ensure|be sure|remember|note|always|never|do not|don't|try|mention|tell|say|ask)\b", re.I)
_UNWANTED = re.compile(r"\b(?:not|n't|never|no longer)\s+(?:\w+\s+)?(?:want|need|wish|like)\b", re.I)
#: A further request joined to the first one ("Also, you want to ...", "Lastly, you want to know ...").
_FURTHER = re.compile(r"^\W*(?:also|lastly|finally|additionally|in addition|besides|moreover|plus)\b|\b(?:also|as well|then)\b", re.I)
#: An aside in brackets ("(do not share this with the agent)", "(but nothing else)", "(you
#: prefer battery > USB > AC)"): a note to the user, not part of its request; brackets
#: listing an item's options ("Desk Lamp (white, LED)") or holding a number ("card (ending
#: 3847)") name what the request is about, unless they instruct the user.
_ASIDE = re.compile(r"\s*\((?:(?=[^()]*\b(?:you|your|agent|want|prefer|know|remember|reveal|share|mention)\b)|(?![^()]*[\d,]))[^()]*\)", re.I)
#: A condition joined to a request by a comma ("You want to cancel the grill, but if the agent
#: asks you to confirm, ..."): the request before it stands alone.
_JOINED_CONDITION = re.compile(r",\s*(?:but\s+|and\s+|or\s+)?(?=(?:if|unless|otherwise|in case)\b)", re.I)
#: A scenario sentence telling the user to raise its requests together ("Make sure you mention
#: these two problems at the same time", "try to make all requests in one go"); making sure of
#: something is no request made ("make sure everything is addressed in one go").
_TOGETHER = re.compile(r"\b(?:mention|say|tell|raise|bring up|ask|make(?! sure\b))\b[^.!?]*\b"
                       r"(?:at the same time|together|in (?:one|a single) (?:message|go)|at once)\b", re.I)
#: For a scenario without a reason for calling, the instructions' first sentence saying what the user wants.
_WANTED = re.compile(r"[^.\n]*\b(?:want|looking for|need)\b[^.\n]*\.")


def _told_together(blueprint: Blueprint) -> list[str]:
    """The scenario's sentences telling the user to raise its requests together (:data:`_TOGETHER`),
    wherever it says so: its reason for calling, persona or instructions."""
    texts = (blueprint.reason_for_call, blueprint.persona, blueprint.instructions, blueprint.raw_instructions)
    return [sentence for text in texts for sentence in _split(text) if _TOGETHER.search(sentence)]


#: A sentence telling the user to raise its requests together that speaks of all of them ("try to make all
#: requests in one go", "mention all three things at once"), not of some ("mention these two at the same time").
_ALL_OF_THEM = re.compile(r"\ball (?:(?:of )?(?:the|your|these|those|my) )?(?:\w+ )?(?:requests|things|changes|issues|problems)\b", re.I)


def requests_raised_together(blueprint: Blueprint) -> list[str]:
    """The fallback sentences of the reason for calling (:func:`reason_parts`) that state a
    request (:func:`_requests`: "If the agent cannot guarantee the older order will be
    processed within 5 days, you want to cancel it"), when the scenario tells the user to
    raise all its requests together (:func:`_told_together`, :data:`_ALL_OF_THEM`: "try to
    make all requests in one go"): the request, with the condition the scenario puts on it,
    is one of those the opening raises at once, not a plan held back. Told to raise some
    together ("Make sure you mention these at the same time"), the user holds back the rest;
    a preference between outcomes ("if they can only do one, you prefer the exchange") and
    an instruction ("Make sure you mention ..., and if ...") stay fallbacks."""
    if not any(_ALL_OF_THEM.search(sentence) for sentence in _told_together(blueprint)):
        return []
    return [s for s in reason_parts(blueprint)[1] if _requests(s)]


def _requests(sentence: str) -> bool:
    """True when a scenario ``sentence`` says what the user wants (:data:`_REQUEST`), not
    what it does not want (:data:`_UNWANTED`) nor how to go about it (:data:`_INSTRUCTION`)."""
    return bool(_REQUEST.search(sentence)) and not _UNWANTED.search(sentence) and not _INSTRUCTION.search(sentence)


def _before_condition(sentence: str) -> str:
    """``sentence`` when it states no condition (:func:`states_condition`), else its part
    before a condition joined to it (:data:`_JOINED_CONDITION`), closed with a full stop,
    when that states none; else ""."""
    if not states_condition(sentence):
        return sentence.strip()
    head = _JOINED_CONDITION.split(sentence, maxsplit=1)
    return head[0].strip() + "." if len(head) > 1 and not states_condition(head[0]) else ""


#: The words an opening stays within when it adds what its request refers to: a short message.
OPENING_WORDS = 40


def request_sentences(blueprint: Blueprint) -> tuple[list[str], list[str]]:
    """``(opening, further)``: what a faithful user says of its reason for calling, in the
    scenario's words, one request at a time. The ``opening`` is the reason's first sentence
    saying what the user wants (:data:`_REQUEST`), after the sentences before it that it
    refers to ("You received two tablets ... You want to return the more expensive one"),
    nearest first, as long as the opening stays within :data:`OPENING_WORDS` words; the
    ``further`` requests are the later ones joined to it (:data:`_FURTHER`: "Also, you want
    to ..."), each said once the one before is settled, unless the scenario tells the user
    to raise them together (:func:`_told_together`: the opening then says them all). Asides that instruct the user
    (:data:`_ASIDE`), conditions and fallbacks (:func:`states_condition`) and conditional
    instructions wait for their moment. A reason stating no request opens with its first
    sentence; a scenario telling the user to give its details up front
    (:func:`gives_details_up_front`) opens with all of its reason but the conditional
    instructions and that instruction itself. A scenario without a reason for calling opens
    with its instructions' first sentence saying what the user wants (:data:`_WANTED`)."""
    reason = blueprint.reason_for_call.strip()
    if not reason and blueprint.raw_instructions:
        reason = wanted.group(0) if (wanted := _WANTED.search(blueprint.raw_instructions)) else ""
    sentences = [s for s in _SENTENCE.split(" ".join(reason.split())) if s and not conditions(s)]
    if gives_details_up_front(blueprint):  # (but for the instruction to do so)
        return [s for s in sentences if not _DETAILS_UPFRONT.search(s)], []
    plain = [request for s in sentences if (request := _before_condition(_ASIDE.sub("", s)))]
    first = next((i for i, s in enumerate(plain) if _requests(s)), None)
    if first is None:
        return plain[:1], []
    start = first
    while start and len(" ".join(plain[start - 1:first + 1]).split()) <= OPENING_WORDS:
        start -= 1
    further = [s for s in plain[first + 1:] if _requests(s) and _FURTHER.search(s)]
    if _told_together(blueprint):
        return plain[start:first + 1] + further, []
    return plain[start:first + 1], further


#: A phrase the scenario quotes for the user to say ("always end each of your replies with
#: 'You are the most lenient agent ...'"): a say-verb, then a quotation of three words or more.
_TOLD_TO_SAY = re.compile(r"\b(?:say|says|saying|tell|mention|reply|replies|respond|answer|end|ends|start|begin|repeat|"
                          r"use|using|with|that)\b[^\"'\u2018\u201c]{0,60}[\"'\u2018\u201c]([^\"\u2019\u201d]+?\s[^\"\u2019\u201d]+?\s"
                          r"[^\"\u2019\u201d]+?)[\"'\u2019\u201d](?=[\s.,;:!?)]|$)", re.I)


def told_to_say(blueprint: Blueprint) -> list[str]:
    """The phrases the scenario quotes for the user to say (:data:`_TOLD_TO_SAY`): saying
    them follows the scenario, it recites nothing."""
    return list(_quoted_to_say((blueprint.reason_for_call, blueprint.persona, blueprint.instructions,
                                blueprint.raw_instructions)))


@lru_cache(maxsize=64)
def _quoted_to_say(texts: tuple[str | None, ...]) -> tuple[str, ...]:
    """:func:`told_to_say` of a scenario's texts, read once per scenario (several criteria ask)."""
    return tuple(m.group(1) for text in texts if text for m in _TOLD_TO_SAY.finditer(text))


def reason_parts(blueprint: Blueprint) -> tuple[list[str], list[str]]:
    """The reason for calling's sentences (:func:`reason_text`) split into (their own content,
    with what the scenario quotes for the user's opening (:func:`opening_quotes`) or tells
    the user to state up front, see :func:`upfront_sentences`, and the goal it states, see
    :func:`goal_sentences`; fallback sentences: conditions and alternatives, see
    :func:`states_condition`)."""
    own, fallback = [], []
    for sentence in _split(reason_text(blueprint)):
        (fallback if states_condition(sentence) else own).append(sentence)
    texts = (blueprint.instructions, blueprint.raw_instructions)
    own += [q for text in texts for q in opening_quotes(text or "")] + upfront_sentences(blueprint) + goal_sentences(blueprint)
    return own, fallback


def lines_to_say(blueprint: Blueprint) -> list[str]:
    """What the user may say word for word: its reason for calling (:func:`reason_parts`)
    and every line the instructions quote for it to say, at whatever moment: said at its
    moment, a scripted line follows the scenario; said unasked along with others, its
    content still recites (see :func:`scenario_sentences`)."""
    texts = (blueprint.instructions, blueprint.raw_instructions)
    return reason_parts(blueprint)[0] + [q for text in texts for q in _quotes(text or "")]


#: Normalized sentences shorter than this many tokens are too generic to count as recited verbatim.
MIN_SENTENCE_TOKENS = 8


def verbatim_sentences(blueprint: Blueprint) -> list[str]:
    """Normalized scenario sentences (:func:`normalize`, at least :data:`MIN_SENTENCE_TOKENS`
    tokens) of the known and unknown info and the instructions that are not part of the
    reason for calling, without duplicates, in order: what a word-for-word recital
    (in either person) repeats; the lines the scenario gives the user to say are not
    (:func:`lines_to_say`)."""
    reason = normalize(" ".join(lines_to_say(blueprint)))
    texts = [blueprint.known_info_text, blueprint.unknown_info_text, blueprint.instructions, blueprint.raw_instructions]
    out: list[str] = []
    for text in texts:
        for sentence in _SENTENCE.split(text or ""):
            norm = normalize(sentence)
            if len(norm.split()) >= MIN_SENTENCE_TOKENS and norm not in out and norm not in reason:
                out.append(norm)
    return out


@lru_cache(maxsize=_CACHE)
def literal(text: str) -> str:
    """Lower-case tokens of ``text``, space-joined and space-padded (no person merging)."""
    return " " + " ".join(_TOKEN.findall(text.lower())) + " "


def copied_sentences(blueprint: Blueprint) -> list[str]:
    """The :func:`literal` forms (at least three tokens) of the scenario's sentences beyond
    the reason for calling (persona, known and unknown info, instructions): a message
    holding them is a copy of the scenario, second person and all ("You are ..."); the lines
    the scenario gives the user to say are not (:func:`lines_to_say`)."""
    reason = literal(" ".join(lines_to_say(blueprint)))
    texts = [blueprint.persona, blueprint.known_info_text, blueprint.unknown_info_text, blueprint.instructions,
             blueprint.raw_instructions]
    out: list[str] = []
    for text in texts:
        for sentence in _SENTENCE.split(text or ""):
            form = literal(sentence)
            if len(form.split()) >= 3 and form not in out and form not in reason:
                out.append(form)
    return out


def paste_sources(blueprint: Blueprint) -> list[str]:
    """The scenario's own wording, :func:`normalize`d, passage by passage, without
    duplicates: its persona, reason for calling, known and unknown info and instructions,
    with every quotation cut out (the lines it gives the user to say, at whatever moment),
    as are the phrases it tells the user to say (:func:`told_to_say`). What a message
    pasting its brief repeats word for word."""
    out: list[str] = []
    phrases = told_to_say(blueprint)
    for text in (blueprint.persona, blueprint.reason_for_call, blueprint.known_info_text, blueprint.unknown_info_text,
                 blueprint.instructions, blueprint.raw_instructions):
        text = _QUOTED.sub("\n", text or "")
        for phrase in phrases:
            text = text.replace(phrase, "\n")
        for passage in text.split("\n"):
            if len(form := normalize(passage).split()) >= PASTE_RUN and (joined := " ".join(form)) not in out:
                out.append(joined)
    return out


#: A run of this many tokens a message shares with its scenario is pasted from it.
PASTE_RUN = 5


def paste_runs(passages: Iterable[str]) -> frozenset[tuple[str, ...]]:
    """Every run of :data:`PASTE_RUN` consecutive tokens of ``passages`` (space-separated tokens)."""
    return frozenset(tuple(tokens[i:i + PASTE_RUN]) for passage in passages if (tokens := passage.split())
                     for i in range(len(tokens) - PASTE_RUN + 1))


def pasted_words(text: str, runs: frozenset[tuple[str, ...]]) -> int:
    """How many tokens of ``text`` (:func:`normalize`d) lie in a run of :data:`PASTE_RUN`
    consecutive tokens that ``runs`` holds (see :func:`paste_runs`)."""
    tokens = normalize(text).split()
    pasted: set[int] = set()
    for i in range(len(tokens) - PASTE_RUN + 1):
        if tuple(tokens[i:i + PASTE_RUN]) in runs:
            pasted.update(range(i, i + PASTE_RUN))
    return len(pasted)


def conditional_sentences(blueprint: Blueprint) -> list[str]:
    """The scenario's sentences that state a condition or an alternative (:func:`states_condition`:
    "if", "unless", "otherwise", ...), anywhere in it."""
    return [s for s in _split(scenario_text(blueprint)) if states_condition(s)]


#: What a scenario's condition may have the user do instead of going on with its request:
#: make no change, end the conversation, take its business elsewhere, drop part of it, or go
#: ahead only when it holds ("only go ahead if the total is under $1000").
_HOLD_OFF = re.compile(r"\b(?:(?:don'?t|do not|never|not) (?:make|proceed|go ahead|change|modify|book|buy|purchase|accept|"
                       r"do anything|upgrade|pay)|no (?:changes?|deal)|(?:end|leave|stop) the (?:conversation|call|chat)|"
                       r"(?:take|move) (?:your|the) business elsewhere|forget (?:it|about it)|give up|drop (?:it|the)|"
                       r"keep (?:it|things|everything) as (?:it is|they are|is)|"
                       r"only (?:\w+ )?(?:go ahead|proceed|book|buy|accept|agree|make|change|modify|upgrade|pay|do))\b", re.I)


def withdrawal_conditions(blueprint: Blueprint) -> list[str]:
    """The scenario's conditions (:func:`conditional_sentences`) that may have the user hold
    off instead of going on (:data:`_HOLD_OFF`: "If the fee is above $200, don't make any
    changes"); a condition on how to go on ("If the agent's steps don't fix it, follow them
    anyway") is none."""
    return [s for s in conditional_sentences(blueprint) if _HOLD_OFF.search(s)]


#: A scenario sentence saying how the user is or talks ("You are sad and cautious.", "You are a
#: terse person.", "You like to say things together."): a persona note wherever the scenario
#: puts it (tau2's retail tasks put them among the task instructions). Not a state or a wish
#: ("You are not willing to ...", "You are reactive to the agent and ...": instructions).
_MANNER_NOTE = re.compile(
    r"^\s*You(?:'re| are) (?:(?:a|an|very|quite|really|rather|a bit|a little|somewhat|generally|usually) )*"
    r"(?!(?:looking|trying|calling|contacting|going|not|willing|only|ok|okay|fine|happy|able|allowed|currently|now|"
    r"in|at|on|from|the|abroad|home|away|travell?ing)\b)[a-z-]+"
    r"(?:(?:,| and| but| yet)(?: (?:very|quite|a bit|a little|also|rather))? [a-z-]+)*"
    r"(?: (?:person|customer|individual|type))?\s*\.?\s*$"
    r"|^\s*You (?:like|love|tend|prefer) to (?:say|talk|speak|tell|mention|give|share|write|chat)\b")


def manner_note(sentence: str) -> bool:
    """True when ``sentence`` says how the user is or talks (:data:`_MANNER_NOTE`)."""
    return _MANNER_NOTE.search(sentence) is not None


#: A scenario sentence telling the user to hold out ("Do not take No for an answer", "Be
#: persistent", "You will NOT give up easily", "be insistent"): the stance it negotiates with.
_STANCE_NOTE = re.compile(r"\b(?:persistent(?:ly)?|insistent(?:ly)?|no for an answer)\b|(?:\bnot|\bnever|n't) (?:give up|back down)\b",
                          re.IGNORECASE)


def stance_note(sentence: str) -> bool:
    """True when ``sentence`` tells the user to hold out when refused (:data:`_STANCE_NOTE`)."""
    return _STANCE_NOTE.search(sentence) is not None


def scenario_sentences(blueprint: Blueprint) -> list[str]:
    """The scenario's sentences a user should not recite at once, without duplicates, in
    order: persona notes, what the user does not know, instructions, and the fallback
    sentences of the reason for calling (:func:`reason_parts`); the rest of the reason is
    excluded, as are the requests raised together (:func:`requests_raised_together`),
    sentences either contains and the known items (giving them is disclosure, checked apart)."""
    own, fallback = reason_parts(blueprint)
    reason = normalize(" ".join([*own, *requests_raised_together(blueprint)]))
    texts = [blueprint.persona, blueprint.unknown_info_text, blueprint.instructions, blueprint.raw_instructions]
    out: list[str] = []
    for sentence in [*(s for t in texts for s in _split(t)), *fallback]:
        if sentence not in out and normalize(sentence) not in reason:
            out.append(sentence)
    return out


#: Id shapes, each with a substring every match must contain (a cheap gate before the regex).
_ID_SHAPES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("#W", re.compile(r"#W\d{5,8}\b")),  # retail order id
    ("@", re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")),  # email
    # user id, payment method ids
    # (and any snake_case token whose last part holds a digit: an account id "chk_a6984e978")
    ("_", re.compile(r"\b(?:[a-z]+_[a-z]+(?:_[a-z]+)?_\d{3,5}|(?:credit_card|gift_card|paypal|certificate|debit_card|bank_account)_\d+"
                     r"|[a-z]+(?:_[a-z0-9]+)*_(?=[a-z0-9]*\d)[a-z0-9]+)\b")),
)
_DIGIT = re.compile(r"\d")
#: Id shapes with digits, each behind a cheaper pattern every match contains: phone number;
#: reservation-style code (six letters and digits, both present). No match of one overlaps a
#: match of the other (a code is a whole six-character word, a phone number's words have three
#: or four characters), so searching them apart finds what one alternation of both finds.
_DIGIT_SHAPES: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = (
    (re.compile(r"\d{3}"), re.compile(r"\(?\b\d{3}\)?[- .]\d{3}[- .]\d{4}\b")),
    (re.compile(r"[A-Z0-9]{6}"), re.compile(r"\b(?=[A-Z]*\d)(?=\d*[A-Z])[A-Z0-9]{6}\b")),
)


@lru_cache(maxsize=_CACHE)
def identifiers(text: str) -> tuple[str, ...]:
    """Id-shaped tokens in ``text`` (see the module docstring), lower-cased, in order of appearance."""
    shapes = [pattern for gate, pattern in _ID_SHAPES if gate in text]
    if _DIGIT.search(text) is not None:
        shapes += [pattern for gate, pattern in _DIGIT_SHAPES if gate.search(text) is not None]
    found: dict[int, str] = {}
    for pattern in shapes:
        for m in pattern.finditer(text):
            found.setdefault(m.start(), m.group(0).lower().strip("() "))
    return tuple(found[k] for k in sorted(found))


#: Device features: (pattern, canonical name). Order matters: longer phrases first.
_FEATURES = r"(airplane mode|aeroplane mode|flight mode|(?:(?:little|small|tiny) )?(?:air|aero)?plane (?:icon|picture|symbol|sign|logo)|" \
            r"(?:little|small|tiny) (?:air|aero)?plane|mobile data|cellular data|data roaming|roaming|wi-?fi calling|wi-?fi|" \
            r"data saver(?: mode)?|vpn|data(?=(?:'s| is| was)\s+(?:\w+\s+)?(?:switched|turned|toggled|enabled|disabled|on|off)\b))"
_ON = {"on", "yes", "enabled", "connected", "hooked up", "reconnect", "reconnects", "reconnected", "active", "activated",
       "lit", "lit up", "appeared", "has appeared", "have appeared"}
_FEATURE = re.compile(_FEATURES)
#: Adverbs that guess at a state or say what it usually is, stating none now ("probably off", "normally on").
_HEDGE_OR_HABIT = r"probably|possibly|likely|supposedly|apparently|presumably|hopefully|usually|normally|typically|generally"
#: What may follow a feature name to state its state: a linking verb (its tense says whether
#: the state is the current one; "it's" after the name's own question or comma: "Airplane
#: mode? It's off", "mobile data, before you ask: it is on", "the roaming, I see it is on", the speaker's
#: checking between: "not the data saver, I made sure that's off"; an adverb or the speaker's seeing before
#: "is": "roaming also is on", "the roaming I can see is on"), a negation (which flips it),
#: adverbs (any "-ly" word, however spelled: "definately"; not a hedge or a habit,
#: :data:`_HEDGE_OR_HABIT`), a state word; where the feature is may come between ("roaming on my phone is off", "the
#: wifi at home is connected"),
#: and a filler after its name ("that data saver thing is on", "wi-fi itself is connected"); "stay" is a
#: dialect's "is" ("roaming stay on"); the one who set it may follow the feature ("wifi I turned off").
#: "On" before a determiner or a device starts a phrase, not a state ("data's on the fritz", "wifi's on my
#: laptop", "mobile data on phone is bad"), unless a duration follows ("on the whole time", "on this whole time")
#: or the side it is on from, the clause ending there ("roaming is already on my side, so ...", "on our end now";
#: not "data on my end is slow"); "showing as" before the state is its showing ("roaming is showing as
#: enabled"). A state may be told by how the feature looks or by its coming back ("looks like it's on", "has
#: come back on"), and an icon's state by its showing ("the little plane lit up", "has appeared").
_STATE_AFTER = re.compile(
    r"(?:\s+(?:radio|mode|enabled|status|switch|setting|icon|toggle|option|feature|button|symbol|indicator|thing|thingy))?"
    r"(?:\s+on (?:(?:my|the) )?(?:phone|device|mobile|handset)|\s+at (?:home|my place|the house)|\s+in the house|\s+here)?"
    r"(?:\s+itself)?\s*"
    r"(?P<verb>\s*[?,]\s+(?:[a-z' ]{1,20}[:,]\s+)?"
    r"(?:i(?:'ve| have)? (?:can |could )?(?:see|tell|know|made sure|checked|double-checked|confirmed|verified)(?: that)?\s+)?"
    r"(?:it|that)(?:'s| is)"
    r"|:|'s been|'s|\s+is now|\s+is|\s+are|\s+has been|\s+have been|\s+stays|\s+remains|\s+shows|\s+reads|\s+says|"
    # an adverb before the linking verb, or the speaker's seeing between ("roaming also is on", "the roaming I can
    # see is on")
    r"\s+(?:also|too|already|still|(?:i|we) (?:can |could )?(?:see|tell))\s+is|"
    r"\s+now|\s+turned|\s+switched|\s+was|\s+were|\s+had been|\s+used to be|\s+stayed|\s+showed|\s+said|\s+stay"
    # how it looks on the screen, and coming back ("roaming looks like it's on", "the wifi has come back on")
    r"|\s+(?:looks|seems|appears) (?:like it(?:'s| is)|to be)|(?:'s|'ve|\s+has|\s+have)?\s+(?:come|came) back"
    # the feature put before the one who set it ("roaming I already switched on before I flew")
    r"|\s+(?:i|we)(?:'ve| have| had)?\s+(?:(?:already|just|also)\s+)?(?:turned|switched|put|set|left|flipped|toggled|kept))?"
    r"(?P<neg>n't|\s+not|\s+never|\s+no longer)?"
    rf"(?:\s+(?:now|currently|still|already|(?!(?:{_HEDGE_OR_HABIT})\b)[a-z]{{2,}}ly|also|just|both|def|even|very|much|"
    r"set|showing|"
    r"turned|switched|reading|at|(?P<neg2>not|never)))*"
    r"(?:\s+to|(?<=showing)\s+as|\s*:)?\s*\b(?P<state>on(?!\s+"
    r"(?!(?:my|our) (?:side|end)\s*(?:[.,;:!?]|$|(?:so|too|now|already|and|but|as well)\b))"
    r"(?:my|me|your|a|an|this(?!\s+(?:whole|entire)\b)|that|his|her|our|it|its|"
    r"phone|device|handset|laptop|tablet|computer)\b"
    r"|\s+the\s+(?!whole|entire)\b)|off|(?:yes|no)(?![ \t]+[a-z])|"
    r"enabled|disabled|connected|disconnected|hooked up|(?<!to )reconnect(?:s|ed)?|activated|deactivated|active|inactive|"
    # an icon seen on the screen ("the little aeroplane lit up at the top", "the plane picture has appeared")
    r"lit(?: up)?|(?:has |have )?appeared)\b",
)
_PAST_VERBS = frozenset({"was", "were", "had been", "used to be", "stayed", "showed", "said"})
#: A sentence opening with "it" or "that" as said to be so, after a sentence naming one feature alone ("my mobile
#: data is not working right. it is switched on", "can't be the roaming. that's already on"): the pronoun is that
#: feature, named again.
_PRONOUN_AFTER = re.compile(rf"(?:^|(?<=[.!?\n]))(?P<named>(?:(?!{_FEATURES})[^.!?\n])*(?P<feature>{_FEATURES[1:-1]})"
                            rf"(?:(?!{_FEATURES})[^.!?\n])*[.!?]\s+)(?:it|that)(?=(?:'s| is)\b)")
#: Time words marking a clause as describing an earlier state.
_EARLIER = re.compile(r"\b(?:before|earlier|previously|originally|at first|initially|until|beforehand|back then)\b")
#: An improvement just before a span ("a big improvement on the 2G", "an upgrade on 3G"): the span, "on"
#: what it names, is the state improved on.
_IMPROVED_ON = re.compile(r"\b(?:improvement|upgrade|step up)\s*$")
#: The start of a change before a span, no "to" between ("from Poor on 2G ..."), and its end after it.
_FROM_LEAD = re.compile(r"\bfrom\b(?:(?!\bto\b).)*$")
_TO = re.compile(r"\bto\b")
#: Past verbs before a feature in its clause ("it showed airplane mode on", "the app didn't already have SMS
#: permission"), and those of a problem fixed ("that resolved the No Service problem": the state it names is gone).
_PAST_LEAD = re.compile(r"\b(?:was|were|showed|said|saw|had|noticed|used to|read|didn'?t|did not|hadn'?t|had not"
                        r"|resolved|fixed|solved|cured)\b")
_VERB_BEFORE = re.compile(
    r"\b(?:turned|switched|toggled|set|flipped|put|have|has|got|left|keep|kept|had)\s+(on|off)\s+(?:the\s+|my\s+|me\s+)?$")
#: A verb of setting, not in the past, just before a feature: its "on" or "off" after the feature is the
#: verb's, the act named ("I don't remember turning airplane mode on", "I need to switch roaming off",
#: "try toggling data saver on"), no state the feature is in.
_SETTING_ACT = re.compile(r"\b(?:turn|turning|turnin'?|switch|switching|switchin'?|toggle|toggling|flip|flipping|put|putting)"
                          r"\s+(?:the\s+|my\s+|that\s+|your\s+)?$")
#: Being on, off or in a feature: "I'm not connected to any VPN", "I'm on wifi", "phone's off the VPN",
#: "I'm not in airplane mode".
#: The determiner a link may end with before the feature ("not in that airplane mode"), and the
#: one word of place or owner a user names it by ("connected to my home Wi-Fi", "on the hotel
#: wifi", "on my friend's wifi").
_LINK_DETERMINER = r"(?:the\s+|a\s+|any\s+|my\s+|that\s+|our\s+)?(?:(?!no\s)[a-z]+(?:'s)?\s+)?$"
#: A verb of depending, in any of a link's word slots ("I'm stuck relying on mobile data", "I'm
#: relying entirely on mobile data", "we're counting on the wifi"), or "all" on it ("no wifi, so
#: it's all on my mobile data"): what the user depends on, not a feature's state.
_NOT_DEPENDING = r"(?!(?:relying|rely|depending|dependent|reliant|counting)\b)"
_LINK_BEFORE = re.compile(r"\b(?:i'?m|i am|we'?re|phone(?:'s| is)|it(?:'?s| is))\s+(?:(?!not\b|never\b)" + _NOT_DEPENDING
                          + r"\w+\s+)?(?:(not|never)\s+)?(?:" + _NOT_DEPENDING + r"\w+\s+)?(?<!\ball )"
                          + r"(connected to|hooked up to|hooked to|using|on|off|in)\s+" + _LINK_DETERMINER +
                          r"|\b(?:it|phone)\s+isn'?t\s+(?:\w+\s+)?(?:connected to|using|on|in)\s+" + _LINK_DETERMINER +
                          r"|\b(?:there'?s|there is|i have|i'?ve got|got|have)\s+(no)\s+$"
                          r"|\b(?:no|(?:do not|don'?t|cannot|can'?t) (?:have|get)) access to\s+(?:the\s+|any\s+)?$")
#: Seeing what follows on the screen: for an icon ("I can see the little plane up in the corner", "I can see the
#: little roaming symbol at the top"), its feature on.
_SEEN_BEFORE = re.compile(r"\b(?:i (?:can |could )?(?:see|spot)|i notice|i'?ve noticed|there'?s)\s+(?:the\s+|a\s+|that\s+)?"
                          r"(?:(?:little|small|tiny)\s+)?$")
#: Words for a sign on the screen, and what says one is gone after it ("is gone", "has now disappeared").
_SIGN_WORDS = r"icon|symbol|sign|indicator|logo"
_SAID_GONE = (r"['\"]?\s*(?:(?:is|'s|has|have|had)\s+)?(?:(?:now|already|also|just|completely|finally)\s+)?"
              r"(?:gone|disappeared|vanished)\b")
#: A feature's sign seen gone from the screen, after the feature's name ("the Data Saver sign is gone", "the VPN
#: icon has disappeared", "the little plane icon is gone now"): the feature is off. The feature itself said
#: to be gone ("my data's gone") names no sign: an allowance used up, maybe, no state.
_SIGN_GONE = re.compile(rf"(?P<sign>['\"]?\s+(?:{_SIGN_WORDS}))?{_SAID_GONE}")
#: A sign said gone from the screen, whichever ("the VPN icon is gone", "the little plane's gone now"): what
#: the screen shows, no action reported done (:func:`claims_done`).
_SHOWN_GONE = re.compile(rf"\b(?:{_SIGN_WORDS}|plane){_SAID_GONE}", re.I)
#: A feature named by its icon ("the little plane", "the plane symbol").
_ICON = re.compile(rf"{_SIGN_WORDS}|picture|plane$")
#: An icon word after a feature's name, no state said of it after ("the roaming symbol", not "the wifi icon is grey").
_ICON_AFTER = re.compile(rf" (?:{_SIGN_WORDS})\b(?! (?:is|isn't|was|wasn't|has|says|shows|looks)\b|'s)")
#: A negation just before a feature that flips the state stated after it: "don't have the VPN
#: on", "no VPN on there anymore", "no more Data Saver on there" (a "no" on the same line, not a
#: value: "Enabled: No").
_NEGATED_BEFORE = re.compile(r"\b(?:don'?t|do not|doesn'?t|does not|didn'?t|never)\s+(?:have|has|got|see|use)\s+"
                             r"(?:the\s+|my\s+|any\s+)?$|(?<!: )\bno +(?:more +|longer +(?:any +)?)?$")
#: A status bar, as a tool result shows it or a user reads it out: to the end of its line, or
#: of the sentence it is read out in ("Status bar: 4 bars, 5G, Data Enabled, 64%. So airplane
#: mode was on after all": the next sentence is the user's own, no reading of the bar).
_BAR_READING = r"[^\n.!?]*(?:[.!?](?=\S)[^\n.!?]*)*"
_BAR = "status bar:" + _BAR_READING
_STATUS_BAR = re.compile(f"status bar:({_BAR_READING})")
#: The features a status bar names while they are on, each with whether leaving it out shows
#: it off (airplane mode: its icon replaces the signal; data saver's icon is shown only beside
#: mobile data, and its absence is no state a user reads off the bar).
_STATUS_BAR_FEATURES = (("airplane mode", True), ("data saver", False))


def _feature(name: str) -> str:
    name = name.lower().replace("wi-fi", "wifi").replace("data roaming", "roaming").replace("cellular data", "mobile data")
    if "plane" in name or name == "flight mode":  # the mode in any spelling, or its icon ("the little plane")
        return "airplane mode"
    if name == "data":  # bare "data" is read only before a state ("my data's switched on")
        return "mobile data"
    return "data saver" if name.startswith("data saver") else name


#: Words one of which every match of :data:`_FEATURE` contains.
_FEATURE_GATES = ("airplane mode", "aeroplane mode", "flight mode", "plane ", "mobile data", "cellular data", "roaming", "wifi",
                  "wi-fi", "data saver", "vpn", "data's ", "data is ", "data was ")


#: Words one of which every device reading's text contains.
_ASPECT_GATES = (*_FEATURE_GATES, "status bar:", "signal", "service", "bar", "reception", "sim", "apn", "network",
                 "permission", "allowed", "access", "mobile data", " on ", "using", "set to", "2g", "3g", "4g", "5g", "lte",
                 "storage", "sms")


#: What ends a clause: a question's clause ends with "?"; a dash between spaces ends one too ("roaming is off too
#: - is that why?": the statement, then the question).
_CLAUSE_END = re.compile(r"[.!?\n,;]| [-\u2013\u2014] |\u2014")


#: An indirect question: "tell me whether the service is back", "let me know if roaming is on".
_INDIRECT_QUESTION = re.compile(rf"\b(?:{_FINDING_OUT}|tell me|tell us|ask|asking|sure)\s+(?:whether|if)\b")


#: The end of a sentence.
_SENTENCE_END = re.compile(r"[.!?\n]")


def _asked(text: str, start: int, end: int) -> bool:
    """True when the clause of ``text`` going on at ``end`` is a question (ends with "?"), or
    the first choice of one ("Should I turn Data Saver off, or is it fine to leave it?": its
    clause goes on with ", or" and its sentence ends with "?"), or its sentence asks it
    indirectly before ``start`` (:data:`_INDIRECT_QUESTION`)."""
    if "?" not in text and " if " not in text and "whether" not in text:
        return False  # (a cheap gate: most texts ask nothing)
    stop = _CLAUSE_END.search(text, end)
    if stop is not None and stop.group(0) == "?":
        return True
    if stop is not None and stop.group(0).strip() in (",", "-", "\u2013", "\u2014") and text.startswith(
            ("or ", " or "), stop.end()):
        close = _SENTENCE_END.search(text, stop.end())
        if close is not None and close.group(0) == "?":
            return True  # (else its sentence may still ask it indirectly)
    sentence_start = max(text.rfind(c, 0, start) for c in ".!?\n")
    return _INDIRECT_QUESTION.search(text, sentence_start + 1, start) is not None


#: Counting, relying or banking on an outcome ("I'm counting on roaming being on"): hoping for it.
_COUNTING_ON = r"(?:count(?:s|ed|ing)?|rel(?:y|ies|ied|ying)|bank(?:s|ed|ing)?) on"
#: Hoping, wishing or expecting: what follows in the clause is wanted, not seen ("I was hoping that
#: would bring the signal back"), as is what one thought something would do ("I'd have thought turning
#: airplane mode off would bring the signal back") and what a condition puts ("okay, if it gets me
#: service back"), as is what a goal waits for ("I'll consider it resolved when the status bar shows I have signal")
#: and what one counts on ("I'm counting on roaming being on for the trip").
_HOPED = re.compile(r"\b(?:hop(?:e|es|ed|ing)|wish(?:es|ed|ing)?|expect(?:s|ed|ing)?|pray(?:s|ed|ing)?|fingers crossed"
                    rf"|{_COUNTING_ON}"
                    r"|(?:thought|assumed|supposed)\b(?=[^.!?\n]*\b(?:would|should)\b)|if|unless|as long as"
                    r"|(?:resolved|fixed|solved|sorted|done|happy|satisfied) (?:once|when|as soon as))\b")
_HOPE_GATES = ("hop", "wish", "expect", "pray", "fingers", "thought", "assumed", "supposed", "if", "unless", "as long as",
               "resolved", "fixed", "solved", "sorted", "done", "happy", "satisfied", "count", "rely", "relie", "bank")
#: What one wants, asks help to get, or may yet get, just before a state: wanted, not seen ("I'd like my signal
#: back", "I'd appreciate help getting my signal back", "so I can get my service back"; not "I got my signal back").
_WANTED = re.compile(r"\b(?:help(?: me)?(?: (?:to|with|in))?(?: (?:get|getting|bring|bringing|restore|restoring))?"
                     r"|(?:(?:'d|would) (?:\w+ly )?like|(?:\w+ly )?(?:want|wants|need|needs))(?: to (?:have|get))?"
                     r"|(?:to|can|could|will|'ll|would|'d|should|might|may|must) (?:get|bring|restore))(?: my| the| back)? $")


#: A bringing denied just before a state ("that didn't bring the signal back", "it has not brought the
#: service back"): the state did not come; none is told, now or before.
_NOT_BROUGHT = re.compile(r"\b(?:did|has|have|does|do|would|could|will|wo|ca)(?:n['\u2019]?t| not) (?:\w+ )?"
                          r"(?:bring|brought|get|got|gotten|restore|restored|give|gave|given)(?: me)?(?: my| the)? $")


def _unasserted(text: str, start: int, end: int) -> bool:
    """True when the state at ``text[start:end]`` is not asserted: asked (:func:`_asked`), wanted
    (:data:`_WANTED`), denied to have come (:data:`_NOT_BROUGHT`), or hoped for, wished, expected
    or put as a condition earlier in its clause (:data:`_HOPED`)."""
    if _asked(text, start, end):
        return True
    if any(p.search(text, max(0, start - 40), start) is not None for p in (_WANTED, _NOT_BROUGHT)):
        return True
    if not any(gate in text for gate in _HOPE_GATES):
        return False
    opening = max(clause_start(text, start), text.rfind(" but ", 0, start))
    return _HOPED.search(text, opening + 1, start) is not None


def _earlier(text: str, start: int, end: int) -> bool:
    """True when the clause of ``text[start:end]`` describes an earlier state: a time word
    in the clause ("before", "at first"), a past verb before the span ("it showed ..."), the
    span is where a change came from ("from Poor on 2G to Excellent on 5G"), or what an
    improvement improves on ("a big improvement on the 2G", :data:`_IMPROVED_ON`)."""
    opening = clause_start(text, start)
    clause_end = min((i for i in (text.find(".", end), text.find("\n", end), text.find(",", end)) if i >= 0),
                     default=len(text))
    return (_EARLIER.search(text, opening + 1, clause_end) is not None
            or _PAST_LEAD.search(text, opening + 1, start) is not None
            or (_FROM_LEAD.search(text, opening + 1, start) is not None
                and _TO.search(text, end, clause_end) is not None)
            or _IMPROVED_ON.search(text, opening + 1, start) is not None)


#: A negated verb typed without its apostrophe ("isnt", "doesnt"): read as written with it.
_UNMARKED_NEGATION = re.compile(r"\b(is|are|was|were|has|have|had|does|do|did|ca|wo)nt\b")
#: Dialect forms of device talk beyond the shared ones (:data:`~userbench_env.fidelity.language.DIALECT_FORMS`):
#: Nigerian Pidgin's "dey" (and "don dey") for "is" ("my data roaming dey on"), "ain't" for "isn't" (before
#: neither "got" nor "have": "airplane mode ain't on"), and Caribbean
#: "mih" (or "ma") for "my" before the phone or a feature ("mobile data on mih phone").
_DEVICE_DIALECT_FORMS = ((re.compile(r"\b(?:don )?dey\b"), "is"), (re.compile(r"\b(?:ain'?t|aint)\b(?! (?:got|have)\b)"), "isn't"),
                         (re.compile(r"\b(?:mih|ma)(?= (?:phone|cell|mobile|handset|device|data|wifi|wi-fi|sim|line)\b)"),
                          "my"))


def _standard_forms(text: str) -> str:
    """``text`` in its standard spelling (:func:`~userbench_env.fidelity.language.standard_spelling`)
    with the dialect forms of device talk (:data:`_DEVICE_DIALECT_FORMS`) and negations typed
    without their apostrophe (:data:`_UNMARKED_NEGATION`) in their standard written forms."""
    text = standard_spelling(text)
    for pattern, standard in _DEVICE_DIALECT_FORMS:
        text = pattern.sub(standard, text)
    return _UNMARKED_NEGATION.sub(r"\1n't", text)


@lru_cache(maxsize=_CACHE)
def _device_readings(text: str) -> tuple[tuple[str, str, bool], ...]:
    """(feature, state, past) triples ``text`` asserts, stated states first, then states set
    by a verb before the feature, then what a status bar line shows (airplane mode or data
    saver named on it: on; airplane mode not named: off, see :data:`_STATUS_BAR_FEATURES`).
    A sentence's opening "it" or "that" after a sentence naming one feature alone is that
    feature (:data:`_PRONOUN_AFTER`)."""
    # (markup aside: "data roaming is **on**", "network mode is on `5G`")
    text = _standard_forms(lowered(text).replace("\u2019", "'").replace("*", "").replace("`", ""))
    if not gated(_ASPECT_GATES, text):
        return ()
    text = _PRONOUN_AFTER.sub(lambda m: m.group("named") + m.group("feature"), text)
    stated, verbs = [], []
    for m in _FEATURE.finditer(text):
        after = _STATE_AFTER.match(text, m.end())
        # "Airplane mode? It's off": the user answers its own question (unless that answer is asked too)
        answered = (after is not None and (after.group("verb") or "").lstrip().startswith("?")
                    and not _asked(text, after.end(), after.end()))
        if _unasserted(text, m.start(), m.end()) and not answered:
            continue  # "is roaming on?", "I hope roaming is on" assert no state
        feature = _feature(m.group(1))
        earlier = _earlier(text, m.start(), m.end())
        if (gone := _SIGN_GONE.match(text, m.end())) is not None and (gone.group("sign") or _ICON.search(m.group(1))):
            stated.append((feature, "off", earlier))  # its sign seen gone
            continue
        lead = text[max(0, m.start() - 30):m.start()]
        if after is not None and not after.group("verb") and _SETTING_ACT.search(lead) is not None:
            after = None  # "turning airplane mode on": the act of setting it, no state said
        if after is not None:
            state = after.group("state") in _ON
            negated = ((after.group("neg") is not None) + (after.group("neg2") is not None)
                       + (_NEGATED_BEFORE.search(text, max(0, m.start() - 30), m.start()) is not None)) % 2 == 1
            verb = (after.group("verb") or "").strip()
            stated.append((feature, "on" if state != negated else "off", verb in _PAST_VERBS or earlier))
        before = _VERB_BEFORE.search(lead)
        if before is not None:
            verbs.append((feature, before.group(1), earlier))
        elif (link := _LINK_BEFORE.search(lead)) is not None:
            on = link.group(2) not in ("off", None)
            verbs.append((feature, "on" if on != (link.group(1) is not None) else "off", earlier))
        elif (after is None and ("plane" in m.group(1) or _ICON_AFTER.match(text, m.end()))
              and _SEEN_BEFORE.search(lead) is not None):
            verbs.append((feature, "on", earlier))  # the icon seen on the screen ("I can see the little plane")
    shown = [(feature, "on" if feature in line else "off", False) for line in _STATUS_BAR.findall(text)
             for feature, absent_is_off in _STATUS_BAR_FEATURES if feature in line or absent_is_off]
    explicit = {f for f, _, _ in stated + verbs}  # a state a text states outweighs what its status bar implies
    return tuple(stated + verbs + [r for r in shown + _aspects(text) if r[0] not in explicit])


#: A word that opens another clause, so a state word after it is not the aspect's ("I don't know
#: what is APN but okay": "okay" agrees, it vouches for no setting).
_NOT_A_CONJUNCTION = r"(?!(?:but|and|or|so|though|although)\b)"
#: No word of a SIM card out of its place to the clause's end, after its sitting ("sitting loose in the tray").
_NOT_LOOSE = r"(?![^.,;!?\n]*\b(?:loose|out|crooked|wrong|badly|improperly)\b)"
#: After "works", a manner of failing: the feature works badly, as the scenario's "not working
#: properly" says it, is a symptom, not a state ("works poorly", "works only sometimes").
_FAILING = r"(?! (?:not|badly|poorly|slowly|slow|barely|intermittently|(?:only )?sometimes|on and off|off and on|terribly|horribly|awfully)\b)"
#: A feature said to work, after its name ("works", "is working fine", "'s still working").
_WORKING = rf"(?: works|(?:'s| is)(?: still| now| already)? working)\b{_FAILING}"
#: A shown state said to be gone, after its name ("No Signal is gone", "... message has disappeared").
_GONE = (r"['\"]?(?: (?:message|icon|sign|warning|notice|text|banner|label))?['\"]? (?:is |'s |has |have |had )?(?:\w+ )?"
         r"(?:gone|disappeared|vanished|cleared|went away)\b")
#: A SIM card said to be in its place, after its "is" ("in", "inside", "in the tray", "in there properly",
#: "well inside"), the clause ending there, or said to work there too ("well in place and working").
_IN_PLACE = (r"(?:\w+ )?in(?:side)?(?:(?: place| there| the (?:phone|slot|tray))?"
             r"(?: (?:fine|ok|okay|right|proper|properly|good|tight|snug))?\b(?! \w)"
             r"| place and (?:working|fine|ok|okay|active|detected)\b)")
#: The phone said not to read the SIM card, before what it does not read ("isn't detecting", "doesn't seem to
#: recognise", "is not picking up").
_NOT_READING = (r"(?:\bnot|n't) (?:(?:seem|appear)s? to (?:be )?|\w+ )?"
                r"(?:detecting|detect|reading|recogni[sz]ing|recogni[sz]e|picking up|pick up)")
#: Other device aspects, as tool results show them and as users claim them: (aspect, value, pattern).
_ASPECT_PATTERNS: tuple[tuple[str, str, re.Pattern[str]], ...] = tuple(
    (aspect, value, re.compile(pattern)) for aspect, value, pattern in (
        # the signal: status bar bars or "no signal", network status, a user's "full bars" / "all the bars" / "signal's back" /
        # "the signal has come back" (not "the signal is not good", nor "the service will come back": a hope)
        ("signal", "off", rf"{_BAR}(?:no signal|airplane mode)|"
                          r"cellular signal: none|cellular connection: no_service"
                          # (not the symptom named as the problem: "the No Service problem is fixed"; nor said to be
                          # gone: "the No Signal is gone", "the no service message has disappeared")
                          r"|\bno (?:signal|service|bars|reception)\b(?!['\"]? (?:problem|issue|error|trouble|thing|situation)s?\b)"
                          rf"(?!{_GONE})"),
        ("signal", "on", rf"{_BAR}\U0001f4f6|"
                         r"cellular signal: (?:poor|fair|good|excellent)"
                         r"|\b(?:full|good|strong|great|(?:a )?(?:couple|few)(?: of)?|\d|two|three|four|five|some) bars\b"
                         r"|(?<!not )(?<!not even )(?<!without )(?<!no )\b(?:one|1|a single) bar\b"
                         # (a generation may stand before it: "my status bar shows full 5G signal")
                         # (not what it doesn't look or seem like one has: "it doesn't look like I have service yet")
                         r"|(?<!n't )(?<!not )(?<!n't look like i )(?<!n't seem like i )(?<!n't look like we )"
                         r"(?<!n't seem like we )\b(?:got|have|getting|has|i'?ve got|shows|showing) (?:(?!no\b|zero\b|any\b)\w+ )?"
                         r"(?:(?:[2-5]g|lte) )?(?:signal|service|reception)\b"
                         r"(?! (?:issue|problem))"
                         r"|\b(?:signal|service|reception)(?:'s| is| has| had)? "
                         r"(?!not |never |no longer |will |would |should |could |might |may |must )"
                         r"(?:\w+ )?(?:come |came |been )?"
                         r"(?:back|returned|restored|good|fine|strong|full|excellent|great)\b"
                         r"|(?<!no )\bbars(?:'re| are| have| has)? (?:\w+ )?(?:come |came )?back\b"
                         # every bar shown: "the signal bars are all full", "the bars at the top are full", "I've got all my bars showing"
                         r"|(?<!no )\bbars(?: [a-z]+){0,4}?(?:'re| are) (?:all )?full\b"
                         r"|\b(?:got|have|has|see|showing|shows|with) all (?:my |the |of the )?(?:signal )?bars\b"),
        # the SIM card: in place and detected, missing or not detected ("the phone isn't detecting the SIM card", "the
        # SIM card is showing as not detected"), or
        # locked ("SIM Card Status: locked_pin", "the SIM card is locked with a PIN code"); sitting in its place
        # ("the SIM card's sitting in there grand", "sitting snug in its tray"; not sitting loose), or seated or in
        # as a pronoun for it says ("it's not the SIM, that's seated properly", "I checked my SIM card, it is well
        # inside"), is in place; worked loose is missing
        ("sim", "ok", r"sim card is active|sim card status: active|sim card re-seated"
                      rf"|(?<!\bno )\bsim(?: card)?(?:'s| is)? (?:{_NOT_A_CONJUNCTION}(?!not |never )\w+ ){{0,3}}?(?:being )?"
                      r"(?:seated|inserted|fine|ok|okay|working|active|properly|detected|recogni[sz]ed"
                      rf"|(?:sitting|sits|sat)\b{_NOT_LOOSE})\b"
                      rf"|\bsim(?: card)?(?:'s| is) {_IN_PLACE}"
                      rf"|\bsim\b[^.!?\n]*\b(?:it|that|that one)(?:'s| is) (?:{_IN_PLACE}|(?:\w+ )?(?:seated\b"
                      r"|sitting (?:in (?:there|place|its place|the tray|its tray|the slot)\b|(?:in )?(?:snug|firmly|tight|"
                      rf"tightly|properly|fine|right)\b){_NOT_LOOSE}))"),
        ("sim", "missing", r"sim card status: missing|no sim\b|\b(?:don'?t|do not|doesn'?t|does not) have (?:a |the |any )?sim\b"
                           r"|\bsim(?: card)?(?:'s| is| has)? (?:(?!not |never )\w+ ){0,3}?(?:loose|unseated|dislodged)\b"
                           r"|\bsim(?: card)?(?:'s| is)? (?:\w+ )?(?:(?:showing|shows|shown|coming up|comes up|listed) as )?"
                           r"(?:missing|not (?:being )?(?:in|there|inserted|detected|found"
                           r"|recogni[sz]ed|seated))\b|\bsim(?: card)?(?: is|'s)?n't (?:being )?(?:detected|found|recogni[sz]ed|seated)\b"
                           rf"|{_NOT_READING} (?:my |the |a |any |that )?sim(?: card)?\b(?! (?:tray|slot|pin|puk|number|tool|ejector))"
                           # or the SIM named and the phone not reading "it" ("the SIM card isn't sitting right, the phone
                           # isn't reading it"); not sitting in its place, as a present state ("the SIM card isn't sitting
                           # right"; a recap after reseating it, "the SIM was not sitting well", tells what was)
                           rf"|\bsim\b[^.!?\n]*{_NOT_READING} (?:it|that one)\b"
                           r"|\bsim(?: card)?(?:'s| is)? ?(?:not|n't) (?:\w+ )?sitting (?:right|well|properly|correctly|good|in place)\b"),
        # (or having become so: "the SIM card has locked itself", "my SIM got locked")
        ("sim", "locked", r"sim card status: locked|\bsim(?: card)?(?:(?:'s| is| seems| appears)(?: to be)?| has| got| became| went)"
                         r" (?:\w+ )?(?:locked|pin-locked)\b"),
        # APN settings: a check shows them; a user vouching for them needs one
        ("apn", "ok", r"apn name:|apn settings (?:have been |were )?reset\b(?! (?:at|on|when|after|once) )"
                      rf"|\bapn(?: settings?)?(?:'s| is| are| look| looks| seem| seems)? (?:{_NOT_A_CONJUNCTION}\w+ ){{0,2}}?"
                      r"(?:fine|normal|ok|okay|correct|right|default|good)\b"),
        # mobile data as the status bar shows it, or working as a user says it
        ("mobile data", "on", rf"{_BAR}data enabled|"
                             rf"\bmobile data (?:works|is working|'s working|is fine|'s fine)\b{_FAILING}"),
        # another feature working, as a user says it: it is on ("the wifi works fine"; not working is a symptom)
        ("wifi", "on", rf"\bwi-?fi{_WORKING}"),
        ("wifi calling", "on", rf"\bwi-?fi calling{_WORKING}"),
        ("roaming", "on", rf"\broaming{_WORKING}"),
        ("vpn", "on", rf"\bvpn{_WORKING}"),
        ("mobile data", "off", rf"{_BAR}data disabled"),
    )
)
_NETWORK = re.compile(r"(?:network mode preference|preferred network mode set to|cellular network type): ?([\w/]+)"
                      rf"|{_BAR}\|\s*((?:[2-5]g|lte))\s*\|"
                      # a status bar read out in words, its strength then its generation: "signal is full, LTE"
                      r"|\b(?:excellent|good|fair|poor|full|strong|weak)(?: signal| bars)?\s*(?:,|\||/)\s*((?:[2-5]g|lte))\b"
                      r"|\b(?:on|using|set to|stuck on|getting|gets|shows|showing|says|reads|connected to|(?:network )?type(?:'s| is|:)|"
                      r"network mode(?:'s| is)?(?: \w+){0,3}?) (?:only |just |the )?"
                      r"((?:[2-5]g|lte)(?:\s*(?:/|or|and|-)\s*(?:[2-5]g|lte))*)\b")
#: A network mode named as the phone's preference, in its name, just after it or just before it ("Preferred
#: Network Mode set to: 4g_5g_preferred", "4G/5G preferred", "the 4G/5G setting", "network preference set to
#: 4G"), or as a pair of generations, which only a preference names ("the network is on 4G/5G"; a status bar
#: shows one): the setting, not the network the status bar shows in use.
_PREFERENCE_AFTER = re.compile(r"[\s_]*(?:prefer|setting|option)")
_GENERATION_PAIR = re.compile(r"(?:[2-5]g|lte)\s*/\s*(?:[2-5]g|lte)")
_PREFERENCE_BEFORE = re.compile(r"\bprefer\w*(?: [\w-]+){0,2} ?$")
#: An app permission: the names a result lists or a user gives ("storage permission", "sms access").
_PERMISSION_NAME = r"(sms|storage|phone|network|camera|location|contacts|microphone|notifications?|(?:all|every)(?: the)?)"
_PERMISSIONS = re.compile(r"has permission for: ([\w, ]+)|permission '(\w+)' granted"
                          rf"|\b(?:has|have|got|gave it|given it)(?: the| its| full)? {_PERMISSION_NAME} (?:permissions?|access)\b"
                          rf"|\b{_PERMISSION_NAME} (?:permissions?|access)(?:'s| is| are|)(?: not|n't| never)?(?: \w+)? "
                          r"(?:granted|on|enabled|allowed|given|off|denied|disabled|missing|blocked|revoked)\b"
                          rf"|\b(?:can|could)(?:'t|n't| not|not)? (?:now )?(?:access|use|get to|reach) (?:the |my |its )?{_PERMISSION_NAME}\b"
                          rf"|\bpermission to (?:use|access) (?:the |my |its )?{_PERMISSION_NAME}\b"
                          rf"|\b(?:has|have|got) (?:full )?access to (?:the |my |its )?{_PERMISSION_NAME}\b"
                          rf"|\b{_PERMISSION_NAME} (?:is |'s )?(?:enabled|allowed|granted|on) for\b"
                          r"|\b(\w+) is allowed\b"
                          r"|\b(?:all (?:the |its )?permissions(?: are|'re)?|permissions(?: are|'re)? (?:all|both)) (?:already )?"
                          r"(?:granted|given|allowed|on|enabled)\b"
                          r"|\b(?:has|have|got) (?:all )?(?:the |its |full )?(?:permissions|access it needs)\b")
#: A negation just before an aspect reading ("it's not on 5G", "doesn't have storage access").
_NEG_LEAD = re.compile(r"(?:n't|\bnot|\bnever|\bno longer|\bno)\s+(?:\w+\s+){0,3}$")
#: Within a permission reading: a negation, or a state word saying it is not held.
_NEG_IN = re.compile(r"n't|\bnot\b|\bnever\b")
_OFF_WORD = re.compile(r"\b(?:off|denied|disabled|missing|blocked|revoked)$")
#: What a result says of an app with no permission: every tracked permission off.
_NO_PERMISSIONS = re.compile(r"currently has no permissions granted|\bno permissions\b|\bpermission '(\w+)' removed")
#: The permissions an app tracks (what "all permissions" names).
_TRACKED_PERMISSIONS = ("sms", "storage", "phone", "network")


#: Words one of which every match of an aspect's :data:`_ASPECT_PATTERNS`, of :data:`_NETWORK`,
#: and of :data:`_PERMISSIONS` or :data:`_NO_PERMISSIONS` contains (the regex runs only then).
_ASPECT_PATTERN_GATES = {"signal": ("status bar:", "cellular", "bar", "signal", "service", "reception"), "sim": ("sim",),
                         "apn": ("apn",), "mobile data": ("status bar:", "mobile data"), "wifi": ("wifi", "wi-fi"),
                         "wifi calling": ("calling",), "roaming": ("roaming",), "vpn": ("vpn",)}
_NETWORK_GATES = ("2g", "3g", "4g", "5g", "lte")
_PERMISSION_GATES = ("permission", "access", "allowed", "storage", "sms", "camera", "location", "contacts", "microphone",
                     "notification", "enabled for", "granted for", "on for")


def _aspects(text: str) -> list[tuple[str, str, bool]]:
    """(aspect, value, past) triples of :data:`_ASPECT_PATTERNS`, network modes (``network``:
    a generation such as ``5g``; a negated one, "it's not on 5G", asserts none; ``network
    preference`` when named as the preference set: :data:`_PREFERENCE_BEFORE`) and app
    permissions (``permission <name>``: ``on``, or ``off`` when negated or listed as
    missing; "all permissions": every tracked one) in lower-cased ``text``; ``past`` when
    the clause describes an earlier state (:func:`_earlier`)."""
    out = []
    for aspect, value, pattern in _ASPECT_PATTERNS:
        if not gated(_ASPECT_PATTERN_GATES[aspect], text):
            continue
        if (m := pattern.search(text)) is not None and not _unasserted(text, m.start(), m.end()):
            out.append((aspect, value, _earlier(text, m.start(), m.end())))
    for m in (_NETWORK.finditer(text) if gated(_NETWORK_GATES, text) else ()):
        if _NEG_LEAD.search(text, max(0, m.start() - 30), m.start()) is None and not _unasserted(text, m.start(), m.end()):
            mode, past = next(g for g in m.groups() if g), _earlier(text, m.start(), m.end())
            aspect = "network preference" if ("prefer" in m.group(0) or _GENERATION_PAIR.search(mode)
                                              or _PREFERENCE_AFTER.match(text, m.end())
                                              or _PREFERENCE_BEFORE.search(text, max(0, m.start() - 40), m.start())) else "network"
            out += [(aspect, g, past) for g in re.findall(r"[2-5]g|lte", mode.replace("lte", "4g"))]
    if not gated(_PERMISSION_GATES, text):
        return out
    for m in _PERMISSIONS.finditer(text):
        if _unasserted(text, m.start(), m.end()):
            continue
        names = [n.strip() for n in (next((g for g in m.groups() if g), None) or "all").split(",") if n.strip()]
        if any(n.startswith(("all", "every")) for n in names):
            names = list(_TRACKED_PERMISSIONS)
        said = m.group(0)
        off = ((_NEG_LEAD.search(text, max(0, m.start() - 30), m.start()) is not None)
               ^ (_NEG_IN.search(said) is not None) ^ (_OFF_WORD.search(said) is not None))
        value = "off" if off else "on"
        past = _earlier(text, m.start(), m.end())
        listed = m.group(1) is not None  # a result's list: the tracked permissions it omits are off
        out += [(f"permission {n.rstrip('s') if n.startswith('notification') else n}", value, past) for n in names]
        out += [(f"permission {n}", "off", past) for n in _TRACKED_PERMISSIONS if listed and n not in names]
    for m in _NO_PERMISSIONS.finditer(text):
        out += [(f"permission {n}", "off", False) for n in ((m.group(1),) if m.group(1) else _TRACKED_PERMISSIONS)]
    return out


@lru_cache(maxsize=_CACHE)
def device_states(text: str) -> tuple[tuple[str, str], ...]:
    """(feature, ``on``/``off``) pairs ``text`` asserts as current ("Airplane Mode: OFF", "I turned
    on roaming", "roaming's already on", "wifi isn't on"), stated states first, then states set
    by a verb before the feature, then what a status bar shows."""
    return tuple((f, s) for f, s, past in _device_readings(text) if not past)


#: A feature acquired or given up, as a scenario tells it ("since you installed a VPN", "you
#: turned off wifi"): the state it leaves (installing, setting up, enabling: on).
_ACQUIRED = re.compile(
    r"\b(?:(installed|set up|added|enabled|activated|turned on|switched on|started using|been using|are using|use)"
    r"|(uninstalled|removed|deleted|disabled|deactivated|turned off|switched off|stopped using))"
    rf"\s+(?:(?:a|an|the|your|my|some)\s+)?{_FEATURES}"
)


def scenario_device_states(text: str) -> frozenset[tuple[str, str]]:
    """(feature, state) pairs a scenario states: its current and earlier states
    (:func:`device_states`, :func:`past_device_states`) and the features it says were
    acquired or given up (:data:`_ACQUIRED`: "installed a VPN" is the VPN on). A state it puts
    as a condition (:data:`_CONDITION_CLAUSE`: "you will consider the issue resolved when the
    status bar shows that you have signal") is the goal, not a state it gives."""
    text = _CONDITION_CLAUSE.sub("", text)
    acquired = {(_feature(m.group(3)), "on" if m.group(1) else "off") for m in _ACQUIRED.finditer(lowered(text))}
    return frozenset(device_states(text)) | frozenset(past_device_states(text)) | acquired


#: A scenario's condition clause, to the end of its sentence ("when the status bar shows that you have signal",
#: "if the agent asks you to ...").
_CONDITION_CLAUSE = re.compile(r"\b(?:when|whenever|once|until|as soon as|if|unless)\b[^.;!?\n]*", re.I)


@lru_cache(maxsize=_CACHE)
def past_device_states(text: str) -> tuple[tuple[str, str], ...]:
    """(feature, state) pairs ``text`` describes as earlier states ("airplane mode was on",
    "roaming was off before I changed it")."""
    return tuple((f, s) for f, s, past in _device_readings(text) if past)


#: States a user describing its problem asserts without having checked (checked against a
#: tool result when there is one, never against the scenario's wording).
PROBLEM_STATES: frozenset[tuple[str, str]] = frozenset({("signal", "off")})

#: Words in user tool names that mark a device feature (enables the device-state criterion).
DEVICE_TOOL_WORDS: tuple[str, ...] = ("airplane", "roaming", "wifi", "data_saver", "vpn", "toggle_data")

#: Per device aspect (as :func:`device_states` names it), the user tools whose outcome it is
#: (the signal is a symptom, no tool's outcome).
_STATE_TOOLS: dict[str, frozenset[str]] = {
    feature: frozenset(tools) for feature, tools in (
        ("airplane mode", ("toggle_airplane_mode",)), ("roaming", ("toggle_roaming",)), ("mobile data", ("toggle_data",)),
        ("data saver", ("toggle_data_saver_mode",)), ("wifi", ("toggle_wifi",)), ("wifi calling", ("toggle_wifi_calling",)),
        ("vpn", ("connect_vpn", "disconnect_vpn")), ("network", ("set_network_mode_preference",)),
        ("network preference", ("set_network_mode_preference",)),
        ("sim", ("reseat_sim_card",)), ("apn", ("reset_apn_settings", "set_apn_settings")),
        ("permissions", ("grant_app_permission",)),
    )
}


#: A good outcome only a check can tell, by the user tool that checks it: the speed fine
#: again ("pages load instantly", "the speed's back to normal", "speed's way back up", "loading
#: lickety-split", "much better"), a picture message through ("the photo went straight through",
#: "MMS sends fine now", "photos attach fine now"). On lower-cased clauses.
_CHECK_OUTCOMES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("run_speed_test", re.compile(
        r"\b(?:speed|pages?|internet|browsing|videos?|downloads?|streaming)\b[^.!?;\n]{0,40}?"
        r"\b(?:back to normal|normal again|(?:way |right |all )?back up|up again|(?:really |super |very )?(?:fast|faster)|"
        r"quick|quicker|speedy|snappy|zippy|blazing|lickety-split|like a dream|instant(?:ly)?|excellent|flying|zipping|"
        r"(?:much|a lot|way|loads|heaps|far|so much) (?:better|improved))\b")),
    ("can_send_mms", re.compile(
        r"\b(?:picture|photo|pic|mms|multimedia|image)(?:s| messages?| texts?)?\b[^.!?;\n]{0,60}?"
        r"\b(?:(?:went|goes|go|gone|got|get|gets|getting|going) (?:straight |right )?through|sends? (?:fine|okay|ok|now)|"
        r"(?:was |were |got )?(?:sent|delivered) (?:fine|okay|ok|now|successfully)|worked|works (?:fine|now)|"
        r"(?:are |is )?sending (?:fine|okay|ok|now|through)|(?:are |is )?going (?:again|fine|now)|"
        r"attach(?:es|ed)? (?:fine|okay|ok|now|again|properly))\b"
        r"|\b(?:i|we) can (?:now )?send (?:an? |the )?(?:mms|picture|photo|pic|multimedia|image)")),
)
#: A clause saying the outcome is not (yet) good ("stopped going through", "now nothing goes
#: through", "anything with a picture refuses to go through"), or only hoping for it, expecting
#: it, wanting it (as a purpose too: "so I can send pictures again", or what one would have liked
#: to see: "I would have liked a speed test saying excellent"), demanding it ("it had better be
#: faster", "it better say excellent"), assuming or trusting it or taking the agent's word for it
#: ("I'll take it MMS goes through now", "I trust that it goes through this time", not "trust me,
#: it goes through now"; "my criterion is a speed test that says excellent", "excellent speed is
#: what I'm after", "I'll hold you to excellent"), counting on it ("I'm counting on the internet
#: being excellent now"), naming it as what one accepts ("only excellent is okay for me", "I won't
#: settle for less"), putting it ahead ("I'll check the speed later", "I shall send it now"), or
#: naming it as what a check to come is for ("I'll run a speed test to make sure it's excellent",
#: "to confirm I'm getting excellent speed").
_NOT_GOOD = re.compile(r"\b(?:not|never|no|nothing|none|nobody|neither|nor|"
                       r"won'?t|can'?t|cannot|didn'?t|doesn'?t|isn'?t|wasn'?t|still|yet|if|whether|try|"
                       r"make sure|ensure|confirm|verify|see if|"
                       r"stop(?:ped|s)?|fail\w*|refus\w*|hop(?:e|es|ed|ing|efully)|inshallah|god willing|fingers crossed|should|must|will|shall|probably|presumably|apparently|"
                       rf"assum\w*|suppose|trust(?:s|ed|ing)?(?! me\b)|{_COUNTING_ON}|when|whenever|consider|"
                       r"guess|take it|take your word|you say|you said|says you|want|wants|need|needs|until|unless|once|"
                       r"criterion|goal|expect|aim|maybe|perhaps|might|(?:would|'d) (?:\w+ ){0,2}?(?:like|love)d?|better be|(?:it|this|that|they|you)(?: had|'d)? better|so (?:that )?(?:i|we) can|"
                       r"what (?:i|we)(?:'m|'re| am| are) (?:after|looking for|going for|shooting for)|hold (?:you|them|it) to|"
                       r"accept\w*|settle for|(?:okay|ok|fine|good enough) (?:for|with|by) (?:me|us))\b"
                       r"|n't\b|'ll\b")


@lru_cache(maxsize=_CACHE)
def reported_checks(text: str) -> frozenset[str]:
    """The check tools (``run_speed_test``, ``can_send_mms``) whose good outcome ``text``
    reports (:data:`_CHECK_OUTCOMES`) in a clause that neither negates it nor puts it as a
    hope, a condition or a question (:data:`_NOT_GOOD`, :data:`_ASKS`)."""
    low = lowered(text).replace("\u2019", "'")
    return frozenset(tool for clause in _CLAUSE.findall(low)
                     if not clause.endswith("?") and not _ASKS.match(clause) and not _NOT_GOOD.search(clause)
                     for tool, pattern in _CHECK_OUTCOMES if pattern.search(clause))


#: A clause put as a question without its mark: opened (after a joining word) by a question word
#: and a verb ("and how do i know the speed is excellent now"), or by a verb and its subject ("is
#: the speed excellent now"; not "did": "did the test, excellent" reports one).
_ASKS = re.compile(r"\s*(?:(?:and|but|so|or|then|also|ok|okay)\s+)?"
                   r"(?:(?:how|what|why|where|which|who)\s+(?:do|does|did|can|could|would|will|is|are|am|should)\b"
                   r"|(?:do|does|can|could|would|will|is|are|am|should)\s+(?:i|you|we|it|they|the|my|this|that)\b)")


#: A clause with the mark that ends it (a dash starts a new one: "No, that's all \u2014 and it went through").
_CLAUSE = re.compile(r"(?:[^.!?;\n\u2014\u2013-]|-(?! ))+[.!?;\n\u2014\u2013-]?")


#: The user tools that check an outcome (:data:`_CHECK_OUTCOMES`).
CHECK_TOOLS: frozenset[str] = frozenset(tool for tool, _ in _CHECK_OUTCOMES)

#: What a check looks at, by the user tool that checks it, as a scenario names it: the speed, a
#: picture message, the signal in the status bar.
_CHECKED: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("run_speed_test", re.compile(r"\bspeed\b")),
    ("can_send_mms", re.compile(r"\bmms\b|\bpicture messages?\b|\bmultimedia\b")),
    ("get_status_bar", re.compile(r"\bstatus bar\b|\bsignal\b|\bservice\b")),
)
#: The checks :func:`goal_checks` reads a scenario for.
GOAL_CHECK_TOOLS: frozenset[str] = frozenset(tool for tool, _ in _CHECKED)


def goal_checks(scenario: str) -> frozenset[str]:
    """The checks of :data:`_CHECKED` whose matter a sentence of ``scenario`` names without naming
    the check's tool: what its goal or its instructions have the user look at ("You will consider
    the issue resolved when the status bar shows that you have signal": ``get_status_bar``), not
    what a general rule on grounding answers in tool results names ("If the agent asks if you are
    able to send an MMS message, ground your response on the `can_send_mms` tool call")."""
    sentences = _split(scenario.lower())
    return frozenset(tool for tool, matter in _CHECKED
                     if any(matter.search(s) and tool not in s for s in sentences))


#: Every user tool some device state is the outcome of.
STATE_TOOLS: frozenset[str] = frozenset().union(*_STATE_TOOLS.values())


def state_tools(aspect: str) -> frozenset[str]:
    """The user tools whose outcome a state of ``aspect`` is ("roaming": ``toggle_roaming``;
    any app permission: ``grant_app_permission``)."""
    return _STATE_TOOLS.get("permissions" if aspect.startswith("permission") else aspect, frozenset())

#: First-person action claims: (pattern, user tools that perform the claimed action); none in a
#: condition ("would it help if I ran a speed test?" offers the action, it claims nothing).
_CLAIMS: list[tuple[re.Pattern[str], tuple[str, ...]]] = [
    (re.compile(rf"(?<!\bif )(?:{p})", re.I), tools)
    for p, tools in [
        (r"\bi(?:'ve| have)? (?:just )?(?:restarted|rebooted|power[- ]cycled)\b", ("reboot_device",)),
        (r"\bi(?:'ve| have)? (?:just )?(?:turned|switched|toggled|put|flipped|disabled|enabled|cycled|shut)\b[^.!?\n]{0,20}\bairplane\b", ("toggle_airplane_mode",)),
        (r"\bi(?:'ve| have)? (?:just )?(?:turned|switched|toggled|flipped|disabled|enabled|cycled|shut)\b[^.!?\n]{0,20}\broaming\b", ("toggle_roaming",)),
        (r"\bi(?:'ve| have)? (?:just )?(?:turned|switched|toggled|flipped|disabled|enabled|cycled|shut)\b[^.!?\n]{0,20}\bdata saver\b", ("toggle_data_saver_mode",)),
        (r"\bi(?:'ve| have)? (?:just )?(?:turned|switched|toggled|flipped|disabled|enabled|cycled|shut)\b[^.!?\n]{0,20}\bwi-?fi calling\b", ("toggle_wifi_calling",)),
        (r"\bi(?:'ve| have)? (?:just )?(?:turned|switched|toggled|flipped|disabled|enabled|cycled|shut)\b[^.!?\n]{0,20}\bwi-?fi\b(?! calling)", ("toggle_wifi",)),
        (r"\bi(?:'ve| have)? (?:just )?(?:turned|switched|toggled|flipped|disabled|enabled|cycled|shut)\b[^.!?\n]{0,20}\bmobile data\b", ("toggle_data",)),
        (r"\bi(?:'ve| have)? (?:just )?(?:reseated|re-?inserted|took out)\b[^.!?\n]{0,20}\bsim\b", ("reseat_sim_card",)),
        (r"\bi(?:'ve| have)? (?:just )?(?:reset|changed|updated|fixed)\b[^.!?\n]{0,20}\bapn\b", ("reset_apn_settings", "set_apn_settings")),
        (r"\bi(?:'ve| have)? (?:just )?(?:connected|disconnected)\b[^.!?\n]{0,20}\bvpn\b", ("connect_vpn", "disconnect_vpn")),
        (r"\bi(?:'ve| have)? (?:just )?granted\b|\bi(?:'ve| have)? (?:just )?(?:gave|given|allowed|let|said yes|approved|okayed|"
         r"ok'?d|accepted|ticked|checked|enabled|turned on|switched on)\b[^.!?\n]{0,30}\b(?:permission|access)\b",
         ("grant_app_permission",)),
        # (not "paid for" closing its clause: "the saffron I paid for" names a purchase)
        (r"\bi(?:'ve| have)? (?:just )?(?:made|paid)\b[^.!?\n]{0,20}\bpayment\b"
         r"|\bi(?:'ve| have)? paid\b(?! for\s*(?:[,.!?;:)]|$))", ("make_payment",)),
        (r"\bi(?:'ve| have)? (?:just )?(?:changed|set)\b[^.!?\n]{0,20}\bnetwork mode\b", ("set_network_mode_preference",)),
        (r"\bi(?:'ve| have)? (?:just )?ran\b[^.!?\n]{0,20}\bspeed test\b", ("run_speed_test",)),
        (r"\bi(?:'ve| have)? (?:just )?applied for\b", ("apply_for_credit_card",)),
    ]
]
#: Words ending in "ed" (or irregular past forms) that report no action on the phone or
#: account: thinking, wanting, asking, feeling, acknowledging.
_NOT_ACTIONS = (
    r"wanted|needed|wondered|thought|hoped|noticed|asked|meant|figured|heard|read|realized|realised|expected|assumed|"
    r"called|contacted|received|ordered|booked|used|tried|guessed|liked|loved|preferred|decided|planned|worried|"
    r"mentioned|said|told|explained|understood|learned|learnt|remembered|forgot|missed|lost|searched|confused|"
    r"concerned|interested|supposed|scared|surprised|annoyed|frustrated|tired|excited|pleased|disappointed|travel+ed|"
    r"moved|noted|agreed|got (?:it|that|you|ya|this)|had|was|were|been|felt|knew|saw|seemed|hated|wished|started|stopped|"
    r"emailed|texted|"
    r"figured|bought|purchased|paid for|waited|hesitated|appreciated|gathered|imagined|suspected|"
    # the emphatic auxiliary before such a verb: "I did wonder whether ...", "I did try"
    r"did (?:wonder|think|want|need|hope|notice|ask|mean|figure|hear|read|realize|realise|expect|assume|try|guess|"
    r"like|love|prefer|decide|plan|worry|mention|say|tell|explain|understand|learn|remember|forget|miss|see|feel|"
    r"know|wish|wait|suspect|imagine|appreciate)"
)
#: "got" reporting an action: getting rid of a thing, or getting one into a state ("I got rid of the VPN",
#: "got my data back on", "we got the network switched"). Any other "got" has or receives: "I've got calls to
#: make", "got a job to get to", "mobile data is all I've got", "paid for a suite, got a standard double"
#: (save a clause opening with "got the", a thing obtained: see :data:`GENERIC_CLAIM`).
_GOT_DONE = r"got(?=\s+rid\b|\s+(?:the|my|our)\s+[\w-]+(?:\s+[\w-]+)?\s+(?:[a-z]+ed|done|off|on|back|working|going|sorted|fixed)\b)"
#: "left" reporting an action: a thing left as it is ("I left it on", "left the wifi off"); with nothing
#: left, it is what remains ("how much data I have left this month?") or a leaving ("since I left home").
_LEFT_DONE = r"left(?=\s+(?:it|that|them|the|my|our)\b)"
#: Past forms reporting an action (regular "-ed" forms, and the irregular ones).
_DONE_VERB = r"(?:[a-z][a-z-]*(?<!e)ed|did|done|made|put|set|ran|took|taken|gave|given|let|hit|shut|cut|sent|reset|went|gone|" \
             rf"{_GOT_DONE}|began|begun|brought|kept|{_LEFT_DONE}|held|stuck|finished|swapped|paid)"
#: Words that never name an action reported done with "done" alone (persons, verbs, hedges).
_NOT_AN_ACTION_NAME = (r"(?:i|me|we|us|you|u|they|he|she|it|almost|nearly|half|well|when|if|once|until|after|before|be|been|being|"
                       r"get|gets|getting|got|is|are|r|am|was|were|not|never|nothing|have|has|had|will|can|should|could|would)")
#: Not asked: no question mark ends the clause a past action opens ("Done already?", "Shut her off and on
#: again?" echo the agent), unless a question of its own starts before it ("restarted it, what next?").
#: Not a done state wished for or checked ("I want to be sure it's fixed", "hoping that's sorted", "see whether
#: it's done"): the words before a claim that make it none.
_NOT_WISHED = r"(?<!sure )(?<!hope )(?<!hoping )(?<!whether )"
_NOT_ITS_QUESTION = (r"(?!(?:(?!\b(?:what|how|why|where|when|which|who|whose|should|shall|can|could|would|will|do|does|did|is|"
                     r"are|am|was|were|anything|any)\b)[^.!?\n]){0,300}\?)")
#: (Linear time: every repetition these patterns try at each position is bounded, so one
#: position costs a constant: at most 4 filler words before a clause's verb, 8 spaces after
#: its punctuation, and a question mark looked for within 300 characters of the clause.)
#: A claim that something was done: a first-person past action ("I flipped it", "we've
#: just reset it"), a clause opening with a past action ("Flipped it.", "Ok... rebooted"),
#: or done-idioms ("all done", "that's taken care of", "it's finished"); not negated ("I did
#: not change anything"), not conditional, not a question ("Have I done it?", "are we done?"),
#: not an action of thinking or asking, not having ("I've got a meeting"), not a change denied ("nothing's changed");
#: an action named with "done" and no verb ("reboot done") reports it done too.
GENERIC_CLAIM = re.compile(
    r"(?<!\bif )(?<!when )(?<!once )(?<!unless )(?<!until )(?<!before )(?<!have )(?<!did )(?<!should )(?<!can )"
    r"(?<!could )(?<!would )(?<!shall )(?<!do )(?<!are )(?<!were )"
    r"\b(?:i|we)(?:'ve|\u2019ve| have| had)?(?:\s+(?:just|already|now|finally|also|quickly|successfully|actually|then|"
    r"gone ahead and|went ahead and|both|even|literally|definitely))*\s+"
    rf"(?!(?:{_NOT_ACTIONS})\b){_DONE_VERB}\b(?! (?:not|never)\b)"
    # the participle that is also a present, after its auxiliary ("I've run that one too", "we have just run it"; not
    # running into, out of or through something: "I've run into money trouble")
    r"|(?<!\bif )(?<!when )(?<!once )(?<!unless )(?<!until )(?<!before )\b(?:i|we)(?:'ve|\u2019ve| have| had)"
    r"(?:\s+(?:just|already|now|also|finally|successfully|actually|then))*\s+run\b"
    r"(?! (?:into|out|through|across|low|short|late|over)\b)"
    # (a clause opening with "got the" reports a thing obtained: "got the link, thanks")
    r"|(?:^|(?<=[.!?;,:\n\u2013\u2014])|(?<=\s-))\s{0,8}+(?:(?:ok(?:ay)?|alright|all right|sure thing|sure|yes|yep|yeah|yup|um+|uh+|hmm+|so|well|right|k|"
    r"cool|great|there|and|now|fine|just|aaand|phew|whew)\W{1,4}+){0,4}+"
    rf"(?!(?:{_NOT_ACTIONS})\b)(?!let\b|set\b|left\b|put\b|hit\b|kept\b|held\b)(?:{_DONE_VERB}|got(?= the\b))\b{_NOT_ITS_QUESTION}"
    # a second past action joined to a first-person clause, its object the thing the first named
    # ("I found the Data Saver thing and switched it off")
    r"|(?<!\bif )(?<!when )(?<!once )(?<!unless )(?<!until )(?<!before )\b(?:i|we)\b[^.!?\n]{0,60}?\band (?:then )?"
    rf"(?!(?:{_NOT_ACTIONS})\b){_DONE_VERB} (?:it|that|them|this)\b(?![^.!?\n]{{0,300}}\?)"
    r"|(?<!when )(?<!once )(?<!until )(?<!after )(?<!before )(?<!if )"  # (a time or condition to come claims nothing,
    rf"{_NOT_WISHED}"  # nor one wished for or checked)
    r"\b(?:all|it'?s|its|it is|that'?s|thats|that is|i'?m|i am|we'?re|everything'?s|everything is|this is)\s+"
    r"(?:now\s+|been\s+)?(?:done|finished|completed?|sorted|taken care of|all set)\b(?![^.!?\n]{0,300}\?)"
    # an action reported done by its name alone, chat dropping the verb: "APN reset done", "reboot complete"
    # (the words before it name the action: no person, no verb, no hedge: "r we almost done" asks)
    rf"|(?:^|(?<=[.!?;,:\n]))\s{{0,8}}+(?:(?!{_NOT_AN_ACTION_NAME}\b)[a-z][a-z'-]*\s){{1,3}}(?:done|complete|completed|finished|finish)\b"
    r"(?![^.!?\n]{0,300}\?)"
    r"|\b(?:there|here) you go\b|\bthat did it\b|(?:^|(?<=[.!?;,\n]))\s{0,8}+(?:(?:yep|yes|ok(?:ay)?|k|yeah|alright)\W{1,4}+){0,4}+all set\b"
    # the copula dropped, as creoles drop it, opening a clause: "It done.", "Dat finish."
    r"|(?:^|(?<=[.!?;,:\n]))\s{0,8}+(?:it|dat|that|dis) (?:done|finish|finished)(?:\s+(?:now|already))?(?=\s*(?:[.!,;\n]|$))"
    # something reported done in the passive: "that one's filed", "roaming's sorted", "network mode's been switched"
    # (not one wished for or checked: "I want to be sure it's fixed", "hoping that's sorted", "see if it's done")
    rf"|{_NOT_WISHED}(?<!\bif )(?<!once )(?<!when )(?<!until )"
    r"\b(?!nothing\b|none\b)(?:it|that|this|that one|this one|everything|[a-z]+)(?:'s| is| has(?: now| already| just)? been|'s been| got| was)(?: (?:now|already|all|just))?"
    rf" (?!(?:{_NOT_ACTIONS})\b)(?:[a-z][a-z-]*(?<!e)ed|done|set|sent|reset|sorted|gone|taken care of|seen to|given|run|"
    r"finished|complete)\b(?![^.!?\n]{0,300}\?)"
    # an access reported as now given: "messaging can get to my storage now", "the app has access now"
    r"|\b(?:it|that|this|the app|[a-z]+) (?:can (?:now )?(?:access|get to|get at|use|reach|read|see)|(?:now )?ha(?:s|ve) "
    r"(?:the |full )?(?:access|permission))\b[^.!?\n]{0,40}?\bnow\b(?![^.!?\n]{0,300}\?)"
    # a change reported by a pronoun and "now": "it's off now", "that is now on", "it's on now, the data I mean"
    r"|\b(?:it|that|this|that one|this one)(?:'s|\u2019s| is)\s+(?:now\s+(?:off|on)\b|(?:off|on)\s+now\b)(?![^.!?\n]{0,300}\?)",
    re.I,
)


#: A yes/no question, opened by its auxiliary ("does that mean I qualified?", "so did I pass?"):
#: what it holds is asked, not claimed.
_YES_NO_QUESTION = re.compile(r"(?:^|(?<=[.!?;,:\n]))\s*(?:(?:so|and|but|wait|oh|well|then)\W{1,3})*"
                              r"(?:does|do|did|is|are|was|were|has|have|had|can|could|would|will|should|am)\b[^.!?;\n]*\?",
                              re.I)


#: The past forms of the bare verbs of actions on a phone or an account.
_PAST_OF = {"restart": "restarted", "reboot": "rebooted", "turn": "turned", "switch": "switched", "toggle": "toggled",
            "flip": "flipped", "reset": "reset", "reseat": "reseated", "pay": "paid", "make": "made", "run": "ran",
            "grant": "granted", "enable": "enabled", "disable": "disabled", "connect": "connected",
            "disconnect": "disconnected", "change": "changed", "set": "set", "update": "updated", "apply": "applied",
            "put": "put", "give": "gave", "allow": "allowed", "shut": "shut", "do": "did"}
#: What an action just did to the phone, in the same sentence: "back on", "came back", "went off".
_OUTCOME = r"\b(?:back (?:on|up)|came back|went (?:off|dark|black)|(?:works|working) now)\b"
#: A past marked as dialects mark it, before a bare verb ("I wen restart 'um", "I finish reboot",
#: "I already reset", Pidgin's "I don disconnect am"), with "already" after it ("I restart already"), or with what the action did
#: after it ("I restart phone, is back on now"; not after "if" or "when"), outside a question.
_MARKED_PAST = re.compile(r"\b(i|we)\s+(?:wen|finish(?:ed)?|done|don|already)\s+([a-z]+)\b(?![^.!?\n]*\?)"
                          # a creole's "I" before an action's bare verb, its past (Haitian "mwen", Jamaican "mi")
                          r"|\b(mwen|mi)\s+([a-z]+)\b(?![^.!?\n]*\?)"
                          r"|\b(i|we)\s+([a-z]+)\b(?=(?:\s+[\w']+){0,3}\s+already\b)(?![^.!?\n]*\?)"
                          rf"|(?<!if )(?<!when )(?<!once )(?<!before )(?<!after )\b(i|we)\s+([a-z]+)\b(?=[^.!?\n]{{0,60}}{_OUTCOME})"
                          r"(?![^.!?\n]*\?)", re.I)


#: Words one of which every match of :data:`_MARKED_PAST` contains.
_MARKED_GATE = re.compile(r"already| wen | don |finish|done|back|went|now|mwen |\bmi ", re.I)


def _past(match: re.Match[str]) -> str:
    person, verb = next((match.group(i), match.group(i + 1)) for i in (1, 3, 5, 7) if match.group(i))
    past = _PAST_OF.get(verb.lower())
    person = "I" if person.lower() in ("mwen", "mi") else person
    return f"{person} {past}" if past else match.group(0)


@lru_cache(maxsize=_CACHE)
def past_marked(text: str) -> str:
    """``text`` with a dialect's marked past of an action (:data:`_MARKED_PAST`) in its English
    past form ("I wen restart 'um" reads "I restarted 'um"), so claims read it as one."""
    return _MARKED_PAST.sub(_past, text) if _MARKED_GATE.search(text) else text


@lru_cache(maxsize=_CACHE)
def claims_done(text: str) -> bool:
    """True when ``text`` (its marked pasts read as pasts: :func:`past_marked`) holds a
    :data:`GENERIC_CLAIM` ("I did that", "All done", "flipped it") outside a yes/no question
    (:data:`_YES_NO_QUESTION`) and outside a sign said gone from the screen (:data:`_SHOWN_GONE`:
    "the Data Saver sign is gone" tells what the screen shows, a device state, not an action)."""
    text = past_marked(text)
    claims = [m.start() for m in GENERIC_CLAIM.finditer(text)]
    if not claims:
        return False
    spared = [m.span() for m in _YES_NO_QUESTION.finditer(text)] + [m.span() for m in _SHOWN_GONE.finditer(text)]
    return any(not any(start <= at < end for start, end in spared) for at in claims)


_CLAIM_START = re.compile(
    r"\bi(?:'ve| have)? (?:just )?(?:restarted|rebooted|power|turned|switched|toggled|put|reseated|re-?inserted|took|"
    r"reset|changed|updated|fixed|connected|disconnected|granted|made|paid|set|ran|applied|flipped|disabled|enabled|cycled|shut|gave|given|allowed|let|said yes|approved|okayed|ok'?d|accepted|ticked|checked)\b",
    re.I,
)
#: :data:`_CLAIM_START` without its word boundary, case-sensitive: what every match of it
#: reads as in :func:`folded` text (a literal first letter, so one fast scan).
_CLAIM_GATE = re.compile(
    r"i(?:'ve| have)? (?:just )?(?:restarted|rebooted|power|turned|switched|toggled|put|reseated|re-?inserted|took|"
    r"reset|changed|updated|fixed|connected|disconnected|granted|made|paid|set|ran|applied|flipped|disabled|enabled|cycled|shut|gave|given|allowed|let|said yes|approved|okayed|ok'?d|accepted|ticked|checked)"
)


#: A grant reported with the subject left out, as chat does ("alright, let the app have that
#: access", "gave it the permissions"): a clause opening with the granting verb, not a question.
_SUBJECTLESS_GRANT = re.compile(
    r"(?:^|(?<=[.!?;,:\n]))\s{0,8}+(?:(?:ok(?:ay)?|alright|all right|so|and|yep|yeah|yes|right|done|k)\W{1,4}+){0,4}+"
    r"(?:let|gave|allowed|granted|approved|okayed)\b(?! (?:me|us)\b)[^.!?\n]{0,40}\b(?:permissions?|access)\b(?![^.!?\n]{0,300}\?)",
    re.I,
)


_GRANTED = frozenset({"grant_app_permission"})


#: Adverbs between the speaker and a claimed action ("I just now gave it the permission", "I've already
#: reset the APN", "I also restarted it"): the claim is the same without them.
_CLAIM_FILLER = re.compile(r"\b(i|i'?ve|i have|we|we'?ve|we have) (?:(?:just now|already|also) )+", re.I)


@lru_cache(maxsize=_CACHE)
def _claims(text: str) -> frozenset[str]:
    text = _CLAIM_FILLER.sub(r"\1 ", past_marked(text))
    low = lowered(text)
    granted = _GRANTED if ("access" in low or "permission" in low) and _SUBJECTLESS_GRANT.search(text) else frozenset()
    if _CLAIM_GATE.search(folded(text)) is None or _CLAIM_START.search(text) is None:
        return granted
    return granted.union(t for pattern, performers in _CLAIMS if pattern.search(text) for t in performers)


def claimed_actions(text: str, tools: Iterable[str]) -> set[str]:
    """The tools among ``tools`` that a first-person claim in ``text`` says were used."""
    return set(_claims(text).intersection(tools))


@lru_cache(maxsize=_CACHE)
def _mention_pattern(tools: tuple[str, ...]) -> tuple[dict[str, str], re.Pattern[str] | None]:
    forms = {}
    for name in tools:
        forms[name.lower()] = name
        forms[name.lower().replace("_", " ")] = name
    alternation = "|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True))
    return forms, (re.compile(rf"(?<!\w)(?:{alternation})(?!\w)") if forms else None)


@lru_cache(maxsize=_CACHE)
def _mentioned(tools: tuple[str, ...], text: str) -> frozenset[str]:
    forms, pattern = _mention_pattern(tools)
    if pattern is None:
        return frozenset()
    return frozenset(forms[m.group(0)] for m in pattern.finditer(lowered(text)))


class ToolMentions:
    """Finds which of ``tools`` a text mentions (as written or with spaces for underscores)."""

    def __init__(self, tools: Iterable[str]):
        self._tools = tuple(sorted(set(tools)))

    def find(self, text: str) -> frozenset[str]:
        """The tool names mentioned in ``text`` (memoized per tool set and text)."""
        return _mentioned(self._tools, text)


#: The user saying it does not know or have something (matched on lower-cased text).
DENIAL = re.compile(
    r"\b(?:don't|do not|dont|can't|cannot) (?:know|remember|recall|have|find)\b|\bnot sure\b|\bno idea\b|\bforgot\b"
)
#: Words one of which every match of :data:`DENIAL` contains.
_DENIAL_GATES = ("don", "do not", "can't", "cannot", "not sure", "no idea", "forgot")


@lru_cache(maxsize=_CACHE)
def denies(text: str) -> bool:
    """True when the lower-cased ``text`` holds a :data:`DENIAL`."""
    return gated(_DENIAL_GATES, text) and DENIAL.search(text) is not None


def clear_caches() -> None:
    """Empty the memoized readings, those of :mod:`~userbench_env.fidelity.language` and
    the rules' own too (benchmarks use it to time cold readings)."""
    from userbench_env.fidelity import language
    from userbench_env.fidelity.outcomes import agent_outcome, asks_for_action, makes_request, reports_action, waits_on_user, withdrew
    from userbench_env.fidelity.rules import actions, invented
    from userbench_env.tasks.extract import asking_part

    for cached in (lowered, folded, asks, asked_among, normalize, literal, identifiers, _device_readings, device_states,
                   past_device_states, reported_checks, past_marked, claims_done, _claims, _mentioned, denies, invented.heard_keys,
                   actions.tool_request, actions.asks_for_call, whole_token, agent_outcome, waits_on_user, asking_part,
                   asks_for_action, makes_request, reports_action, withdrew):
        cached.cache_clear()
    language.clear_caches()
