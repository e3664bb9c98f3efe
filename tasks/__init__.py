"""Bundled task data of userbench-env (installed as ``userbench_env.bundled``)."""
