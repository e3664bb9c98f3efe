"""Which episodes a fidelity gate rejects (shared by ``collect`` and ``FidelityGate``)."""
from __future__ import annotations

from typing import Any, Callable, Iterable, Literal, Union

from pydantic import BaseModel, ConfigDict


class Gate(BaseModel):
    """Reject an episode whose simulated user broke its contract.

    With no ``families`` an episode is rejected when it fails UFS (``ufs_pass`` is
    False); with ``families`` only when a criterion of one of them failed. With
    ``reject_unknown`` an episode without a verdict (``ufs_pass`` None) is rejected too.
    ``suspects``: how ``suspect`` verdicts (possible violations a rule could not be sure
    of, left ungraded without a judge) read: ``"pass"`` (default) keeps them, ``"fail"``
    (the strict reading) rejects an episode holding one (of ``families``, when given).
    ``episode`` is the terminal ``info["episode_record"]`` dict or a run record.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    families: tuple[str, ...] | None = None
    reject_unknown: bool = False
    suspects: Literal["pass", "fail"] = "pass"

    def reason(self, episode: dict[str, Any]) -> str | None:
        """Why ``episode`` is rejected, or ``None`` when it is kept."""
        failures = {f: n for f, n in (episode.get("failures_per_family") or {}).items() if n}
        if self.suspects == "fail":
            suspect = sorted({str(c.get("family")) for c in episode.get("criteria") or []
                              if isinstance(c, dict) and c.get("verdict") == "suspect"
                              and (self.families is None or c.get("family") in self.families)})
            if suspect:
                return "suspect (strict reading): " + ", ".join(suspect)
        if self.families is not None:
            hit = sorted(f for f in failures if f in self.families)
            if hit:
                return "failed families: " + ", ".join(hit)
        elif episode.get("ufs_pass") is False:
            return "failed UFS: " + (", ".join(sorted(failures)) or "criteria failed")
        if self.reject_unknown and episode.get("ufs_pass") is None:
            return "no UFS verdict"
        return None

    def rejects(self, episode: dict[str, Any]) -> bool:
        """True when :meth:`reason` gives a reason."""
        return self.reason(episode) is not None


GateSpec = Union[Gate, str, Iterable[str], Callable[[dict[str, Any]], bool], None]


def make_gate(spec: GateSpec) -> Callable[[dict[str, Any]], bool] | None:
    """A predicate ``episode -> rejected`` from a :class:`Gate`, ``"ufs"``, a family name
    or list of family names, or a predicate; ``None`` keeps everything."""
    if spec is None:
        return None
    if isinstance(spec, Gate):
        return spec.rejects
    if isinstance(spec, str):
        return Gate().rejects if spec == "ufs" else Gate(families=(spec,)).rejects
    if callable(spec):
        return spec
    return Gate(families=tuple(spec)).rejects
