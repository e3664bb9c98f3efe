"""The generators are deterministic, the committed worlds are their output, nothing is tau2's."""
from __future__ import annotations

import json

import pytest

from userbench_env.datapaths import bundled_root
from userbench_env.generate import DEFAULT_SEED, GENERATORS, generate_domain
from userbench_env.generate.writing import folder_files

DOMAINS = sorted(GENERATORS)


def _bytes(folder):
    return {rel: (folder / rel).read_bytes() for rel in folder_files(folder)}


@pytest.mark.parametrize("domain", DOMAINS)
def test_committed_world_is_the_default_seed_output(domain, tmp_path):
    generate_domain(domain, DEFAULT_SEED, tmp_path, verify=False)
    assert _bytes(tmp_path / domain) == _bytes(bundled_root() / domain)


@pytest.mark.parametrize("domain", DOMAINS)
def test_same_seed_same_bytes_other_seed_other_world(domain, tmp_path):
    for name, seed in (("a", 11), ("b", 11), ("c", 12)):
        generate_domain(domain, seed, tmp_path / name, verify=True)
    a, b, c = (_bytes(tmp_path / n / domain) for n in "abc")
    assert a == b
    assert a["tasks.json"] != c["tasks.json"]


def _paragraphs(text):
    return {p.strip() for p in text.split("\n") if len(p.strip()) > 40}


@pytest.mark.parametrize("domain", DOMAINS)
def test_nothing_copied_from_tau2(domain, tau2_data):
    from userbench_env.domains import get_domain

    ours = bundled_root() / domain
    theirs = tau2_data / "domains" / get_domain(domain).tau2_name
    our_text = "\n".join(p.read_text() for p in ours.rglob("*.md"))
    their_text = "\n".join(p.read_text() for p in theirs.rglob("*.md"))
    assert not _paragraphs(our_text) & _paragraphs(their_text)
    # identifiers (user ids, reservation/order ids, names of records) are our own
    our_ids = _ids(ours)
    their_ids = _ids(theirs)
    shared = {s for s in our_ids & their_ids if len(s) >= 8 and any(c.isdigit() for c in s)}
    assert not shared, sorted(shared)[:10]


def _ids(folder):
    """Record ids of the JSON DB tables, and id/phone fields of the TOML record lists."""
    import tomllib

    out: set[str] = set()
    for path in folder.glob("*.toml"):
        for records in tomllib.loads(path.read_text()).values():
            for record in records if isinstance(records, list) else []:
                out.update(str(v) for k, v in record.items() if k.endswith("_id") or k == "phone_number")
    for path in folder.glob("*.json"):
        if path.name != "tasks.json":
            data = json.loads(path.read_text())
            for table in data.values() if isinstance(data, dict) else []:
                if isinstance(table, dict):
                    out.update(str(k) for k in table)
                    if "data" in table and isinstance(table["data"], dict):
                        out.update(table["data"])
    return out
