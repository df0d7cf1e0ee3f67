"""Resuming in-process, on a graph store that cannot roll back (as Neo4j): a batch that broke
between writing entities and their mentions is redone after deleting its documents' graph
and the entities it left without mentions; ids, evidence, mentions and communities converge,
also when the files changed again before the re-run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ledger_corpus import DIMS, fingerprint, settings, write_corpus

from kg_rag.engine import KnowledgeEngine
from kg_rag.stores.embedded import EmbeddedGraphStore
from kg_rag.testing import HashEmbeddings

pytestmark = pytest.mark.unit


class Broken(RuntimeError):
    """Stands in for the process dying."""


class NoRollback:
    """An embedded store without ``checkpoint``/``restore``; optionally breaks on one write."""

    def __init__(
        self, path: Path, fail_on: str | None = None, fail_after: str | None = None
    ) -> None:
        self._inner = EmbeddedGraphStore(path)
        self.backend = self._inner.backend
        self.fail_on = fail_on
        self.fail_after = fail_after  # the write lands, then the process dies

    def __getattr__(self, name: str) -> Any:
        if name in ("checkpoint", "restore"):
            raise AttributeError(name)
        attr = getattr(self._inner, name)
        if name == self.fail_on:

            def broken(*args: Any, **kwargs: Any) -> Any:
                raise Broken(name)

            return broken
        if name == self.fail_after:

            def written_then_broken(*args: Any, **kwargs: Any) -> Any:
                attr(*args, **kwargs)
                raise Broken(name)

            return written_then_broken
        return attr


def _ingest(kb: Path, corpus: Path, store: NoRollback) -> None:
    with KnowledgeEngine.open(
        kb,
        settings=settings(kb),
        embedder=HashEmbeddings(DIMS),
        graph_store=store,  # type: ignore[arg-type]
        progress=False,
    ) as kg:
        kg.ingest([corpus], remove_missing=True)


def _ids(kb: Path) -> dict[str, Any]:
    store = EmbeddedGraphStore(kb)
    with store:
        return {
            "entities": sorted(e.entity_id for e in store.all_entities()),
            "relations": sorted((r.relation_id, tuple(r.evidence)) for r in store.all_relations()),
            "mentions": sorted((m.entity_id, m.chunk_id) for m in store.all_mentions()),
            "communities": sorted((c.community_id, tuple(c.members)) for c in store.communities()),
        }


@pytest.mark.parametrize("fail_on", ["upsert_relations", "upsert_mentions", "apply_communities"])
@pytest.mark.parametrize("edited_again", [False, True])
def test_store_without_rollback_converges_after_a_broken_batch(
    tmp_path: Path, fail_on: str, edited_again: bool
) -> None:
    corpus = write_corpus(tmp_path / "corpus", range(12))
    kb = tmp_path / "broken"
    _ingest(kb, corpus, NoRollback(kb))
    write_corpus(corpus, range(4), version=1)
    with pytest.raises(Broken):
        _ingest(kb, corpus, NoRollback(kb, fail_on=fail_on))
    if edited_again:  # the batch's entities may never be mentioned again
        write_corpus(corpus, range(4), version=2)
    _ingest(kb, corpus, NoRollback(kb))
    # The uninterrupted equivalent: the first version, then the last (the broken batch in
    # between must leave no trace).
    clean, clean_corpus = tmp_path / "clean", write_corpus(tmp_path / "clean-corpus", range(12))
    _ingest(clean, clean_corpus, NoRollback(clean))
    write_corpus(clean_corpus, range(4), version=2 if edited_again else 1)
    _ingest(clean, clean_corpus, NoRollback(clean))
    got, want = _ids(kb), _ids(clean)
    for key in want:
        assert got[key] == want[key], key


def test_a_death_right_after_the_community_write_still_reaches_the_index(tmp_path: Path) -> None:
    """The communities are written, then the process dies before the index step: the rerun
    finds them unchanged in the store, yet the community index must still take them in."""
    corpus = write_corpus(tmp_path / "corpus", range(12))
    kb = tmp_path / "broken"
    _ingest(kb, corpus, NoRollback(kb))
    write_corpus(corpus, range(4), version=1)
    with pytest.raises(Broken):
        _ingest(kb, corpus, NoRollback(kb, fail_after="apply_communities"))
    _ingest(kb, corpus, NoRollback(kb))
    clean, clean_corpus = tmp_path / "clean", write_corpus(tmp_path / "clean-corpus", range(12))
    _ingest(clean, clean_corpus, NoRollback(clean))
    write_corpus(clean_corpus, range(4), version=1)
    _ingest(clean, clean_corpus, NoRollback(clean))
    got, want = fingerprint(kb), fingerprint(clean)
    assert got["communities"] == want["communities"]
    assert got["index"] == want["index"]
