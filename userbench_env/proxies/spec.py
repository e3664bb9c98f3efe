"""Building proxies from spec strings: ``scripted``, ``replay:<file>``, ``litellm:<model>``,
``direct:<model>`` (an OpenAI-compatible server without litellm; needs the ``base_url``
option), ``human``.

A spec is ``<kind>`` or ``<kind>:<rest>``; the kind picks a factory in
:data:`PROXY_SPECS`, which receives ``rest`` (may be empty) and keyword options. Other
modules add kinds with :func:`register_proxy_spec` (e.g. ``perturbed:<faults>+<base
spec>``, whose factory calls :func:`make_proxy` on the base spec). Heavy proxies are
imported inside their factory. Options are checked against the proxy's constructor
(:func:`checked_options`): a misspelt one is a ``ValueError`` naming it and the valid ones.
"""
from __future__ import annotations

import inspect
from typing import Any, Callable

from userbench_env.proxies.base import UserProxy

ProxyFactory = Callable[..., UserProxy]

PROXY_SPECS: dict[str, ProxyFactory] = {}


def register_proxy_spec(kind: str, factory: ProxyFactory) -> None:
    """Make ``make_proxy("<kind>:<rest>")`` call ``factory(rest, **options)``."""
    PROXY_SPECS[kind] = factory


def make_proxy(spec: str | UserProxy, **options: Any) -> UserProxy:
    """A proxy from a spec string (a proxy object is returned unchanged).

    ``options`` go to the factory: for ``litellm:``/``direct:`` they are
    :class:`~userbench_env.proxies.llm.LLMUserProxy`'s keywords (``base_url``,
    ``api_key``, ``api_key_env``, ``timeout``, ``max_retries``, ``temperature``,
    ``max_tokens``, ``price_override``, ...); a ``perturbed:`` spec hands them to its base.
    Raises ``ValueError`` naming the known kinds for an unknown kind or a missing part,
    and for options given with a proxy object or with a spec that takes none.
    """
    if isinstance(spec, UserProxy):
        if options:
            raise ValueError(f"options {sorted(options)} cannot apply to a proxy object; pass a spec string or configure the object")
        return spec
    kind, _, rest = spec.strip().partition(":")
    factory = PROXY_SPECS.get(kind)
    if factory is None:
        raise ValueError(f"unknown user proxy spec {spec!r}; known kinds: {', '.join(sorted(PROXY_SPECS))}")
    return factory(rest, **options)


def checked_options(kind: str, cls: type, options: dict[str, Any], fixed: tuple[str, ...] = ()) -> dict[str, Any]:
    """``options`` when each is a keyword of ``cls``'s constructor other than ``fixed`` (set
    by the spec itself); else ``ValueError`` naming the unknown options and the valid ones."""
    parameters = inspect.signature(cls).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return options
    valid = sorted(name for name, p in parameters.items() if name not in fixed
                   and p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY))
    unknown = sorted(set(options) - set(valid))
    if unknown:
        raise ValueError(f"unknown option(s) {', '.join(map(repr, unknown))} for the {kind!r} user proxy "
                         f"(user_proxy_options); valid options: {', '.join(valid) or 'none'}")
    return options


def _no_llm_options(kind: str, options: dict[str, Any]) -> None:
    if options:
        raise ValueError(f"the {kind!r} user proxy takes no options (got {sorted(options)}); "
                         "LLM options apply to 'litellm:<model>' and 'direct:<model>' specs")


def _scripted(rest: str, **options: Any) -> UserProxy:
    from userbench_env.proxies.scripted import ScriptedUserProxy

    _no_llm_options("scripted", options)
    return ScriptedUserProxy()


def _replay(rest: str, **options: Any) -> UserProxy:
    from userbench_env.proxies.replay import ReplayUserProxy

    if not rest:
        raise ValueError("replay spec needs a file: 'replay:<path>'")
    return ReplayUserProxy(rest, **checked_options("replay", ReplayUserProxy, options, fixed=("source",)))


def _litellm(rest: str, **options: Any) -> UserProxy:
    from userbench_env.proxies.llm import LLMUserProxy

    if not rest:
        raise ValueError("litellm spec needs a model: 'litellm:<provider/model>'")
    return LLMUserProxy(model=rest, **checked_options("litellm", LLMUserProxy, options, fixed=("model",)))


def _direct(rest: str, **options: Any) -> UserProxy:
    from userbench_env.proxies.llm import LLMUserProxy

    if not rest:
        raise ValueError("direct spec needs a model: 'direct:<served model name>'")
    checked_options("direct", LLMUserProxy, options, fixed=("model", "transport"))
    if not options.get("base_url"):
        raise ValueError("direct spec needs the base_url option of the OpenAI-compatible server")
    return LLMUserProxy(model=rest, transport="direct", **options)


def _human(rest: str, **options: Any) -> UserProxy:
    from userbench_env.proxies.human import HumanUserProxy

    return HumanUserProxy(**checked_options("human", HumanUserProxy, options))


for _kind, _factory in (("scripted", _scripted), ("replay", _replay), ("litellm", _litellm), ("direct", _direct),
                       ("human", _human)):
    register_proxy_spec(_kind, _factory)
