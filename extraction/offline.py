"""The offline extractor: entities and co-occurrence relations without an LLM or a model file.

Deterministic and fast (hundreds of passages per second on one core). Mentions come from
:mod:`extraction.english` (proper-noun runs, quoted titles, dates) or, for text with CJK
characters, :mod:`extraction.chinese` (jieba part-of-speech names). Then, per chunk:

* **The title is an entity** (a passage is about its title). Its type comes from a class noun
  the text gives it ("X is a regional airline"), else its own words ("... University"), else
  its mentions in the text, else PERSON for a plain two-to-four word name in a text that says
  he/she (a guess that :func:`extraction.resolve.harmonise_subject_types` overrules with the
  type of the document's first chunk that types the title). Parenthesised qualifiers are dropped ("Mercury
  (planet)" → "Mercury"); "Johnnycake, West Virginia" gets the alias "Johnnycake"; "History of
  the Brooklyn Nets" also mentions "Brooklyn Nets".
* **Short forms join their full name**: "Bonetti" and "Peter Phillip Bonetti" join the title
  "Peter Bonetti" (same first and last word, or the last or first word alone), and "Obama"
  joins "Barack Obama" when both are in the chunk. The short forms become aliases.
* **Relations are sentence co-occurrences**: every pair of entities in a sentence, weighted by
  closeness (``1 / (1 + words_between / 5)``; in Chinese two characters count as a word),
  summed over the chunk and squashed into 0..1; the words between two close mentions ("was
  born in") become the description. The title is related to every entity of its chunk (weight
  ``title_weight``). The type is ``RELATED_TO``, except in Chinese text where a verb between or
  around the pair gives one (王海峰毕业于浙江大学 → ``GRADUATED_FROM``, "毕业于"; see
  :func:`extraction.chinese.relation_cue`).
"""

from __future__ import annotations

import math
import re
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from tqdm import tqdm

from extraction.chinese import find_chinese_spans, relation_cue
from extraction.english import Span, find_english_spans, type_from_words
from extraction.language import HAN
from extraction.normalize import is_cjk, normalize_name, normalize_type, subject_name
from extraction.schema import (
    DEFAULT_ENTITY_TYPES,
    ChunkExtraction,
    ChunkInput,
    ExtractedEntity,
    ExtractedRelation,
)

__all__ = ["OfflineExtractor"]

_TITLE_SUBJECT = re.compile(
    r"^(?:history|list|lists|timeline|geography|economy|culture|politics|demographics|outline|"
    r"military history|music|religion|education|transport|sport|architecture|climate|"
    r"government|flag|coat of arms|national anthem|constitution) of (?:the )?(?P<x>.+)$",
    re.IGNORECASE,
)
_WORDS = re.compile(r"\w+")
_CJK = re.compile(f"[{HAN}]")
_PRONOUN = re.compile(r"\b(?:he|she|his|her|him)\b", re.IGNORECASE)
_CLOSE_WORDS = 8
_DESCRIPTION_CHARS = 240


@dataclass
class _Entity:
    name: str
    type: str
    key: str
    first: int
    aliases: list[str] = field(default_factory=list)
    description: str = ""
    votes: Counter[str] = field(default_factory=Counter)  # types its mentions suggest
    classes: Counter[str] = field(default_factory=Counter)  # types a class noun gives it


class OfflineExtractor:
    """Extract entities and co-occurrence relations with rules (English and Chinese).

    Args:
        entity_types: Types to keep. A mention of another type becomes ``CONCEPT`` when
            ``CONCEPT`` is allowed, except ``DATE`` mentions, which are dropped.
        max_pair_distance: Words between two mentions beyond which they are not related.
        title_weight: Weight of the relation between the title and each other entity.
        show_progress: Show a progress bar (only when stderr is a terminal).

    Example:
        >>> extractor = OfflineExtractor()
        >>> [(e.name, e.type) for e in extractor.find_entities("Who was born in Putney, London?")]
        [('Putney', 'LOCATION'), ('London', 'LOCATION')]
    """

    def __init__(
        self,
        entity_types: Sequence[str] = (*DEFAULT_ENTITY_TYPES, "DATE"),
        *,
        max_pair_distance: int = 30,
        title_weight: float = 0.5,
        show_progress: bool = True,
    ) -> None:
        self.entity_types = frozenset(normalize_type(t) for t in entity_types)
        self.max_pair_distance = max_pair_distance
        self.title_weight = title_weight
        self.show_progress = show_progress

    # -- public ---------------------------------------------------------------------------
    def extract(self, chunks: Sequence[ChunkInput]) -> list[ChunkExtraction]:
        """Extract from every chunk (same order; never raises for one bad chunk).

        Args:
            chunks: The chunks.

        Returns:
            One :class:`ChunkExtraction` per chunk, with ``llm_calls == 0``.
        """
        disable = not (self.show_progress and sys.stderr.isatty())
        return [
            self.extract_one(chunk)
            for chunk in tqdm(chunks, desc="extract (offline)", unit="chunk", disable=disable)
        ]

    def extract_one(self, chunk: ChunkInput) -> ChunkExtraction:
        """Extract from one chunk."""
        try:
            entities, relations = self._extract(chunk.text, chunk.title)
        except Exception as exc:  # a rule tripping on odd text must not stop a batch
            return ChunkExtraction(
                chunk_id=chunk.chunk_id,
                doc_id=chunk.doc_id,
                error=f"offline extraction failed: {type(exc).__name__}: {exc}",
            )
        return ChunkExtraction(
            chunk_id=chunk.chunk_id, doc_id=chunk.doc_id, entities=entities, relations=relations
        )

    def find_entities(self, text: str) -> list[ExtractedEntity]:
        """Entities mentioned in ``text`` (e.g. a question, for entity linking)."""
        entities, _ = self._extract(text, "", relations=False)
        return entities

    # -- internals ------------------------------------------------------------------------
    def _spans(self, text: str) -> tuple[list[Span], list[tuple[int, int]]]:
        if not text.strip():
            return [], []
        cjk = len(_CJK.findall(text))
        if not cjk:
            return find_english_spans(text)
        letters = sum(1 for ch in text if ch.isalpha())
        if cjk >= 0.3 * letters:
            return find_chinese_spans(text)
        # English with a few Chinese words ("Xu Bing (徐冰) was born ..."): English rules, plus
        # the Chinese names jieba finds. The English rules see each Han character as a bar (same
        # offsets), so a name never runs into Chinese written without a space ("Google公司").
        spans, sentences = find_english_spans(_CJK.sub("|", text))
        extra = [s for s in find_chinese_spans(text)[0] if is_cjk(s.name)]
        return sorted(spans + extra, key=lambda s: (s.start, -s.end)), sentences

    def _allowed(self, type_: str) -> str | None:
        canonical = normalize_type(type_)
        if canonical in self.entity_types:
            return canonical
        if canonical != "DATE" and "CONCEPT" in self.entity_types:
            return "CONCEPT"
        return None

    def _extract(
        self, text: str, title: str, *, relations: bool = True
    ) -> tuple[list[ExtractedEntity], list[ExtractedRelation]]:
        spans, sentences = self._spans(text)
        spans = [s for s in spans if self._allowed(s.type) is not None]
        entities: dict[str, _Entity] = {}
        alias_of: dict[str, str] = {}

        title_name = subject_name(title) if title else ""
        title_key = normalize_name(title_name)
        title_type = None
        title_head = ""
        # a title in lower case only is a file's name, not how the text writes the subject
        stem_title = bool(title_key) and not is_cjk(title_name) and title_name.islower()
        if title_key:
            if not is_cjk(title_name):
                title_type = type_from_words([w.lower() for w in _WORDS.findall(title_name)])
            entities[title_key] = _Entity(title_name, "CONCEPT", title_key, -1)
            subject = _TITLE_SUBJECT.match(title_name)
            if subject:
                # "History of the Brooklyn Nets" is about the Brooklyn Nets: a mention of them.
                spans.insert(0, Span(subject.group("x"), "CONCEPT", 0, 0))
            head, comma, _qualifier = title_name.partition(",")
            if comma and "," not in _qualifier and 1 <= len(head.split()) <= 4:
                # "Johnnycake, West Virginia": the place is "Johnnycake", the rest qualifies it.
                title_head = normalize_name(head)
                entities[title_key].aliases.append(head.strip())
                title_type = title_type or "LOCATION"

        for span in spans:
            key = normalize_name(span.name)
            if not key:
                continue
            owner = (
                entities[title_key]
                if key == title_head
                else self._owner(key, span, entities, title_key if title_type is None else "")
            )
            if owner is None:
                owner = entities[key] = _Entity(span.name, "CONCEPT", key, span.start)
            alias_of[key] = owner.key
            kind = self._allowed(span.type) or "CONCEPT"
            owner.votes[kind] += 1
            if span.classified and kind != "CONCEPT":
                owner.classes[kind] += 1
            if key != owner.key and span.name not in owner.aliases:
                owner.aliases.append(span.name)
            elif key == title_key and stem_title and span.name != span.name.lower():
                # A file name titles the text ("ansel_dray"): the text writes the name.
                owner.name = span.name

        for key, entity in entities.items():
            typed = [(n, t) for t, n in entity.votes.most_common() if t != "CONCEPT"]
            if entity.classes:
                # "Averholt Air is a regional airline": what the text calls it outweighs its
                # own words and the cues around its other mentions ("a pilot at Averholt Air").
                entity.type = sorted(entity.classes.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
            elif key == title_key and title_type is not None:
                entity.type = self._allowed(title_type) or "CONCEPT"
            elif typed:
                entity.type = typed[0][1]
            elif key == title_key and _looks_like_person(title_name, text):
                entity.type = self._allowed("PERSON") or "CONCEPT"

        mentions = [(alias_of[k], s) for s in spans if (k := normalize_name(s.name)) in alias_of]
        _describe(entities, mentions, text, sentences)
        ordered = sorted(entities.values(), key=lambda e: e.first)
        out_entities = [
            ExtractedEntity(name=e.name, type=e.type, description=e.description, aliases=e.aliases)
            for e in ordered
        ]
        if not relations:
            return out_entities, []
        return out_entities, self._relations(entities, mentions, text, sentences, title_key)

    @staticmethod
    def _owner(
        key: str, span: Span, entities: dict[str, _Entity], title_key: str
    ) -> _Entity | None:
        """The entity this mention is another form of, if any: the same name, or a short form
        of exactly one person-like name of the chunk (the title counts as person-like when it
        is a plain name of two to four words)."""
        if key in entities:
            return entities[key]
        if span.type == "DATE" or span.strong:
            return None
        words = key.split()
        matches: list[_Entity] = []
        for entity in entities.values():
            full = entity.key.split()
            person_like = entity.votes["PERSON"] > 0 or (
                entity.key == title_key and 2 <= len(full) <= 4
            )
            if not person_like or len(full) < 2 or words == full:
                continue
            if (len(words) >= 2 and words[0] == full[0] and words[-1] == full[-1]) or (
                len(words) == 1 and words[0] in (full[0], full[-1])
            ):
                matches.append(entity)
        return matches[0] if len(matches) == 1 else None

    def _relations(
        self,
        entities: dict[str, _Entity],
        mentions: list[tuple[str, Span]],
        text: str,
        sentences: list[tuple[int, int]],
        title_key: str,
    ) -> list[ExtractedRelation]:
        weights: dict[tuple[str, str], float] = {}
        between: dict[tuple[str, str], str] = {}
        cues: dict[tuple[str, str], tuple[str, str, str]] = {}  # pair → (type, words, source)
        chinese = _CJK.search(text) is not None
        for start, end in sentences:
            inside = [(k, s) for k, s in mentions if start <= s.start < end]
            for i, (key_a, a) in enumerate(inside):
                for key_b, b in inside[i + 1 :]:
                    if key_a == key_b or b.start < a.end:
                        continue  # same entity, or overlapping spans (a date and its year)
                    gap_text = text[a.end : b.start]
                    gap = _gap_words(gap_text)
                    if gap > self.max_pair_distance:
                        break
                    pair = (key_a, key_b) if (key_b, key_a) not in weights else (key_b, key_a)
                    weights[pair] = weights.get(pair, 0.0) + 1.0 / (1.0 + gap / 5.0)
                    phrase = " ".join(gap_text.split()).strip(" ,;:")
                    close = 0 < gap <= _CLOSE_WORDS and not any(
                        a.end <= m.start < b.start for _, m in inside
                    )
                    if close and (pair not in between or len(phrase) < len(between[pair])):
                        between[pair] = phrase
                    if chinese and pair not in cues:
                        gap_types = {
                            entities[k].type for k, m in inside if a.end <= m.start < b.start
                        }
                        cue = relation_cue(
                            gap_text,
                            text[b.end : end],
                            entities[key_a].type,
                            entities[key_b].type,
                            gap_types,
                        )
                        if cue is not None:
                            source = key_b if cue.reverse else key_a
                            cues[pair] = (cue.type, cue.description, source)
        if title_key:
            for key in entities:
                if key == title_key:
                    continue
                pair = (key, title_key) if (key, title_key) in weights else (title_key, key)
                weights[pair] = weights.get(pair, 0.0) + self.title_weight
        relations: list[ExtractedRelation] = []
        for (key_a, key_b), weight in weights.items():
            type_, description = "RELATED_TO", between.get((key_a, key_b), "")
            typed = cues.get((key_a, key_b))
            if typed is not None:
                type_, description, source_key = typed
                if source_key == key_b:
                    key_a, key_b = key_b, key_a
            relations.append(
                ExtractedRelation(
                    source=entities[key_a].name,
                    target=entities[key_b].name,
                    type=type_,
                    description=description,
                    strength=round(1.0 - math.exp(-weight), 4),
                )
            )
        return relations


def _gap_words(text: str) -> int:
    """Words between two mentions; Chinese has no spaces, so two characters count as one."""
    han = len(_CJK.findall(text))
    if not han:
        return len(_WORDS.findall(text))
    return len(_WORDS.findall(_CJK.sub(" ", text))) + (han + 1) // 2


def _looks_like_person(name: str, text: str) -> bool:
    """A plain two-to-four-word capitalised name in a text that speaks of he/she."""
    words = name.split()
    return (
        2 <= len(words) <= 4
        and all(w[:1].isupper() and w.replace("-", "").replace(".", "").isalpha() for w in words)
        and _PRONOUN.search(text) is not None
    )


def _describe(
    entities: dict[str, _Entity],
    mentions: Iterable[tuple[str, Span]],
    text: str,
    sentences: list[tuple[int, int]],
) -> None:
    """Give each entity the first sentence that mentions it (the title: the first one)."""
    for key, span in mentions:
        entity = entities[key]
        if entity.description:
            continue
        for start, end in sentences:
            if start <= span.start < end:
                entity.description = _clip(text[start:end])
                break
    for entity in entities.values():
        if not entity.description and entity.first < 0 and sentences:
            start, end = sentences[0]
            entity.description = _clip(text[start:end])


def _clip(sentence: str) -> str:
    sentence = " ".join(sentence.split())
    if len(sentence) <= _DESCRIPTION_CHARS:
        return sentence
    return sentence[: _DESCRIPTION_CHARS - 1].rsplit(" ", 1)[0] + "…"
