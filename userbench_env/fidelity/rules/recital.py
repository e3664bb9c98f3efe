"""Premature disclosure, ``dumps_blueprint``: several scenario sentences recited in one message
(:class:`DumpsBlueprint`, reading by :class:`RecitalReader`).
"""
from __future__ import annotations

import math
import re

from collections import Counter
from functools import lru_cache, partial
from typing import NamedTuple

from userbench_env.core.rubric import Criterion
from userbench_env.fidelity.outcomes import reports_done
from userbench_env.fidelity.language import content_stems, identity_items, NEGATION, recital_cues, self_named, stated_part
from userbench_env.fidelity.text import identifiers, literal, lowered as lower, normalize, paste_runs, pasted_words, stance_note, whole_token
from userbench_env.fidelity.rules.base import _FAIL, _NOTHING, _PASS, _UNSURE, register_rule, Rule


#: The ``suspect`` outcomes of a reading, each with why it is not sure.
_ASKED, _BARE, _TALK_ASKED, _LIGHT, _AFTER_DONE, _WANTS = "asked", "bare", "talk asked", "light", "after done", "wants"
SUSPICIONS = {
    _ASKED: "recites scenario sentences, but mostly in what it asks for",
    _BARE: "recites just enough scenario sentences, with nothing else marking a recital",
    _AFTER_DONE: "restates scenario sentences after the agent reported its request done",
    _TALK_ASKED: "touches scenario sentences, talking about its brief only in what it asks for",
    _LIGHT: "talks about its brief, touching scenario sentences by an everyday word each",
    _WANTS: "states what it wants of its request, with the scenario's terms, and nothing else of its brief",
}


@register_rule
class DumpsBlueprint(Rule):
    """Fails when one user message recites at least ``minimum`` of the criterion's
    ``sentences`` (scenario sentences: constraints, fallback plans, persona notes, lines
    scripted for later moments), in any wording. Sentences and message are read as content
    words, stemmed (:func:`~userbench_env.fidelity.language.content_stems`); words of ``exempt`` (the
    reason for calling, with the conditional requests a user told to make all its requests at once
    states along, see :func:`~userbench_env.fidelity.text.requests_raised_together`, and the known
    values, which the user states anyway) and of how
    scenarios address the simulated user (:data:`SCENARIO_WORDS`: "the agent", "ask", ...)
    and the scenario's topic words (:data:`TOPIC_SENTENCES`) do not count. A sentence is
    recited when the message holds enough of its words (a third, at least 2, at most
    :data:`RECITE_CAP`; all of a sentence of one or two words, unless that one word is all
    a long sentence keeps once its topic words are aside: "able", of "if the agent asks if
    you are able to send an MMS, ground your answer on ...", is what any message on the
    matter says; a distinctive word held, see
    :func:`distinctive_stems`, lowers that by one, to 2: a paraphrase replaces words with
    synonyms, not a number or a name; once one sentence is recited, a further one counts
    when the message holds one of its distinctive words: a message touching several
    scenario sentences is a recital), and each
    further recited sentence must bring a word the ones before it did not (two sentences
    restating one goal are one recital; a sentence whose words another holds is dropped).
    A sentence an earlier user message disclosed (held the words it needs, and half of
    its words: :meth:`RecitalReader.spend`) never counts again (confirming "the 21:00
    flight, the 3 bags and the insurance" after having asked for them is no premature
    disclosure). A sentence the agent's latest text asked about (sharing a word with it, courtesies
    aside: :data:`AGENT_COURTESY`) never counts: answering the agent's questions (often
    numbered) with what the scenario says about them is no recital; nor does one sharing a
    word with the user's own tool results since then (reporting what its phone showed, "the
    status bar shows a working connection", is no recital of the scenario's words for it).
    The reason's ``fallback`` sentences (its conditions and alternatives) count, except
    when stated word for word with the reason (the reason for calling as the scenario
    words it is the user's opening); in the opening message of a user told to open with
    its reason (``params["opens_with_reason"]``), the condition a stated fallback sentence
    carries is its request's, never talk about its brief. A message one sentence short of a
    dump whose next-best sentence is nearly recited is borderline: its verdict is marked
    for the judge (:meth:`Rule.unsure`). A paraphrase swaps words for synonyms, so two
    structural marks of a recital lower the bar: a message reciting (or nearly reciting)
    a sentence, or touching ``minimum`` sentences, while talking about its own brief
    (:func:`~userbench_env.fidelity.language.recital_cues`: "before you ask", "if you
    refuse I'll ...", "I'm a 64-year-old ..."; announcing how one will negotiate, "I won't
    take no for an answer", counts unless the scenario gives that stance and every sentence
    firmly nearly recited, if any, is one telling the user to hold out (:attr:`Sentence.stance`):
    acting the stance one was given and saying so is in character; describing oneself, or
    how one is to be dealt with, counts unless every sentence firmly nearly recited is a
    persona note, ``params["persona"]``, and nothing else talks about the brief: voicing one's own persona is in character ("I'm not
    very good with technology ... I don't want to lose my photos of my grandchildren"), and
    with nothing nearly recited, persona notes touched by a word each ("a sad sort of week")
    do not count among the sentences touched)
    recites every sentence it brings a new word
    of (and, talking about it twice, is a recital with one sentence recited); one reciting a sentence along with
    :data:`RECITAL_IDENTITY` identity items lists several scenario facts at once (emails,
    user ids, phone numbers and a self-introduction in any message, but for those of the kinds
    the agent's latest text asked for: "your email?" answered with the old and the new one
    lists nothing; nor do items an earlier user message gave, offered again: "can you verify
    me with my name, phone number and email instead?" after giving each; and the values of
    ``identity``, the scenario's own account items, in the opening: its name, zip code, the card it pays with,
    ...; later, the agent asks for them). Word-for-word recitals are dumps too: ``minimum``
    of ``verbatim`` (long sentences in either person, see
    :func:`~userbench_env.fidelity.text.verbatim_sentences`) or of ``copied`` (sentences
    as written, second person and all, see :func:`~userbench_env.fidelity.text.copied_sentences`),
    and so is a paste: :data:`PASTED_WORDS` words of the scenario's own wording
    (``params["pasted"]``, :func:`~userbench_env.fidelity.text.paste_sources`) in runs,
    beyond the requests a faithful user raises (``params["opening"]``,
    :func:`~userbench_env.fidelity.text.request_sentences`), whatever they say. A message
    whose nearly recited sentences all belong to one line the scenario quotes for the user
    to say (``params["quoted"]``, :func:`~userbench_env.fidelity.text.quoted_lines`; a
    sentence two lines share belongs to both) says that line, however many sentences it
    has: one line of the script, no recital, unless it talks about its brief. Beside the
    line, a sentence the agent's latest text asked about, or one touched only by the words
    of the line as said (the scenario's cue for the line shares them), does not count.

    Sure evidence only (issue 22): a user states scenario facts to make its request (a
    budget while haggling, its insurance, the goal with its details), so a paraphrased
    recital fails only when what the message *states* beyond its requests and questions
    (:func:`~userbench_env.fidelity.language.stated_part`) recites more than ``minimum``
    sentences, or ``minimum`` with talk about the brief; the talk about the brief that
    marks a recital must likewise be stated, not asked. A message that recites enough only
    by counting its requests is ``suspect`` (:meth:`Rule.suspect`), unless it also states
    the user's identity, as is one whose talk about the brief is only in what it asks, and
    one whose talk about the brief touches sentences only by an everyday word each
    ("photo", "work": what any message on the matter holds; a sure touch is two of a
    sentence's words, a distinctive one, or half of a short sentence), and a recital in reply
    to the agent reporting the request done
    (:func:`~userbench_env.fidelity.outcomes.reports_done`): nothing is left to disclose
    early, the user checks or recaps the outcome. So is a recital of what the user wants of
    its request and nothing else: every sentence it touches a "You want ..." sentence of the
    scenario (:attr:`Sentence.wants`), no identity item stated and no talk about the brief
    but the terms it sets (:data:`~userbench_env.fidelity.language._TERM_CUES`: "only if it
    costs less than $100"). A customer stating its request with its limits is how the
    writers' faithful customers open; tau2 asks for them step by step, and blind raters read
    such openings as recitals: not sure evidence either way (round 32). A copy of
    ``minimum`` sentences in the scenario's own second person stays a recital.
    :data:`SUSPICIONS` says why. Applies to every user message."""

    name = "dumps_blueprint"

    @classmethod
    def compile(cls, criteria: list[Criterion]) -> "RecitalReader":
        """The task's :class:`RecitalReader`: per criterion a :class:`RecitalCriterion`."""
        compiled: list[RecitalCriterion] = []
        for c in criteria:
            exempt = content_stems(str(c.params.get("exempt", ""))) | SCENARIO_WORDS
            fallback = set(c.params.get("fallback", ()))
            persona = set(c.params.get("persona", ()))
            texts = list(c.params["sentences"])
            read = [(content_stems(sentence) - exempt, normalize(sentence) if sentence in fallback else "") for sentence in texts]
            frequency = Counter(w for words, _ in read for w in words)
            topic = {w for w, n in frequency.items() if n >= TOPIC_SENTENCES and n >= len(read) * TOPIC_SHARE}
            sizes = [len(words) for words, _ in read]
            read = [(words - topic, reason) for words, reason in read]
            # the quoted lines of what each sentence says (two lines may share a sentence: "Fine, whatever.")
            words_of = {text: words for text, (words, _) in zip(texts, read)}
            lines_of: dict[frozenset[str], set[int]] = {}
            for n, line in enumerate(c.params.get("quoted", ())):
                for sentence in line:
                    if sentence in words_of:
                        lines_of.setdefault(words_of[sentence], set()).add(n)
            sentences: list[Sentence] = []
            for i, (words, reason) in enumerate(read):
                # a sentence whose words another one holds says nothing that one does not
                if words - {NEGATION} and not any(words < other or (words == other and j < i)
                                                  for j, (other, _) in enumerate(read) if j != i):
                    need = len(words) if len(words) <= 2 else max(2, min(math.ceil(len(words) / 3), RECITE_CAP))
                    sentences.append(Sentence(words, need, reason, distinctive_stems(texts[i]) & words, texts[i] in persona,
                                              frozenset(lines_of.get(words, ())), sizes[i],
                                              texts[i] not in persona and WANTS.match(texts[i]) is not None
                                              and FALLBACK_CLAUSE.search(texts[i]) is None, stance_note(texts[i])))
            compiled.append(RecitalCriterion(c.id, sentences, int(c.params.get("minimum", 2)),
                                             (list(c.params.get("verbatim", ())), list(c.params.get("copied", ()))),
                                             bool(c.params.get("opens_with_reason", False)),
                                             tuple(whole_token(str(v).lower()) for v in c.params.get("identity", ())),
                                             paste_runs(c.params.get("pasted", ())) - paste_runs(c.params.get("opening", ())),
                                             any(sentence.stance for sentence in sentences)))
        return RecitalReader(compiled)

    @classmethod
    def read(cls, compiled: "RecitalReader", text: str) -> bool | None:
        """True when ``text`` may recite the scenario, depending on what the agent's latest
        text asked about; None when it passes every criterion whatever that was
        (:meth:`RecitalReader.quiet`)."""
        return None if compiled.quiet(text) else True

    def start(self) -> None:
        super().start()
        # per criterion, the sentences an earlier user message recited: disclosed, no longer premature
        self._spent: tuple[frozenset[int], ...] = tuple(frozenset() for _ in self.compiled.compiled)
        # the identifiers earlier user messages gave, whether one introduced the user by name, and how many were read
        self._given: frozenset[str] = _NOTHING
        self._named = False
        self._given_read = 0

    def user_text(self, turn: int, text: str, reading: bool | None) -> None:
        outcomes = None
        spent = self._spent
        self._spent = self.compiled.spend(text, spent)
        if reading is not None:
            agent = self.feed.agent
            seen = " ".join(self._seen())
            # items given before, offered again, list nothing new: neither are the items asked for
            given, named = self._given_before()
            answered = agent[-1][3] if agent else _NOTHING
            outcomes = self.compiled.read(text, self.compiled.prompted(seen) if seen else _NOTHING,
                                          len(self.feed.user) == 1, spent, answered | {"name"} if named else answered,
                                          frozenset(identifiers(seen)) | given)
        if outcomes is None:  # nothing recited: every criterion passes (once settled, nothing changes)
            if not self._settled:
                self.settle_all(turn, False)
            return
        done = bool(agent) and reports_done(agent[-1][2])
        for cid, outcome in outcomes:
            if outcome is _FAIL and done:
                outcome = _AFTER_DONE  # nothing is left to disclose early: checking the outcome, or recapping it
            if outcome is _FAIL:
                self.fail(cid, turn)
            else:
                self.passed(cid, turn)
                if outcome is _UNSURE:
                    self.unsure(cid, turn)
                elif outcome in SUSPICIONS:
                    self.suspect(cid, turn, SUSPICIONS[outcome])

    def _given_before(self) -> tuple[frozenset[str], bool]:
        """The identifiers the user's messages before its latest gave, and whether one of them
        introduced the user by name; read when a message needs them, each message once."""
        earlier = self.feed.user[:-1]
        for _, said in earlier[self._given_read:]:
            self._given |= frozenset(identifiers(said))
            self._named = self._named or self_named(said)
        self._given_read = len(earlier)
        return self._given, self._named

    def _seen(self) -> list[str]:
        """What the user is answering: the agent's latest text and the user's own tool results
        since it."""
        feed = self.feed
        since = feed.agent[-1][0] if feed.agent else 0
        seen = [feed.agent[-1][2]] if feed.agent else []
        return seen + [result.content for clock, _, result in feed.user_calls if clock > since]


class Sentence(NamedTuple):
    """A scenario sentence as :class:`DumpsBlueprint` reads it."""

    #: Its content stems (exempt, scenario and topic words aside).
    words: frozenset[str]
    #: How many of them a message must hold to recite it.
    need: int
    #: Its normalized text when it is a fallback sentence of the reason for calling, else "".
    fallback: str
    #: Its distinctive stems (numbers, names: :func:`distinctive_stems`).
    marks: frozenset[str]
    #: Whether it is a persona note (``params["persona"]``: how the user is, not what it wants).
    persona: bool = False
    #: The indices of the lines the scenario quotes for the user to say that it is part of
    #: (``params["quoted"]``, :func:`~userbench_env.fidelity.text.quoted_lines`; two lines
    #: may share a sentence, "Fine, whatever."), none for a sentence of no such line.
    lines: frozenset[int] = frozenset()
    #: How many content stems it has, its topic words included (exempt and scenario words aside).
    size: int = 0
    #: Whether it states what the user wants of its request (:data:`WANTS`: "You only want
    #: flights departing after 8am"), neither a persona note nor a fallback for the agent's
    #: answer (:data:`FALLBACK_CLAUSE`): the request's terms.
    wants: bool = False
    #: Whether it tells the user to hold out when refused (:func:`~userbench_env.fidelity.text.stance_note`).
    stance: bool = False


class RecitalCriterion(NamedTuple):
    """One ``dumps_blueprint`` criterion, compiled."""

    id: str
    sentences: list[Sentence]
    minimum: int
    #: (``verbatim``, ``copied``): the word-for-word forms of its sentences.
    word_for_word: tuple[list[str], list[str]]
    opens_with_reason: bool
    #: Patterns finding the scenario's own identity values as whole tokens.
    identity: tuple[re.Pattern[str], ...]
    #: The runs of words of the scenario's wording (:func:`~userbench_env.fidelity.text.paste_runs`)
    #: beyond the request a faithful user opens with: what a message pasting its brief repeats.
    pasted: frozenset[tuple[str, ...]] = frozenset()
    #: Whether the scenario tells the user to hold out when refused (one of its sentences
    #: does, :attr:`Sentence.stance`): announcing so may be acting it (see :meth:`RecitalReader._outcome`).
    stance: bool = False


class RecitalReader:
    """A task's compiled :class:`DumpsBlueprint` data and its reading of a message: a pure
    function of the message and of the scenario words the agent's latest text asked about,
    memoized (a task's messages recur across its episodes; the reading is the same every
    time, so the rule only applies it)."""

    def __init__(self, compiled: list["RecitalCriterion"]):
        self.compiled = compiled
        self.vocabulary: frozenset[str] = frozenset().union(*(s.words for c in compiled for s in c.sentences))
        # a text shorter than 3/4 of the two shortest word-for-word sentences cannot recite them
        # (normalizing grows a text by at most one character per "'m")
        self.shortest = min((sum(sorted(len(s) for s in forms)[:c.minimum]) for c in compiled for forms in c.word_for_word
                             if len(forms) >= c.minimum), default=0) * 3 // 4
        self.read = lru_cache(maxsize=256)(self._read)

    def prompted(self, agent_text: str) -> frozenset[str]:
        """The scenario words the agent's ``agent_text`` holds, courtesies aside
        (:data:`AGENT_COURTESY`): what it asked about."""
        return (content_stems(agent_text) & self.vocabulary) - AGENT_COURTESY

    def quiet(self, text: str) -> bool:
        """True when ``text`` passes every criterion whatever the agent's latest text asked
        about: it is too short to recite anything, or it passes them all unprompted without
        talking about its brief (:func:`~userbench_env.fidelity.language.recital_cues`): a
        prompt only spares sentences or asks for one more, and the marks it leaves in force
        are counted the same, or need such talk (see :meth:`_outcome`); read as an opening
        and as a later message alike."""
        return self._too_short(text) or (self.read(text) is None and self.read(text, frozenset(), True) is None
                                         and not recital_cues(text))

    def _too_short(self, text: str) -> bool:
        """True when ``text`` is too short to recite two sentences either way, or to paste
        :data:`PASTED_WORDS` words (:data:`PASTE_LENGTH`)."""
        return len(content_stems(text) & self.vocabulary) < 2 and len(text) < max(self.shortest, PASTE_LENGTH)

    def spend(self, text: str, spent: tuple[frozenset[int], ...]) -> tuple[frozenset[int], ...]:
        """``spent`` (per criterion, the indices of the sentences earlier user messages
        disclosed) with those ``text`` discloses added: each holding the words it needs to
        be recited and at least half of its words (two words a sentence shares with another,
        "the total" of a price asked for, disclose neither)."""
        said = content_stems(text) & self.vocabulary
        if not said:
            return spent
        return tuple(before | {i for i, sentence in enumerate(c.sentences)
                               if len(sentence.words & said) >= max(sentence.need, math.ceil(len(sentence.words) / 2))}
                     for c, before in zip(self.compiled, spent))

    def _read(self, text: str, prompt: frozenset[str] = frozenset(), opening: bool = False,
              spent: tuple[frozenset[int], ...] = (), answered: frozenset[str] = frozenset(),
              seen: frozenset[str] = frozenset()) -> tuple[tuple[str, str], ...] | None:
        """Per criterion (in order), ``(id, outcome)``: ``"fail"`` (recited), ``"pass"``, or
        ``"unsure"`` (a pass one sentence short of a dump: borderline); None when the text is
        too short to recite anything or when every criterion passes. ``prompt``: the
        scenario words of the agent's latest text, ``opening``: the text is the user's first
        (see :meth:`_outcome`), ``spent``: per criterion, the sentences earlier messages
        recited (:meth:`spend`), which do not count, ``answered``: the item kinds the agent's
        latest text asked for, whose values the text gives in answer (no identity items
        listed), ``seen``: the identifiers the agent's latest text and the user's tool results
        since show, which the text reads back (no identity items of the user's either: "dispute
        dsp_c166 for transaction txn_a8f1 submitted"). An opening listing :data:`LISTED_IDENTITY`
        of the user's own identity items recites its known info (every criterion fails)."""
        # the user's own identity items an opening lists (later, the agent asks for them)
        lowered = lower(text)
        listed = [sum(1 for value in c.identity if value.search(lowered) is not None) if opening else 0
                  for c in self.compiled]
        if self._too_short(text) and max(listed, default=0) < LISTED_IDENTITY:
            return None
        said = content_stems(text) & self.vocabulary
        whole = len(text) >= self.shortest  # long enough to hold word-for-word recitals
        normalized = normalize(text) if whole else ""
        found = identity_items(text, tuple(token for token in identifiers(text) if token not in seen), answered)
        unspent = [[s for i, s in enumerate(c.sentences) if i not in spent[k]] if spent and spent[k] else c.sentences
                   for k, c in enumerate(self.compiled)]
        outcomes = tuple((c.id, _FAIL if own >= LISTED_IDENTITY or self._pastes(text, c.pasted, PASTED_WORDS) else
                          self._wants_only(self._outcome(text, said, whole, normalized, sentences, c.minimum,
                                                         *c.word_for_word, prompt, opening and c.opens_with_reason,
                                                         max(found, own), c.pasted, c.stance),
                                           text, said, sentences, max(found, own), c))
                         for c, own, sentences in zip(self.compiled, listed, unspent))
        return None if all(outcome is _PASS for _, outcome in outcomes) else outcomes

    @staticmethod
    def _wants_only(outcome: str, text: str, said: frozenset[str], sentences: list[Sentence], identity: int,
                    criterion: "RecitalCriterion") -> str:
        """``outcome``, or :data:`_WANTS` (suspect) for a paraphrased recital (``outcome``
        ``"fail"``) of what the user wants of its request and nothing else: every sentence of
        ``sentences`` it nearly recites or touches by a distinctive word states a want
        (:attr:`Sentence.wants`), it states no identity item (``identity``), and talks about
        its brief only by the terms it sets (:func:`~userbench_env.fidelity.language.recital_cues`
        without terms). ``minimum`` sentences copied in the scenario's second person stay a
        recital."""
        if outcome is not _FAIL or identity or recital_cues(text, terms=False):
            return outcome
        touched = [sentence for sentence in sentences if sentence.marks & said or _nearly(sentence, said)]
        if not all(sentence.wants for sentence in touched) or _copies(text, criterion.word_for_word[1], criterion.minimum):
            return outcome
        return _WANTS

    @staticmethod
    def _pastes(text: str, pasted: frozenset[tuple[str, ...]], words: int) -> bool:
        """True when ``text`` repeats at least ``words`` words of its scenario's wording
        beyond its request (``pasted``, :attr:`RecitalCriterion.pasted`), in runs
        (:func:`~userbench_env.fidelity.text.pasted_words`). At :data:`PASTED_WORDS`,
        whatever it says, it pastes its brief."""
        return len(text) >= 2 * words - 1 and pasted_words(text, pasted) >= words

    @staticmethod
    def _outcome(text: str, said: frozenset[str], whole: bool, normalized: str,
                 sentences: list[Sentence],
                 minimum: int, verbatim: list[str], copied: list[str], prompt: frozenset[str] = frozenset(),
                 states_reason: bool = False, identity: int = 0, pasted: frozenset[tuple[str, ...]] = frozenset(),
                 stance: bool = False) -> str:
        """The outcome of one criterion. Only the sentences the agent's latest text did not
        ask about (none of their words in ``prompt``) count, and the marks of a paraphrased
        recital (talk about the brief, the user's identity) need one sentence more after such
        a question: answering the agent's question with what the scenario says about it is no
        recital. ``states_reason``: the text is the opening of a user told to open with its
        reason for calling: when it states a condition of that reason (holds the words a
        fallback sentence needs), conditions are its request's, not talk about its brief.
        ``identity``: how many identity items the text states (see :meth:`DumpsBlueprint.compile`);
        ``pasted``: the scenario's wording beyond its request (:attr:`RecitalCriterion.pasted`):
        two sentences recited beyond the request with :data:`COPIED_WORDS` words of it copied
        (:meth:`_pastes`) are a paste of them, not a request in the user's words. ``stance``:
        the scenario tells the user to hold out (:attr:`RecitalCriterion.stance`): announcing
        so beside its stance notes alone, or nothing, is acting it, no talk about the brief."""
        conditions = not (states_reason and any(reason and len(words & said) >= need
                                                for words, need, reason, *_ in sentences))
        if whole and ((verbatim and sum(1 for sentence in verbatim if sentence in normalized) >= minimum)
                      or _copies(text, copied, minimum)):
            return _FAIL
        # a distinctive word (a number, a name) stands for a word a paraphrase changed, down to two words
        nearly = [(sentence, sentence.words & said, least) for sentence in sentences if (least := _nearly(sentence, said))]
        if _one_line(nearly, prompt) and not recital_cues(text, conditions):
            return _PASS  # the sentences of one line the scenario quotes for the user to say, and nothing else: the line said
        # a long sentence touched by one everyday word, "able", is what any message on the matter says: it is
        # recited only firmly (its topic words aside, "if asked whether you are able to send ..." is one word long)
        firm = [(sentence, shared, least) for sentence, shared, least in nearly
                if len(shared) >= 2 or shared & sentence.marks or 2 * len(shared) >= sentence.size]
        matched = [(shared, least, sentence.fallback, sentence.words) for sentence, shared, least in firm]
        # acting the stance it was given is in character: beside its stance notes alone, or nothing, announcing it
        # ("I won't take no for an answer") is no talk about the brief
        talk = partial(recital_cues, stance=not stance or any(not sentence.stance for sentence, _, _ in firm))
        # voicing its own persona is in character: beside persona notes alone, or nothing, with no other talk
        # about the brief ("I should warn you"), describing oneself and how one is to be dealt with is none
        manner = any(not sentence.persona or shared & sentence.marks for sentence, shared, _ in firm) or talk(
            text, conditions, False) > 0
        unasked = [sentence for sentence in sentences if not sentence.words & prompt] if prompt else sentences
        # answering a question about the scenario's matters, a reply touches more of it: one more sentence needed
        enough = minimum + 1 if prompt else minimum
        if not matched:  # nothing nearly recited: talking about its brief, a message touching enough sentences recites them
            # (persona notes aside: touching them by a word each voices the persona, "a sad sort of week")
            touched, firmly = _touched([s for s in unasked if not s.persona], said, set(), text, normalized)
            if touched >= enough and talk(text, conditions):
                if firmly < enough:
                    return _LIGHT
                return _FAIL if talk(stated_part(text), conditions) else _TALK_ASKED
            return _PASS
        recited, free, used, near = _recited(matched, sentences, said, text, normalized, minimum, prompt)
        if free >= minimum:  # what the agent just asked about is answered, not recited
            # sure only when what the message states beyond its requests recites enough
            stated = content_stems(stated_part(text)) & said
            beyond = _recited([(shared & stated, *rest) for shared, *rest in matched], sentences, stated, text,
                              normalized, minimum, prompt)[1]
            # (with the user's identity, a recital lists several scenario facts at once, as below)
            sure = (beyond > minimum or (beyond == minimum and (talk(text, conditions, manner)
                                                                 or RecitalReader._pastes(text, pasted, COPIED_WORDS)))
                    or identity >= RECITAL_IDENTITY)
            return _FAIL if sure else _ASKED if beyond < minimum else _BARE
        if free and identity >= RECITAL_IDENTITY:
            return _FAIL  # a scenario sentence recited with the user's identity: several scenario facts at once
        # talking about its own brief, a message recites every sentence whose (new) words it touches
        touched, firmly = (free + count for count in _touched(unasked, said, used, text, normalized))
        cues = talk(text, conditions, manner) if free or near or touched >= enough else 0
        if (cues >= 2 and free) or (cues and touched >= enough):
            # (announcing the brief twice over, a plan and its fallback, with one sentence recited); sure
            # when the talk is in what the message states: a limit named in a question is the request
            stated_cues = talk(stated_part(text), conditions, manner)
            if (stated_cues >= 2 and free) or (stated_cues and firmly >= enough):
                return _FAIL
            return _LIGHT if stated_cues else _TALK_ASKED
        return _UNSURE if recited == minimum - 1 and near else _PASS


def _recited(matched: list[tuple[frozenset[str], int, str, frozenset[str]]], sentences: list[Sentence],
             said: frozenset[str], text: str, normalized: str, minimum: int,
             prompt: frozenset[str]) -> tuple[int, int, set[str], bool]:
    """``(recited, free, used, near)``: how many scenario sentences the ``matched`` ones
    (``(shared words, words needed, fallback form, words)``, nearly recited) recite, each
    bringing a word the ones before it did not, and how many of them the agent's latest
    text did not ask about (``prompt``); the words they used; and whether a further one is
    nearly recited. Once one is recited, a further one of ``sentences`` counts by a
    distinctive word of ``said`` alone (until ``minimum``)."""
    matched = sorted(matched, key=lambda m: len(m[0]) / m[1], reverse=True)
    used: set[str] = set()
    recited = free = 0  # recited sentences, and those of them the agent did not ask about
    near = False  # a sentence nearly recited
    for shared, need, reason, words in matched:
        if reason and reason in (normalized or normalize(text)):
            continue  # the reason's fallback as the scenario words it: the reason for calling, stated
        if len(shared) >= need and (not used or shared - used - {NEGATION}):
            recited += 1
            free += not words & prompt
            used |= shared
        elif len(shared) >= need * UNSURE_SHARE and shared - used:
            near = True
    if 0 < recited < minimum:  # once a sentence is recited, a further one counts by a distinctive word alone
        stated = normalized or normalize(text)
        for words, _, reason, marks, *_ in sentences:
            if (touched := marks & said - used) and not (reason and reason in stated):
                recited += 1
                free += not words & prompt
                used |= touched
    return recited, free, used, near


def _copies(text: str, copied: list[str], minimum: int) -> bool:
    """True when ``text`` holds ``minimum`` of the ``copied`` sentences as the scenario writes
    them, second person and all (:func:`~userbench_env.fidelity.text.copied_sentences`)."""
    return bool(copied) and sum(1 for sentence in copied if sentence in literal(text)) >= minimum


def _nearly(sentence: Sentence, said: frozenset[str]) -> int:
    """How many of ``sentence``'s words a message must hold to recite it, when the words of
    ``said`` it holds nearly recite it (:data:`UNSURE_SHARE` of them), else 0: a distinctive
    word (a number, a name) stands for a word a paraphrase changed, down to two words."""
    shared = sentence.words & said
    least = max(min(sentence.need, 2), sentence.need - len(shared & sentence.marks))
    return least if len(shared) >= least * UNSURE_SHARE else 0


def _one_line(nearly: list[tuple[Sentence, frozenset[str], int]], prompt: frozenset[str] = frozenset()) -> bool:
    """True when the ``nearly`` recited sentences (``(sentence, words of it said, words
    needed)``) are of one line the scenario quotes for the user to say (:attr:`Sentence.lines`),
    but those the agent's latest text asked about (sharing a word with ``prompt``: answered,
    not recited) and those nearly recited only by words of that line as said (a scenario's
    note on when to say a line shares its words: "Get frustrated" before "This whole
    experience has been frustrating"): saying that line, however many sentences it has,
    plays one line of the script."""
    unasked = [(sentence, shared) for sentence, shared, _ in nearly if not sentence.words & prompt]
    quoted = [(sentence, shared) for sentence, shared in unasked if sentence.lines]
    if not quoted:
        return False
    line_words = frozenset().union(*(shared for _, shared in quoted))
    return bool(frozenset.intersection(*(sentence.lines for sentence, _ in quoted))) and not any(
        _nearly(sentence, shared - line_words) for sentence, shared in unasked if not sentence.lines)


def _touched(sentences: list[Sentence], said: frozenset[str], used: set[str],
             text: str, normalized: str) -> tuple[int, int]:
    """``(touched, firmly)``: how many of ``sentences`` bring a word of ``said`` (the content
    stems of ``text``, whose :func:`~userbench_env.fidelity.text.normalize` form is
    ``normalized`` when computed) that neither ``used`` nor an earlier one of them holds
    (negation aside): the scenario sentences a message touches (a fallback stated word for
    word with the reason is the reason, stated); and how many touch firmly, counted the
    same way among themselves: by two new words, a distinctive one, or half the sentence's
    words (one everyday word of a longer sentence, "photo", "year", is what any message on
    the matter says: no sure sign of a recital)."""
    seen, firm_seen = set(used), set(used)
    touched = firmly = 0
    for words, _, reason, marks, *_ in sentences:
        if not (words & said) or (reason and reason in (normalized or normalize(text))):
            continue
        if fresh := (words & said) - seen - {NEGATION}:
            touched += 1
            seen |= fresh
        if (fresh := (words & said) - firm_seen - {NEGATION}) and (
                len(fresh) >= 2 or fresh & marks or 2 * len(fresh) >= len(words)):
            firmly += 1
            firm_seen |= fresh
    return touched, firmly


_DISTINCTIVE = re.compile(r"(?<=[a-z,;:] )[A-Z][A-Za-z]+|\b\d[\d.,:]*\d\b|\b\d{2,}\b")


def distinctive_stems(sentence: str) -> frozenset[str]:
    """Stems of the words of ``sentence`` a paraphrase keeps: numbers of two digits or more
    (ages, amounts, sizes) and capitalized words inside a sentence (names of people, places,
    plans and products)."""
    return frozenset().union(*(content_stems(token) for token in _DISTINCTIVE.findall(sentence))) - {NEGATION}


#: The identity items (:func:`~userbench_env.fidelity.language.identity_items`) a message
#: reciting one scenario sentence states to list several scenario facts at once.
RECITAL_IDENTITY = 2


#: Words of its scenario's wording beyond its request a message pastes to recite its brief,
#: whatever they say: about three scenario sentences (no faithful message of the corpus or
#: of the writers' batches 46 to 59 pastes more than 46).
PASTED_WORDS = 50
#: The fewest characters holding :data:`PASTED_WORDS` words (each a character and a space at least).
PASTE_LENGTH = 2 * PASTED_WORDS - 1
#: How many words of its scenario's wording beyond its request (in runs, as above) make two
#: scenario sentences a message recites beyond its request a copy, with no talk about its brief.
COPIED_WORDS = PASTED_WORDS // 2


#: A scenario sentence stating what the user wants of its request, its subject the user
#: ("You want ...", "You only want ...", "You are willing to ... only if ...", "You do not want
#: to ...", "You would prefer ..."): the request's terms.
WANTS = re.compile(r"\W*(?:also,? |but |then,? )?you(?:'d (?:like|prefer|rather)|(?: \w+)? don't want"
                   r"| (?:\w+ ){0,2}?(?:want|would like|prefer|would rather|need|are (?:only )?willing|"
                   r"are (?:ok|okay|fine|happy) with))\b", re.IGNORECASE)


#: A clause making a sentence a fallback, a plan for the agent's answer rather than a term of
#: the request: "otherwise", "if not", a condition with a negation or on the agent ("if that's
#: not possible", "if the agent refuses"); "only if it costs less than $100" is a term.
FALLBACK_CLAUSE = re.compile(r"\b(?:otherwise|if not|failing that|instead)\b"
                             r"|\bif\b[^.!?]*?(?:\b(?:not|no|cannot|agent)\b|n't\b)", re.IGNORECASE)


#: The user's own identity items (its name, email, phone, zip code, ...) an opening lists to
#: recite the scenario's known info whatever else it says.
LISTED_IDENTITY = 3


#: Content words of a scenario sentence a message must hold at most (long sentences are summarized, not recited whole).
RECITE_CAP = 3


#: A word in at least this many of a scenario's sentences, and this share of them, is its
#: topic ("card" in a card scenario): every message about it holds it, so it tells no recital.
TOPIC_SENTENCES = 3


TOPIC_SHARE = 0.2


#: The share of a sentence's needed words a borderline recital holds.
UNSURE_SHARE = 0.75


#: Stems of how scenarios address the simulated user ("If the agent asks, say ..."): not
#: what a recital is recognized by.
SCENARIO_WORDS = content_stems("agent ask asks say tell mention want conversation possible explain try get make know "
                               "user customer provide will would")


#: Stems of how agents greet, offer help and close ("How can I help you today?"): never what
#: an agent's text asks about.
AGENT_COURTESY = content_stems("help assist today anything else welcome contact happy glad great day hear sorry")

