"""Groundedness, ``invents_unknown_information``: an identifier or fact nothing the user heard
holds (:class:`InventedInformation`, what the user heard: :class:`Heard`).
"""
from __future__ import annotations

import re

from datetime import date, timedelta
from functools import lru_cache
from typing import NamedTuple

from userbench_env.core.rubric import Criterion
from userbench_env.fidelity.language import (
    amounts,
    clock_times,
    dates,
    durations,
    hedged_amounts,
    id_key,
    id_run_parts,
    id_runs,
    KIND_ALIASES,
    labelled_values,
    month_days,
    numbers,
    rough_lengths,
    scaled_numbers,
    small_sums,
    SENTENCE_PART,
    spoken_digits,
    spoken_sums,
    stated_part,
    street_addresses,
    worked_amounts,
    years,
)
from userbench_env.fidelity.text import identifiers
from userbench_env.fidelity.rules.base import register_rule, Rule


_LETTERS_DIGITS = re.compile(r"([a-z]{2,4})(\d+)")


_DIGIT = re.compile(r"\d")


def _digits(key: str) -> str:
    """The digits of ``key``, in order."""
    return "".join(_DIGIT.findall(key))


#: A clock time with its zone run together as an id-like run ("11amest" of "11am EST"): a time, not an identifier.
_CLOCK_RUN = re.compile(r"\d{1,2}(?:\d{2})?[ap]m[a-z]{0,4}")


#: Speaking of a day next to another ("the next day", "the day after", "back by one day").
_ADJACENT_DAY = re.compile(r"\b(?:next|following|previous|prior) day\b|\bday (?:after|before)\b|\bby (?:one|1|a) day\b"
                           r"|\b(?:one|1|a) day (?:later|earlier|after|before)\b", re.I)


#: Speaking of a price per item ("$50 each", "per bag", "apiece").
_PER_ITEM = re.compile(r"\b(?:each|apiece|a piece|per \w+)\b", re.I)

#: The most items an even share of a heard amount is read over ("$100 for the two bags": "$50 each").
SHARES = 9


#: An all-capital word of five letters or more: a code when it answers a request.
_CODE = re.compile(r"(?<!#)\b[A-Z]{5,}\b(?!#)")
#: Words naming an item a code can be.
_CODE_ITEM = re.compile(r"\b(?:reservation|booking|confirmation|code|order|item|id|number|ref(?:erence)?)\b", re.I)


def answer_codes(text: str) -> tuple[str, ...]:
    """The all-capital codes of ``text`` (:data:`_CODE`, lower-cased) given as an answer: in a
    sentence of four words at most ("It's WOBBKF.") or one naming an item a code can be
    ("the booking is WOBBKF"); a capitalized word in longer prose is emphasis ("give me the
    total cost FIRST, before you touch anything")."""
    if _CODE.search(text) is None:
        return ()
    return tuple(code.lower() for sentence in SENTENCE_PART.findall(text) if (codes := _CODE.findall(sentence))
                 and (len(sentence.split()) <= 4 or _CODE_ITEM.search(sentence)) for code in codes)


@lru_cache(maxsize=256)
def heard_keys(text: str) -> frozenset[str]:
    """The :func:`~userbench_env.fidelity.language.id_key` forms of the identifiers, id-like
    runs and words of ``text``: what a stated identifier must equal to have been heard
    (a part of a heard id is not that id, except a whole part with a digit between its
    separators: a user reading back the "7340" of raj_sanchez_7340, or the "barnes462" of
    james.barnes462@example.org, states nothing new, nor the digits of
    an id or such a part after its letters, "3-2-6-3-2-9-0-3" of "#W32632903", "2723" of
    mia.garcia2723@example.com; nor is the number of a measure written with its unit: "1000 ml"
    of "1000ml")."""
    ids = identifiers(text)
    numbers_in_ids = [id_key(part) for t in ids for part in _ID_SEPARATOR.split(t) if _DIGIT.search(part) is not None]
    runs = id_runs(text)
    digits_of_ids = (m.group(1) for key in (*numbers_in_ids, *runs) if (m := _LETTERED_DIGITS.fullmatch(key)) is not None)
    measures = (m.group(1) for m in _MEASURE.finditer(text.lower()))
    return frozenset({*(id_key(t) for t in ids), *numbers_in_ids, *digits_of_ids, *measures, *runs,
                      *(id_key(w) for w in text.split())} - {""})


#: An identifier's key, or a key of its part, of letters then digits ("w32632903", "garcia2723"), the digits apart.
_LETTERED_DIGITS = re.compile(r"[a-z]+(\d{4,})")


#: A number with its unit run together ("1000ml", "64GB", "5000mAh", "2L").
_MEASURE = re.compile(r"\b(\d+)(?:ml|l|oz|gb|tb|mb|kg|g|lbs?|mm|cm|m|ft|in|w|mah|hz|v|mp)\b")


#: What separates the parts of an identifier (raj_sanchez_7340, 555-813-1847).
_ID_SEPARATOR = re.compile(r"[_\-.@]")


class Statement(NamedTuple):
    """What :class:`InventedInformation` reads in one user text (each field as the named
    reading gives it; the digit-bound readings are empty when the text has no digit)."""

    identifiers: tuple[str, ...]
    labelled: tuple[tuple[str, str], ...]
    #: Each id-like run's key and its parts' keys (:func:`~userbench_env.fidelity.language.id_run_parts`).
    runs: tuple[tuple[str, tuple[str, ...]], ...]
    dates: frozenset[tuple[int, int]]
    days: frozenset[int]
    money: frozenset[str]
    times: frozenset[int]
    streets: tuple[str, ...]
    codes: tuple[str, ...]
    #: The text speaks of a day next to another ("the next day"): a date a day from a heard one is implied.
    adjacent: bool
    #: The text speaks of a price per item ("each", "per bag"): an even share of a heard amount is implied.
    per_item: bool
    #: The text states an id-like run, a date, a day, an amount, a year, a clock time or a street address.
    numeric: bool
    #: The counts of the lengths of time gone or taken the text states (:func:`~userbench_env.fidelity.language.durations`),
    #: beyond its questions and requests ("delayed by 5 hours"; not "can it arrive in 3 days?").
    lengths: frozenset[str]
    #: The amounts the text works out from amounts it writes before them (:func:`~userbench_env.fidelity.language.worked_amounts`:
    #: "$1,786 ... under $2,000, $214 under"): implied by them.
    worked: frozenset[str] = frozenset()
    #: The amounts under ten dollars it writes with cents (:func:`~userbench_env.fidelity.language.small_sums`: "4.20").
    small: frozenset[str] = frozenset()
    #: The amounts it says are about so much (:func:`~userbench_env.fidelity.language.hedged_amounts`: "almost $2,000").
    hedged: frozenset[str] = frozenset()


_NO_NUMBERS = ((), frozenset(), frozenset(), frozenset(), frozenset(), ())


#: An email address read aloud ("dustin dot middleton133 at example dot org"): a name of parts
#: joined by spoken separators (or one part with a digit: never a plain word, "look at x dot
#: com"), its closing digits perhaps said apart ("mia dot garcia 2723"), "at", a domain of
#: spoken-dot parts ending in a top-level word.
_SPOKEN_SEPARATOR = {"dot": ".", "underscore": "_", "dash": "-", "hyphen": "-"}
_SPOKEN_JOIN = re.compile(rf" (?:{'|'.join(_SPOKEN_SEPARATOR)}) ", re.I)
_SPOKEN_NAME = rf"[a-z0-9]+(?:{_SPOKEN_JOIN.pattern}[a-z0-9]+)"
_SPOKEN_PART = rf"(?:{_SPOKEN_NAME}*(?: \d+)|{_SPOKEN_NAME}+|[a-z]*\d[a-z0-9]*)"
_SPOKEN_EMAIL = re.compile(rf"\b({_SPOKEN_PART}) at ([a-z0-9]+(?: dot [a-z0-9]+)* dot [a-z]{{2,4}})\b", re.I)


#: A number whose thousands are set apart by spaces ("100 000", "2 500"), as many writers
#: outside the US write them; never a run of digit groups going on (a phone number "555 123 2002").
_SPACED_THOUSANDS = re.compile(r"(?<!\d)(?<!\d[ \u00a0\u202f])\d{1,3}(?:[ \u00a0\u202f]\d{3})+\b(?![ \u00a0\u202f]?\d)")


#: A value spelled out a character at a time ("a-n-n", "h-u-l-l 4-4-7"): three or more single
#: letters or digits joined by dashes, in groups a single space apart (two are a range: "3-5").
_SPELLED = re.compile(r"(?<![\w'\u2019$-])[a-z0-9](?:-[a-z0-9]){2,}(?: [a-z0-9](?:-[a-z0-9]){2,})*(?![\w-])", re.I)


#: A word of letters alone (not part of an identifier: "karen_howard_5193", "SI5UKW" are none),
#: and such a word of two letters or more with a lower-case letter.
_LETTER_WORD = re.compile(r"(?<![\w@.#-])[A-Za-z][A-Za-z']*(?![\w@-])")
_LOWER_WORD = re.compile(r"(?<![\w@.#-])(?=[A-Za-z']*[a-z])[A-Za-z][A-Za-z']+(?![\w@-])")


def _in_capitals(text: str) -> bool:
    """True when the words of ``text`` (its identifiers aside) are all in capitals, two or more
    of them: a writer typing in capitals throughout ("I SEE 327 AND 1000", "SMALL LETTERS"),
    whose capitals mark no code."""
    return _LOWER_WORD.search(text) is None and sum(1 for w in _LETTER_WORD.findall(text) if len(w) > 1) >= 2


#: "2" and "4" for "to" and "for" between words, as text-speak writes them ("had 2 find a
#: way", "free 4 me", "change W5061109 2 blue ones", "changed 2 1421289881"): words, not
#: numbers, after a word or an identifier and before a word or a long number. Not a day
#: after its month, a number after what is numbered ("seat 2 please", "at 4 today"), a time
#: ("2 pm") nor a count ("need 2 bags").
_TEXT_SPEAK = re.compile(r"(?<=\w )[24](?= [A-Za-z]| \d{4})")
_NUMBERED = re.compile(r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|[a-z]+uary|march|april|june|july|august|"
                       r"[a-z]+ber|at|apt|suite|unit|no|number|gate|seat|row|flight|bags?|items?|orders?|lines?|plans?|of|"
                       r"out|all|by|around|about|like|only|just|under|over|than|exactly|maybe|the|a|my|these|those|page|step|option)",
                       re.I)
_COUNTED = re.compile(r"(?:am|pm|a\.m|p\.m|o'?clock|of|or|and|more|less|extra|other|new|checked|total|different|"
                      r"[a-z]*[^s\W]s)\b", re.I)


def _text_speak(text: str) -> str:
    """``text`` with text-speak's "2" and "4" as words (:data:`_TEXT_SPEAK`)."""
    def word(match: re.Match[str]) -> str:
        before = text[:match.start() - 1].rsplit(None, 1)[-1] if match.start() > 1 else ""
        if (not any(c.isalpha() for c in before) or _NUMBERED.fullmatch(before)  # (after a number: "100 4 2 bags")
                or (text[match.end() + 1].isdigit() and not before.isalpha())  # (a long number after a word only)
                or _COUNTED.match(text, match.end() + 1)):
            return match.group(0)
        return "to" if match.group(0) == "2" else "for"
    return _TEXT_SPEAK.sub(word, text) if (" 2 " in text or " 4 " in text) else text


def written_out(text: str) -> str:
    """``text`` with each value spelled a character at a time written whole ("a-n-n" ->
    "ann", :data:`_SPELLED`; its digits may be read aloud, "b-one-six-five", and so may a
    number's, "four four two one": :func:`~userbench_env.fidelity.language.spoken_digits`),
    each email address read aloud written as an address ("dustin dot
    middleton133 at example dot org" -> "dustin.middleton133@example.org"), each number
    with spaced thousands written as one number ("100 000 dollars" -> "100000 dollars"), or
    with the word of its scale ("2 thousand 300" -> "2300",
    :func:`~userbench_env.fidelity.language.scaled_numbers`), and
    each sum in words in digits (:func:`~userbench_env.fidelity.language.spoken_sums`): a
    user spelling out the address it gave, or writing a number its own way, states nothing new,
    and a number in words states what its digits would. Text-speak's "2" and "4" between words
    are "to" and "for" (:data:`_TEXT_SPEAK`), and a text typed in capitals throughout has its
    words of letters in lower case (:func:`_in_capitals`): its capitals mark no code."""
    def write(match: re.Match[str]) -> str:
        name, domain = (_SPOKEN_JOIN.sub(lambda m: _SPOKEN_SEPARATOR[m.group(0).strip().lower()], part).replace(" ", "")
                        for part in match.groups())
        return f"{name}@{domain}"
    if _in_capitals(text):
        text = _LETTER_WORD.sub(lambda m: m.group(0).lower(), text)
    # (scale words first: text-speak would read the "2" of "2 thousand" as "to")
    text = spoken_digits(_text_speak(scaled_numbers(text)))
    if "-" in text:  # (cheap gates: a spelled value has dashes, spaced thousands have digits)
        text = _SPELLED.sub(lambda m: re.sub(r"[- ]", "", m.group(0)), text)
    if " at " in text:
        text = _SPOKEN_EMAIL.sub(write, text)
    if _DIGIT.search(text) is not None:
        text = _SPACED_THOUSANDS.sub(lambda m: re.sub(r"\D", "", m.group(0)), text)
    return spoken_sums(text)


#: A clock time the user rules out ("I'm not doing a 6am", "no 5am flights"): a limit of its
#: own, no time it claims.
_REFUSED_TIME = re.compile(r"(?:\b(?:not|no|never)|n't)\b(?:\s+[\w']+){0,3}?\s+(?:an? |the )?\d{1,2}(?::\d{2})?\s?[ap]\.?m\b\.?", re.I)
#: Things a request times ("9am flight", "the 3pm one"): a time of one is a value of the request.
_TIMED = (r"(?:flights?|departures?|ones?|trains?|bus|slots?|appointments?|meetings?|calls?|pickups?|"
          r"arrivals?|connections?|options?|bookings?|reservations?)")
#: The standard of a comparison in anything but time, to the clause's end or for 80 characters ("worse than a 6am
#: practice", "faster than me on an empty boulevard at 3am", "faster than Bitcoin fees in 2017"):
#: a figure of speech, whose clock times and years are no values of the request; not a limit in
#: time ("no later than 5pm", "earlier than 3pm"), nor one naming a thing the request times
#: ("cheaper than the 3pm flight").
_FIGURE = re.compile(rf"\b(?!(?:later|earlier|sooner)\b)(?:\w+er|worse|better|more \w+|less \w+) than\b"
                     rf"(?![^.!?;,\n]{{0,80}}\b{_TIMED}\b)[^.!?;,\n]{{0,80}}", re.I)
#: The time it is where the user writes ("its like 3am and i cant sleep", "it's 2:40 am here"):
#: the user's own moment, chatter, no value of its request.
_TIME_NOW = re.compile(r"\b(?:it'?s|its|it is)\s+(?:(?:like|about|around|roughly|almost|nearly|just|past|after|gone)\s+)?"
                       r"(?:\d{1,2}(?::\d{2})?\s?(?:[ap]\.?m\b\.?|o'?clock\b)|\d{1,2}:\d{2}(?=\s+(?:now|here)\b))"
                       # (not a time of something it names: "it's 9am flight")
                       rf"(?!\s*{_TIMED}\b)", re.I)


def _claimed_times(text: str) -> frozenset[int]:
    """The clock times ``text`` states (:func:`~userbench_env.fidelity.language.clock_times`),
    but those it rules out (:data:`_REFUSED_TIME`), the time it is where the user writes
    (:data:`_TIME_NOW`) and those of a figure of speech (:func:`_literal`); all only remove
    times, so a text with none is not searched for them."""
    if not clock_times(text):
        return frozenset()
    return clock_times(_TIME_NOW.sub(" ", _REFUSED_TIME.sub(" ", _literal(text))))


def _literal(text: str) -> str:
    """``text`` without the standards of its comparisons (:data:`_FIGURE`)."""
    return _FIGURE.sub(" ", text) if "than" in text.lower() else text


#: A run of characters between spaces and list punctuation: a value when it holds a digit or an "@"
#: (an email, an id, a phone number), its closing full stop or colon apart.
_RUN = re.compile(r"[^\s,;!?()]+")
_VALUE_MARK = re.compile(r"[\d@]")
#: Words correcting what came just before ("sorry, typo", "oops, I mean", "correction:", "scratch that"),
#: or excusing it ("rachel@gmial.com, pardon, gmail: rachel@gmail.com").
_CORRECTION = re.compile(r"\b(?:typo|i mean|i meant|correction|make that|scratch that|oops|whoops|sorry|pardon|"
                         r"excuse me|apologies)\b", re.I)


def _retracted(text: str) -> str:
    """``text`` without the values it corrects as slips: a value followed, within 40 characters
    that hold words correcting it (:data:`_CORRECTION`), by a value at most two edits from it
    ("rachel@gmial.com - sorry typo!! rachel@gmail.com"): the message states the second."""
    if _VALUE_MARK.search(text) is None or _CORRECTION.search(text) is None:
        return text  # (no value, or no correction: nothing retracted; the first is the cheaper to find)
    from rapidfuzz.distance import Levenshtein

    found = [(m.start(), m.start() + len(m.group().rstrip(".:"))) for m in _RUN.finditer(text)
             if _VALUE_MARK.search(m.group()) is not None]
    slips = [slip for slip, fixed in zip(found, found[1:])
             if fixed[0] - slip[1] <= 40 and _CORRECTION.search(text, slip[1], fixed[0])
             and 0 < Levenshtein.distance(text[slice(*slip)].lower(), text[slice(*fixed)].lower()) <= 2]
    for start, end in reversed(slips):
        text = text[:start] + text[end:]
    return text


def statement(text: str) -> Statement:
    """Every reading :class:`InventedInformation` takes of ``text``, as one (its
    :meth:`~InventedInformation.read`, memoized per task and text by the plan): the
    identifiers, labelled values, digit-bound readings (:func:`~userbench_env.fidelity.language.id_runs`,
    dates, month days, amounts and years, clock times but those ruled out (:data:`_REFUSED_TIME`) and the
    time it is where the user writes (:data:`_TIME_NOW`),
    street addresses: all need a digit)
    and the all-capital codes given as an answer (:func:`answer_codes`). An
    email address read aloud, and a number with spaced thousands, are read as written
    (:func:`written_out`); a value the text corrects as a slip is not read (:func:`_retracted`)."""
    text = _retracted(written_out(text))
    numeric = (tuple(run for run in id_run_parts(text) if not _CLOCK_RUN.fullmatch(run[0])), dates(text), month_days(text),
               amounts(text) | years(_literal(text)), _claimed_times(text), street_addresses(text)) \
        if _DIGIT.search(text) is not None else _NO_NUMBERS
    return Statement(identifiers(text), labelled_values(text), *numeric,
                     answer_codes(text),
                     bool(numeric[1] or numeric[2]) and _ADJACENT_DAY.search(text) is not None,
                     bool(numeric[3]) and _PER_ITEM.search(text) is not None, any(numeric),
                     # (read in the whole text too: the stated part joins its parts without their commas,
                     # which mark a simile's standard, "quick like ceviche, five minutes and ready")
                     durations(stated_part(text), False) & whole if (whole := durations(text, False)) else frozenset(),
                     worked_amounts(text) if numeric[3] else frozenset(),
                     small_sums(text) if numeric[3] else frozenset(),
                     hedged_amounts(text) if numeric[3] else frozenset())


#: The item kinds whose values may be all-capital codes (a reservation code, an order or item id, a user id).
CODE_KINDS = frozenset({"reservation_id", "order_id", "item_id", "user_id"})


@register_rule
class InventedInformation(Rule):
    """Fails when the user states an identifier or fact that nothing the user legitimately
    heard or read holds: the scenario (``params["scenario"]``), the agent's texts and the
    user's own tool results. Read in the user's text:

    * id-shaped tokens (:func:`~userbench_env.fidelity.text.identifiers`), compared in
      :func:`~userbench_env.fidelity.language.id_key` form (case, spaces and separators
      ignored: "# W 237-8156" is "#W2378156");
    * values stated with their item's name (:func:`~userbench_env.fidelity.language.labelled_values`,
      any shape: "my user id is Yusuf Rossi", "order number ORD-88231"): for an item kind
      the scenario gives (``params["known"]``: kind to values), the value must be one of
      the scenario's values of that kind (or one the agent or a tool said; a name, any
      name heard whole: a passenger's, the one a request changes a name to); for another
      kind, something heard must hold it; another item's value given for it is invented
      ("my user id is <my name>"). A value one letter away from the scenario's (a slip
      of a letter, its digits the same) is ``suspect`` (:meth:`Rule.suspect`);
      one with a digit changed names another number ("48207" for the scenario's zip 48201)
      and fails;
    * identifiers of any shape (:func:`~userbench_env.fidelity.language.id_runs`: "W 552 1876",
      "5521-0087-AB", "4471 9920"), calendar dates (with or without a month), years, clock
      times, money amounts and street addresses: something heard must hold them (an amount
      under ten dollars written with cents, as written: "$4.20" is not heard in "4 items";
      :func:`~userbench_env.fidelity.language.small_sums`);
    * the counts of lengths of time the user states as gone or taken, beyond its questions
      and requests (:func:`~userbench_env.fidelity.language.durations`: "delayed by more than
      5 hours", "waited two weeks"; not "give me 5 minutes", "can it come in 3 days?"):
      something heard must hold the number (a length heard in words is heard in digits), or
      it must be the days (or weeks) between two heard dates ("May 28 to May 30, two days later"),
      or a count a length heard only roughly stands for ("the past few hours": "three, maybe
      four hours"; :func:`~userbench_env.fidelity.language.rough_lengths`).

    What the scenario or the conversation implies is heard (issue 22: fail only on sure
    evidence): a clock time with its zone ("11am EST") is a time, not an identifier, and a
    date or day one day from a heard date, stated while speaking of that next (or previous)
    day ("the next day, May 19" once May 18 was named) or once something heard spoke of one
    (a scenario moving a May 23 flight "one day later": "the 24th"), is implied, not invented;
    so is an amount per item that is an even share of a heard one ("$100 for the two bags":
    "is that $50 each?"), and an amount the message works out from amounts it writes before
    it, a total or a difference it says it is (:func:`~userbench_env.fidelity.language.worked_amounts`:
    "$1,786 on the card, under $2,000: $214 under").

    Applies to every user message."""

    name = "invented_information"

    @classmethod
    def compile(cls, criteria: list[Criterion]) -> tuple[frozenset[str], dict[str, frozenset[str]], "Heard"]:
        """(the identifiers in the scenario, per kind the keys of the scenario's values, what
        the scenario lets the user know as a :class:`Heard`): a stated identifier found among
        the first is heard without searching every heard text."""
        scenario = "".join(str(c.params.get("scenario", "")) for c in criteria[:1])
        lowered = scenario.lower()
        known: dict[str, set[str]] = {}
        for c in criteria[:1]:
            for kind, values in (c.params.get("known") or {}).items():
                for alias in KIND_ALIASES.get(kind, {kind}):
                    known.setdefault("name" if alias in KIND_ALIASES["name"] else alias, set()).update(id_key(str(v)) for v in values)
        return (frozenset(token for token in identifiers(scenario) if token in lowered),
                {kind: frozenset(keys) for kind, keys in known.items()}, Heard(scenario))

    @classmethod
    def read(cls, compiled: tuple[frozenset[str], dict[str, frozenset[str]], "Heard"], text: str) -> Statement | None:
        """The text's :func:`statement`; None when it states nothing the rule checks, or
        nothing the scenario alone does not ground (what the user hears only grows, so no
        later turn can make such a text invented)."""
        said = statement(text)
        if not (said.identifiers or said.labelled or said.numeric or said.codes or said.lengths):
            return None
        known, values, scenario = compiled
        return said if scenario.invented(said, known, values, asked=True)[0] else None

    def start(self) -> None:
        self._known, self._values, scenario = self.compiled
        self._heard = scenario.copy()  # the scenario, then what the agent and the tools said, read when needed
        self._agent_read = self._calls_read = 0

    def _read_heard(self) -> None:
        feed = self.feed
        if self._agent_read < len(feed.agent) or self._calls_read < len(feed.user_calls):
            fresh = [text for _, _, text, _ in feed.agent[self._agent_read:]]
            self._heard.add(fresh + [result.content for _, _, result in feed.user_calls[self._calls_read:]])
            self._agent_read, self._calls_read = len(feed.agent), len(feed.user_calls)

    def user_text(self, turn: int, text: str, said: Statement | None) -> None:
        if said is None:  # states nothing ungrounded: every criterion passes (once settled, nothing changes)
            if not self._settled:
                self.settle_all(turn, False)
            return
        self._read_heard()
        # a code given as the answer ("WOBBKF") counts when the agent's latest text asked for an item a code
        # can be; asked for a date or an email, a word in capitals is emphasis ("before I agree to ANYTHING")
        asked = bool(said.codes) and bool(agent := self.feed.agent) and bool(agent[-1][3] & CODE_KINDS)
        invented, borderline = self._heard.invented(said, self._known, self._values, asked)
        if borderline:  # a letter away from the scenario's value: a slip or an invention
            for cid in self.ids:
                self.suspect(cid, turn, "a stated value is one letter away from the scenario's")
        elif invented or not self._settled:
            self.settle_all(turn, invented)


def _day(month: int, day: int) -> date | None:
    """The date of ``month`` and ``day`` in a leap year (every (month, day) is one), None for none."""
    try:
        return date(2024, month, day)
    except ValueError:
        return None


def _adjacent(days: set[tuple[int, int]]) -> set[tuple[int, int]]:
    """The (month, day) dates one day before or after any of ``days``."""
    return {((there := here + timedelta(days=step)).month, there.day)
            for month, day in days if (here := _day(month, day)) for step in (-1, 1)}


class Heard:
    """What a user has heard (the scenario, then agent texts and tool results), in the forms
    :class:`InventedInformation` compares a statement with: the texts lower-cased
    (``text``), their :func:`~userbench_env.fidelity.language.id_key` forms (``key``; the
    agent's and the tools' alone: ``said_key``), the key forms of their identifiers and
    words (``keys``, see :func:`heard_keys`), dates, month days, clock times, numbers and the
    counts lengths of time heard only roughly stand for (``rough``:
    :func:`~userbench_env.fidelity.language.rough_lengths`). Each only grows (:meth:`add`), so a
    statement grounded in it stays grounded."""

    __slots__ = ("text", "key", "said_key", "keys", "dates", "days", "times", "numbers", "rough", "adjacent", "_shared")

    def __init__(self, scenario: str):
        self.text = scenario.lower()
        self.key, self.said_key = id_key(scenario), ""
        self.keys, self.dates, self.days = set(heard_keys(scenario)), set(dates(scenario)), set(month_days(scenario))
        self.times, self.numbers = set(clock_times(scenario)), set(numbers(spoken_sums(scenario))) | durations(scenario)
        self.rough = rough_lengths(scenario)  # (a frozenset, replaced when it grows: shared by copies)
        #: something heard speaks of a day next to another ("move it one day later"): such a day is implied
        self.adjacent = _ADJACENT_DAY.search(scenario) is not None
        self._shared = False

    def copy(self) -> "Heard":
        """A copy to add to (it shares this one's sets until its first :meth:`add`)."""
        other = Heard.__new__(Heard)
        other.text, other.key, other.said_key = self.text, self.key, self.said_key
        other.keys, other.dates, other.days, other.times, other.numbers, other.rough = \
            self.keys, self.dates, self.days, self.times, self.numbers, self.rough
        other.adjacent = self.adjacent
        other._shared = True
        return other

    def add(self, fresh: list[str]) -> None:
        """Add texts the user heard."""
        if self._shared:  # copy on first write
            self.keys, self.dates, self.days = set(self.keys), set(self.dates), set(self.days)
            self.times, self.numbers = set(self.times), set(self.numbers)
            self._shared = False
        self.text = "\0".join([self.text, *(text.lower() for text in fresh)])
        said = "\0".join(id_key(text) for text in fresh)
        self.said_key = f"{self.said_key}\0{said}"
        self.key = f"{self.key}\0{said}"
        for text in map(spoken_sums, fresh):  # (a sum heard in words is heard in digits)
            self.keys |= heard_keys(text)
            self.adjacent = self.adjacent or _ADJACENT_DAY.search(text) is not None
            self.numbers |= durations(text)  # (a length of time heard in words is heard in digits)
            if rough := rough_lengths(text):
                self.rough = self.rough | rough
            if _DIGIT.search(text) is not None:
                self.dates |= dates(text)
                self.days |= month_days(text)
                self.times |= clock_times(text)
                self.numbers |= numbers(text)

    def heard(self, token: str) -> bool:
        """True when ``token`` (lower-case, no NUL) occurs in something heard: as written, or
        as the key form of an identifier or word heard (:func:`heard_keys`)."""
        return token in self.text or id_key(token) in self.keys

    def invented(self, said: Statement, known: frozenset[str], values: dict[str, frozenset[str]],
                 asked: bool) -> tuple[bool, bool]:
        """(invented, borderline) for the statement ``said``, given the scenario's
        identifiers (``known``) and its values per kind: see :class:`InventedInformation`;
        its all-capital codes count only when ``asked`` (the answer to a request)."""
        if any(token not in known and not self.heard(token) for token in said.identifiers):
            return True, False
        for kind, value in said.labelled:
            invented, borderline = self._invented_value(kind, value, values)
            if invented:
                return invented, borderline
        if (said.numeric or said.lengths) and self._invented_number(said):
            return True, False
        return asked and not set(said.codes) <= self.keys, False

    def _invented_number(self, said: Statement) -> bool:
        """True when ``said`` states an id-like run, a date, a day, an amount, a year, a clock
        time, a street address or the count of a length of time that nothing heard holds."""
        if not all(run in self.keys or self._heard_apart(run) or all(part in self.keys for part in parts)
                   for run, parts in said.runs):
            return True  # (a run of parts each heard whole, "HAT039 ATL", is heard)
        heard_dates = self.dates | _adjacent(self.dates) if said.adjacent or self.adjacent else self.dates
        if not said.dates <= heard_dates or not said.days <= {day for _, day in heard_dates} | self.days:
            return True
        if not all(amount in self.numbers or amount in said.worked or (said.per_item and self._share(amount))
                   or (amount in said.hedged and self._rounds(amount)) for amount in said.money):
            return True
        if not all(sum_ in self.text or sum_.split(".")[0] in said.worked for sum_ in said.small):
            return True  # (a few dollars are known by their cents: "$4.20" is not heard in "3 or 4 items")
        if not said.times <= self.times or not all(n in self.numbers or n in self.rough or self._span(n)
                                                   for n in said.lengths):
            return True
        return any(street not in self.key for street in said.streets)

    def _span(self, count: str) -> bool:
        """True when ``count`` days, or weeks, lie between two heard dates ("May 28 to May 30":
        "two days later")."""
        days = {day.toordinal() for month, day_of_month in self.dates if (day := _day(month, day_of_month))}
        spans = {abs(a - b) for a in days for b in days}
        return int(count) in spans or int(count) * 7 in spans

    def _rounds(self, amount: str) -> bool:
        """True when ``amount`` (whole-dollar digits, said to be about so much) is a round figure
        (a multiple of ten) within a tenth of a heard number ("almost 2000 dollars" for a heard
        1939.05)."""
        value = int(amount)
        return value % 10 == 0 and any(abs(int(n) - value) <= value / 10 for n in self.numbers if n.isdigit())

    def _share(self, amount: str) -> bool:
        """True when ``amount`` (whole-dollar digits) is an even share of a heard number, over
        two to :data:`SHARES` items."""
        return any(str(int(amount) * items) in self.numbers for items in range(2, SHARES + 1))

    def _heard_apart(self, run: str) -> bool:
        """True when ``run`` is a heard word of letters then heard digits ("OR 85036": a state
        and a zip code)."""
        m = _LETTERS_DIGITS.fullmatch(run)
        return m is not None and m.group(1) in self.keys and m.group(2) in self.keys

    def _heard_name(self, value: str, key: str) -> bool:
        """True when the name ``value`` (its key ``key``) is one heard whole: each of its
        words heard and the whole in something heard ("Mei Garcia" of a scenario changing a
        passenger's name from Mei Lee to Mei Garcia)."""
        return key in self.key and all(id_key(word) in self.keys for word in value.split())

    def _invented_value(self, kind: str, value: str, values: dict[str, frozenset[str]]) -> tuple[bool, bool]:
        """(invented, borderline) for a labelled ``value`` of ``kind``."""
        if kind == "date":
            stated = dates(value)
            return bool(stated) and not stated <= self.dates, False
        key = id_key(value)
        known = values.get(kind)
        if not key or (known is not None and any(key == k or (kind in ("name", "address") and key in k) for k in known)):
            return False, False  # the scenario's value
        if any(key in keys for other, keys in values.items() if other != kind):
            return True, False  # another item's value given as this one ("my user id is <my name>")
        if known is None:  # an item the scenario does not give: something heard must hold it (an id, as a whole)
            whole = kind != "address" and any(c.isdigit() for c in key)
            return (key not in self.keys) if whole else (key not in self.key), False
        if key in self.said_key or (kind == "name" and self._heard_name(value, key)):
            return False, False
        if _DIGIT.search(key) is not None and key in self.keys:
            return False, False  # a number heard whole, the scenario's own too ("say 98178 first, a common mistake")
        from rapidfuzz.distance import Levenshtein

        digits = _digits(key)  # (a slip of a letter misspells; a digit changed names another number: "48207" of 48201)
        return True, any(Levenshtein.distance(key, k) <= 1 and _digits(k) == digits for k in known)
