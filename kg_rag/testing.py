"""Deterministic test doubles that run the production code paths unchanged.

* :class:`FakeChatModel` is a real LangChain ``BaseChatModel``: it answers from a script of
  ``(pattern, response)`` entries, supports ``bind_tools`` and therefore
  ``with_structured_output``, records every call, reports token usage, and raises
  :class:`~kg_rag.errors.UnscriptedPromptError` on a prompt no entry matches.
* :class:`HashEmbeddings` is a LangChain ``Embeddings`` that hashes tokens into a fixed-size
  vector: no model, same text → same vector, shared words → nearby vectors. It counts calls.
* :func:`graph_chat_model` is a :class:`FakeChatModel` scripted for LLM-mode ingest: it
  answers extraction prompts with the capitalized names of the chunk and community prompts with
  a report made from the prompt, deterministically.
* :class:`FaultInjectingChatModel` wraps a fake and makes a seeded share of its calls fail the
  ways real endpoints do (timeout, HTTP 429, truncated JSON, invalid JSON, schema-valid
  nonsense); which calls fail depends only on the seed and the prompt, not on timing.

Users can test their own code against kg-rag with these, too.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import threading
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, PrivateAttr

from kg_rag.errors import UnscriptedPromptError

__all__ = [
    "FAULT_KINDS",
    "FakeCall",
    "FakeChatModel",
    "FaultInjectingChatModel",
    "HashEmbeddings",
    "InjectedFault",
    "RateLimitedError",
    "Response",
    "graph_chat_model",
    "knowledge_base_fingerprint",
]

Response = str | BaseException | Callable[[str], str]
"""A scripted reply: text (JSON args when tools are bound), an exception to raise, or a
function of the prompt text."""

_TOKEN = re.compile(r"\w+", re.UNICODE)


@dataclass
class FakeCall:
    """One recorded call: the flattened prompt, the tools bound, and what was returned."""

    prompt: str
    tools: list[str]
    response: str
    pattern: str


@dataclass
class _Entry:
    pattern: re.Pattern[str]
    responses: list[Response]
    used: int = 0


def _flatten(messages: Sequence[BaseMessage]) -> str:
    parts = []
    for m in messages:
        content = m.content if isinstance(m.content, str) else json.dumps(m.content)
        parts.append(f"{m.type}: {content}")
    return "\n".join(parts)


def _count_tokens(text: str) -> int:
    return len(_TOKEN.findall(text))


class FakeChatModel(BaseChatModel):
    """A scripted chat model.

    Args:
        script: ``(pattern, response_or_responses)`` pairs. ``pattern`` is a regular
            expression searched in the flattened prompt (``"role: content"`` lines); the
            first matching entry answers. A list of responses is consumed in order and its
            last item repeats. A response may be an exception (raised) or a callable of the
            prompt text.

    Example:
        >>> fake = FakeChatModel(script=[("capital of France", "Paris")])
        >>> fake.invoke("What is the capital of France?").content
        'Paris'
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    script: list[tuple[str, Response | list[Response]]]
    model_name: str = "fake-chat"
    tokenizer: str = "words"
    """How usage is counted: ``"words"`` (word tokens of the prompt text, the default) or
    ``"cl100k"`` (:mod:`extraction.tokens`: the messages with their framing plus the tool
    schema as sent, like a paid API bills it)."""

    _entries: list[_Entry] = PrivateAttr(default_factory=list)
    _calls: list[FakeCall] = PrivateAttr(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def model_post_init(self, __context: Any) -> None:
        self._entries = [
            _Entry(re.compile(p, re.IGNORECASE | re.DOTALL), r if isinstance(r, list) else [r])
            for p, r in self.script
        ]

    @property
    def _llm_type(self) -> str:
        return "kg-rag-fake-chat"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model_name}

    @property
    def calls(self) -> list[FakeCall]:
        """Every call made so far, in order."""
        return list(self._calls)

    def calls_matching(self, pattern: str) -> list[FakeCall]:
        """Calls whose prompt matches ``pattern`` (regular expression, case-insensitive)."""
        rx = re.compile(pattern, re.IGNORECASE | re.DOTALL)
        return [c for c in self._calls if rx.search(c.prompt)]

    def reset(self) -> None:
        """Forget recorded calls and rewind every response list."""
        with self._lock:
            self._calls.clear()
            for e in self._entries:
                e.used = 0

    def _next_response(self, prompt: str) -> tuple[Response, str]:
        with self._lock:
            for entry in self._entries:
                if entry.pattern.search(prompt):
                    idx = min(entry.used, len(entry.responses) - 1)
                    entry.used += 1
                    return entry.responses[idx], entry.pattern.pattern
        snippet = prompt[-300:].replace("\n", " | ")
        raise UnscriptedPromptError(
            f"FakeChatModel has no script entry matching this prompt (…{snippet}); "
            "add a (pattern, response) pair to its script."
        )

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        prompt = _flatten(messages)
        response, pattern = self._next_response(prompt)
        tools: list[dict[str, Any]] = kwargs.get("tools") or []
        tool_names = [t["function"]["name"] for t in tools]
        if isinstance(response, BaseException):
            with self._lock:
                self._calls.append(FakeCall(prompt, tool_names, f"<raised {response!r}>", pattern))
            raise response
        text = response(prompt) if callable(response) else response
        with self._lock:
            self._calls.append(FakeCall(prompt, tool_names, text, pattern))
        usage = self._usage(messages, prompt, text, tools)
        if tool_names:
            message = self._tool_message(text, tool_names[0], usage)
        else:
            message = AIMessage(content=text, usage_metadata=usage)
        token_usage = {
            "prompt_tokens": usage["input_tokens"],
            "completion_tokens": usage["output_tokens"],
            "total_tokens": usage["total_tokens"],
        }
        return ChatResult(
            generations=[ChatGeneration(message=message)],
            llm_output={"token_usage": token_usage, "model_name": self.model_name},
        )

    def _usage(
        self, messages: list[BaseMessage], prompt: str, text: str, tools: list[dict[str, Any]]
    ) -> dict[str, int]:
        if self.tokenizer == "cl100k":
            from extraction.tokens import count_tokens, prompt_tokens

            sent = prompt_tokens(messages) + sum(
                count_tokens(json.dumps(t, separators=(",", ":"))) + 8 for t in tools
            )
            out = count_tokens(text)
        else:
            sent, out = _count_tokens(prompt), _count_tokens(text)
        return {"input_tokens": sent, "output_tokens": out, "total_tokens": sent + out}

    @staticmethod
    def _tool_message(text: str, tool_name: str, usage: dict[str, int]) -> AIMessage:
        call_id = f"call_{uuid.uuid5(uuid.NAMESPACE_OID, text).hex[:12]}"
        try:
            args = json.loads(text)
            if not isinstance(args, dict):
                raise ValueError("tool arguments must be a JSON object")
        except ValueError as exc:
            return AIMessage(
                content="",
                invalid_tool_calls=[
                    {
                        "name": tool_name,
                        "args": text,
                        "id": call_id,
                        "error": str(exc),
                        "type": "invalid_tool_call",
                    }
                ],
                usage_metadata=usage,
            )
        return AIMessage(
            content="",
            tool_calls=[{"name": tool_name, "args": args, "id": call_id, "type": "tool_call"}],
            usage_metadata=usage,
        )

    def bind_tools(
        self,
        tools: Sequence[Any],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind tools like an OpenAI model: scripted replies become the first tool's args."""
        formatted = [convert_to_openai_tool(t) for t in tools]
        kwargs.pop("ls_structured_output_format", None)
        return self.bind(tools=formatted, **kwargs)


class HashEmbeddings(Embeddings):
    """Deterministic bag-of-words hashing embedder (no model). Counts texts and calls.

    Args:
        dimensions: Vector size.
    """

    def __init__(self, dimensions: int = 64) -> None:
        self.dimensions = dimensions
        self.model_name = f"hash-{dimensions}"
        self.calls = 0
        self.texts_embedded = 0
        self._lock = threading.Lock()

    def _embed(self, text: str) -> list[float]:
        vec = [0.0] * self.dimensions
        tokens = [t.lower() for t in _TOKEN.findall(text)] or [""]
        for tok in tokens:
            h = hashlib.blake2b(tok.encode("utf-8"), digest_size=8).digest()
            idx = int.from_bytes(h[:4], "little") % self.dimensions
            vec[idx] += 1.0 if h[4] & 1 else -1.0
        norm = sum(v * v for v in vec) ** 0.5 or 1.0
        return [v / norm for v in vec]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed a batch of texts."""
        with self._lock:
            self.calls += 1
            self.texts_embedded += len(texts)
        return [self._embed(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        """Embed one query."""
        return self.embed_documents([text])[0]

    def embed_query_array(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed several queries in one call (as the local encoders batch them)."""
        return self.embed_documents(list(texts))

    def __getstate__(self) -> dict[str, Any]:
        # Picklable (a Ray worker gets a copy): the lock is made anew on the other side.
        state = dict(self.__dict__)
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()


def _digest(*parts: object) -> str:
    return hashlib.blake2b(
        json.dumps(parts, sort_keys=True, default=str).encode("utf-8"), digest_size=12
    ).hexdigest()


def knowledge_base_fingerprint(engine: Any) -> dict[str, list[Any]]:
    """What two builds of one knowledge base must agree on, as sorted plain values.

    Ids and content hashes of every document (with its ingest hash), chunk, entity,
    relation, mention, community and community-index entry of an open
    :class:`~kg_rag.engine.KnowledgeEngine`; vectors are left out (a model may differ in
    the last bits between batchings). Two knowledge bases with equal fingerprints hold the
    same graph, the same chunks and the same communities.

    Args:
        engine: An open engine.

    Returns:
        One sorted list per record kind.
    """
    chunks_store = engine.chunk_store
    graph = engine.graph_store
    docs = chunks_store.list_documents()
    hashes = chunks_store.document_hashes()
    chunks = chunks_store.chunks_for_documents([d.doc_id for d in docs])
    return {
        "documents": sorted(
            (d.doc_id, d.content_hash, hashes.get(d.doc_id, ""), d.title) for d in docs
        ),
        "chunks": sorted(
            (c.chunk_id, c.doc_id, c.level, c.parent_id or "", _digest(c.text)) for c in chunks
        ),
        "entities": sorted(
            (e.entity_id, e.name, e.type, _digest(e.description, sorted(e.aliases)))
            for e in graph.all_entities()
        ),
        "relations": sorted(
            (r.relation_id, r.type, _digest(r.description, sorted(r.evidence), round(r.weight, 6)))
            for r in graph.all_relations()
        ),
        "mentions": sorted((m.entity_id, m.chunk_id, m.doc_id) for m in graph.all_mentions()),
        "communities": sorted(
            (
                c.community_id,
                c.level,
                c.parent_id or "",
                c.content_hash,
                _digest(sorted(c.members), c.title, c.summary),
            )
            for c in graph.communities()
        ),
        "community_index": sorted(c.community_id for c in engine.community_index.all()),
    }


# -- an LLM-mode ingest without an LLM ---------------------------------------------------------
_TEXT_BLOCK = re.compile(r'Text:\n"""\n(.*?)\n"""', re.DOTALL)
_BATCH_BLOCK = re.compile(r'\[(\d+)\] (?:Title: [^\n]*\n)?Text:\n"""\n(.*?)\n"""', re.DOTALL)
_NAME_RUN = re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*\b")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_LEADING = frozenset({"The", "A", "An", "In", "On", "At", "It", "He", "She", "They", "This"})


def _extraction_reply(prompt: str) -> str:
    """Entities: capitalized word runs of the chunk; relations: neighbours in a sentence.

    A batch prompt (numbered texts) gets one item per text, each what that text alone gets."""
    blocks = _BATCH_BLOCK.findall(prompt)
    if blocks:
        return json.dumps({"texts": [{"n": int(n), **_extract(text)} for n, text in blocks]})
    found = _TEXT_BLOCK.search(prompt)
    return json.dumps(_extract(found.group(1) if found else ""))


def _extract(text: str) -> dict[str, Any]:
    entities: dict[str, dict[str, str]] = {}
    relations: list[dict[str, Any]] = []
    for sentence in _SENTENCE.split(text):
        names: list[str] = []
        for match in _NAME_RUN.finditer(sentence):
            words = [w for w in match.group(0).split() if w not in _LEADING]
            if not words:
                continue
            name = " ".join(words)
            if name not in entities:
                kind = (
                    "PERSON"
                    if len(words) == 2
                    else "ORGANIZATION"
                    if len(words) > 2
                    else "LOCATION"
                )
                entities[name] = {"name": name, "type": kind, "description": sentence[:80]}
            if name not in names:
                names.append(name)
        for a, b in itertools.pairwise(names):
            relations.append(
                {
                    "source": a,
                    "target": b,
                    "type": "RELATED_TO",
                    "description": sentence[:80],
                    "strength": 0.8,
                }
            )
    return {"entities": list(entities.values()), "relations": relations}


def _community_reply(prompt: str) -> str:
    digest = hashlib.sha1(prompt.encode("utf-8")).hexdigest()[:8]
    lines = [ln for ln in prompt.splitlines() if " | " in ln and not ln.startswith("Entities")]
    first = lines[0].split(" | ")[0].strip(" -") if lines else "community"
    return json.dumps(
        {
            "title": f"{first} group {digest}",
            "summary": f"A community around {first} ({len(lines)} lines of context).",
            "findings": [ln[:120] for ln in lines[:2]],
            "rating": 5.0,
        }
    )


def graph_chat_model(tokenizer: str = "words") -> FakeChatModel:
    """A fake scripted for extraction and community-report prompts (LLM-mode ingest).

    Deterministic: the same chunk always gets the same entities and relations, the same
    community context the same report. ``tokenizer="cl100k"`` counts usage as a paid API
    would (schema included; see :class:`FakeChatModel`).
    """
    return FakeChatModel(
        script=[
            ("Write the community report for", _community_reply),
            ("You build a knowledge graph", _extraction_reply),
        ],
        tokenizer=tokenizer,
    )


# -- fault injection -----------------------------------------------------------------------------
FAULT_KINDS: tuple[str, ...] = ("timeout", "rate_limit", "truncated", "invalid", "nonsense")
"""The failures :class:`FaultInjectingChatModel` can inject."""


class RateLimitedError(Exception):
    """What an HTTP 429 from a provider looks like to the caller (status code attached)."""

    status_code = 429


@dataclass
class InjectedFault:
    """One injected failure: its kind and the prompt it replaced the answer to."""

    kind: str
    prompt: str


class FaultInjectingChatModel(BaseChatModel):
    """Wrap a :class:`FakeChatModel` so that a share of calls fail like real endpoints do.

    Args:
        inner: The model answering the calls that do not fail.
        rate: Share of calls that fail (0..1).
        seed: Which calls fail is a function of the seed, the prompt and how often that
            prompt was sent before, so it does not depend on concurrency or timing.
        kinds: Failures to draw from (see :data:`FAULT_KINDS`).

    The faults: ``timeout`` raises :class:`TimeoutError`, ``rate_limit`` raises
    :class:`RateLimitedError` (HTTP 429), ``truncated`` cuts the real reply's JSON in half,
    ``invalid`` replies with text that is no JSON, ``nonsense`` with the schema-valid
    ``{"unexpected": true}``. :attr:`faults` lists every one injected; set :attr:`rate` to 0
    to heal the model.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    inner: FakeChatModel
    rate: float = 0.3
    seed: int = 0
    kinds: tuple[str, ...] = FAULT_KINDS
    model_name: str = "fake-chat"

    _seen: dict[str, int] = PrivateAttr(default_factory=dict)
    _faults: list[InjectedFault] = PrivateAttr(default_factory=list)
    _healthy: list[str] = PrivateAttr(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        # The inner model's type: cache keys (and so cached answers) are shared with it.
        return self.inner._llm_type

    @property
    def faults(self) -> list[InjectedFault]:
        """Every injected failure so far, in order."""
        return list(self._faults)

    @property
    def healthy_prompts(self) -> list[str]:
        """Prompts that got a real answer, in order."""
        return list(self._healthy)

    def _draw(self, prompt: str) -> str | None:
        with self._lock:
            n = self._seen.get(prompt, 0)
            self._seen[prompt] = n + 1
        digest = hashlib.sha256(f"{self.seed}\x1f{n}\x1f{prompt}".encode()).digest()
        if int.from_bytes(digest[:8], "big") / 2**64 >= self.rate:
            return None
        return self.kinds[digest[8] % len(self.kinds)]

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        prompt = _flatten(messages)
        kind = self._draw(prompt)
        if kind is None:
            with self._lock:
                self._healthy.append(prompt)
            return self.inner._generate(messages, stop, None, **kwargs)
        with self._lock:
            self._faults.append(InjectedFault(kind, prompt))
        if kind == "timeout":
            raise TimeoutError("Request timed out (injected fault).")
        if kind == "rate_limit":
            raise RateLimitedError("Error code: 429 - rate limit reached (injected fault).")
        tools: list[dict[str, Any]] = kwargs.get("tools") or []
        if kind == "truncated":
            real = self.inner._generate(messages, stop, None, **kwargs).generations[0].message
            assert isinstance(real, AIMessage)
            text = json.dumps(real.tool_calls[0]["args"]) if real.tool_calls else str(real.content)
            text = text[: max(1, len(text) // 2)]
        elif kind == "invalid":
            text = "I could not produce JSON for this: the service is overloaded."
        else:
            text = json.dumps({"unexpected": True})
        usage = {"input_tokens": _count_tokens(prompt), "output_tokens": _count_tokens(text)}
        usage["total_tokens"] = usage["input_tokens"] + usage["output_tokens"]
        if tools:
            message = FakeChatModel._tool_message(text, tools[0]["function"]["name"], usage)
        else:
            message = AIMessage(content=text, usage_metadata=usage)
        return ChatResult(generations=[ChatGeneration(message=message)])

    bind_tools = FakeChatModel.bind_tools  # bind tools like an OpenAI model
