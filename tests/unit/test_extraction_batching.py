"""Several short chunks per extraction call, and LLM summaries only for communities worth one.

The graph built with batching equals the one built a chunk per call (same entity, relation,
mention and community ids) on the generated ledger corpus and on the demo corpus, with the
deterministic fake of :func:`kg_rag.testing.graph_chat_model`; batching only changes how many
calls (and prompt tokens) it took. A chunk whose part of a batch reply is missing or refused
goes on alone through the single-chunk path.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from ledger_corpus import fingerprint, open_engine, write_corpus

from communities.schema import CommunityContext, EntityInfo
from communities.summarize import ExtractiveSummarizer, LLMSummarizer
from extraction.llm import LLMExtractor
from extraction.schema import ChunkInput
from extraction.tokens import count_tokens
from kg_rag.demo import corpus_path
from kg_rag.testing import FakeChatModel, graph_chat_model

pytestmark = pytest.mark.unit


def _ingest(kb: Path, corpus: Path, batch_tokens: int, max_batch: int = 4) -> Any:
    # Cache in the KB folder: the batched run must make its own calls, not reuse the single's.
    with open_engine(kb, graph_chat_model(), mode="llm", response_cache="kb") as kg:
        kg.settings.extraction.batch_tokens = batch_tokens
        kg.settings.extraction.max_batch = max_batch
        return kg.ingest([corpus])


@pytest.fixture(scope="module")
def ledger_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("batching") / "corpus", range(16))


@pytest.mark.parametrize("which", ["ledger", "demo"])
@pytest.mark.parametrize(("batch_tokens", "max_batch"), [(600, 4), (2000, 8)])
def test_batching_leaves_the_graph_unchanged(
    tmp_path: Path, ledger_corpus: Path, which: str, batch_tokens: int, max_batch: int
) -> None:
    corpus = ledger_corpus if which == "ledger" else corpus_path()
    single = _ingest(tmp_path / "single" / "kb", corpus, 0)
    batched = _ingest(tmp_path / "batched" / "kb", corpus, batch_tokens, max_batch)
    # The fake finds no names in the demo's Chinese documents: those fail alike either way.
    assert sorted(f.item_id for f in single.failures) == sorted(f.item_id for f in batched.failures)
    assert which == "demo" or single.failures == []
    assert batched.graph.llm_calls < single.graph.llm_calls
    assert batched.graph.prompt_tokens < single.graph.prompt_tokens
    a, b = fingerprint(tmp_path / "single" / "kb"), fingerprint(tmp_path / "batched" / "kb")
    for key in ("entities", "relations", "mentions", "communities"):
        assert a[key] == b[key], key
    assert a["entities"] and a["relations"]


def _chunks(*sizes: int) -> list[ChunkInput]:
    return [ChunkInput(chunk_id=f"c{i}", text=" ".join(["word"] * n)) for i, n in enumerate(sizes)]


@pytest.mark.parametrize(
    ("sizes", "batch_tokens", "max_batch", "groups"),
    [
        ((10, 10, 10), 0, 4, [[0], [1], [2]]),
        ((10, 10, 10), 100, 4, [[0, 1, 2]]),
        ((10, 10, 10, 10, 10), 100, 2, [[0, 1], [2, 3], [4]]),
        ((60, 60, 60), 100, 4, [[0], [1], [2]]),
        ((10, 500, 10, 10), 100, 4, [[0, 2, 3], [1]]),
        ((40, 40, 40, 40), 100, 8, [[0, 1], [2, 3]]),
    ],
)
def test_batches_pack_in_order_within_both_bounds(
    sizes: tuple[int, ...], batch_tokens: int, max_batch: int, groups: list[list[int]]
) -> None:
    extractor = LLMExtractor(
        FakeChatModel(script=[]), batch_tokens=batch_tokens, max_batch=max_batch
    )
    chunks = _chunks(*sizes)
    got = extractor.batches(chunks)
    assert got == groups
    for group in got:
        if len(group) > 1:
            assert sum(count_tokens(chunks[i].text) for i in group) <= batch_tokens


@pytest.mark.parametrize(
    ("limit", "asked", "batch"),
    [(None, 600, 600), (1024, 600, 341), (4096, 600, 600), (1024, 0, 0)],
)
def test_a_model_completion_limit_caps_the_batch(limit: int | None, asked: int, batch: int) -> None:
    model = FakeChatModel(script=[]) if limit is None else _Limited(script=[], max_tokens=limit)
    assert LLMExtractor(model, batch_tokens=asked).batch_tokens == batch


class _Limited(FakeChatModel):
    max_tokens: int = 1024


TEXTS = [
    "Ada Lovelace met Charles Babbage in London.",
    "Mao Zedong's policies shaped Beijing.",
    "Alan Turing worked at Bletchley Park.",
]


def _batch_reply(drop: int | None = None, wrong: int | None = None) -> str:
    parts = []
    for n, text in enumerate(TEXTS, start=1):
        if n == drop:
            continue
        words = text.replace("'s", "").rstrip(".").split()
        name = "Nobody Here" if n == wrong else " ".join(words[:2])
        parts.append({"n": n, "entities": [{"name": name, "type": "PERSON"}], "relations": []})
    return json.dumps({"texts": parts})


def _single_reply(prompt: str) -> str:
    for text in TEXTS:
        if text in prompt:
            name = " ".join(text.replace("'s", "").split()[:2])
            return json.dumps({"entities": [{"name": name, "type": "PERSON"}]})
    raise AssertionError("unexpected prompt")


@pytest.mark.parametrize(
    ("batch", "singles"),
    [
        (_batch_reply(), []),
        (_batch_reply(drop=2), ["c1"]),
        (_batch_reply(wrong=3), ["c2"]),
        ('{"unexpected": true}', ["c0", "c1", "c2"]),
    ],
)
def test_a_missing_or_refused_part_goes_alone(batch: str, singles: list[str]) -> None:
    fake = FakeChatModel(
        script=[(r"\[1\] Text", batch), ("You build a knowledge graph", _single_reply)]
    )
    extractor = LLMExtractor(fake, batch_tokens=500, max_retries=0, show_progress=False)
    chunks = [ChunkInput(chunk_id=f"c{i}", text=t) for i, t in enumerate(TEXTS)]
    results = asyncio.run(extractor.aextract(chunks))
    assert [r.chunk_id for r in results] == ["c0", "c1", "c2"]
    assert all(r.ok and r.entities for r in results), [r.error for r in results]
    alone = [c for c in fake.calls if "[1] Text" not in c.prompt]
    assert sorted(TEXTS[int(cid[1:])] in c.prompt for cid in singles for c in alone).count(
        True
    ) == len(singles)
    assert len(fake.calls) == 1 + len(singles)


@pytest.mark.parametrize(
    ("text", "name", "ok"),
    [
        ("Mao Zedong's policies shaped it.", "Mao Zedong", True),
        ("Long known as Bedloe's Island.", "Bedloe", True),
        ("Take-Two's CEO spoke.", "Take-Two", True),
        ("The company’s founder, Ada Lovelace.", "Ada Lovelace", True),
        ("Mao Zedong's policies shaped it.", "Zhou Enlai", False),
        ("James's book.", "James", True),
    ],
)
def test_possessives_count_as_naming_the_entity(text: str, name: str, ok: bool) -> None:
    from extraction.schema import ExtractedEntity, ExtractionOutput

    check = LLMExtractor(FakeChatModel(script=[])).check_reply(ChunkInput(chunk_id="c", text=text))
    verdict = check(ExtractionOutput(entities=[ExtractedEntity(name=name, type="PERSON")]))
    assert (verdict is None) is ok, verdict


def _context(cid: str, size: int) -> CommunityContext:
    ents = [
        EntityInfo(entity_id=f"{cid}-{i}", name=f"Name {cid} {i}", type="PERSON")
        for i in range(size)
    ]
    return CommunityContext(community_id=cid, level=0, size=size, entities=ents, relations=[])


@pytest.mark.parametrize(
    ("sizes", "min_size", "calls"),
    [((2, 3, 12, 40), 10, 2), ((2, 3, 12, 40), 1, 4), ((2, 3), 10, 0), ((10, 9), 10, 1)],
)
def test_only_communities_worth_it_get_an_llm_summary(
    sizes: tuple[int, ...], min_size: int, calls: int
) -> None:
    fake = graph_chat_model()
    summarizer = LLMSummarizer(
        fake, fallback=ExtractiveSummarizer(), min_size=min_size, progress=False
    )
    contexts = [_context(f"k{i}", n) for i, n in enumerate(sizes)]
    reports = summarizer.summarize(contexts)
    assert list(reports) == [c.community_id for c in contexts]
    assert len(fake.calls) == calls and summarizer.failures == []
    assert ("min" in summarizer.prompt_version) is (min_size > 1)


def test_without_a_fallback_small_communities_still_get_a_call(tmp_path: Path) -> None:
    fake = graph_chat_model()
    summarizer = LLMSummarizer(fake, min_size=10, progress=False)
    reports = summarizer.summarize([_context("a", 2)])
    assert list(reports) == ["a"] and len(fake.calls) == 1
    shutil.rmtree(tmp_path, ignore_errors=True)
