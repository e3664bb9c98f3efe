"""Package discovery for the two folders that live outside ``userbench_env/``.

``wrappers/`` is installed as ``userbench_env.wrappers`` and ``tasks/`` (our bundled
task data) as ``userbench_env.bundled``; everything else is found under ``userbench_env``.
"""
from setuptools import find_packages, setup

packages = find_packages(include=["userbench_env", "userbench_env.*"])
packages += ["userbench_env.wrappers"] + [
    "userbench_env.wrappers." + p for p in find_packages("wrappers")
]
packages += ["userbench_env.bundled"]

setup(packages=packages)
