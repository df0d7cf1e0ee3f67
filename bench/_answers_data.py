"""Question sets and scoring for ``bench/answers.py``.

Sets keep two things apart: what the engine may see (the question text, the documents) and
the gold used only for scoring (answers and aliases, per-hop answers and supporting
documents, question types). Shared sets (``musique-dev``, ``2wiki-dev``) are read here
rather than with :func:`bench._common.load_dataset`, which drops the per-hop gold
(``decomposition``, ``supporting_facts``) and the 2Wiki ``type``; their corpus still comes
from ``load_dataset`` so ``--limit`` shrinks it the same way as in the other benchmarks.

Scoring is SQuAD-style: lower-case, drop punctuation and the articles a/an/the, collapse
whitespace; EM and token F1 take the best over the answer and its aliases; text with CJK
characters is compared by characters. Yes/no golds (English or Chinese) are mapped to
``yes``/``no`` on both sides first.
"""

from __future__ import annotations

import json
import re
import string
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench._common import Dataset, load_dataset

GEN_TYPES = ("bridge-2", "bridge-3", "comparison", "yesno", "single")


@dataclass(frozen=True)
class HopGold:
    """Gold for one reasoning hop: its answer (when known) and the documents that hold it."""

    answer: str = ""
    docs: tuple[str, ...] = ()


@dataclass(frozen=True)
class Item:
    """One question. Only :attr:`question` is given to the engine."""

    id: str
    question: str
    type: str
    answers: tuple[str, ...]
    hops: tuple[HopGold, ...] = ()
    lang: str = "en"


@dataclass
class AnswerSet:
    """A question set and how to build its knowledge base.

    ``dataset`` is set for shared sets (one document per passage); ``corpus_dir`` for the
    generalization sets (a folder of files, ingested by the normal file pipeline).
    """

    name: str
    kind: str  # "shared" | "gen"
    items: list[Item]
    dataset: Dataset | None = None
    corpus_dir: Path | None = None
    doc_match: str = "id"  # "id": doc id = passage id; "path": match paths by suffix
    corpus: str = "full"  # "full", or "limitN" for a corpus shrunk by --limit N
    notes: list[str] = field(default_factory=list)


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _answers(row: dict[str, Any]) -> tuple[str, ...]:
    golds = [str(row.get("answer", "")), *(str(a) for a in row.get("answer_aliases") or [])]
    return tuple(dict.fromkeys(g for g in golds if g.strip()))


def _musique_type(qid: str) -> str:
    # "3hop1__..." -> "3hop"
    match = re.match(r"(\d+hop)", qid)
    return match.group(1) if match else "unknown"


def load_shared(data_dir: Path, limit: int | None) -> AnswerSet:
    """``musique-dev`` or ``2wiki-dev``: questions with their per-hop gold, and the corpus
    (shrunk by ``load_dataset``'s rule only when ``limit`` is given)."""
    dataset = load_dataset(data_dir, limit)
    rows = _read_jsonl(data_dir / "questions.jsonl")
    if limit is not None:
        rows = rows[:limit]
    items = []
    for r in rows:
        if "decomposition" in r:
            hops = tuple(
                HopGold(
                    str(d.get("answer", "")), (str(d["support_id"]),) if d.get("support_id") else ()
                )
                for d in r["decomposition"]
            )
            qtype = _musique_type(r["id"])
        else:
            facts = r.get("supporting_facts") or []
            ids = list(dict.fromkeys(str(f[0]) for f in facts)) or list(r["supporting_ids"])
            hops = tuple(HopGold("", (pid,)) for pid in ids)
            qtype = str(r.get("type") or f"{r.get('hops')}hop")
        items.append(Item(r["id"], r["question"], qtype, _answers(r), hops))
    corpus = "full" if limit is None else f"limit{limit}"
    return AnswerSet(dataset.name, "shared", items, dataset=dataset, doc_match="id", corpus=corpus)


_HOP_REF = re.compile(r"#(\d+)")


def hop_items(row: dict[str, Any], lang: str) -> list[Item]:
    """The gold hops of one generalization question, each asked as a question of its own.

    Earlier hops' gold answers replace ``#n``; the deciding hop of a comparison or yes/no
    question (the last one: "Which is earlier, #1 or #2?") is left out, and so is any hop whose
    answer is yes/no. The hop's type is ``hop<n>`` (n = its position). Scoring only: this is
    how ``--hops`` measures the reader on single-fact questions worded by the set's author.
    """
    hops = list(row.get("hops") or [])
    answers = [str(h.get("answer", "")) for h in hops]
    if row.get("type") in ("comparison", "yesno"):
        hops = hops[:-1]
    items = []
    for n, h in enumerate(hops, start=1):
        answer = str(h.get("answer", ""))
        if not answer or normalize(answer) in _YES | _NO:
            continue
        question = _HOP_REF.sub(
            lambda m: answers[int(m.group(1)) - 1] if int(m.group(1)) <= len(answers) else m[0],
            str(h.get("question", "")),
        )
        golds = _answers(row) if n == len(row.get("hops") or []) else (answer,)
        docs = (str(h["doc"]),) if h.get("doc") else ()
        items.append(
            Item(f"{row['id']}#h{n}", question, f"hop{n}", golds, (HopGold(answer, docs),), lang)
        )
    return items


def load_generalization(
    root: Path,
    lang: str,
    split: str,
    limit: int | None,
    name: str | None = None,
    hops: bool = False,
) -> AnswerSet:
    """``gen-en`` / ``gen-zh`` (``gen2-…`` for the second set, ``name``): questions of one
    language (and split) over ``corpus/<lang>``; with ``hops``, their gold hops asked one by
    one (:func:`hop_items`) instead."""
    rows = [r for r in _read_jsonl(root / "questions.jsonl") if r.get("lang") == lang]
    if split != "all":
        rows = [r for r in rows if r.get("split") == split]
    if limit is not None:
        rows = rows[:limit]
    if hops:
        return AnswerSet(
            name or f"gen-{lang}",
            "gen",
            [item for r in rows for item in hop_items(r, lang)],
            corpus_dir=root / "corpus" / lang,
            doc_match="path",
        )
    items = [
        Item(
            str(r["id"]),
            str(r["question"]),
            str(r.get("type", "unknown")),
            _answers(r),
            tuple(
                HopGold(str(h.get("answer", "")), (str(h["doc"]),) if h.get("doc") else ())
                for h in r.get("hops") or []
            ),
            lang,
        )
        for r in rows
    ]
    return AnswerSet(
        name or f"gen-{lang}", "gen", items, corpus_dir=root / "corpus" / lang, doc_match="path"
    )


# -- normalisation ----------------------------------------------------------------------

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_YES = {"yes", "true", "correct", "是", "是的", "对", "对的", "正确", "有", "会", "能", "可以"}
_NO = {"no", "false", "incorrect", "否", "不是", "不", "不对", "错", "错误", "没有", "不会", "不能"}
_NO_PREFIXES = ("不是", "不对", "没有", "不会", "不能", "否", "不")
_YES_PREFIXES = ("是的", "对的", "正确", "是", "对")


def has_cjk(text: str) -> bool:
    """True when ``text`` holds Chinese, Japanese or Korean characters."""
    return bool(_CJK.search(text))


def _is_punct(ch: str) -> bool:
    return ch in string.punctuation or unicodedata.category(ch).startswith(("P", "S"))


def normalize(text: str) -> str:
    """SQuAD normalisation (also dropping Unicode punctuation such as ，。「」)."""
    text = "".join(" " if _is_punct(ch) else ch for ch in text.lower())
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def yes_no(text: str) -> str | None:
    """``"yes"``/``"no"`` when ``text`` reads as one (whole, or by its first word)."""
    norm = normalize(text)
    if not norm:
        return None
    if norm in _YES:
        return "yes"
    if norm in _NO:
        return "no"
    first = norm.split()[0]
    if first in ("yes", "no"):
        return first
    if has_cjk(norm):
        compact = norm.replace(" ", "")
        if compact.startswith(_NO_PREFIXES):
            return "no"
        if compact.startswith(_YES_PREFIXES):
            return "yes"
    return None


def _tokens(text: str, by_char: bool) -> list[str]:
    norm = normalize(text)
    return list(norm.replace(" ", "")) if by_char else norm.split()


def _f1(pred: str, gold: str) -> float:
    by_char = has_cjk(pred) or has_cjk(gold)
    p, g = _tokens(pred, by_char), _tokens(gold, by_char)
    if not p or not g:
        return float(p == g)
    common = sum((Counter(p) & Counter(g)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(p), common / len(g)
    return 2 * precision * recall / (precision + recall)


def _compact(text: str) -> str:
    """Normalised; without spaces when the text is CJK (so 浙江 大学 matches 浙江大学)."""
    norm = normalize(text)
    return norm.replace(" ", "") if has_cjk(norm) else norm


@dataclass(frozen=True)
class Score:
    """EM, F1 and containment of one prediction against a gold answer set."""

    em: float
    f1: float
    contained: float


def score(prediction: str, golds: Sequence[str]) -> Score:
    """Best EM / F1 / contained over ``golds``.

    When the main answer (``golds[0]``) is yes/no (是/否/对/不是 ...), the prediction and
    every gold are compared as ``yes``/``no``; otherwise yes/no words are plain text (the
    musique alias ``NO`` of Norway is not a "no").
    """
    if not golds:
        return Score(0.0, 0.0, 0.0)
    yes_no_question = normalize(golds[0]) in _YES | _NO
    pred = (yes_no(prediction) or prediction) if yes_no_question else prediction
    best = Score(0.0, 0.0, 0.0)
    for raw in golds:
        gold = (yes_no(raw) or raw) if yes_no_question else raw
        em = float(bool(_compact(gold)) and _compact(pred) == _compact(gold))
        # "no" is inside "not known": for yes/no golds only the mapped answer counts
        contained = (
            em
            if yes_no_question
            else float(bool(_compact(gold)) and _compact(gold) in _compact(pred))
        )
        candidate = Score(em, _f1(pred, gold), contained)
        best = Score(
            max(best.em, candidate.em),
            max(best.f1, candidate.f1),
            max(best.contained, candidate.contained),
        )
    return best


def contains_either(a: str, b: str) -> bool:
    """Normalised ``a`` in ``b`` or ``b`` in ``a`` (both non-empty)."""
    na, nb = _compact(a), _compact(b)
    return bool(na and nb) and (na in nb or nb in na)


def in_text(needle: str, texts: Iterable[str]) -> bool:
    """Normalised ``needle`` occurs in some normalised text."""
    n = _compact(needle)
    return bool(n) and any(n in _compact(t) for t in texts)


def path_match(a: str, b: str) -> bool:
    """Two document paths name the same file: the shorter is a path-component suffix of the
    longer (``corpus/en/x.md`` matches ``x.md`` and ``/abs/corpus/en/x.md``)."""
    pa = [p for p in a.replace("\\", "/").split("/") if p not in ("", ".")]
    pb = [p for p in b.replace("\\", "/").split("/") if p not in ("", ".")]
    if not pa or not pb:
        return False
    short, long_ = (pa, pb) if len(pa) <= len(pb) else (pb, pa)
    return long_[-len(short) :] == short
