"""tau2-bench's telecom domain: account tools for the agent, a simulated phone for the user.

>>> from userbench_env.domains import make_world
>>> world = make_world("telecom", source="tau2")                         # doctest: +SKIP
>>> world.call("check_status_bar", {}, requestor="user").content         # doctest: +SKIP
'Status Bar: 📶³ Good | 5G | 📱 Data Enabled | 🔋 80%'
"""
from userbench_env.domains.telecom.domain import TelecomDomain

__all__ = ["TelecomDomain"]
