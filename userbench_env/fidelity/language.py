"""Readings of paraphrased user language for the fidelity rules (pure functions, memoized).

The readings in :mod:`userbench_env.fidelity.text` key on the words a check is about
(feature names, id shapes); the ones here read what varies between phrasings:

* :func:`content_stems`: a text's content words, stemmed (PyStemmer's English Snowball
  stemmer), function words dropped: what two phrasings of one sentence share;
* :func:`id_key`: a value with case, spaces and separators removed, so "# W 237-8156"
  and "#W2378156" compare equal;
* :func:`clauses`: a text cut at sentence and clause ends;
* :func:`mentioned_kinds`: the item kinds (user id, email, ...) a text names;
* :func:`refuses` / :func:`denies_item`: saying one does not know, cannot find or will not
  share an item (idioms included), and which item such a clause is about;
* :func:`asks_back`: a question in a user's text (a clause ending with "?" or opening
  like one);
* :func:`speaks_as_agent`: a user text speaking as the agent or about being an AI;
* :func:`recital_cues` / :func:`identity_items`: a user talking about its own brief, and
  the identity items a text states (what marks a paraphrased recital of a scenario).

Word lists here are small closed classes (function words, auxiliaries, idioms), not
lists of phrasings of any particular case.
"""
from __future__ import annotations

import calendar
from bisect import bisect_left
import re
from functools import lru_cache
from itertools import islice
from typing import Iterator

_CACHE = 256

#: English function words (articles, pronouns, auxiliaries, prepositions, conjunctions,
#: fillers): never content. Person does not matter ("you want" = "I want").
STOPWORDS: frozenset[str] = frozenset("""
a an the and or but so yet if then else than that this these those there here it its it's itself
i me my mine myself you your yours yourself we us our ours he him his she her hers they them their theirs
am is are was were be been being do does did done doing have has had having will would shall should can could
may might must ought to of in on at by for from with without about as into onto over under up down out off
again further once just also too very really quite rather only even still already any some all
both each either neither every such own same other another more most much many few less least
what which who whom whose when where why how whether while because although though since until unless
re ve ll d s t m ca wo don doesn didn isn aren wasn weren haven hasn hadn won wouldn can't cannot couldn shouldn
oh ok okay yes yeah yep please thanks thank hi hello hey well um uh hmm like just
""".split())

_WORD = re.compile(r"[a-z0-9]+")


@lru_cache(maxsize=1)
def _stemmer():  # PyStemmer is a C extension: loaded on first use
    import Stemmer

    return Stemmer.Stemmer("english")


@lru_cache(maxsize=4096)
def stem(word: str) -> str:
    """The Snowball (English) stem of a lower-case word."""
    return _stemmer().stemWord(word)


#: Negation words: all read as one content word, :data:`NEGATION` ("no refund" = "don't get a refund").
_NEGATIONS = frozenset("not no never dont doesnt didnt wont cant cannot isnt arent wasnt werent havent hasnt wouldnt "
                       "shouldnt couldnt neither nor nothing none".split())
NEGATION = "~not"
#: Contracted auxiliaries and the possessive ("I'd", "it's"): dropped with their apostrophe.
_CONTRACTION = re.compile(r"'(?:d|ll|re|ve|m|s)\b|'")
#: A control token ending or handing off the conversation ("###STOP###", "###OUT-OF-SCOPE###"), lower-cased.
_CONTROL_TOKEN = re.compile(r"###[a-z-]+###")


@lru_cache(maxsize=_CACHE)
def content_stems(text: str) -> frozenset[str]:
    """The stems of ``text``'s content words: lower-cased alphanumeric words (apostrophes
    dropped, hyphenated words split) that are not :data:`STOPWORDS` and longer than one
    character; every negation word reads as :data:`NEGATION`. The conversation's control
    tokens (``###STOP###``, ``###TRANSFER###``) are no words."""
    plain = _CONTROL_TOKEN.sub(" ", text.lower()).replace("\u2019", "'").replace("n't", " not")
    words = _WORD.findall(_CONTRACTION.sub("", plain))
    return frozenset(NEGATION if w in _NEGATIONS else stem(w) for w in words
                     if (len(w) > 1 and w not in STOPWORDS) or w in _NEGATIONS)


_KEY_DROP = re.compile(r"[^a-z0-9@]+")


@lru_cache(maxsize=_CACHE)
def id_key(value: str) -> str:
    """``value`` lower-cased with everything but letters, digits and ``@`` removed (the
    spacing- and case-insensitive form identifiers are compared in)."""
    return _KEY_DROP.sub("", value.lower())


#: Digits said as words ("oh" for zero), as an id is read out, and the pattern finding them.
_DIGITS = {word: str(digit) for digit, word in enumerate("zero one two three four five six seven eight nine".split())} | {
    "oh": "0"}
_DIGIT_WORD = re.compile(rf"\b(?:{'|'.join(_DIGITS)})\b", re.I)


#: The short forms of the words an address is written with ("Apartment 786" is "Apt. 786", "Main
#: Street" is "Main St"): an address spelled out or abbreviated is the same address.
_ADDRESS_WORDS = {"apartment": "apt", "suite": "ste", "street": "st", "avenue": "ave", "road": "rd", "drive": "dr",
                  "boulevard": "blvd", "lane": "ln", "court": "ct", "place": "pl", "parkway": "pkwy", "highway": "hwy",
                  "terrace": "ter", "circle": "cir"}
_ADDRESS_WORD = re.compile(rf"\b(?:{'|'.join(_ADDRESS_WORDS)})\b")  # (lower case: searched without re.I, much slower)


def address_form(text: str) -> str:
    """``text`` with the words of an address in their short forms (:data:`_ADDRESS_WORDS`), in
    any case ("Main STREET" is "Main st"); the rest of ``text`` as it is."""
    low = text.lower()
    if len(low) != len(text):  # a letter whose lower case is longer: the positions differ, write the lower-cased text
        text = low
    parts, end = [], 0
    for match in _ADDRESS_WORD.finditer(low):
        parts += (text[end:match.start()], _ADDRESS_WORDS[match.group(0)])
        end = match.end()
    return "".join(parts) + text[end:] if parts else text


@lru_cache(maxsize=_CACHE)
def said_key(text: str) -> str:
    """:func:`id_key` of ``text`` with digits said as words read as digits ("W two one oh
    nine" holds ``w2109``): the form to find an id the user read out in, never to find an
    id the user invented (a digit word in prose would read as one)."""
    return id_key(_DIGIT_WORD.sub(lambda m: _DIGITS[m.group(0).lower()], text))


_CLAUSE = re.compile(r"(?<=[.!?;])\s+|\n+|\s+(?:-|\u2013|\u2014)\s+|,\s+(?=but\b|though\b|although\b|and\b|however\b)")


#: A sentence or a semicolon's clause of a text: a run up to ".", "!", "?", ";" or a line break.
SENTENCE_PART = re.compile(r"[^.!?;\n]+")


@lru_cache(maxsize=_CACHE)
def clauses(text: str) -> tuple[str, ...]:
    """``text`` cut at sentence ends, line breaks, dashes and ", but"-like joins (stripped, non-empty)."""
    return tuple(part.strip() for part in _CLAUSE.split(text) if part and part.strip())


#: How a user names each item kind in prose (lower-cased text); "number" alone is too vague to count.
KIND_WORDS: dict[str, re.Pattern[str]] = {
    kind: re.compile(pattern)
    for kind, pattern in {
        "user_id": r"\b(?:user ?(?:id|name)|username|login|account (?:id|number)|customer (?:id|number)|\bid\b)",
        "email": r"\be-?mail",
        "zip": r"\bzip|\bpostal|\bpost ?code",
        "phone_number": r"\b(?:phone|cell|mobile)\b",
        "name": r"\b(?:full |first |last |sur)?name\b(?! (?:on|of) the)",
        "reservation_id": r"\b(?:reservation|confirmation|booking)\b",
        "order_id": r"\border\b",
        "item_id": r"\bitem (?:id|number)",
        "payment_method": r"\b(?:card|payment method|paypal|gift card)\b",
        "address": r"\baddress\b",
        "date": r"\b(?:birth|birthday|dob|date)\b",
    }.items()
}
#: Kinds that share their words with others: a clause naming one names them all.
KIND_ALIASES: dict[str, frozenset[str]] = {
    "name": frozenset({"name", "first_name", "last_name"}),
}


@lru_cache(maxsize=_CACHE)
def mentioned_kinds(text: str) -> frozenset[str]:
    """The item kinds ``text`` (lower-cased) names, with the aliases of :data:`KIND_ALIASES`;
    "user name"/"username" names a user id, not a name."""
    found: set[str] = set()
    for kind, pattern in KIND_WORDS.items():
        if pattern.search(text):
            found |= KIND_ALIASES.get(kind, {kind})
    if "name" in found and re.search(r"\buser ?name\b", text) and not re.search(r"(?<!user )(?<!user)\bname\b", text):
        found -= KIND_ALIASES["name"]
    return frozenset(found)


#: Not knowing, not remembering, not finding or not having an item (idioms included; a belief
#: between: "I don't believe I've got it handy"), on lower-cased text with straight apostrophes.
_DENIAL = (
    # (in dialect too: "ion" for "I don't", "I no" for "I do not"; "ye", "yous" for "you")
    r"\b(?:don'?t|do not|dont|can'?t|cannot|couldn'?t|could not|didn'?t|did not|won'?t|am not able to|'m not able to|"
    r"am unable to|'m unable to|unable to|never|ion|i no)\s+(?:\w+\s+){0,2}?"
    r"(?:know|remember|recall|have|i'?ve got|i have got|find|locate|think of|see|get at|access|tell (?:you|ya|ye|yous|youse|u)|say|"
    r"(?:put|lay|get) my (?:hands?|fingers?) on)\b"
    r"|\b(?:am|'m) not (?:know|remember|recall|find|locat|hav)ing\b"  # the progressive: "I am not remembering it", "not having it handy"
    r"|\b(?:can'?t|cannot|couldn'?t|could not) (?:call|bring) (?:\w+ ){0,3}?to mind\b"  # "can't call my email to mind"
    r"|\bnot (?:sure|certain|positive)\b|\bunsure\b|\bno (?:idea|clue|recollection|memory)\b|\bnot a clue\b"
    r"|\bforg[eo]t\b|\bforgotten\b|\bslipped my mind\b|\bescape[sd] me\b|\bdrawing a blank\b|\bblanking\b|\bblank on\b"
    # gone from memory, in any tense: "it's gone right out of my head", "went clean out of my mind"
    r"|\b(?:gone|went|goes|slipped|slips) (?:\w+ )?out of my (?:head|mind)\b"
    r"|\bbeats me\b|\bdunno\b|\bidk\b|\boff the top of my head\b|\boff-?hand\b|\blost (?:it|track|the|my)\b|\b(?:haven'?t|have not|hasn'?t|has not) got\b"
    # "ain't got", Caribbean "ent got" ("ent got de order number on me") and "don't got"
    r"|\b(?:ain'?t|aint|ent) (?:got|have)\b|\b(?:don'?t|dont|do not) got\b"
    # "have" of having, negated without "do", as British speech does: "haven't the booking number on me"
    r"|\b(?:haven'?t|have not|hasn'?t) (?:the|my|a|an|any|it|that|them)\b"
    r"|\bhave no (?:way|record)\b|\bnot (?:on|with) me\b|\bdon'?t have (?:it|that|them|one) (?:handy|on me|with me|here)\b"
    # not within reach: "the reservation number is not to hand", "it's not in front of me"
    r"|\bnot (?:to|at|on) hand\b|\bnot handy\b|\bnot in front of me\b"
    r"|\bhaven'?t (?:\w+ )?(?:memori[sz]ed|learned|learnt|saved|written)\b|\b(?:won'?t|doesn'?t|isn'?t|not) com(?:e|ing) to me\b"
    # putting it off: not now, only after looking it up elsewhere
    r"|\b(?:i'?d|i would|i'?ll|i will|gotta|i'?ve got to|i need to|i have to) (?:\w+ ){0,2}?(?:have to |need to )?(?:go )?"
    r"(?:dig|look|check|find|go get|hunt|search|track)\b"
    # where it is instead of what it is: somewhere, buried, saved or written down elsewhere
    r"|\bsomewhere (?:in|on|at|around)\b|\b(?:in|on) (?:an?|my|the|some) \w+ somewhere\b|\bburied (?:in|under|somewhere)\b"
    r"|\b(?:written|saved|stored|noted|jotted|filed) (?:down )?(?:somewhere|in (?:my|an?|the) (?:old|other)|on (?:my|an?|the) (?:old|other))\b"
    r"|\b(?:in|on) (?:my|the) (?:other|old) \w+"
    r"|\bleft (?:\w+ ){0,3}?(?:at|in|on) (?:home|work|the office|the car|my (?:car|desk|office|bag|other))\b"
    r"|\b(?:tell|give|send|get) (?:\w+ ){0,3}(?:later|another time|back to you)\b|\bat home\b"
    r"|\blet me (?:look|check|find|dig|see if)\b|\bone (?:moment|sec|second|minute)\b|\bhold on\b"
)
#: Refusing to share an item.
_REFUSAL = (
    r"\b(?:rather not|prefer not|'d prefer not|not comfortable|uncomfortable|not going to|not gonna|won'?t|will not|refuse|"
    r"not willing to|do not want to|don'?t want to|don'?t feel like|not allowed to|can'?t give|cannot give)\b"
    # (in the progressive too: "I'd rather not be giving out my date of birth")
    r"[^.!?]{0,40}\b(?:giv(?:e|ing)|shar(?:e|ing)|say(?:ing)?|tell(?:ing)?|provid(?:e|ing)|disclos(?:e|ing)|hand(?:ing)? over|"
    r"send(?:ing)?|read(?:ing)? out|reveal(?:ing)?)\b"
    # a habit of not giving it, or a refusal with its subject left out: "my birth date I don't give out", "zip code,
    # no, I don't give that in a chat", "not giving out my date of birth over chat"
    r"|\b(?:don'?t|do not|dont|never) (?:give|hand) (?:(?:it|that|them|those|this)(?: out| over| away)?|out|over|away)\b"
    r"(?! (?:much|a|any|enough|more)\b)"
    # or the verb bare at its clause's end, the item fronted: "zip I dont give.", "that one I won't share, sorry"
    r"|\b(?:i|we) (?:don'?t|do not|dont|never|won'?t|wont|will not) (?:give|share|hand over|tell|say)(?=\s*(?:[.!;,]|$))"
    r"|(?:^|(?<=[.!?,;:]\s))(?:no,?\s+)?(?:not|never) (?:giving|handing|sharing|providing|disclosing) (?:out |over )?\b"
    # and with its subject, of a thing held back: "I'm not giving you my user id" (not "I hope I'm not giving you trouble")
    r"|\b(?:i'?m|i am|we'?re|we are) not (?:giving|handing|sharing|providing|disclosing|telling) (?:(?:you|u|out|over) )?"
    r"(?:my|our|that|this|it|them|those|the|any)\b"
    # keeping it to oneself, the item named or fronted: "keep my zip code private", "the zip I prefer to keep to myself"
    r"|\bnone of your business\b|\bthat'?s private\b"
    r"|\bkeep (?:(?:that|it|this|them|those|my(?: \w+){1,3}?) )?(?:private|to myself|to ourselves)\b"
)
DENIAL = re.compile(_DENIAL)
REFUSAL = re.compile(_REFUSAL)


def _plain(text: str) -> str:
    return text.lower().replace("\u2019", "'")


#: Dialect and eye-dialect forms, read as their standard written forms (on lower-cased text
#: with straight apostrophes): Scots negations, "no'" or "no" before a verb for "not"
#: ("data's no' working", "data's no workin"), "-nae" or "-na" for "n't" ("isnae", "cannae",
#: "disnae", "havena", "didna"; not "arena" or "dona", which are words), "dinnae" for "don't",
#: "nae" for "no" ("nae service"), "aff" for "off", "tae" for "to", "can't mind" for "can't remember"; a dropped final g ("roamin'" for "roaming", "roamin's" for
#: "roaming's", "anythin'"); "an'" for "and", "o'" for "of"; "ye" and the Black Country's "yow" for "you",
#: "yer" for "your".
DIALECT_FORMS = ((re.compile(r"\bno'(?=\s)"), "not"), (re.compile(r"\bno(?= \w+in[g']?\b)"), "not"),
                 (re.compile(r"\bdisnae\b"), "doesn't"), (re.compile(r"\bcann(?:ae|a)\b"), "can't"),
                 (re.compile(r"\b(is|are|was|were|has|have|had|did|do|wo|could|would|should)nae\b"), r"\1n't"),
                 (re.compile(r"\b(is|was|were|has|have|had|did|could|would|should)na\b"), r"\1n't"),
                 (re.compile(r"\bdinn(?:ae|a)\b"), "don't"),
                 (re.compile(r"\bnae\b"), "no"), (re.compile(r"\baff\b"), "off"), (re.compile(r"\btae\b"), "to"),
                 (re.compile(r"\bcan't mind\b"), "can't remember"),
                 (re.compile(r"\b(\w{2,}in)'s\b"), r"\1g's"), (re.compile(r"\b(\w{2,}in)'(?!\w)"), r"\1g"),
                 (re.compile(r"\ban'(?!\w)"), "and"), (re.compile(r"\bo'(?=\s)"), "of"),
                 (re.compile(r"\b(?:ye|yow)\b"), "you"), (re.compile(r"\byer\b"), "your"))


def standard_spelling(text: str) -> str:
    """``text`` lower-cased, straight apostrophes, its dialect forms in their standard
    written forms (:data:`DIALECT_FORMS`)."""
    text = _plain(text)
    if _DIALECT_GATE.search(text):
        for pattern, standard in DIALECT_FORMS:
            text = pattern.sub(standard, text)
    return text


#: Any of the dialect forms (one scan before the substitutions).
_DIALECT_GATE = re.compile("|".join(pattern.pattern for pattern, _ in DIALECT_FORMS))


#: Spoken forms read as their English by the readers of speech (agent talk, denials): West
#: African Pidgin's "fit" for "can" ("anything else I fit help you with?", "I no fit remember
#: am") and "wey dey" for "who is"; "ya" for "you" after a preposition ("pull that up for ya");
#: chat's "lemme", "gimme", "u", "ur" and "4 u" ("lemme pull up
#: ur reservation n ill add those bags 4 u"); mock-Elizabethan "thee", "thou", "thy", "hath",
#: "canst" and "aught" ("is there aught else I may help thee with?"). (Dialect spellings are
#: read first: :func:`standard_spelling`; device readings read a few more:
#: :data:`~userbench_env.fidelity.text._DEVICE_DIALECT_FORMS`.)
_SPOKEN_FORMS = ((re.compile(r"\bno fit\b"), "can't"), (re.compile(r"\b(i|we|you|u) fit\b"), r"\1 can"),
                 (re.compile(r"\bwey dey\b"), "who is"), (re.compile(r"\blemme\b"), "let me"),
                 (re.compile(r"\bgimme\b"), "give me"), (re.compile(r"\b4 (?=u\b|you\b)"), "for "),
                 (re.compile(r"\b(for|to|with|at) ya\b"), r"\1 you"),
                 (re.compile(r"\bur\b"), "your"), (re.compile(r"\bu\b"), "you"),
                 (re.compile(r"\b(?:thee|thou)\b"), "you"), (re.compile(r"\bthy\b"), "your"), (re.compile(r"\bhath\b"), "has"),
                 (re.compile(r"\bcanst\b"), "can"), (re.compile(r"\baught\b"), "anything"))
#: Any of the spoken forms (one scan before the substitutions).
_SPOKEN_GATE = re.compile("|".join(pattern.pattern for pattern, _ in _SPOKEN_FORMS))


def _spoken(text: str) -> str:
    """:func:`standard_spelling` of ``text`` with the spoken forms of :data:`_SPOKEN_FORMS` in English."""
    text = standard_spelling(text)
    if _SPOKEN_GATE.search(text):
        for pattern, english in _SPOKEN_FORMS:
            text = pattern.sub(english, text)
    return text


@lru_cache(maxsize=_CACHE)
def denial_clauses(text: str) -> tuple[str, ...]:
    """The clauses of ``text`` (lower-cased) that deny knowing, finding or having something,
    or refuse to share it."""
    return tuple(c for c in clauses(_spoken(text))
                 if any(_RELEVANCE.match(c, m.end()) is None for m in DENIAL.finditer(c)) or REFUSAL.search(c))


#: Offering an item for later ("I can tell you that one later when you need it").
_LATER = re.compile(r"\b(?:tell|give|send) (?:\w+ ){0,3}later\b")


def offers_later(clause: str) -> bool:
    """True when every denial in ``clause`` (a lower-cased clause of :func:`denial_clauses`)
    offers the item for later, refusing nothing: given in its time, not denied."""
    return REFUSAL.search(clause) is None and all(_LATER.match(clause, m.start()) for m in DENIAL.finditer(clause))


#: Pausing to look an item up: "hold on", "one moment", "let me find it" (a put-off of
#: :data:`DENIAL`, on lower-cased clauses).
_PAUSE = re.compile(r"hold on\b|one (?:moment|sec|second|minute)\b|let me (?:look|check|find|dig|see if)\b")


def pauses_then(text: str) -> tuple[tuple[str, str], ...]:
    """(clause, what ``text`` says after it) for each clause of :func:`denial_clauses` whose
    every denial is a pause to look an item up ("hold on now till I find it"; lower-cased): a
    value after it is the item found ("... ah, here it is: 86e92f639e"), no denial of it."""
    spoken = _spoken(text)
    return tuple((c, spoken[spoken.find(c) + len(c):]) for c in denial_clauses(text)
                 if REFUSAL.search(c) is None and all(_PAUSE.match(c, m.start()) for m in DENIAL.finditer(c)))


#: After "don't see" or "don't know", questioning why the item is asked ("I don't see what my
#: birthday has to do with it", "I don't know why you need that"): a complaint about the
#: request, no denial of the item.
_RELEVANCE = re.compile(r"\s+(?:why\b|what\b(?:\s+\S+){0,5}?\s+(?:has|have|had|got)\s+to\s+do\s+with\b|the point\b)")


_OWNED = re.compile(r"\b(?:my|the|your|our|his|her|their)\s+(?:\w+\s+){0,2}?$")


@lru_cache(maxsize=_CACHE)
def owned_kinds(text: str) -> frozenset[str]:
    """The item kinds lower-cased ``text`` names as someone's item ("my email", "the zip
    code"), not in passing ("on a card at home")."""
    found: set[str] = set()
    for kind, pattern in KIND_WORDS.items():
        if any(_OWNED.search(text, 0, m.start()) for m in pattern.finditer(text)):
            found |= KIND_ALIASES.get(kind, {kind})
    return frozenset(found)


def denies_item(text: str, kind: str, others: frozenset[str]) -> bool:
    """True when ``text`` denies or refuses ``kind``: some denial clause names ``kind``, or
    names none of the ``others`` as someone's item (a bare "no idea" answers what was
    asked), or refers to the asked item by a pronoun before naming another ("I'd have to
    dig it out of my emails"); a clause naming only another item ("I don't remember my
    email") denies that one, not ``kind``."""
    for clause in denial_clauses(text):
        if kind in mentioned_kinds(clause) or not (owned_kinds(clause) & others):
            return True
        pronoun = _PRONOUN.search(clause)  # "I'd have to dig it out of my emails": "it" is what was asked
        if pronoun is not None and not (owned_kinds(clause[:pronoun.start()]) & others):
            return True
    return False


_PRONOUN = re.compile(r"\b(?:it|that|this|them|one)\b")


#: A clause opening like a question (auxiliary or wh-word first, after fillers).
_QUESTION_OPENING = re.compile(
    r"^(?:(?:ok(?:ay)?|so|well|wait|hmm+|um+|uh+|sorry|sure|but|and|also|oh|quick question|actually)[,!.]?\s+)*"
    r"(?:what|which|why|how|where|when|who|should|shall|do|does|did|is|are|was|will|would|can|could|may|must|"
    r"have|has|am)\b"
)


@lru_cache(maxsize=_CACHE)
def question_clauses(text: str) -> tuple[str, ...]:
    """The clauses of ``text`` (lower-cased) that ask something: ending with "?", or
    opening like a question and not ending with "."/"!"."""
    out = []
    for clause in clauses(_plain(text)):
        if clause.endswith("?") or (_QUESTION_OPENING.match(clause) and not clause.endswith((".", "!"))):
            out.append(clause)
    return tuple(out)


#: A clause part asking the agent for something ("I'd like ...", "I should like ...", "we'd
#: love ...", "I gotta ..." for "I need to ...", "please ...", "can you ..."; a preference, "I'd
#: prefer ...", states a constraint).
_REQUEST_OPENING = re.compile(
    r"^(?:(?:ok(?:ay)?|so|well|yes|yeah|alright|all right|sure|great|thanks|thank you|no problem|"
    r"in that case|then|also|and|but|oh|actually|hi|hello|hey)[,!.]?\s+)*"
    r"(?:(?:i|we)(?:\s*(?:would|'d|should|do|really|just|also|still|much)){0,2}\s*(?:like|love|want|need|wish)"
    r"|(?:i|we)(?:'ve| have)?\s*(?:gotta|got to)"
    r"|i'?m (?:looking|hoping|trying|calling)|"
    r"please(?! (?:don'?t|do not|never))|let'?s|help me|can you|could you|would you|will you)\b"
)
_PARTS = re.compile(r"[,;:]\s+")


#: A request announcing its items after a colon ("I wish to make two modifications: first, to
#: change it to a nonstop; and second, to remove my bag."), the items running to the end of
#: the sentence, or over the lines of a list ("I'd like:\n- a refund\n- the bag off").
_LISTED = re.compile(r"(?:^|(?<=[.!?;\n]))([^.!?;:\n]*):[ \t]*((?:[^.!?\n]|[.!?](?=\S)|\n(?=[ \t]*(?:[-*\u2022]|\d+[.)])))*)")
#: What announces a list: a count of things ("two modifications", "a few things", "the
#: following") before the colon, or an enumeration after it ("first, ...", "1. ...", "- ...").
_ANNOUNCED = re.compile(r"\b(?:two|three|four|five|several|a few|a couple(?: of)?|some|these|\d+)\s+(?:\w+\s+)?"
                        r"(?:things?|changes?|modifications?|requests?|items?|questions?|issues?|matters?)\s*$|\bfollowing\s*$")
_ENUMERATED = re.compile(r"\s*(?:first(?:ly)?\b|1[.)]|\(?a\)|[-*\u2022])")


def _without_listed_requests(low: str) -> str:
    """``low`` without its requests that announce their items (:data:`_LISTED`, :data:`_ANNOUNCED`
    or :data:`_ENUMERATED`), items included; a colon before a reason ("please don't transfer me:
    my family has it") lists nothing."""
    if ":" not in low:
        return low

    def drop(m: re.Match[str]) -> str:
        request = m.group(1).strip()
        listed = _ANNOUNCED.search(request) is not None or _ENUMERATED.match(m.group(2)) is not None
        return " " if listed and _REQUEST_OPENING.match(request) else m.group(0)
    return _LISTED.sub(drop, low)


@lru_cache(maxsize=_CACHE)
def stated_part(text: str) -> str:
    """What ``text`` (lower-cased) states rather than asks: its clauses that are not
    questions (:func:`question_clauses`), without their comma-separated parts that open as
    requests ("I'd like ...", "please ...", "so please be patient"; a "please don't ..." laying down terms is stated),
    and without a request's items listed after it (:data:`_LISTED`). What a message states
    beyond its request is where a recital shows. In a chain of fallback requests
    (:data:`_FALLBACK_CHAIN`: "Can you split it? If not, can I cancel the camera? If not,
    ..."), the requests made on the condition that an earlier one fails ask nothing of the
    moment: they are the plan, stated."""
    low = _without_listed_requests(_plain(text))
    asked = set(question_clauses(text))
    chained = _FALLBACK_CHAIN_RE.search(low) is not None
    return " ".join(part for c in clauses(low) for part in _stated_parts(c, asked, chained))


def _stated_parts(clause: str, asked: set[str], chained: bool) -> list[str]:
    """What ``clause`` states (see :func:`stated_part`): all of it when it is a fallback
    request of a chain, nothing when it asks, else its parts that do not open as requests."""
    if chained and _FALLBACK_OPENING.match(clause):
        return [clause]
    if clause in asked:
        return []
    return [part for part in _PARTS.split(clause) if _REQUEST_OPENING.match(part) is None]


#: An alternative asked for on the condition that an earlier request fails ("if not, ..."),
#: after a joining word or none.
_FALLBACK = (r"(?:(?:and|or|but|so)\s+)?(?:if not|failing that|otherwise"
             r"|if (?:that|this|it)(?:'?s| is) not possible|if (?:that|this|it) (?:isn'?t|is not) possible|if not possible"
             r"|if (?:that|this|it) (?:can'?t|cannot) be done|if (?:that|this|it) (?:doesn'?t|does not|won'?t|will not) work"
             r"|if you (?:can'?t|cannot)(?: do (?:that|this|it))?(?=,))\b")
_FALLBACK_OPENING = re.compile("^" + _FALLBACK)
#: Two such alternatives in separate sentences of one message (the second opening its sentence
#: or a clause of it): a plan with its fallbacks, laid out before the agent answered its first
#: request, as sentences or as a list's items (one sentence's "battery, failing that USB" is one preference).
_FALLBACK_CHAIN = r"\b" + _FALLBACK + r"[^.!?]{0,200}[.!?]\s+(?:[-*\u2022]\s+)?(?:[^.!?]{0,120}?[,;]\s+)?" + _FALLBACK
_FALLBACK_CHAIN_RE = re.compile(_FALLBACK_CHAIN)


#: A customer's identifying item, as an agent names it.
_ITEM = (r"(?:full |first |last )?(?:name|email|e-mail|phone(?: number)?|user ?id|username|date of birth|dob|birthday|"
         r"(?:home |billing )?address|zip(?: code)?|postal code|account (?:id|number)|card number|order (?:id|number)|"
         r"reservation (?:id|number|code)|booking (?:reference|number))\b")
#: The customer's item as the agent asks for it: "your email", "the cardholder's full name".
_OWNED_ITEM = rf"(?:your|the (?:card ?holder|account ?holder|customer|passenger|caller)'?s?) {_ITEM}"
#: The same, or the item on the record ("the phone number on the account", "on file"): a customer may
#: ask the agent to confirm that one, so it is read only where a customer would not ask.
_WHOSE_ITEM = rf"{_OWNED_ITEM}|the {_ITEM} on (?:(?:the|your) (?:account|file|card|booking|profile|record)|file)\b"
#: One character of a sentence, where the sentence does not name the speaker's own thing ("my",
#: "myself"): work "for you" on what the customer calls its own is the customer's ("let me look up my order
#: number for you").
_NOT_ONES_OWN = r"(?:(?!\b(?:my|myself|meself|mine)\b)[^.!?])"
#: The customer's side of the conversation: "from me", "from my side", "from my end".
_OUR_SIDE = r"(?:me|us|my (?:side|end|part))"
#: A record of the business's that the agent looks up ("the reservation", "both orders"), not an item of it ("the order
#: number", "the booking email").
_RECORD = (r"(?:reservations?|bookings?|orders?|accounts?|profiles?|records?|flights?)\b"
           r"(?! (?:numbers?|ids?|codes?|confirmations?|e-?mails?|details|history|page)\b)")
#: A word that is not one's own ("my", "mine"): a record named with it is the customer's.
_NOT_MINE = r"(?!(?:my|mine)\b)"
#: What the agent worked out and said, which the customer checks: "let me check your numbers" (or "your
#: math", "your figures") is the customer going over the agent's words, not the agent's look at a record.
_AGENTS_WORKING = r"(?:numbers|math|maths|figures|sums?|arithmetic|calculations?|answer|breakdown|working|reasoning)\b"
#: Telling the other side something: listing, reading out, giving, sending, spelling, describing.
_TELLING = r"(?:list|tell|give|send|read|share|spell|describe|provide|show|repeat|go through)"
#: Speaking as the agent, or about being an AI or a simulated user (on lower-cased text):
#: (gate words one of which every match contains, pattern), searched only when a gate word occurs.
#: Patterns each behind gate words, one of which every match of it contains (on lower-cased text).
Gated = tuple[tuple[tuple[str, ...], re.Pattern[str]], ...]


def _gated(*table: tuple[tuple[str, ...], str]) -> Gated:
    """``(gates, pattern)`` pairs with their patterns compiled."""
    return tuple((gates, re.compile(pattern)) for gates, pattern in table)


def _gated_matches(table: Gated, low: str) -> Iterator[re.Match[str]]:
    """The matches in ``low`` of the patterns of ``table`` whose gate words it holds, lazily, in table order."""
    for gates, pattern in table:
        if any(gate in low for gate in gates):
            yield from pattern.finditer(low)


#: The conversation called a scenario, maybe of a kind that names it staged ("this test scenario",
#: "the role-play scenario").
_SCENARIO = r"(?:(?:test|practice|role-?play|simulated|mock|training|demo) )?scenario\b"

_AS_AGENT: Gated = _gated(
    # being an AI / a program / a simulated user, or talking about the simulation
    (("ai", "a.i.", "intelligence", "bot", "model", "llm", "assistant", "simulat", "program", "machine"),
     r"\b(?:as an?|i'?m an?|i am an?|i'?m just an?|i am just an?|being an?|i'?m only an?|i am only an?)\s+"
     r"(?:\w+\s+){0,2}?(?:ai|a\.i\.|artificial intelligence|chat ?bot|bot|language model|llm|virtual assistant|"
     r"assistant|simulat\w*|program|machine|computer program|model)\b"
     r"|\blanguage model\b|\bartificial intelligence\b|\bchat ?bot\b|\b(?:simulated|simulating|simulator|simulation)\b"
     # the article dropped, as a learner drops it: "I am just AI test user"
     r"|\b(?:i'?m|i am)(?: just| only)? (?:ai|a\.i\.|bot|llm)\b(?!-)"),
    (("role", "prompt", "instructions", "programming", "training", "scenario", "play", "acting as", "pretending", "script",
      "test ", "task ", "character", "persona"),
     r"\brole[- ]?play\w*|\bsystem prompt\b|\bmy (?:task |user |role )?(?:instructions|prompt|programming|training data|scenario)\b"
     # the brief as a script, the speaker as the test's user: "that's what my script says", "that's the end of my
     # script", "I'm just the test user" (not the pharmacy's: "they have my script ready"); or as a task that
     # speaks: "that's exactly what my task asked me to find out"
     r"|\b(?:(?:my|the) script|my task) (?:says|said|tells|told|asks|asked|wants|wanted|had me)\b"
     r"|\b(?:my|the) script (?:has|gives)\b"
     r"|\b(?:according to|per|in|off|end of|following|follow) my script\b"
     # one's script finished, or one's part of it: "my script is finished now", "my part of this script is done"
     # (not the pharmacy's "my script is ready")
     r"|\bmy script(?: is|'s) (?:now )?(?:finished|complete|completed|done|over)\b|\bmy part of (?:this|the) script\b"
     r"|\b(?:i'?m|i am) (?:just |only )?(?:the |a )?test (?:user|customer|caller)\b"
     r"|\b(?:the )?(?:customer|user|caller) in (?:this|the) " + _SCENARIO
     # the scenario as what rules one's words: "I'll only share what the scenario allows"
     + r"|\bthe scenario (?:says|states|tells|gives|allows|permits|lets|wants|requires|asks)\b"
     # staying in the part one plays, or leaving it: "I'm staying in character as a private customer"
     r"|\b(?:stay(?:ing|s|ed)?|remain(?:ing|s|ed)?|keep(?:ing|s)?|kept) in character\b|\bbreak(?:ing|s)? character\b"
     # the conversation called its scenario, or its task the one given, in what the speaker says of itself ("that's
     # everything for this scenario on my end", "the goal of this scenario is done", "that completes the task I was
     # given"; asking what happens "in this scenario" is a customer's hypothetical)
     r"|\b(?:in|for|of) this (?:customer |user |caller )?" + _SCENARIO + r"(?![^.!?]*\?)"
     # the scenario as the frame of what one says, one's character a part written for one: "that covers it, as far
     # as the scenario goes", "my character is supposed to be cautious" (not "as far as the worst-case scenario goes",
     # "it's not in my character to complain")
     r"|\bas far as (?:the|my|this) scenario (?:goes|is concerned)\b"
     r"|\bmy (?:character|persona) (?:is |was )?(?:supposed|meant|written|told|instructed|scripted)\b"
     r"|\b(?:the|my) (?:customer |user |caller )?(?:task|scenario|script|role|part|brief) (?:i was|i'?ve been|i have been) given\b"
     # the brief as the speaker's script or scenario, finished or named for its part or task: "that wraps up my
     # customer script", "the last item my task script lists", "that completes the scenario" (a script that is
     # the agent's, "skip the have-you-tried script", is not)
     r"|\b(?:wraps? up|complet(?:es?|ed|ing)|finish(?:es|ed)?|conclud(?:es?|ed)|ends?) (?:my|the|this) (?:customer |user |caller )?"
     r"(?:script|scenario)\b|\bmy (?:customer|user|caller|role|task) script\b"
     # naming the part one plays: "as the AI playing the customer", "I'm acting as the user here", "I'm playing a
     # cautious customer"
     r"|\b(?:i'?m|i am|as the (?:\w+ ){0,2}?\w+) (?:play(?:ing|s)?|acting as|in the role of) (?:(?:the |a |an )(?:\w+ )?)?"
     r"(?:customer|user|caller)\b"
     # an AI playing a part, in any grammar: "I only one AI playing da customer"
     r"|\b(?:ai|a\.i\.|bot|chatbot|language model|llm)\s+(?:that'?s |who'?s |that is |who is )?(?:play(?:ing|s)?|acting as|"
     r"pretending to be|role-?playing)\s+(?:\w+\s+)?(?:customer|user|caller)\b"
     # the speaker itself an AI playing anyone: "as the AI playing Victor here" (asking whether the agent is a
     # bot pretending to be human is the customer's question)
     # (a hedge before the article too: "I am only the AI playing James")
     r"|\b(?:as|i'?m|i am|being|bein'?) (?:(?:just|only|merely|simply) )?(?:the |an? )?"
     r"(?:ai|a\.i\.|bot|chatbot|language model|llm) "
     r"(?:\w+ ){0,2}?(?:play(?:ing|in'?)?|acting as|pretending to be|role-?playing)\b"),
    (("have",),
     r"\bi (?:don'?t|do not) have (?:a )?(?:physical|personal|body|feelings|real[- ]time|access to (?:real|personal|your))"),
    # offering help, greeting a customer
    (("help", "assist", "brings you", "for you", "anything else", "would you like", "be of", "look into", "look that up",
      "pull up", "look up", "bring up", "open up", "processed", "you through"),
     r"(?:^|[.!?]\s+)(?:(?:sure|absolutely|of course|certainly|no problem)[,!.]?\s+)?(?:happy|glad|delighted) to "
     r"(?:help|assist|look into|check|take a look|look that up)\b"
     # (a bare "what can I do?" is the customer asking for advice: "my phone shows No Service. What can I do?";
     # "what can I do for you?" is the agent's, below)
     # (offering more of it too: "how else can I help you with your account today?")
     r"|\bhow (?:else )?(?:can|may|could|might) i (?:help|assist|be of)\b|\bwhat can i (?:do to help|help you with)\b"
     r"|\bwhat brings you\b|\bwhat (?:can|may) i (?:do|get) for you\b|\bhow (?:can|may) i direct\b"
     r"|\b(?:is there )?anything (?:else |further |more )?(?:i can|i could|i may|that i can) (?:help|assist|do for you|do to "
     r"(?:help|assist) you)\b"
     r"|\b(?:i'?m|i am) (?:here|happy|glad|always happy) to (?:help|assist)\b"
     r"|\b(?:i'?d|i would|i'?ll|i will|i'?m|i am) (?:be )?(?:happy|glad|delighted|pleased) to (?:help|assist)\b"
     r"|\blet me (?:help|assist) you\b|\bi can (?:help|assist) you\b|\bi'?ll (?:help|assist) you\b|\bhappy to help\b"
     # taking credit for the help at the close, as the agent does, or for what it did for the other side: "glad I
     # could sort out both exchanges for you today"
     r"|\b(?:glad|happy|pleased) (?:i|we) (?:could|was able to|were able to|got to) (?:(?:help|assist)\b|[^.!?]{0,60}?\bfor you\b)"
     r"|\b(?:glad|happy|pleased) to (?:have )?(?:helped|assisted|been of (?:help|assistance))\b"
     # (offering the agent more of one's own details or work is the customer's part: "anything else I can give
     # you?", "anything else you need from me?" (or "from my side", "from my end"), "anything else you need me to
     # run?", "anything else you need, ask it all at once", "anything else you need to verify me?", "anything else
     # you'd like me to try?";
     # and so is asking what else of one's own would do, the sentence naming it: "is there anything else I can use
     # to verify my account?")
     rf"|\banything else (?:you need(?! from {_OUR_SIDE}| me to| to know| to [^.!?]{{0,60}}?\b(?:me|my)\b"
     r"|,? (?:just )?ask (?:me|it|them|all))"
     rf"|i can(?! (?:give|tell|send|provide|share|show|try|answer|confirm|run))(?={_NOT_ONES_OWN}*(?:[.!?]|$))"
     rf"|you'?d like(?! me to| to know| from {_OUR_SIDE}))\b|\b(?:which|what) \w+ would you like (?:to|me to)\b"
     # (asking what to try next is the customer's part: "what would you like me to try next?")
     r"|\bwhat would you like (?:to do|me to(?! (?:try|run|check|test)\b| do next\b)|help)\b"
     r"|\b(?:look|check|pull|find|process|take care of|handle|update|cancel|close|book|fix|submit)\b"
     rf"{_NOT_ONES_OWN}{{0,30}}\bfor you\b"
     # the agent's work on the record reported done for the customer ("I have processed the cancellation of
     # order #W85579168 for you"; a user's own checks and submissions "for you" are its part)
     r"|\b(?:processed|cancell?ed|refunded|issued|booked|rebooked|handled)\b[^.!?]{0,80}\bfor you\b"
     r"|\bi(?:'ve| have)? (?:just |now )?processed (?:the|your|a|an) \w+"
     r"|\b(?:would you like|do you want|shall i|should i) (?:me to )?(?:help|assist) you\b"
     # guiding the other side through the steps it takes: "would you like me to walk you through those steps?",
     # "let me walk you through it" (asking to be walked through is the customer's, "can you walk me through it?",
     # and so is going through what it sees or did itself: "I can walk you through the steps I tried")
     r"|\b(?:would you like|do you want|shall i|should i|let me|i'?ll|i will|i can) (?:me to )?(?:walk|guide) you through "
     r"(?:the |those |these |each |all (?:the |those )?)?(?:steps?|process|it|them|that|this)\b(?![^.!?]*\b(?:i|my)\b)"
     r"|\b(?:i|we) ?(?:can|will|'ll|could) (?:\w+ )?\w+ (?:that|this|it|the \w+|your \w+|\d+ ?\w+) for you\b"
     # the agent's work on the request promised done for the customer ("I'll get those bags added and the cabin
     # upgraded for you")
     r"|\b(?:i'?ll|i will|let me) (?:get|have) (?:\w+ ){1,4}?(?:added|upgraded|downgraded|changed|cancell?ed|booked|"
     r"rebooked|processed|refunded|updated|moved|issued|exchanged|returned)\b[^.!?]{0,60}?\bfor you\b"
     # looking up the customer's record, as only the agent can
     r"|\b(?:i'?ll|i will|let me|i can) (?:now )?(?:pull up|look up|bring up|open up) your (?:\w+ ){0,2}?"
     r"(?:account|line|order|reservation|booking|profile|record|file|details|usage)\b"
     # or offering to look records up for the other side: "want me to pull up which ones are still pending for you?"
     r"|\b(?:want me to|like me to|shall i|should i) (?:pull up|look up|bring up)\b[^.!?]{0,60}?\bfor you\b"
     # the agent's work on a named account object: "I will open the High Yield Savings account for you",
     # offered as a question too: "shall I apply the temporary freeze to the card for you?" (offering to tell
     # the other side something is the customer's part too: "shall I now list the transactions on each card for you?")
     rf"|\b(?:(?:i|we) ?(?:can|will|'ll|could)|(?:shall|should) (?:i|we)) (?!(?:\w+ )?{_TELLING}\b)(?:\w+ ){{1,6}}?(?:the|your|a|an) (?:\w+ ){{0,3}}?"
     r"(?:account|card|order|reservation|booking|refund|return|exchange|application|dispute|request) for you\b"),
    # announcing the agent's operation on the record, done for the other side: a promise (or an offer) of the
    # operation whose sentence names whom it serves, "for you" or "your" thing ("let me move MRD110 to May 24 for
    # you", "I'll start the return on your current keyboard", "I'll move $750 from your checking into your
    # savings", "I can pull up the rest of your transactions", "let me search the flights for you"); the
    # customer's own channels stay its own ("I'll file the claim on your website"), and so does what the sentence
    # calls its own ("let me look up my order number for you")
    (("for you", "your"),
     r"\b(?:i'?ll|i will|i shall|let me|i can|i'?m going to|i'?m gonna|(?:want|like) me to|shall i|should i) "
     r"(?:(?:now|then|also|just|first|proceed to) )*"
     r"(?:process|update|add|cancel|change|modify|book|rebook|refund|issue|set up|arrange|put|place|charge|apply|"
     r"submit|exchange|block|start|initiate|begin|file|waive|remove|upgrade|downgrade|freeze|take care of|handle|"
     r"look up|pull up|bring up|look into|check|search"
     # (moving a booking or money, not oneself: "I'll move closer to the window for you"; opening the other side's
     # account or card, not one's own with the business: "I'll open your new savings account", not "I'll open a
     # savings account with your bank")
     r"|move (?:\w+ ){0,2}?(?:flights?|reservation|booking|trip|ticket|seats?|[a-z]{2,3}\d{2,}|\$\d[\d,_]*|money|funds|balance)"
     r"|open(?= your (?:\w+ ){0,3}?(?:accounts?|(?:credit|debit) cards?)\b))\b"
     rf"{_NOT_ONES_OWN}{{0,100}}?"
     r"(?:\bfor you\b|\byour (?!(?:website|site|app|portal|page|end|side|form|online|system|behalf|store|shop|warehouse|"
     rf"office|branch|company|team|policy|rules|word|time|help|patience)\b|{_AGENTS_WORKING}))"),
    # looking up one of the business's records to work on it, as only the agent can: "let me pull that reservation up
    # and process the cancellation", "I'll pull up the New York to Chicago reservation now and process the passenger
    # change", "I will look up order W5061109, check ... and make the change" (a look at one's own record stays the
    # customer's, "I'll pull up my order and cancel it online", and so does looking up an item of it, "the order
    # number"; checking or updating is anybody's: "let me look that up and update you")
    (("pull", "look", "bring"),
     r"\b(?:i'?ll|i will|let me|i'?m going to|i'?m gonna) (?:then )?(?:pull|look|bring) "
     rf"(?:up (?:{_NOT_MINE}[\w-]+ ){{0,5}}?{_RECORD}|(?:the|that|this|your|both|each) (?:{_NOT_MINE}[\w-]+ ){{0,4}}?{_RECORD} up\b)"
     rf"{_NOT_ONES_OWN}{{0,80}}?(?:\band|\bthen|\bso|,)(?: (?:and|then|now|so|i'?ll|i will))* "
     r"(?:process|cancel|refund|issue|apply|modify|switch|rebook|upgrade|downgrade|waive|remove|make the changes?)\b"
     r"(?![^.!?]*\bmyself\b)"),
    # the business's confirmation promised to its customer: "you will get a confirmation email shortly", "you'll
    # receive an email with the next steps", "you'll get the return instructions by email" (quoting one's screen or
    # the agent is reporting: "it says: 'you will receive ...'"; one's own message is the customer's to send: "you'll
    # get my email in a minute", "you'll receive an email from me"; and asking is no promise: "so you'll get an
    # email when it ships?")
    (("you'll", "you will"),
     r"(?:^|(?<=[.!?]\s))(?:(?!\b(?:says?|said|reads?|shows?|showed|displays?|told)\b)[^.!?\"\u201c])*?"
     r"(?<![\"'\u201c\u2018])(?<![\"'\u201c\u2018] )\byou(?:'ll| will)(?: also| soon)? "
     r"(?:get|receive) (?:(?!my\b)[\w-]+ ){0,4}?(?:e-?mails?|confirmations?|text messages?)\b(?! from (?:me|us)\b)(?![^.!?]*\?)"),
    (("seems to be", "understand your", "see what i can do"),
     r"\bwhat seems to be the (?:problem|issue|trouble)\b|\bi (?:completely |totally |fully )?understand your "
     r"(?:frustration|concern)\b|\blet me see what i can do\b"),
    (("thank", "welcome", "feel free", "hesitate", "pleasure"),
     # (thanking for patience or for bearing with one is courtesy both sides use: no evidence)
     r"\bthank you for (?:contacting|calling|reaching out to|choosing) (?:us|our)\b|\bwelcome to (?:our|the) \w+ "
     r"(?:support|service|desk)|\bfeel free to (?:ask|reach out|contact)\b|\b(?:don'?t|do not) hesitate to\b"
     # the pleasure of serving the other side: "it was my pleasure assisting you today"
     r"|\bpleasure (?:assisting|helping|serving|to assist|to help|to serve) you\b"
     # (thanking for a choice made for one is the customer's: "thank you for choosing the card for me")
     r"|\bthanks? (?:you )?for (?:contacting|reaching out|choosing(?! (?:the|a|an|that|this|it|one|such|my)\b)|"
     r"calling (?:us|our|customer|support|the))\b"
     r"|\bthanks? (?:you )?for calling\b(?! (?:me|back|to|about|so|and))"
     # the business thanking its customer: "thank you for banking with us", "for being a valued customer"
     r"|\bthanks? (?:you )?for (?:banking|flying|shopping|travel+ing|staying|booking|ordering|doing business) with us\b"
     r"|\bthanks? (?:you )?for being (?:a|our) (?:valued|loyal) (?:customer|member|client)\b"),
    # role reversal: the agent's persona or work on the customer's record, asking the agent for its customer's details
    # asking the agent for its customer's details, as a service desk does
    (("provide", "verify", "confirm", "started", " under", "registered", "have", "get", "grab", "take", "need", "security",
      "verification"),
     r"\b(?:please|kindly|to get (?:you )?started,?|to (?:verify|confirm) (?:your|the) (?:identity|account),?|first,?) "
     r"(?:please |kindly )?(?:(?:confirm|verify|give me|send me|tell me) (?:me )?(?:with )?(?:" + _OWNED_ITEM + r")"
     rf"|(?:provide|share|enter|state) (?:me )?(?:with )?(?:{_WHOSE_ITEM}))"
     r"|\b(?:could|can|would|will) you (?:please |kindly )?(?:provide|verify|confirm)\b[^.!?]{0,40}?"
     rf"(?:{_OWNED_ITEM})"
     r"|\b(?:could|can) i (?:please )?(?:have|get|grab|take)\b[^.!?]{0,20}?"
     rf"(?:{_OWNED_ITEM})|\bmay i (?:please )?(?:have|get|take)\b[^.!?]{{0,20}}?(?:{_WHOSE_ITEM})"
     r"|\b(?:(?:i'?ll|i will|i'?d) (?:just |first )?need (?:to (?:verify|confirm|get|have) )?|i need to (?:verify|confirm) )"
     rf"(?:{_WHOSE_ITEM})"
     # (opening a clause, as a request's reason: "for verification purposes, ..."; after a verb it is what the
     # customer says of the agent's questions: "I trust this is collected for verification purposes")
     r"|(?:^|(?<=[.!?,;:])\s{0,8}+)(?:for|to complete) (?:security|verification) (?:purposes|reasons)\b"
     r"|\bverif(?:y|ying|ied) your identity\b"
     r"|\b(?:what|which) (?:name|email|e-mail|phone number|number|user ?id|address|zip(?: code)?) is (?:the|this|your) "
     r"(?:\w+ )?(?:card|account|booking|reservation|order|profile|line) (?:under|registered|listed)\b"),
    (("your", "let me", "system", "in stock"),
     r"\b(?:i'?m|i am|as|as your|speaking as) (?:your|the|a|an) (?:\w+\s+){0,2}?(?:assistant|agent|representative|rep|"
     r"advisor|specialist)\b|\b(?:i'?d|i would) (?:recommend|suggest) (?:the |a |an )?[\w-]+ (?:card|plan|flight|product)? ?"
     # (all or each of them: "I have updated all of your pending t-shirts to purple"; taking in what the other side
     # said or advised is the customer's: "I've tried all of your suggestions", "I've followed your steps")
     r"for your\b|\b(?:i'?ve|i have) (?!(?:tried|followed|received|read|noted|heard|used|answered|appreciated|enjoyed|"
     r"missed|understood|considered)\b)(?:\w+ed|processed|issued|cancelled|canceled|refunded|updated|booked|rebooked) "
     r"(?:(?:all|both|each) (?:of )?)?your\b"
     # the agent finding the customer's record: "I've found your account and can see the order"
     r"|\b(?:i'?ve|i have) (?:now )?(?:found|located|pulled up|brought up) your (?:account|order|reservation|booking|profile|record)\b"
     # (or the records "in the system", found or to be looked up: "I've pulled up both orders in the system", "let me
     # pull the booking up on the system")
     r"|\b(?:(?:i'?ve|i have) (?:now )?(?:found|located|pulled up|brought up)|(?:i'?ll|i will|let me|i can|i'?m going to) "
     r"(?:check|pull|look|bring|search|find))\b(?: \w+){0,4}? (?:in|on) (?:the|our) system\b"
     # the business's own stock: "let me check which lamp options we have in stock for you"
     r"|\bwe (?:have|carry|'ve got|got) (?:\w+ ){0,3}?in stock\b"
     # the agent's work on the customer's record: "I've stopped all the recurring charges on your debit card", or
     # what it put on the record: "I've noted the return on your account"
     r"|\b(?:i'?ve|i have) (?:now )?(?:stopped|blocked|frozen|cancell?ed|canceled|processed|refunded|removed|applied|issued|"
     r"waived|reversed|filed|submitted|updated|noted|logged|recorded|flagged|placed)\b[^.!?]{0,40}\b(?:on|to|from|for) your "
     r"(?:\w+ )?(?:card|account|order|reservation|booking|profile|subscription)\b"
     r"|\byour (?:reservation|booking|order|account|refund|request|ticket|identity|cancellation)\b[^.!?]{0,20}\b(?:has been|is now|was) "
     r"(?:cancel|process|updat|refund|book|confirm|modif|approv|verif)"
     r"|\b(?:could|can|may) (?:you|i) (?:please )?(?:provide|give me|tell me|have|get|confirm|share) (?:me )?(?:with )?your "
     r"(?:user ?id|full name|name|email|zip|postal|phone|order|reservation|booking|account|date of birth|address)\b"
     rf"|\blet me (?:look|check|pull) (?:up |into )?(?:your(?! {_AGENTS_WORKING})|that for you|this for you)\b"
     r"|\b(?:associated|linked|registered|on file) (?:with|to|for|under) your (?:account|booking|reservation|order|profile)\b"
     # telling the other side where its money goes: "the refund will go back to your original payment method" (a
     # customer's money goes back to "my" card; asking where it goes is no telling)
     r"|\b(?:refund(?:ed)?|credit(?:ed)?|return(?:ed)?|go(?:es)? back|sent back|paid back|put back) to your (?:original |"
     r"default |registered |saved )?(?:form of payment|payment method|(?:(?:credit|debit|gift) )?card|visa|mastercard|"
     r"amex|paypal)\b(?![^.!?]*\?)"
     # telling the other side to work its own phone: "I'll need you to reboot your device" (a customer's phone is
     # "my" phone)
     r"|\b(?:i'?ll need you to |i need you to |(?:could|can|would) you (?:please )?|please )(?:now )?(?:reboot|restart|"
     r"toggle|turn (?:on|off)|switch (?:on|off)|reset) your (?:device|phone)\b"),
)


@lru_cache(maxsize=_CACHE)
def speaks_as_agent(text: str) -> bool:
    """True when ``text`` speaks as the agent or about being an AI/simulated user (see
    :data:`_AS_AGENT`); "thanks for your help" or "can you help me" are customer talk. Going
    ahead is read through ("I'll go ahead and pull up your profile" is "I'll pull up your
    profile", :data:`_GOING_AHEAD`), and so are the fillers between a speaker's "let me" or "I'll" and
    its verb ("let me just pull up your account" is "let me pull up your account", :data:`_FILLER`); a
    decimal point ends no sentence (:data:`_DECIMAL_POINT`); a bare "anything else you need?" after one's
    own item asks what else the agent needs from one (:data:`_ITEM_THEN_BARE_NEED`), and so does
    "anything else you need" as what one offers to give (:data:`_GIVING_WHAT_YOU_NEED`); "for you"
    before an infinitive names who would act, not whom a deed serves (:data:`_DOER`)."""
    spoken = _FILLER.sub(r"\1 ", _GOING_AHEAD.sub("", _DECIMAL_POINT.sub("_", _spoken(text))))
    if "for you to " in spoken:
        spoken = _DOER.sub(r"\1 you", spoken)
    if "anything else you need" in spoken:
        spoken = _GIVING_WHAT_YOU_NEED.sub(r"\1 from me", _ITEM_THEN_BARE_NEED.sub(r"\1 from me", spoken))
    return next(_gated_matches(_AS_AGENT, spoken), None) is not None


#: A bare "anything else you need?" after one of one's own items in the message (an email, a
#: snake-case id, a zip code or a phone number: "My email? It's kenji@mail.test. Anything else you
#: need?"): asking what else the agent needs from oneself, as "from me" says. Alone, it is the agent's offer.
_ITEM_THEN_BARE_NEED = re.compile(r"((?:@|[a-z]_[a-z0-9]|\d{5}|\d{3}-\d{4})[^?]{0,200}?\banything else you need)(?= ?\?)")
#: "Anything else you need" as the thing one offers to give ("happy to confirm anything else you
#: need", "I can send you anything else you need", "happy to give you the reservation codes or anything
#: else you need"): more of one's own details, as "from me" says.
#: Helping with it ("happy to help with anything else you need") is the agent's offer.
_GIVING_WHAT_YOU_NEED = re.compile(r"(\b(?:give|tell|send|provide|share|show|answer|confirm|verify|spell out)(?: you)?"
                                   r" (?:with )?(?:[^.!?]{1,60}? (?:or|and) )?anything else you need)\b(?! from)")
#: "For you" before an infinitive, after a word that takes one ("I'll cancel that order myself, no need
#: for you to do it", "is it possible for you to check?"): the one who would act, read as plain "you", not
#: the customer a deed is done for ("I'll cancel it for you to save you the trouble" stays the agent's).
_DOER = re.compile(r"\b(need|needed|necessary|easier|easy|simpler|quicker|faster|better|possible|impossible|hard|harder|"
                   r"okay|ok|fine|time|way|chance|reason) for you(?= to \w)")
#: A decimal point ("put the 4.70 on my card"): it joins an amount's digits, ending no sentence.
_DECIMAL_POINT = re.compile(r"(?<=\d)\.(?=\d)")
#: "Go ahead and" before a verb, in any tense and in chat spelling ("go ahead n"): it adds nothing to
#: what the verb does.
_GOING_AHEAD = re.compile(r"\b(?:go|goes|going|went|gone) ahead (?:now |then )?(?:and|an'|n|'n'|&) ")
#: Fillers after a speaker's "let me", "I'll", "I will" or "I can" ("just", "quickly", "real quick",
#: "now", "first", "also": "I can also help you with an exchange" offers what "I can help you" does):
#: they add nothing to the verb that follows.
_FILLER = re.compile(r"\b(let me|i'?ll|i will|i can) (?:(?:just|quickly|real quick|now|first|also) )+")


#: A user talking about its own brief rather than the matter at hand (on lower-cased text
#: with straight apostrophes): announcing what it is about to lay out ("before you ask",
#: "just so you know how this goes", "up front"), what it was told or planned, and how it will
#: react to what the agent says later (how it will negotiate is :data:`_STANCE_CUES`, its
#: conditions and terms :data:`_CONDITION_CUES` and :data:`_TERM_CUES`, its persona :data:`_MANNER_CUES`):
#: (gate words one of which every match contains, pattern).
_RECITAL_CUES: Gated = _gated(
    # announcing what follows, or the brief itself
    (("before you ask", "so you know", "warning", "record", "context", "disclosure", "heads", "fyi", "to be up", "front", "picture",
      "background", "things",
      "advance", "ahead", "ground rules", "how this", "let me", "to save", "before we", "my instructions", "my brief",
      "my game plan", "my script", "the plan is to", "warn", "tell you", "telling you", "everything", "it all", "all of it"),
     r"\bbefore you ask\b|\b(?:just )?so you know\b|\bfair warning\b|\bfor context\b|\bfull disclosure\b"
     r"|\bheads[- ]up\b|\bfyi\b|\bto be (?:upfront|up front)\b|\bup[- ]?front\b"
     # ("thanks in advance", "sorry in advance": courtesy, not a plan announced)
     r"|(?<!thanks )(?<!thank you )(?<!much )(?<!sorry )(?<!apologies )\bin advance\b|\bahead of time\b"
     r"|\bhow this (?:goes|works|is going to go)\b|\bground rules\b|\blet me (?:lay|spell|set) (?:it|this|everything|things) out\b"
     # telling it all at once: "I'll just give you everything at once", "make I yarn you everything"
     r"|\b(?:tell|give|talk|yarn|run through|go through)(?: you| u)? (?:everything|it all|all of it)\b"
     r"|\bto save (?:time|us time|you time)\b|\bbefore we (?:start|begin|get started)\b|\bmy (?:instructions|brief|game plan|script)\b"
     r"|\b(?:to give you|for) (?:the full picture|some (?:background|context))\b|\b(?:a (?:few|couple of)|some) things "
     r"(?:you should know|to know|first|up ?front)\b"
     r"|\bthe plan is to\b|\b(?:i should|i'?ll|let me|i have to|i must|i'?d better) (?:warn you|tell you (?:now|first|up ?front))\b"
     r"|\b(?:i'?m|i am) telling you (?:now|first|up ?front)\b"),
    ((" here", "here'", "heres"),
     r"\bhere'?s (?:the deal|the thing|the situation|how (?:this|it) (?:goes|works)|my (?:plan|situation|deal)|what i (?:want|need))\b"
     # an occupation as a self-introduction ("office admin here, ...")
     r"|(?:^|[.!?]\s+)(?:(?:hi|hello|hey)[,!.]?\s+)?(?:a |an )?(?!(?:all|same|nothing|everything|it|that|this|ok|okay|fine|good|"
     r"still|not|just|me|you)\b)(?:[a-z-]+ ){0,2}[a-z-]+ here\b(?=[,.!;]|\s+(?:and|with|so|but)\b)"),
    (("told", "instructed", "asked to", "supposed", "meant to"),
     r"\b(?:i was|i'?ve been|i have been|i am|i'?m) (?:told|instructed|asked|supposed|meant) to\b"),
    # a chain of fallback requests: a second alternative asked for before the first was answered
    (("if not", "failing that", "otherwise", "possible", "be done", "work", "you can't", "you cant", "you cannot"), _FALLBACK_CHAIN),
    # how the user will react to what the agent asks later: a reply scripted for a later moment, whatever
    # the reply ("if you ask me to confirm, I'll ...", "if you ask for a reason, my plans changed", "when you
    # finally ask me to confirm", "I'll confirm the cancellation when asked"; "if you ask me, I'd say ...": an opinion)
    (("ask",),
     r"\b(?:if|when|whenever|once) you (?:\w+ )?ask(?: me)? (?:to|for|whether|if|about|again)\b"
     r"|\b(?:if|when|whenever|once) (?:i'?m |i am |i get )?asked\b"),
)
#: The user announcing how it will negotiate ("I won't take no for an answer", "I'll keep
#: pushing"): talk about its brief (:func:`recital_cues`), unless its scenario gives it that
#: stance (:func:`~userbench_env.fidelity.text.stance_note`): acting the stance one was given
#: and saying so is in character.
_STANCE_CUES: Gated = _gated(
    (("keep", "insist", "no for an answer", "not going", "not gonna", "i'm not", "im not"),
     r"\b(?:i'?m going to|i'?ll|i will|i'?m gonna) (?:keep (?:pushing|asking|insisting|at it)|insist)\b"
     r"|\bwon'?t take no for an answer\b|\bi'?m not (?:going to |gonna )?(?:give up|back down|budge)\b"),
)
#: The user voicing its persona: describing itself (age, skill with technology, temperament)
#: or how the agent is to deal with it (in a hurry, "please don't ..."). Talk about its brief
#: (:func:`recital_cues`), except where the rule finds one persona note alone nearly recited
#: (:class:`~userbench_env.fidelity.rules.recital.DumpsBlueprint`): voicing one's own persona is
#: in character ("please don't make this complicated, I'm not great with online stuff").
_MANNER_CUES: Gated = _gated(
    (("hurry", "rush", "time", "quick", "short", "brief", "please don", "please do not", "please never", "don't ", "dont "),
     r"\b(?:short on time|pressed for time|in a (?:hurry|rush))\b|\b(?:make|keep|keeping) (?:this|it) (?:quick|short|brief)\b"
     r"|\b(?:quick|short) version\b|\bplease (?:don'?t|do not|never)\b|\bdon'?t (?:even )?(?:try to|bother|offer)\b"),
    (("i'm", "im ", "i am", "i tend", "i get"),
     r"\bi'?m (?:a |an )?\d{2}(?:[- ]years?[- ]old\b|(?=,| and\b|\s*[.;!]|\s*$))"
     r"|\bi'?m (?:not|no|never been) (?:\w+ ){0,3}?(?:tech|techie|technical|tech[- ]savvy|whiz|wizard|expert|genius|"
     r"(?:good|great) with)\b|\bi'?m (?:bad|terrible|hopeless|useless|no good) with (?:tech|technology|computers|phones|these|this)\b"
     r"|\bi (?:tend to|get (?:flustered|anxious|nervous|impatient|confused|overwhelmed|stressed|muddled))\b"
     r"|\bi'?m the (?:type|kind|sort) (?:of|who)\b|\bi'?m (?:easily|naturally|a bit of a|kind of a) \w+"
     r"|\bi'?m (?:busy|swamped|(?:a bit |very |quite )?impatient)\b"),
)


def clause_start(text: str, start: int) -> int:
    """The index of the mark that opens the clause going on at ``start`` in ``text`` (a full
    stop, comma, colon, semicolon, "!", "?" or line break; -1: the text's start)."""
    return max(text.rfind(c, 0, start) for c in ".\n,:;!?")


#: The user's conditions on what the agent does and what it does then, a plan for the agent's
#: answers ("if they can't, I'll ...", "otherwise I'd ..."): talk about its brief, unless the
#: condition is its request's own. A condition opened by "only if" is a term of the request
#: (:data:`_TERM_CUES`), whatever follows it ("only if it costs under $100, and I don't want
#: a new ticket, just change the one I have").
_CONDITION_CUES: Gated = _gated(
    (("if ",),
     r"\bif\b(?<!\bonly if)[^.!?]{0,50}?\b(?:can'?t|cannot|won'?t|doesn'?t|don'?t|isn'?t|aren'?t|refus(?:es?|ing)|say no|den(?:y|ies|ying)|"
     r"fail(?:s|ing)?|not|no|comes? back|say(?:s|ing)?|insists?|tells? me|"
     # (a verb, not the noun: "if they offer it", not "if a few cards have offers like that", "such an
     # offer", "that kind of offer"; the lookahead spares the lookbehinds where no such word starts)
     r"(?=[fwro])(?<!\bhave )(?<!\bhas )(?<!\bany )(?<!\bsome )(?<!\bthe )(?<!\ban )(?<!\ba )(?<!\bof )"
     r"(?:fits?|works?|returns?|offers?))\b"
     r"[^.!?]{0,80}?"
     r"(?:\b(?:i'?ll|i will|i'?d|i would|then i|i'?m going to|i'?m gonna|i want|i need|i expect)\b|,\s*(?:then |just |please )?"
     r"(?!i\b)[a-z]+\s+(?:us|me|it|them|my|the)\b)|\bif not,? i'?(?:ll|d)\b"
     # ("I'm fine with it if ...", "that's ok if ...": a term; "ok if that's the number, whatever": a shrug)
     r"|\b(?:i'?m|im|i am|i'?d be|i would be|i'?ll be|i will be|that'?s|that is|it'?s|it is|would be|is) (?:\w+ )?"
     r"(?:fine|ok|okay|happy|good|acceptable) (?:with (?:\w+ ){1,3})?if\b"),
    (("otherwise", "failing that", "or else"),
     r"\b(?:otherwise|failing that|or else),? i'?(?:ll|d)\b"),
)
#: The terms the user sets on its own request: a budget or a limit, what it accepts and on
#: what terms ("only if it costs less than $100", "my budget is $200", "I won't accept a
#: credit"). Talk about its brief (:func:`recital_cues`), but what a customer stating its
#: request with its limits says too: alone, they make no recital sure
#: (:class:`~userbench_env.fidelity.rules.recital.DumpsBlueprint`).
_TERM_CUES: Gated = _gated(
    (("budget", "limit", "max", "ceiling", "bottom line", "deal", "negotiable", "must-have", "up to"),
     r"\bmy (?:budget|limit|max(?:imum)?|ceiling|bottom line)\b|\bdeal[- ]?breaker\b|\bnon-?negotiable\b|\bmust-have\b"
     r"|\b(?:i can|i could|i'?m (?:willing|happy|ok|okay|fine) to|i'?ll|i would|i'?d) (?:go|pay|spend|do) (?:\w+ )?up to\b"),
    (("only", "accept", "but", "as long as", "unless", "provided"),
     r"\bi'?ll only (?:accept|call|consider|take|be)\b"
     r"|\b(?:only if|as long as|unless|provided that)\b[^.!?]{0,60}?\b(?:you|it|they|the \w+|that|this|i)\b"
     r"|\bi (?:won'?t|will not|wouldn'?t) accept\b|\bi'?m (?:ok|okay|fine|happy|willing)\b[^.!?]{0,60}\bbut (?:i'?m )?not\b"),
)


@lru_cache(maxsize=_CACHE)
def recital_cues(text: str, conditions: bool = True, manner: bool = True, terms: bool = True, stance: bool = True) -> int:
    """How many times ``text`` talks about the user's own brief (:data:`_RECITAL_CUES`, each searched only when one of its gate words occurs), at
    most two: what tells a paraphrased recital of a scenario from a message that merely
    touches its words (announcing a plan and stating its fallback are two). ``conditions``:
    whether the user's conditions (:data:`_CONDITION_CUES`, and the terms of
    :data:`_TERM_CUES`) count; they do not where the condition stated is a condition of the
    request the user was told to open with. ``manner``: whether the user voicing its persona
    (:data:`_MANNER_CUES`) counts; it does not beside persona notes alone. ``terms``: whether
    the terms the user sets on its request (:data:`_TERM_CUES`) count. ``stance``: whether
    announcing how it will negotiate (:data:`_STANCE_CUES`) counts; it does not where the
    scenario gives the user that stance."""
    table = _RECITAL_CUES + (_STANCE_CUES if stance else ()) + (_MANNER_CUES if manner else ()) + (
        _CONDITION_CUES + (_TERM_CUES if terms else ()) if conditions else ())
    return sum(1 for _ in islice(_gated_matches(table, standard_spelling(text)), 2))


#: Introducing oneself by name ("I'm Breanna Lawson", "this is Raj Patel").
_SELF_NAMED = re.compile(r"\b(?:I'?m|I am|[Tt]his is|[Mm]y name is|[Nn]ame'?s)\s+[A-Z][a-z]+(?:\s+[A-Z][a-z'-]+)+")


def identity_items(text: str, identifiers: tuple[str, ...], answered: frozenset[str] = frozenset()) -> int:
    """How many identity items ``text`` states: its ``identifiers`` (lower-cased, as
    :func:`~userbench_env.fidelity.text.identifiers` reads them) that are emails, user ids
    or phone numbers, and a self-introduction by name; items of the ``answered`` kinds (what
    the agent asked for: ``email``, ``user_id``, ``phone_number``, ``name``) aside."""
    items = sum(1 for token in set(identifiers) if (kind := identity_kind(token)) is not None and kind not in answered)
    return items + ("name" not in answered and self_named(text))


def self_named(text: str) -> bool:
    """True when ``text`` introduces its writer by name (:data:`_SELF_NAMED`)."""
    return _SELF_NAMED.search(text.replace("\u2019", "'")) is not None


def identity_kind(token: str) -> str | None:
    """The identity item kind of an identifier: ``email``, ``user_id`` (snake case) or
    ``phone_number`` (ten digits or more); None for any other."""
    if "@" in token:
        return "email"
    if "_" in token:
        return "user_id"
    return "phone_number" if sum(c.isdigit() for c in token) >= 10 else None


#: A labelled value: an item's name, a linking word, the value up to the end of its clause.
#: An item's name and a linking word ("my zip code is", "user id:"); what follows is the value.
_LABEL = re.compile(
    r"\b(?P<label>user ?id|user ?name|username|login|account (?:id|number)|customer (?:id|number)|"
    r"order (?:number|id|no\.?|#)|reservation (?:number|id|code)|confirmation (?:number|code)|"
    r"booking (?:reference|number|code|id)|zip(?: ?code)?|postal code|post ?code|e-?mail(?: address)?|"
    r"(?:phone|cell|mobile)(?: number)?|date of birth|dob|birthday|birth ?date|"
    r"(?:home |street |shipping |mailing |billing )?address|(?:full |first |last )?name|"
    r"(?:error|case|reference|ref|ticket) (?:code|number|no\.?|#)|(?:credit|fico) score)"
    # (what holds the item may follow its name, before the linking word: "the zip code of my home address is 85018"
    # gives the zip code; a number right after the holder names the holder, "the address of my order #W8665881")
    r"(?:(?: of (?:my|the|our|your|this|that)(?: (?:home|work|old|new|current|shipping|billing|mailing|street|default))?"
    r" (?:address|account|profile|order|reservation|booking|card))?"
    r"(?:(?:'s| is| was| should be| would be| =|:| -| reads| on file is| on the account is| it's| is probably| is likely|"
    r" is actually| i think is| i believe is| would have been| might be)(?![\w]))+\s*"
    # (a word of exactness opens the value, not part of it: "the name reads exactly Mei Garcia")
    r"(?:(?:exactly|precisely|simply|just|literally)\s+)?[\"']?\s*|[^\S\n]*(?=[#\w-]*\d))"
)
#: Where a labelled value ends: punctuation, a dash ("user id is kim_d_67 — hope that helps"),
#: a sentence end, a colon before what follows ("80273: eight, zero, ..." reads it out), a
#: joining word, or an adverb of time or addition ("my name is Mei Garcia now", "order #W123 too").
_VALUE_END = re.compile(r"[\"',;!?\n\u2014\u2013]|\s-+\s|[.:](?:\s|$)|\s(?:and|but|if|so|or|because|though|for|in case|that|which|since|as|to|"
                        r"from|with|please|thanks|i think|i believe|now|already|again|too|also|instead|then)\b|$")
#: Where a name written with capitals ends: a later word in small letters ("Noah Muller po", "Ana Lima sir").
_AFTER_NAME = re.compile(r"\s+(?=[a-z][a-z']*\b)")
#: Marks that, right after an item's name and its linking word, end the clause before any value.
_NO_VALUE_AFTER = frozenset(",;!?")
#: Words one of which every :data:`_LABEL` match contains (lower-cased).
_LABEL_GATES = ("id", "name", "login", "account", "customer", "order", "reservation", "confirmation", "booking", "zip",
                "postal", "post", "mail", "phone", "cell", "mobile", "birth", "dob", "address", "score",
                *(f"{thing} {label}" for thing in ("error", "case", "reference", "ref", "ticket")
                  for label in ("code", "number", "no", "#")))
_LABEL_KINDS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p), k) for p, k in (
        (r"user ?id|user ?name|username|login|account|customer", "user_id"), (r"order", "order_id"),
        (r"reservation|confirmation|booking", "reservation_id"), (r"zip|postal|post ?code", "zip"), (r"mail", "email"),
        (r"phone|cell|mobile", "phone_number"), (r"birth|dob", "date"), (r"address", "address"), (r"name", "name"),
        (r"error|case|ref|ticket", "reference"), (r"score", "credit_score"),
    )
)
#: Values that are not values ("my email is the one on file", "my name is not important",
#: "the last name is corrected"), nor what is to become of the item ("how her name is supposed to
#: be spelled", "my address is going to change"), nor a judgement by degree ("the status name is
#: little pessimistic", "my email's kinda long"), nor
#: a state of the thing named ("my phone's on 5G", "phone is set to LTE", "mobile's off", "my phone's network
#: mode is 4G/5G"), nor a clause saying which place, time or thing it is ("the Springfield address is
#: where #W27 will ship", "my email is whichever you have"), nor a request about the item ("and the address:
#: confirm #W27 will be delivered to 1234 Elm St", "my user id, can you check it?").
_NOT_A_VALUE = re.compile(r"^(?:not|the same|same|unknown|on file|the one|in the|what|below|above|here|there|a |an |my |your |"
                          r"(?:please |kindly )?(?:confirm|check|verify|make sure|double-check|tell me|can you|could you|"
                          r"would you)\b|"
                          r"where|which|who|whom|whose|when|how|why|"
                          r"something|probably|correct|right|wrong|fine|ok|okay|different|changed|listed|attached|"
                          # (an answer's acknowledgement or a moment asked for before the value: "my user id - sure!
                          # it's ...", "my zip is, hold on")
                          r"sure|yes|yeah|yep|yup|of course|certainly|absolutely|no problem|hold on|one (?:moment|sec|second)|"
                          r"just a (?:moment|sec|second)|let me (?:check|see|find|look)|"
                          r"on|off|set|stuck|using|connected|showing|still|now|currently|network|signal|data|wi-?fi|sim|"
                          r"status|screen|mode|spelled|spelt|misspelled|misspelt|incorrect|mistyped|missing|outdated|"
                          r"supposed|meant|going|gonna|being|getting|to be|invalid|expired|corrected|fixed|updated|"
                          r"amended|modified|verified|confirmed|saved|stored|"
                          r"little|bit|very|too|so|quite|rather|pretty|really|kind of|kinda|sort of|somewhat|"
                          r"super|extremely|fairly|slightly|"
                          # (how much the item serves: "the user id should be enough")
                          r"enough|sufficient|plenty|needed|required|necessary|optional)\b(?![@.]\w)")
#: A judgement of the item anywhere in what follows its name: how it is written, not what it
#: is ("her last name is written wrong", "my email got typed in incorrectly").
_JUDGED = re.compile(r"\b(?:wrong|wrongly|incorrect|incorrectly|correctly|properly|misspel\w*|mistyped|messed|garbled)\b")


def _label_kind(label: str) -> str:
    low = label.lower()
    return next(kind for pattern, kind in _LABEL_KINDS if pattern.search(low))


def _value_shaped(kind: str, value: str) -> bool:
    """True when ``value`` can be a value of ``kind``: names and user ids (which a user may
    give as a name) are one to four words, none a function word; emails hold "@"; dates
    anything; other kinds (addresses included: a house number) a digit."""
    words = value.lower().split()
    if kind in ("name", "user_id") and (len(words) > 4 or any(w in STOPWORDS for w in words)):
        return False
    if kind == "name":
        return all(w.replace("-", "").replace("'", "").isalpha() for w in words)
    if kind == "email":
        return "@" in value
    if kind in ("date", "user_id"):
        return True
    return any(c.isdigit() for c in value)


@lru_cache(maxsize=_CACHE)
def labelled_values(text: str) -> tuple[tuple[str, str], ...]:
    """(kind, value) pairs ``text`` states with the item's name ("my zip is 19123", "user id:
    dmuller 1116", "order number ORD-88231"): kinds as in :data:`KIND_WORDS`, "reference"
    for a code something gave the user ("error code 51", "case number 4471-C"), and
    "credit_score" for the figure of one's credit ("my credit score is 742")."""
    out: list[tuple[str, str]] = []
    text = text.replace("\u2019", "'")
    low = text.lower()
    if len(low) != len(text):  # a letter whose lower case is longer: read the lower-cased text
        text = low
    if not any(gate in low for gate in _LABEL_GATES):
        return ()
    for m in _LABEL.finditer(low):  # patterns are lower case: searched without re.I, which is much slower
        if low[m.end():m.end() + 1] in _NO_VALUE_AFTER:
            continue  # a mark right after the name: "I'm not sure what my user id is, sorry" states none
        end = _VALUE_END.search(low, m.end() + 1)
        value = text[m.end():end.start() if end else len(text)].strip().rstrip(".")
        if _NOT_A_VALUE.match(low_value := value.lower()) or _JUDGED.search(low_value):
            continue
        kind = _label_kind(m.group("label"))
        if kind == "address" and "@" in value:  # "the new address is jb74@mail.test": an email address
            kind = "email"
        if kind == "email":
            value = value.split(" ", 1)[0]
        elif kind == "user_id" and "_" in (first := value.split(" ", 1)[0]) and not any(c.isdigit() for c in value[len(first):]):
            # a snake-case user id is one word: the words after it are talk ("noah_muller_9847 po"), unless they
            # carry its digits ("noah_muller 9847" is the id given in two words)
            value = first
        elif kind == "name" and value[:1].isupper() and (cut := _AFTER_NAME.search(value)) is not None:
            value = value[:cut.start()]  # a name written in capitals ends at a word in small letters ("Noah Muller po")
        elif kind not in ("name", "user_id", "address", "date") and (run := _ID_RUN.search(value)) is not None:
            # an identifier is its run, whatever words come around it ("order #W4400 should go" gives
            # "#W4400", "phone number's the 485-555-5496 I gave you" gives "485-555-5496")
            value = run.group(0)
        if value and len(value) <= 60 and _value_shaped(kind, value):
            out.append((kind, value))
    return tuple(out)


#: Number words: cardinals below twenty and the tens, and the ordinals of a month's days.
_UNITS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
                                      "fifteen sixteen seventeen eighteen nineteen".split())}
_TENS = {w: 10 * i for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), start=2)}
_ORDINALS = {w: i for i, w in enumerate("first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
                                         "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth".split(),
                                         start=1)} | {"twentieth": 20, "thirtieth": 30}
_NUMBER_WORD = "|".join(sorted([*_UNITS, *_TENS, "hundred", "thousand"], key=len, reverse=True))
_ORDINAL_WORD = "|".join(sorted(_ORDINALS, key=len, reverse=True))
_TENS_WORD = "|".join(_TENS)
#: A day written in words, as an ordinal ("third", "twenty-second"; a cardinal would read
#: "may one ask" as a date).
_DAY_WORDS = rf"(?:(?:{_TENS_WORD})[- ](?:{_ORDINAL_WORD})|{_ORDINAL_WORD})"
#: A sum written in words before its currency ("three hundred and eighty-six dollars"); at most
#: twelve words, so a scan is linear.
_SPOKEN_SUM = re.compile(rf"\b((?:{_NUMBER_WORD})(?:[- ](?:{_NUMBER_WORD}|and)){{0,11}}) (dollars|bucks)\b", re.I)


def spoken_number(words: str) -> int | None:
    """The whole number ``words`` writes ("three hundred and eighty-six" is 386, "twenty-second"
    is 22, "two thousand five hundred" is 2500); None when they write none."""
    total = current = 0
    seen = False
    for word in re.split(r"[- ]+", words.lower().strip()):
        if word == "and":
            continue
        if word in _UNITS or word in _ORDINALS:
            current += _UNITS.get(word, _ORDINALS.get(word, 0))
        elif word in _TENS:
            current += _TENS[word]
        elif word == "hundred":
            current = (current or 1) * 100
        elif word == "thousand":
            total, current = total + (current or 1) * 1000, 0
        else:
            return None
        seen = True
    return total + current if seen else None


def spoken_sums(text: str) -> str:
    """``text`` with each sum written in words before its currency written in digits ("two
    hundred and forty dollars" -> "240 dollars"): a sum said in words states it as digits do."""
    if "dollars" not in text and "bucks" not in text and "Dollars" not in text:
        return text  # (a cheap gate: a currency word in capitals alone is left as it is)
    return _SPOKEN_SUM.sub(lambda m: f"{spoken_number(m.group(1))} {m.group(2)}", text)


#: Digits read aloud one word at a time: three or more apart ("ending in four four two one"; "oh"
#: for a zero after the first; commas count items, "one, two, three", and are no separator; a
#: letter beside them spells a value with spaces, "d s p c one six six", which :func:`said_key`
#: reads), or among the characters of a value spelled with dashes ("d-s-p-nine-four-one",
#: "b-one-six-five").
_DIGIT_WORDS = "|".join(word for word in _DIGITS if word != "oh")
_SPOKEN_DIGITS = re.compile(rf"\b(?:{_DIGIT_WORDS})(?: (?:{_DIGIT_WORDS}|oh)){{2,}}+\b"
                            rf"|(?<![\w'-])(?:[a-z0-9]|{_DIGIT_WORDS})(?:-(?:[a-z0-9]|{_DIGIT_WORDS}|oh)){{2,}}(?![\w-])", re.I)
#: A lone letter beside a run of digit words ("a" and "I" only after or before another: "f a two",
#: not "ending in four four two one a week ago").
_LETTER_BEFORE = re.compile(r"(?:^|\W)(?:[b-hj-z]|[a-z] [ai]) $", re.I)
_LETTER_AFTER = re.compile(r" (?:[b-hj-z]|[ai] [a-z])\b", re.I)
#: Digit words one of which (in small letters) any run worth reading holds: "one" and "oh" alone
#: are too common in prose ("phone", "done") to gate on, and a run of them alone is rare.
_DIGIT_GATES = tuple(word for word in _DIGITS if word not in ("one", "oh"))


def spoken_digits(text: str) -> str:
    """``text`` with each digit read aloud in a number or a spelled value written as its digit
    ("four four two one" -> "4421", "b-one-six-five" -> "b-1-6-5", :data:`_SPOKEN_DIGITS`):
    it states that number (unlike :func:`said_key`, this reads no lone digit word in prose)."""
    if not any(map(text.__contains__, _DIGIT_GATES)):
        return text  # (a cheap gate: most texts hold no digit word)

    def write(match: re.Match[str]) -> str:
        run = match.group(0)
        if " " in run and (_LETTER_BEFORE.search(text, max(0, match.start() - 5), match.start())
                           or _LETTER_AFTER.match(text, match.end())):
            return run  # (a value spelled with spaces)
        return _DIGIT_WORD.sub(lambda m: _DIGITS[m.group(0).lower()], run).replace(" ", "")
    return _SPOKEN_DIGITS.sub(write, text)


#: A number written in digits and a word of its scale ("2 thousand 300", "1 thousand and 160", "3 hundred").
_SCALED = re.compile(r"(?<![\d.,])(\d{1,3}) (thousand|hundred)(?:(?: and)? (\d{1,3})(\.\d{1,2})?(?![\d.,]\d))?\b", re.I)


def scaled_numbers(text: str) -> str:
    """``text`` with each number written in digits and a word of its scale in digits ("2
    thousand 300" -> "2300", :data:`_SCALED`): it states that number."""
    if " thousand" not in text and " hundred" not in text:
        return text

    def write(match: re.Match[str]) -> str:
        scale = 1000 if match.group(2).lower() == "thousand" else 100
        return f"{int(match.group(1)) * scale + int(match.group(3) or 0)}{match.group(4) or ''}"
    return _SCALED.sub(write, text)


#: The units of a length of time, as written.
_UNIT_WORDS = r"minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?"
#: A count in digits or words ("5", "twenty-two").
_COUNT = rf"(?:\d+|(?:{_NUMBER_WORD})(?:-(?:{_NUMBER_WORD}))?)"
#: A length of time as a count of its units, or a range of counts ("delayed by 5 hours", "for
#: two weeks", "a 20-hour layover", "5-7 business days", "two or three days"); with what makes
#: it a time ahead or a window ("in two days", "inside 24 hours", "give me 5 minutes", "another
#: 10 minutes", "every 3 months", the time one has: "I've got maybe ten minutes"), one denied
#: ("within 3 days, not two weeks") or what a thing takes in general ("a block takes about ten
#: minutes", "a charge lasts two days"; what it took is a length gone). A measure of something
#: ("forty years of teaching", "twenty minutes of hold music") is none.
_DURATION = re.compile(rf"(?P<ahead>\b(?:in|within|inside|give me|gimme|wait|another|every|per|each|next|got|have|not|takes|lasts)\s+"
                       rf"(?:(?:maybe|about|around|like|only|just|roughly|up to)\s+)?)?"
                       rf"\b(?P<count>{_COUNT}(?:\s?(?:-|to|or)\s?{_COUNT})?)[- ]"
                       r"(?:(?:more|extra|whole|full|long|straight|business|working|calendar)\s)?"
                       rf"(?P<unit>{_UNIT_WORDS})\b(?! of\b)")
#: The units :data:`_DURATION` reads (a cheap gate before it).
_TIME_UNIT = re.compile(r"min|hour|hr|day|week|month|year")

#: Years in a century: a length of a hundred years or more ("watching over visitors for three hundred years",
#: "waited a hundred years") is history or hyperbole, no length a customer's request took.
CENTURY = 100


#: "like" as in a simile, not after a verb of seeming, being or lasting ("looks like a 3-hour delay",
#: "it's been like a good two hours", "took like a whole afternoon, 5 hours" speak of the user's own case).
_LIKE = (r"(?<!look )(?<!looks )(?<!looked )(?<!seem )(?<!seems )(?<!sound )(?<!sounds )(?<!feel )(?<!feels )"
         r"(?<!felt )(?<!been )(?<!was )(?<!is )(?<!'s )(?<!took )(?<!takes )(?<!lasted )(?<!waited )\blike")
#: What a comparison is made with, just before a length of time that describes it: "than" and
#: one to three words then "at" ("slower than a Bitcoin block at 10 minutes"), or a simile's
#: "like" and one to three words then a comma ("quick like ceviche, five minutes and ready").
_COMPARED = re.compile(rf"(?:\bthan(?:\s+[a-z'-]+){{1,3}}\s+at|{_LIKE}(?:\s+[a-z'-]+){{1,3}},)\s*$")


@lru_cache(maxsize=_CACHE)
def durations(text: str, ahead: bool = True) -> frozenset[str]:
    """The counts of the lengths of time ``text`` writes (:data:`_DURATION`; both ends of a
    range), two or more (one is as often an idiom: "one day I'll ..."), as digits ("four
    hours" gives "4"), but a century of years or more (:data:`CENTURY`); without ``ahead``,
    those of a time ahead or a window, denied, taken in general or of what the text compares
    with left out ("give me 5 minutes", "in two days", "inside 24 hours", "not two weeks", "a
    block takes ten minutes", "slower than a Bitcoin block at 10 minutes":
    :func:`_compared`): what the text states of a time gone or taken ("delayed 5 hours",
    "waited two weeks")."""
    low = _plain(text)
    if _TIME_UNIT.search(low) is None:
        return frozenset()
    counts = ((count, m.group("unit")) for m in _DURATION.finditer(low)
              if ahead or (m.group("ahead") is None and not _compared(low, m.start("count")))
              for count in _RANGE_JOIN.split(m.group("count")))
    return frozenset(str(n) for n, unit in ((int(c) if c.isdigit() else spoken_number(c), unit) for c, unit in counts)
                     if n is not None and n >= 2 and not (n >= CENTURY and unit.startswith("year")))


#: A length of time given only roughly ("the past few hours", "a couple of days", "several weeks"):
#: a couple is two or three of its units, a few or several two to five.
_ROUGH_LENGTH = re.compile(r"\b(?:(a couple(?: of)?|couple of)|(?:a )?few|several)\s+(?:more\s+)?"
                           rf"(?:{_UNIT_WORDS})\b")


@lru_cache(maxsize=_CACHE)
def rough_lengths(text: str) -> frozenset[str]:
    """The counts a user may put on the lengths of time ``text`` gives only roughly
    (:data:`_ROUGH_LENGTH`): told of "the past few hours", "three, maybe four hours" says the same."""
    low = _plain(text)
    if "few" not in low and "couple" not in low and "several" not in low:
        return frozenset()  # (a cheap gate: every match holds one of these words)
    counts: set[str] = set()
    for m in _ROUGH_LENGTH.finditer(low):
        counts.update(map(str, range(2, 4 if m.group(1) else 6)))
    return frozenset(counts)


def _compared(text: str, start: int) -> bool:
    """True when the length of time whose count is at ``start`` of ``text`` describes what the
    text compares with (:data:`_COMPARED`, in the 40 characters before it)."""
    return _COMPARED.search(text, max(0, start - 40), start) is not None


#: What joins the two counts of a range ("5-7", "two or three").
_RANGE_JOIN = re.compile(r"\s?(?:(?<=\d)-(?=\d)|\bto\b|\bor\b)\s?")


_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
#: What every month's name and short form starts with: a text without any names no month.
_MONTH_GATE = re.compile(r"jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec")
#: Dates in digits, each with what any match of it holds ("-", "/", or a month: :data:`_MONTH_GATE`),
#: a cheap test that spares the pattern's search.
_DATES = (
    (re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b"), "ymd", "-"),
    (re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{2,4})\b"), "mdy", "/"),
    (re.compile(rf"\b({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b"), "md", "month"),
    (re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH})\b"), "dm", "month"),
    # a month and day in two digits each ("05-21", "12/03"; read both ways), not a range of a measure
    # ("10-15 minutes", "$10-15", "a 10-15 dollar difference": the unit singular before its noun), nor a
    # score out of ten at or past full marks ("10/10 no notes", "11/10")
    (re.compile(r"(?<![\d/$.,-])(?!1[0-2]/10(?!\d))((?:0[1-9]|1[0-2])[-/]\d\d)"
                r"(?![\d/-]|[.,]\d|\s*(?:%|percent|min|mins|minutes?|hours?|hrs?|"
                r"days?|weeks?|months?|years?|gb|mb|dollars?|bucks?|usd|euros?|pounds?|cents?|items?|bags?|pieces?|people|"
                r"times)\b)"), "m/d", "-/"),
)
#: Dates with the day written in words ("the twenty-second of May", "June third"); "may"
#: before a day word is the verb ("if I may first ask").
_WORD_DATES = (
    (re.compile(rf"\b(?!may\b)({_MONTH})\s+(?:the\s+)?({_DAY_WORDS})\b"), "md", "month"),
    (re.compile(rf"\b({_DAY_WORDS})\s+(?:of\s+)?({_MONTH})\b"), "dm", "month"),
)


@lru_cache(maxsize=_CACHE)
def dates(text: str) -> frozenset[tuple[int, int]]:
    """The (month, day) pairs of the calendar dates ``text`` writes ("2024-05-20", "05/20/2024",
    "May 20th", "20 May", "the twenty-second of May", "05-20"); a numeric d/m/y or d/m date is read both ways. With the month named, a
    day past 31 is still a (wrong) date ("May 32" for May 23); a numeric date keeps only
    valid readings."""
    out: set[tuple[int, int]] = set()
    named: set[tuple[int, int]] = set()
    digits = _DIGIT.search(text) is not None
    if not digits and _ORDINAL_GATE.search(text) is None:
        return frozenset()
    text = _ISO_TIME.sub(r"\1 \2", text).lower()  # the patterns are lower case (re.I is much slower)
    month = _MONTH_GATE.search(text) is not None
    for pattern, order, holds in (*_DATES, *_WORD_DATES) if digits else _WORD_DATES:
        if not (month if holds == "month" else any(mark in text for mark in holds)):
            continue
        for m in pattern.finditer(text):
            a, b = m.group(1), m.group(2) if (m.lastindex or 1) >= 2 else ""
            if order == "ymd":
                out.add((int(b), int(m.group(3))))
            elif order == "mdy":
                out |= {(int(a), int(b)), (int(b), int(a))}
            elif order == "m/d":
                first, second = re.split(r"[-/]", a)
                out |= {(int(first), int(second)), (int(second), int(first))}
            elif order == "md":
                named.add((_MONTHS[a.lower()], _day(b)))
            else:
                named.add((_MONTHS[b.lower()], _day(a)))
    return frozenset({(mo, d) for mo, d in out if 1 <= mo <= 12 and 1 <= d <= 31} | {(mo, d) for mo, d in named if d >= 1})


def _day(day: str) -> int:
    """A day of the month written in digits or in words."""
    return int(day) if day.isdigit() else spoken_number(day) or 0


#: What every day written in words ends with: a gate before reading dates without digits.
_ORDINAL_GATE = re.compile(r"(?:first|second|third|th)\b", re.I)
_ISO_TIME = re.compile(r"(\d)T(\d)")
_TIME = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\b\.?|\b(\d{1,2})[:h](\d{2})\b")
_DIGIT = re.compile(r"\d")


@lru_cache(maxsize=_CACHE)
def clock_times(text: str) -> frozenset[int]:
    """The clock times ``text`` writes ("3pm", "3:45 p.m.", "15:45", "15h45"), as minutes after midnight."""
    out: set[int] = set()
    if _DIGIT.search(text) is None:
        return frozenset()
    for m in _TIME.finditer(_ISO_TIME.sub(r"\1 \2", text).lower()):
        if m.group(3):
            hour, minute = int(m.group(1)) % 12 + (12 if m.group(3).lower() == "p" else 0), int(m.group(2) or 0)
        else:
            hour, minute = int(m.group(4)), int(m.group(5))
        if hour < 24 and minute < 60:
            out.add(hour * 60 + minute)
    return frozenset(out)


#: A run of alphanumeric chunks, each holding a digit or being 1-4 capital letters, joined by
#: single spaces or dashes ("W 552 1876", "5521-0087-AB", "K7 PX 2M", "#W2378156").
_NOT_ID = r"(?!(?:USD|EUR|GB|MB|KB|AM|PM|ID|NO|NUM|REF)\b)"
_ID_RUN = re.compile(
    rf"(?<![\w$.,/:])#?\s?(?:{_NOT_ID}[A-Z]{{1,4}}[ -]?)?[A-Za-z]*\d[A-Za-z\d]*"
    rf"(?:[ -][A-Za-z]*\d[A-Za-z\d]*|[ -]{_NOT_ID}[A-Z]{{2,4}}\b(?![ -]?[a-z])|-{_NOT_ID}[A-Z]{{1,4}}\b)*"
    r"(?![\w/:]|\.\d|,\d|\s*(?:%|gb|mb|kb|gig|mbps|dollars?|usd|bucks|items?|bags?|minutes?|hours?|"
    r"days?|weeks?|months?|years?|am|pm|a\.m|p\.m)\b)")


#: Digit groups in parentheses or dotted ("(555) 282", "555.282"): rewritten with a dash.
_DIGIT_GROUPS = re.compile(r"\((\d{2,4})\)\s?|(?<=\d)\.(?=\d{3})")


#: A date written month, day, year without a comma ("May 28 2024"): its day and year are no id run.
_MONTH_DAY_YEAR = re.compile(rf"\b((?:{_MONTH})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?)\s+((?:19|20)\d\d)\b", re.I)


@lru_cache(maxsize=_CACHE)
def id_run_parts(text: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Per id-like run of ``text`` (see :func:`id_runs`), its :func:`id_key` form and those of
    its parts as written apart ("HAT039 ATL" is "hat039atl" of "hat039" and "atl")."""
    out: list[tuple[str, tuple[str, ...]]] = []
    if _DIGIT.search(text) is None:
        return ()
    text = _MONTH_DAY_YEAR.sub(r"\1, \2", text)
    for m in _ID_RUN.finditer(_DIGIT_GROUPS.sub(lambda g: f"{g.group(1) or ''}-", text)):
        written = m.group(0).strip()
        if _ISO_DATE.fullmatch(written) or dates(written):
            continue  # a date written year first ("1975-07-16") or a month and day ("05-21"): read by :func:`dates`
        if _H_TIME.fullmatch(written):
            continue  # a time written with an "h" ("15h00", "8h30"): read by :func:`clock_times`
        parts = re.split(r"[ -]+", written.lstrip("#"))
        if all(_UNIT_MEASURE.fullmatch(part) for part in parts):
            continue  # measures side by side ("8GB 1TB SSD"): a specification, not an identifier
        key = id_key(written)
        digits = sum(c.isdigit() for c in key)
        if (digits >= 4 or (digits >= 2 and len(key) >= 5)) and not _YEAR.fullmatch(key):
            out.append((key, tuple(id_key(part) for part in parts)))
    return tuple(out)


def id_runs(text: str) -> tuple[str, ...]:
    """The :func:`id_key` forms of the id-like runs in ``text`` (see :data:`_ID_RUN`) with at
    least four digits, or two digits and five characters: what an identifier of any shape
    looks like; amounts, quantities with units (measures side by side too: "8GB 1TB"), dates
    (a day and its year too: "May 28 2024"; a month and day, "05-21"), times and years are not runs."""
    return tuple(key for key, _ in id_run_parts(text))


_YEAR = re.compile(r"(?:19|20)\d\d")
#: A number with its unit run together ("8GB", "1TB", "5000mAh", "2.4GHz", "15in").
_UNIT_MEASURE = re.compile(r"\d+(?:\.\d+)?(?:[kmgt]b|[kmg]?hz|mah|ml|oz|kg|lbs?|mm|cm|ft|in|mp|[glmwvk])", re.I)
_ISO_DATE = re.compile(r"(?:19|20)\d\d-\d{1,2}-\d{1,2}")
#: A clock time written with an "h" between hours and minutes, as French and many other languages write it.
_H_TIME = re.compile(r"(?:[01]?\d|2[0-3])h[0-5]\d", re.I)
#: (A year joined by a hyphen to a word is a compound's modifier, "a 2007-flip-phone vibe", and one
#: a thing is likened to is a figure of speech, "feels like 2004 in here": no year stated.)
_YEARS = re.compile(r"(?<![\d.,$])(?<!like )(?<!like it's )(?<!like its )(?<!like it is )(?:19|20)\d\d(?![\d,]|\.\d|-[a-z])", re.I)


@lru_cache(maxsize=_CACHE)
def years(text: str) -> frozenset[str]:
    """The years (1900-2099) ``text`` writes as words of their own ("1975", "05/11/1996")."""
    return frozenset(_YEARS.findall(text))


#: (A bare run of digits and commas is read from its first digit only: linear in the run.)
_MONEY = re.compile(r"(?:\$|\busd|\beur|\u20ac|\xa3)\s?(\d[\d,]*)(?:\.(\d{1,2}))?(k\b)?"
                    r"|(?<![\d,])(\d[\d,]*)(?:\.(\d{1,2}))?(k)?\s?(?:dollars?|usd|bucks|quid|euros?|eur)\b")


#: A sum named as what was paid or charged, without a currency ("I paid 412 for this", "they
#: charged me 89.99.", "paid near 400 for that ticket"): the number ends the clause or a
#: function word follows it. (A number before a noun counts things or time: "paid 2
#: invoices", "paid 3 days ago".)
_PAID_SUM = re.compile(r"\b(?:paid|pay|charged|cost|costs|spent|refunded)(?: me| us)?"
                       r"(?: (?:about|around|like|only|just|almost|nearly|near|close to|over|under|roughly|maybe))?"
                       r" (\d[\d,]*)(?:\.\d{1,2})?"
                       r"(?=\s*(?:[.,;:!?)](?!\d)|$)|\s(?:for|on|to|in|and|but|at|so|when|then|now|already|total|altogether"
                       r"|each|last|this|that|with|by|plus|or|not|though|tho)\b)")
#: The same sum named before the paying ("under the 259.99 I paid", "the 80 we spent on it"): two digits at least
#: (a count, "the 2 I paid for", is too short to be read as money).
_SUM_PAID = re.compile(r"(?<![\d,.$])(\d{2,}(?:,\d{3})*)(?:\.\d{1,2})? (?:that |which )?(?:i|we) (?:paid|spent)\b")
#: A bare sum's whole dollars, two digits at least, from where its run of digits starts (so a scan is linear).
_DOLLARS = r"(?<![\w$.,:/#-])(\d{1,3}(?:,\d{3})+|\d{2,})"
#: A sum written with its cents and no currency ("I thought it would be 4112.50", "the 45.99 back", "my receipt
#: said 249.99", "1,046.20 for the five items"): two digits of dollars at least, no unit after the cents (see
#: :func:`_sums_with_cents` for the clock times and dates that share its shape).
_SUM_WITH_CENTS = re.compile(_DOLLARS + r"\.(\d{2})(?!\d|\.\d|,\d)"
                             r"(?!\s*(?:%|percent|gb|mb|kb|gigs?|megs?|mbps|gbps|hours?|hrs?|minutes?|mins?|days?|miles?|km|kg|"
                             r"lbs?|am|pm|a\.m|p\.m|h|stars?|ghz|mhz|mp|x)\b)")


#: A sum of two digits at least named by what it is to the account, without a currency ("the 480 extra on my
#: card", "extra is 850 total then", "the 389 back"): no unit or thing counted after it ("20 extra minutes").
_SUM_NAMED = re.compile(_DOLLARS + r"(?:\.\d{2})?\s+(?:extra|back|total|refund(?:ed)?|credit(?:ed)?)\b"
                        r"(?!\s+(?:gb|mb|gigs?|megs?|hours?|minutes?|mins?|days?|weeks?|months?|years?|miles?|points?|items?|"
                        r"pieces?|bags?|seats?|passengers?|nights?|texts?|messages?|calls?)\b)")


def _sums_with_cents(low: str) -> set[tuple[int, str]]:
    """Where ``low`` (lower-cased) writes a :data:`_SUM_WITH_CENTS`, with its whole-dollar digits;
    not one that may be a clock time or a day and month ("at 10.30", "on 17.05"): dollars and
    cents within an hour's and a minute's range, or a day's and a month's."""
    found = set()
    for m in _SUM_WITH_CENTS.finditer(low):
        dollars, cents = int(m.group(1).replace(",", "")), int(m.group(2))
        if not ((dollars <= 23 and cents <= 59) or (dollars <= 31 and 1 <= cents <= 12)):
            found.add((m.start(1), str(dollars)))
    return found


@lru_cache(maxsize=_CACHE)
def amounts(text: str) -> frozenset[str]:
    """The money amounts ``text`` writes ("$349", "about 200 dollars", "50 dollar", "340 quid", "$1,000.50", "$250k",
    "I paid 412 for it", "the 259.99 I paid", "I thought it would be 4112.50", "the 480 extra on my card", "120
    euros", "USD 1150": :data:`_PAID_SUM`, :data:`_SUM_PAID`, :data:`_SUM_NAMED`, :data:`_SUM_WITH_CENTS`), as their
    whole-dollar digits ("349", "200", "1000", "250000", "412", "4112")."""
    return frozenset(value for _, value in _amounts_in_order(text))


def _amounts_in_order(text: str) -> list[tuple[int, str]]:
    """Each money amount of :func:`amounts` with where ``text`` writes it, in order."""
    if _DIGIT.search(text) is None:
        return []
    low = text.lower()
    money = {(m.start(), (m.group(1) or m.group(4)).replace(",", "") + ("000" if m.group(3) or m.group(6) else ""))
             for m in _MONEY.finditer(low)}
    bare = {(m.start(1), m.group(1).replace(",", ""))
            for m in (*_PAID_SUM.finditer(low), *_SUM_PAID.finditer(low), *_SUM_NAMED.finditer(low))}
    return sorted(money | bare | _sums_with_cents(low))


#: An amount said to be about so much ("almost 2000 dollars", "about $1,900", "roughly 300 bucks").
_HEDGED = re.compile(r"\b(?:almost|about|around|nearly|roughly|approximately|close to|just (?:under|over)|some|like)"
                     r"\s+\$?\s?(\d[\d,]*)(?![\d.,]\d)")


def hedged_amounts(text: str) -> frozenset[str]:
    """The money amounts (:func:`amounts`) ``text`` says are about so much (:data:`_HEDGED`), as
    their whole-dollar digits: a round figure standing for a nearby one."""
    return frozenset(m.group(1).replace(",", "") for m in _HEDGED.finditer(text.lower())) & amounts(text)


def small_sums(text: str) -> frozenset[str]:
    """The money amounts under ten dollars ``text`` writes with cents ("$4.20", "3.12 dollars"), as
    written ("4.20"): a single digit of dollars is heard almost anywhere (a count, an item of a
    list), so such an amount is known by its cents."""
    if "." not in text or _DIGIT.search(text) is None:
        return frozenset()
    return frozenset(f"{dollars}.{cents}" for m in _MONEY.finditer(text.lower())
                     for dollars, cents in ((m.group(1) or m.group(4), m.group(2) or m.group(5)),)
                     if cents and len(dollars) == 1 and cents.strip("0"))


#: Words saying an amount is the total of others ("that is $2,299", "$105 altogether", "I did the sums:
#: $2,299 expected").
_TOTAL_WORDS = re.compile(r"\b(?:total|totals|altogether|in all|all up|sums?|summed|comes? to|adds? up|added up|combined|"
                          r"that is|that'?s|which makes|makes)\b")
#: Words saying an amount is the difference of two ("$214 under", "a shortfall of $769", "$40 left",
#: "above $300, only by $2.67", "some $769 missing").
_DIFFERENCE_WORDS = re.compile(r"\b(?:under|over|above|below|short|shortfall|difference|left|remaining|leaves|less|more|"
                               r"saving|saves?|cheaper|higher|lower|exceeds?|exceeded|minus|gap|missing|owed)\b")
#: The end of a sentence (not a decimal point).
_SENTENCE_END = re.compile(r"(?<!\d)[.!?](?!\d)|\n")


#: How many of the amounts a message writes before one it may be worked out from (the last
#: ones): the work stays linear in the message's length.
WORKED_WINDOW = 12


@lru_cache(maxsize=_CACHE)
def worked_amounts(text: str) -> frozenset[str]:
    """The money amounts ``text`` works out from amounts it writes (the last
    :data:`WORKED_WINDOW` before them), each in a sentence that says which: the sum of a run of
    consecutive ones (:data:`_TOTAL_WORDS`: "$583, $554, $1,050 and $112 ... that is $2,299
    expected") or the difference of two (:data:`_DIFFERENCE_WORDS`: "$1,786 on my Mastercard,
    under $2,000, $214 under"; the second of the two may follow it in its sentence, among the
    next :data:`WORKED_WINDOW`, after such a word: "$302.67 is $2.67 over $300", and there it may
    be a number written without its currency: "26 dollars and 11 cents above my limit of 200"),
    to the dollar (each amount's cents dropped). A user doing the arithmetic of what it heard
    states nothing new."""
    found = _amounts_in_order(text)
    if len(found) < 2:
        return frozenset()
    low = text.lower()
    ends = [m.start() for m in _SENTENCE_END.finditer(low)]
    sentences = [bisect_left(ends, start) for start, _ in found]  # the sentence each amount is in
    values = [int(value) for _, value in found]
    says: dict[int, tuple[bool, bool]] = {}  # per sentence: (it names a total, it names a difference)
    worked: set[str] = set()
    differences: list[int] | None = None  # where the words of differences are, found when first needed
    for i, ((_, value), n) in enumerate(zip(found, sentences)):
        if n not in says:
            sentence = low[ends[n - 1] + 1 if n else 0:ends[n] if n < len(ends) else len(low)]
            says[n] = (_TOTAL_WORDS.search(sentence) is not None, _DIFFERENCE_WORDS.search(sentence) is not None)
        total, difference = says[n]
        recent = values[max(0, i - WORKED_WINDOW):i]
        if total and _is_total(values[i], recent):
            worked.add(value)
        elif difference:
            # a later term counts when a word of differences comes between ("$2.67 over $300")
            if differences is None:
                differences = [m.start() for m in _DIFFERENCE_WORDS.finditer(low)]
            k = bisect_left(differences, found[i][0])
            word = differences[k] if k < len(differences) else len(low)
            end = ends[n] if n < len(ends) else len(low)
            later = [int(m.group().replace(",", "")) for m in islice(_NUMBER.finditer(low, word, end), WORKED_WINDOW)]
            if _is_difference(values[i], recent, later):
                worked.add(value)
    return frozenset(worked)


def _is_total(amount: int, values: list[int]) -> bool:
    """True when ``amount`` is the sum of a run of two or more consecutive ``values``, to the
    dollar (each term's cents dropped: off by less than one dollar a term)."""
    return any(abs(sum(values[i:j]) - amount) < j - i for i in range(len(values)) for j in range(i + 2, len(values) + 1))


def _is_difference(amount: int, values: list[int], later: list[int]) -> bool:
    """True when ``amount`` is the difference of two of ``values``, or of one of them and one
    of ``later`` (written after it), to the dollar."""
    return any(abs(abs(a - b) - amount) <= 1 for n, a in enumerate(values) for b in (*values[n + 1:], *later))


_THOUSANDS = re.compile(r"\b(\d{1,3})\s?(?:k|grand|thousand)\b|\b(\d{1,3}(?:,\d{3})+)\b")


@lru_cache(maxsize=_CACHE)
def large_amounts(text: str) -> frozenset[str]:
    """The money :func:`amounts` of ``text`` and the amounts it writes in thousands or with
    thousands separators without a currency ("95k", "95 grand", "95,000"), as whole-dollar digits."""
    if _DIGIT.search(text) is None:
        return frozenset()
    low = text.lower()
    return amounts(text) | frozenset(m.group(1) + "000" if m.group(1) else m.group(2).replace(",", "")
                                     for m in _THOUSANDS.finditer(low))


_NUMBER = re.compile(r"\d[\d,]*")


@lru_cache(maxsize=_CACHE)
def numbers(text: str) -> frozenset[str]:
    """Every whole number ``text`` writes (commas dropped; "349.99" gives "349" and "99")."""
    return frozenset(m.group(0).replace(",", "") for m in _NUMBER.finditer(text))


#: A day of the month without a month ("on the 3rd"); not an ordinal counting things, an item of
#: a list, an occurrence or a length of time ("the 3rd one", "the 2nd reservation", "the 1st of them",
#: "the 4th time", "the 8th request", "the 2nd attempt", "the 3rd week"), nor the thing an action
#: on one's items takes ("3 reservations. Cancel 2 of them ... Upgrade the 3rd, M20IZO": its group 1).
_DAY_ONLY = re.compile(r"(?:\b(cancel|upgrade|downgrade|modify|keep|remove|return|exchange|refund) )?"
                       r"\bthe (\d{1,2})(?:st|nd|rd|th)\b(?! (?:of (?:them|those|these)|(?:one|time|reservation|booking|order|item"
                       r"|flight|trip|bag|passenger|card|option|request|attempt|try|call|message|transfer|round|charge|payment"
                       r"|transaction|minute|hour|day|week|month|year)s?|tries)\b)")


@lru_cache(maxsize=_CACHE)
def month_days(text: str) -> frozenset[int]:
    """The days of the month ``text`` names without a month ("on the 3rd")."""
    if _DIGIT.search(text) is None:
        return frozenset()
    return frozenset(int(d) for acted, d in _DAY_ONLY.findall(text.lower()) if not acted and 1 <= int(d) <= 31)


#: Words no street is named with: a number before them and a street word is talk ("302 thats
#: way more than I thought", "2 hours by the way"), not an address.
_NOT_A_STREET_NAME = (r"(?!(?:the|a|an|that|thats|this|it|its|is|was|are|were|be|i|im|my|your|you|we|of|to|in|on|for|"
                      r"and|or|but|so|with|by|at|from|than|more|less|way|too|just|like|whats)\b)")
_STREET = re.compile(
    rf"\b(\d{{1,6}})\s+((?:{_NOT_A_STREET_NAME}(?:[a-z]+|\d{{1,3}}(?:st|nd|rd|th))\s+){{1,3}}?)"
    r"(?:street|st|avenue|ave|road|rd|lane|ln|drive|dr|boulevard|blvd|court|ct|way|"
    r"place|pl|terrace|circle|parkway|pkwy|highway|hwy)\b")


@lru_cache(maxsize=_CACHE)
def street_addresses(text: str) -> tuple[str, ...]:
    """The street addresses ``text`` writes, each as its :func:`id_key` of house number and
    street name ("123 Main Street" and "123 main st." both read ``123main``; numbered
    streets too: "220 West 57th Street" reads ``220west57th``)."""
    if _DIGIT.search(text) is None:
        return ()
    return tuple(id_key(m.group(1) + m.group(2)) for m in _STREET.finditer(text.lower()))


def clear_caches() -> None:
    """Empty the memoized readings."""
    for cached in (content_stems, id_key, said_key, clauses, mentioned_kinds, owned_kinds, denial_clauses, question_clauses,
                   speaks_as_agent, recital_cues,
                   labelled_values, dates, clock_times, street_addresses, id_run_parts, amounts, large_amounts, numbers,
                   month_days, years):
        cached.cache_clear()
