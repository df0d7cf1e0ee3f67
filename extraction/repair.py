"""Repair of the malformed JSON that language models write.

Handles what small and truncated model outputs get wrong most often: prose or code fences
around the object, single-quoted strings, unquoted keys, Python literals (``True``/``None``),
trailing commas, and output cut off by a token limit (unclosed strings, arrays and objects).
A truncated array keeps its complete items and drops the partial last one, so a cut-off list
of entities still yields the entities that were written out in full.

Such a reading has *lost content*: the entities after the cut are gone, and so is every
relation when the cut fell inside ``entities``. Structured calls therefore ask for complete
readings only (``complete_only=True``): syntax is repaired, truncation is not, and a cut-off
reply counts as a failed attempt (retried, then recorded) instead of partial data stored as if
it were the whole answer.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["extract_json_text", "repair_json", "repair_json_candidates"]

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)(?:```|$)", re.DOTALL)
_LITERALS = {
    "True": "true",
    "False": "false",
    "None": "null",
    "true": "true",
    "false": "false",
    "null": "null",
    "NaN": "null",
}
_BARE = re.compile(r"[A-Za-z_$][\w$-]*")
_NUMBER = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_QUOTES = {'"': '"', "'": "'", "\u201c": "\u201d"}


def extract_json_text(text: str) -> str | None:
    """The part of ``text`` that looks like a JSON object or array, or ``None``.

    Prefers the content of a fenced code block; otherwise starts at the first ``{`` or ``[``.
    """
    fenced = _FENCE.search(text)
    if fenced and re.search(r"[\[{]", fenced.group(1)):
        text = fenced.group(1)
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    if not starts:
        return None
    return text[min(starts) :].strip()


def repair_json(text: str) -> Any | None:
    """Parse ``text`` as JSON, repairing common model mistakes; ``None`` if hopeless.

    Args:
        text: Model output: a JSON object or array, possibly wrapped in prose or a code
            fence, possibly malformed or truncated.

    Returns:
        The parsed value (usually a dict), or ``None`` when no JSON value can be recovered.
        For truncated input this is the reading that keeps most (see
        :func:`repair_json_candidates`).

    Example:
        >>> repair_json("```json\\n{'a': 1, 'b': [1, 2,],}\\n```")
        {'a': 1, 'b': [1, 2]}
        >>> repair_json('{"items": [{"x": 1}, {"x": 2}, {"x"')
        {'items': [{'x': 1}, {'x': 2}]}
    """
    candidates = repair_json_candidates(text)
    return candidates[0] if candidates else None


def repair_json_candidates(text: str, *, complete_only: bool = False) -> list[Any]:
    """Every plausible reading of ``text`` as JSON, the one keeping most first.

    Valid JSON gives one reading. Truncated JSON gives up to two: the partial innermost
    object with its complete members kept (``{"name": "Paris", "type": "LOCATION"}`` from
    ``{"name": "Paris", "type": "LOCATION", "descr``), then the innermost array without its
    partial last item. A caller validating against a schema takes the first that fits.

    Args:
        text: Model output (see :func:`repair_json`).
        complete_only: Only readings that keep everything written: syntax mistakes are
            repaired, but truncated input (unclosed containers, a key cut from its value)
            gives no reading.

    Returns:
        Parsed values; empty when nothing could be recovered.

    Example:
        >>> repair_json_candidates('{"a": [1, 2', complete_only=True)
        []
        >>> repair_json_candidates("{'a': [1, 2,]}", complete_only=True)
        [{'a': [1, 2]}]
    """
    candidate = extract_json_text(text)
    if candidate is None:
        return []
    try:
        return [json.loads(candidate)]
    except ValueError:
        pass
    values: list[Any] = []
    rewriter = _Rewriter(candidate)
    readings = rewriter.run()
    if complete_only and rewriter.lossy:
        return []
    for fixed in readings:
        try:
            values.append(json.loads(fixed))
        except ValueError:
            continue
    return values


class _Frame:
    """An open container while rewriting: its kind, what it expects next, and the output
    length after its last complete member (where a truncated container is cut back to)."""

    __slots__ = ("kind", "safe", "start", "state")

    def __init__(self, kind: str, safe: int) -> None:
        self.kind = kind  # "{" or "["
        self.start = safe
        self.safe = safe
        # Objects cycle key -> colon -> value -> key; arrays stay at "value".
        self.state = "key" if kind == "{" else "value"


class _Rewriter:
    """One pass over the text, writing strict JSON and remembering safe cut points."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.out: list[str] = []
        self.length = 0
        self.stack: list[_Frame] = []
        self.done = False
        # Set when a reading must drop something written: truncation, or a key whose value
        # is missing.
        self.lossy = False

    def _write(self, token: str) -> None:
        self.out.append(token)
        self.length += len(token)

    def _last_char(self) -> str:
        for part in reversed(self.out):
            if part:
                return part[-1]
        return ""

    def _before_value(self) -> bool:
        """Add what must precede a value (comma, or a colon after a key); False when the
        value has no place here (a value where an object wants a key)."""
        if not self.stack:
            return True
        frame = self.stack[-1]
        if frame.kind == "[":
            if self._last_char() not in "[,":
                self._write(",")
            return True
        if frame.state == "colon":
            self._write(":")
            frame.state = "value"
        return frame.state == "value"

    def _value_done(self) -> None:
        if not self.stack:
            self.done = True
            return
        frame = self.stack[-1]
        frame.safe = self.length
        if frame.kind == "{":
            frame.state = "key"

    def _key(self, literal: str) -> None:
        if self._last_char() not in "{,":
            self._write(",")
        self._write(literal)
        self.stack[-1].state = "colon"

    def _value(self, literal: str) -> None:
        if self._before_value():
            self._write(literal)
            self._value_done()

    def _read_string(self, i: int) -> tuple[str | None, int]:
        """Read a quoted string at ``i``; return (its JSON text or None if unclosed, next i)."""
        close = _QUOTES[self.text[i]]
        chars: list[str] = []
        j = i + 1
        while j < len(self.text):
            ch = self.text[j]
            if ch == "\\" and j + 1 < len(self.text):
                nxt = self.text[j + 1]
                chars.append(nxt if nxt == "'" else "\\" + nxt)
                j += 2
                continue
            if ch == close:
                return '"' + "".join(chars) + '"', j + 1
            chars.append({'"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}.get(ch, ch))
            j += 1
        return None, j

    def run(self) -> list[str]:
        text, i = self.text, 0
        while i < len(text) and not self.done:
            ch = text[i]
            frame = self.stack[-1] if self.stack else None
            if ch.isspace() or ch == ",":
                # Commas are re-inserted where needed, which also drops trailing ones.
                i += 1
            elif ch in "{[":
                if not self._before_value():
                    break
                self._write(ch)
                self.stack.append(_Frame(ch, self.length))
                i += 1
            elif ch in "}]":
                if not self.stack:
                    break
                opened = self.stack.pop()
                if opened.kind == "{" and opened.state != "key":
                    # A key without a value: cut it off.
                    self.lossy = True
                    text_so_far = "".join(self.out)[: opened.safe]
                    self.out, self.length = [text_so_far], len(text_so_far)
                self._write("}" if opened.kind == "{" else "]")
                i += 1
                self._value_done()
            elif ch == ":":
                if frame is not None and frame.state == "colon":
                    self._write(":")
                    frame.state = "value"
                i += 1
            elif ch in _QUOTES:
                literal, i = self._read_string(i)
                if literal is None:
                    break  # truncated inside a string
                if frame is not None and frame.state == "key":
                    self._key(literal)
                else:
                    self._value(literal)
            else:
                number = _NUMBER.match(text, i)
                bare = _BARE.match(text, i)
                if number:
                    i = number.end()
                    if i >= len(text) and self.stack:
                        break  # a number cut off by truncation may be incomplete
                    self._value(number.group(0))
                elif bare:
                    word = bare.group(0)
                    i = bare.end()
                    if frame is not None and frame.state == "key":
                        self._key(json.dumps(word))
                    else:
                        self._value(_LITERALS.get(word, json.dumps(word)))
                else:
                    i += 1  # stray character: skip it
        return self.closings()

    def closings(self) -> list[str]:
        """Strict JSON texts for what was read: one when the input was complete; for a
        truncated input, first the one keeping the partial innermost object's complete
        members, then the one dropping the partial last item of the innermost array."""
        if not self.out:
            return []
        if not self.stack:
            return ["".join(self.out)]
        self.lossy = True
        results: list[str] = []
        innermost_array = next(
            (lvl for lvl in range(len(self.stack) - 1, -1, -1) if self.stack[lvl].kind == "["),
            None,
        )
        for level in (len(self.stack) - 1, innermost_array):
            if level is None or (
                level == len(self.stack) - 1 and self.stack[level].safe == self.stack[level].start
            ):
                continue  # an empty partial object is no reading worth offering
            text = "".join(self.out)[: self.stack[level].safe].rstrip().rstrip(",")
            closers = "".join(
                "}" if f.kind == "{" else "]" for f in reversed(self.stack[: level + 1])
            )
            if text + closers not in results:
                results.append(text + closers)
        return results
