"""The ingest ledger tables: stages, batches, failures, and knowledge bases older than them."""

from __future__ import annotations

import shutil
from pathlib import Path

import lancedb
import pytest
from ledger_corpus import open_engine, write_corpus

from kg_rag.stores.ledger import FAILURE_TABLE, LEDGER_TABLE, Failure, IngestLedger, crash_point

pytestmark = pytest.mark.unit


@pytest.fixture()
def ledger(tmp_path: Path) -> IngestLedger:
    led = IngestLedger(lancedb.connect(str(tmp_path)))
    led.open()
    return led


def _stages(ledger: IngestLedger) -> dict[str, str]:
    return {d: r.stage for d, r in ledger.rows().items()}


def test_batches_move_at_once_and_only_their_own_rows(ledger: IngestLedger) -> None:
    ledger.set_stage({"a": "h1", "b": "h2"}, "graph-pending", checkpoint='{"batch": "1"}')
    ledger.set_stage({"c": "h3"}, "graph-pending")  # left by an older batch, no checkpoint
    ledger.set_stage({"d": "h4"}, "indexed")
    ledger.finish_batch('{"batch": "1"}')
    assert _stages(ledger) == {"a": "graph", "b": "graph", "c": "graph-pending", "d": "indexed"}
    assert all(r.checkpoint == "" for r in ledger.rows().values())


@pytest.mark.parametrize(
    ("moves", "expected"),
    [
        ({"graph": "communities"}, {"a": "communities", "b": "removed", "c": "indexed"}),
        (
            {"removed": "removed-communities"},
            {"a": "graph", "b": "removed-communities", "c": "indexed"},
        ),
        (
            {"graph": "communities", "removed": "removed-communities"},
            {"a": "communities", "b": "removed-communities", "c": "indexed"},
        ),
        ({"communities": "indexed"}, {"a": "graph", "b": "removed", "c": "indexed"}),
    ],
)
def test_advance_moves_whole_stages(
    ledger: IngestLedger, moves: dict[str, str], expected: dict[str, str]
) -> None:
    ledger.set_stage({"a": "h"}, "graph")
    ledger.set_stage({"b": "h"}, "removed")
    ledger.set_stage({"c": "h"}, "indexed")
    ledger.advance(moves)  # type: ignore[arg-type]
    assert _stages(ledger) == expected


def test_forgotten_checkpoints_are_never_restored_again(ledger: IngestLedger) -> None:
    ledger.set_stage({"a": "h"}, "graph-pending", checkpoint='{"batch": "x", "versions": {}}')
    ledger.forget_checkpoints()
    assert ledger.rows()["a"].checkpoint == "" and ledger.rows()["a"].stage == "graph-pending"


def test_drop_by_stage_or_id(ledger: IngestLedger) -> None:
    ledger.set_stage({"a": "h", "b": "h"}, "removed-communities")
    ledger.set_stage({"c": "h", "d": "h"}, "indexed")
    ledger.drop(stage="removed-communities")
    ledger.drop(["c"])
    assert _stages(ledger) == {"d": "indexed"}


def test_failures_add_up_their_attempts_and_clear_by_item(ledger: IngestLedger) -> None:
    ledger.record_failures(
        [
            Failure(kind="extraction", item_id="c1", doc_id="d1", error="timeout", attempts=2),
            Failure(kind="extraction", item_id="c2", doc_id="d1", error="truncated", attempts=2),
            Failure(kind="summary", item_id="k1", error="429", attempts=3),
        ]
    )
    ledger.record_failures([Failure(kind="extraction", item_id="c1", doc_id="d1", error="again")])
    by_id = {f.item_id: f for f in ledger.failures()}
    assert (by_id["c1"].attempts, by_id["c1"].error) == (3, "again")
    assert [f.item_id for f in ledger.failures("summary")] == ["k1"]
    ledger.clear_failures("extraction", ["c1"])
    assert [f.item_id for f in ledger.failures()] == ["c2", "k1"]
    ledger.clear_failures("summary")
    assert [f.item_id for f in ledger.failures()] == ["c2"]
    assert str(ledger.failures()[0]) == "extraction c2 (d1): truncated"


def test_crash_point_does_nothing_unless_armed(monkeypatch: pytest.MonkeyPatch) -> None:
    crash_point("graph")
    monkeypatch.setenv("KG_RAG_TEST_CRASH_AFTER", "communities:1")
    crash_point("graph")  # another point: still alive


def test_a_knowledge_base_older_than_the_ledger_is_taken_as_complete(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus", range(6))
    kb = tmp_path / "kb"
    with open_engine(kb) as kg:
        kg.ingest([corpus])
        before = kg.stats()
    db = lancedb.connect(str(kb))
    for name in (LEDGER_TABLE, FAILURE_TABLE):
        db.drop_table(name)
    shutil.rmtree(kb / f"{LEDGER_TABLE}.lance", ignore_errors=True)
    with open_engine(kb) as kg:
        report = kg.ingest([corpus])
        assert report.graph.chunks_extracted == 0 and report.communities is None
        assert kg.stats() == before
        assert kg.failures() == []


def test_embedded_store_restores_a_checkpoint_exactly(tmp_path: Path) -> None:
    from kg_rag.models import Entity, Mention, Relation
    from kg_rag.stores.embedded import EmbeddedGraphStore

    with EmbeddedGraphStore(tmp_path) as store:
        a, b, c = (Entity(entity_id=f"e{i}", name=f"N{i}", type="PERSON") for i in "abc")
        store.upsert_entities([a, b])
        store.upsert_relations(
            [Relation(source_id="ea", target_id="eb", type="R", evidence=["k1"])]
        )
        store.upsert_mentions([Mention(entity_id="ea", chunk_id="k1", doc_id="d1")])
        before = (store.all_entities(), store.all_relations(), store.all_mentions())
        checkpoint = store.checkpoint()
        store.upsert_entities([a.model_copy(update={"description": "changed"}), c])
        store.upsert_relations(
            [Relation(source_id="ea", target_id="ec", type="R", evidence=["k2"])]
        )
        store.delete_document("d1")
        store.restore(checkpoint)
        assert (store.all_entities(), store.all_relations(), store.all_mentions()) == before
    with EmbeddedGraphStore(tmp_path) as again:
        assert (again.all_entities(), again.all_relations(), again.all_mentions()) == before
