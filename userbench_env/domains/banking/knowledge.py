"""Rho-Bank's knowledge base: the documents, BM25 search and regex grep over them.

Documents are ``documents/*.json`` files ``{id, title, content}`` in sorted file-name
order. BM25 is ``rank_bm25.BM25Okapi`` over each document's content lower-cased and split
on whitespace (query likewise), which reproduces tau2's ``bm25_grep`` scores; ties keep
document order. Scores are computed from an inverted index of the same model: per query
term, only the documents holding it get its term (every other document's term is 0),
with the same float operations in the same order as ``BM25Okapi.get_scores``, so the
scores are bit-identical at a fraction of the cost. ``grep`` ranks documents by the number of (case-insensitive) regex matches
in their content. Matching runs on the ``regex`` engine with a timeout (see :meth:`KnowledgeBase.grep`). Both answer at most ``top_k`` (10) hits in the format::

    1. <title>
       ID: <id>
       Score: <score, 4 decimals>
       Content: <content>

joined by newlines. BM25 answers end with a wall-clock timing line, like tau2's.
"""
from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Callable

from userbench_env.domains.deadline import ToolTimeout, remaining

TOP_K = 10
_REGEX_SYNTAX = re.compile(r"[.^$*+?{}\[\]\\|()]")
#: Matches a non-ASCII character that re.IGNORECASE equates with an ASCII letter (e.g. K).
_FOLDS_TO_ASCII = re.compile("[a-z]", re.IGNORECASE)


@dataclass(frozen=True)
class KBDocument:
    """One knowledge-base article."""

    id: str
    title: str
    content: str


def _tokens(text: str) -> list[str]:
    return text.lower().split()


class KnowledgeBase:
    """The documents of one data folder with a lazily built BM25 index (read-only, shared)."""

    def __init__(self, documents: list[KBDocument]):
        self.documents = documents

    @classmethod
    def load(cls, folder: Path) -> "KnowledgeBase":
        """Read every ``*.json`` document of ``folder`` in sorted file-name order."""
        docs: dict[str, KBDocument] = {}
        for path in sorted(folder.glob("*.json")):
            raw = json.loads(path.read_text(encoding="utf-8"))
            docs[raw["id"]] = KBDocument(id=raw["id"], title=raw["title"], content=raw["content"])
        return cls(list(docs.values()))

    @cached_property
    def _bm25(self) -> tuple[Any, dict[str, tuple[Any, Any]], Any]:
        """(the BM25Okapi model, per term its postings (document indices, frequencies), the
        per-document length term ``k1 * (1 - b + b * len / avgdl)`` of the denominator)."""
        import numpy as np
        from rank_bm25 import BM25Okapi

        model = BM25Okapi([_tokens(doc.content) for doc in self.documents])
        postings: dict[str, tuple[list[int], list[int]]] = {}
        for index, frequencies in enumerate(model.doc_freqs):
            for term, count in frequencies.items():
                found = postings.setdefault(term, ([], []))
                found[0].append(index)
                found[1].append(count)
        arrays = {term: (np.array(ids), np.array(counts)) for term, (ids, counts) in postings.items()}
        length = model.k1 * (1 - model.b + model.b * np.array(model.doc_len) / model.avgdl)
        return model, arrays, length

    def bm25(self, query: str, top_k: int = TOP_K) -> list[tuple[KBDocument, float]]:
        """The ``top_k`` best BM25 hits with a positive score, best first."""
        import numpy as np

        model, postings, length = self._bm25
        scores = np.zeros(len(self.documents))
        for term in _tokens(query):
            found = postings.get(term)
            if found is None:  # in no document: adds 0 everywhere
                continue
            ids, counts = found
            scores[ids] += (model.idf.get(term) or 0) * (counts * (model.k1 + 1) / (counts + length[ids]))
        order = np.argsort(-scores, kind="stable")[:top_k]  # stable: ties keep document order
        return [(self.documents[i], float(scores[i])) for i in order if scores[i] > 0]

    @cached_property
    def _folded(self) -> list[str | None]:
        """Per document: its lower-cased content when counting a lower-cased ASCII literal
        in it gives exactly the case-insensitive regex count, else None."""
        odd = {c for doc in self.documents for c in doc.content if not c.isascii()}
        unsafe = {c for c in odd if any(ch.isascii() for ch in c.lower()) or _FOLDS_TO_ASCII.fullmatch(c)}
        return [None if unsafe.intersection(doc.content) else doc.content.lower() for doc in self.documents]

    def _count(self, findall: Callable[[str], list[Any]], literal: str | None, index: int) -> int:
        folded = self._folded[index] if literal else None
        if folded is not None:
            return folded.count(literal)
        return len(findall(self.documents[index].content))

    def grep(self, pattern: str, top_k: int = TOP_K, case_sensitive: bool = False) -> list[tuple[KBDocument, float]]:
        """Documents ranked by their number of regex matches (a bad regex is taken literally).

        Whether the pattern is valid (else it is escaped) is decided by ``re``, as in
        tau2; matching runs on the ``regex`` engine (version 0, ``re``-compatible) so a
        catastrophically backtracking pattern stops at the call's time budget
        (:func:`~userbench_env.domains.deadline.remaining`) with :class:`ToolTimeout`.
        """
        flags = 0 if case_sensitive else re.IGNORECASE
        try:
            compiled = re.compile(pattern, flags)
        except re.error:
            compiled = re.compile(re.escape(pattern), flags)
        findall = _bounded_findall(compiled)
        # Fast path, same counts: a case-insensitive ASCII literal is counted with str.count.
        plain = not case_sensitive and pattern.isascii() and pattern and not _REGEX_SYNTAX.search(pattern)
        literal = pattern.lower() if plain and compiled.pattern == pattern else None
        counts = [(doc, self._count(findall, literal, i)) for i, doc in enumerate(self.documents)]
        hits = sorted((pair for pair in counts if pair[1] > 0), key=lambda pair: -pair[1])
        return [(doc, float(count)) for doc, count in hits[:top_k]]


def _bounded_findall(compiled: re.Pattern[str]) -> Callable[[str], list[Any]]:
    """``compiled.findall`` on the ``regex`` engine, stopped at the call's time budget
    (:class:`ToolTimeout`)."""
    import regex

    matcher = regex.compile(compiled.pattern, regex.VERSION0 | (compiled.flags & regex.IGNORECASE))

    def findall(text: str) -> list[Any]:
        try:
            return matcher.findall(text, timeout=remaining())
        except TimeoutError:
            raise ToolTimeout from None

    return findall


def format_hits(hits: list[tuple[KBDocument, float]]) -> str:
    """The ranked-list text of retrieval hits."""
    return "\n".join(
        f"{rank}. {doc.title}\n   ID: {doc.id}\n   Score: {score:.4f}\n   Content: {doc.content}\n"
        for rank, (doc, score) in enumerate(hits, start=1)
    )


def search_answer(kb: KnowledgeBase, query: str) -> str:
    """The ``KB_search`` tool answer: BM25 hits plus the timing line."""
    started = time.perf_counter()
    hits = kb.bm25(query)
    retrieval_ms = (time.perf_counter() - started) * 1000
    body = format_hits(hits) if hits else "No results found."
    total_ms = (time.perf_counter() - started) * 1000
    return f"{body}\n\n[Timing: retrieval={retrieval_ms:.2f}ms, total={total_ms:.2f}ms]"


def grep_answer(kb: KnowledgeBase, pattern: str) -> str:
    """The ``grep`` tool answer."""
    hits = kb.grep(pattern)
    return format_hits(hits) if hits else f"No matches found for pattern: {pattern}"
