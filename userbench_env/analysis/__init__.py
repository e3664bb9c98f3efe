"""Analysis: every table and figure rebuilt from run stores alone.

:mod:`~userbench_env.analysis.load` (records, repricing), :mod:`~.report` (the
UserProxyBench numbers as a JSON-able dict), :mod:`~.tables` (terminal text),
:mod:`~.plots` (PNG figures, matplotlib imported lazily), :mod:`~.frontier` (the
cost-fidelity frontier and proxy selection).
"""
