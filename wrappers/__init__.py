"""Gymnasium wrappers for UserBench envs, importable as ``userbench_env.wrappers``."""
