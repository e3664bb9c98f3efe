"""User proxies: who plays the user opposite the agent.

Every proxy follows :class:`~userbench_env.proxies.base.UserProxy`. Build one from a
spec string with :func:`make_proxy` (``scripted``, ``replay:<file>``,
``litellm:<model>``, ``human``). Concrete proxies are imported lazily (the LLM proxy
pulls in litellm).
"""
from userbench_env.proxies.base import ProxyError, Usage, UserProxy, UserTurn, UserView, find_stop
from userbench_env.proxies.spec import PROXY_SPECS, make_proxy, register_proxy_spec

__all__ = [
    "PROXY_SPECS",
    "ProxyError",
    "Usage",
    "UserProxy",
    "UserTurn",
    "UserView",
    "find_stop",
    "make_proxy",
    "register_proxy_spec",
]
