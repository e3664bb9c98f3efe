"""Building proxies from spec strings: ``scripted``, ``replay:<file>``, ``litellm:<model>``,
``direct:<model>`` (an OpenAI-compatible server without litellm; needs the ``base_url``
option), ``human``.

A spec is ``<kind>`` or ``<kind>:<rest>``; the kind picks a factory in
:data:`PROXY_SPECS`, which receives ``rest`` (may be empty) and keyword options. Other
modules add kinds with :func:`register_proxy_spec` (e.g. ``perturbed:<faults>+<base
spec>``, whose factory calls :func:`make_proxy` on the base spec). Heavy proxies are
imported inside their factory.
"""
from __future__ import annotations

from typing import Any, Callable

from userbench_env.proxies.base import UserProxy

ProxyFactory = Callable[..., UserProxy]

PROXY_SPECS: dict[str, ProxyFactory] = {}


def register_proxy_spec(kind: str, factory: ProxyFactory) -> None:
    """Make ``make_proxy("<kind>:<rest>")`` call ``factory(rest, **options)``."""
    PROXY_SPECS[kind] = factory


def make_proxy(spec: str | UserProxy, **options: Any) -> UserProxy:
    """A proxy from a spec string (a proxy object is returned unchanged).

    Raises ``ValueError`` naming the known kinds for an unknown kind or a missing part.
    """
    if isinstance(spec, UserProxy):
        return spec
    kind, _, rest = spec.strip().partition(":")
    factory = PROXY_SPECS.get(kind)
    if factory is None:
        raise ValueError(f"unknown user proxy spec {spec!r}; known kinds: {', '.join(sorted(PROXY_SPECS))}")
    return factory(rest, **options)


def _scripted(rest: str, **options: Any) -> UserProxy:
    from userbench_env.proxies.scripted import ScriptedUserProxy

    return ScriptedUserProxy(**options)


def _replay(rest: str, **options: Any) -> UserProxy:
    from userbench_env.proxies.replay import ReplayUserProxy

    if not rest:
        raise ValueError("replay spec needs a file: 'replay:<path>'")
    return ReplayUserProxy(rest, **options)


def _litellm(rest: str, **options: Any) -> UserProxy:
    from userbench_env.proxies.llm import LLMUserProxy

    if not rest:
        raise ValueError("litellm spec needs a model: 'litellm:<provider/model>'")
    return LLMUserProxy(model=rest, **options)


def _direct(rest: str, **options: Any) -> UserProxy:
    from userbench_env.proxies.llm import LLMUserProxy

    if not rest:
        raise ValueError("direct spec needs a model: 'direct:<served model name>'")
    if not options.get("base_url"):
        raise ValueError("direct spec needs the base_url option of the OpenAI-compatible server")
    return LLMUserProxy(model=rest, transport="direct", **options)


def _human(rest: str, **options: Any) -> UserProxy:
    from userbench_env.proxies.human import HumanUserProxy

    return HumanUserProxy(**options)


for _kind, _factory in (("scripted", _scripted), ("replay", _replay), ("litellm", _litellm), ("direct", _direct),
                       ("human", _human)):
    register_proxy_spec(_kind, _factory)
