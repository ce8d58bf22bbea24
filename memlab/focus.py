"""What a question asks, and whether a candidate answer text supports it (offline answerers).

A cosine alone cannot decide whether a memory answers a question: for e5, unrelated texts
still score ~0.8, and answerable and unanswerable questions overlap (TOOLING.md). So the
offline answerers accept a candidate — a memory, or one raw sentence for the full-context
baseline — only with evidence beyond similarity, checked by `support`:

- topic: the things the question names (貓, 妹妹, 汽車, 茶 …) must agree with the
  candidate's: a question about a cat is not answered by a memory about a dog;
- stated value: a value the question names (我對花生過敏嗎) must appear in the candidate;
- focus: the candidate's slot is one the question's cue words point at, or at least a third
  of the question's content terms (question words, topic words and time words removed,
  at least one of them a two-character term) appear in it;
- answer type: "what is X called" needs a naming sentence about X, "how much" a number.

`analyze` also reads the question's time frame (現在 / 以前 / 第一次 / as of a date / before
or after an event / a life period no conversation dates), how many items it asks for
(哪兩本), and whether it asks which of two events came first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import date

from memlab.judge import normalize, normalize_dates
from memlab.slots import SLOTS, keys_for_text
from memlab.topics import compatible, entities, strip_entities

# Words that frame a question rather than say what it is about.
_FRAME = re.compile("|".join((
    r"(?:跟|和|對|向)?你(?:說|提|講|分享)(?:過|到|的)?", r"告訴(?:過)?你", r"你(?:還)?(?:記得|知道)",
    r"(?:有)?(?:提到|提過|說過|講過)", r"請問", r"可以告訴我", r"哪裡|哪兒|哪邊",
    r"哪一天|哪天|什麼時候|何時|幾月幾[日號]|是哪一?[天日年]|日期",
    r"第一次|最早|一開始|最近一次|最後一次|以前|之前|以後|之後|原本|原來|先前|過去|現在|目前"
    r"|如今|已經|還是", r"前後|先後|分別|各自", r"哪一件事|哪件事|先發生|比較早|比較晚|在前|在後",
    r"通常|平常|固定|習慣|希望|處理|怎麼|如何",
    r"\b(?:what|which|who|whom|whose|when|where|how|why|do|does|did|is|are|was|were|am|i|my|me"
    r"|you|your|the|a|an|of|to|in|on|at|for|with|about|now|currently|before|previously|ever"
    r"|have|has|had|tell|told|mention(?:ed)?|say|said|first|last|time|day|date)\b",
)), re.IGNORECASE)
# Characters that carry no topic on their own (question words, particles, pronouns).
_STOP = set("我你他她的了嗎呢吧是在有什麼哪個誰幾怎樣多少時候要會把給用都也就還嗎呀啊喔哦過一各")
_WORD = re.compile(r"[a-z0-9]+|[\u3400-\u9fff]+")
# 哪家 / 一家 / 幾間 are question words, not the 家 (home) of a slot cue.
_QUESTION_COMPOUNDS = re.compile(r"[哪幾一][一]?[家間位個台支款種]")

_NAME_ASK = re.compile(r"叫什麼|什麼名字|名字是|叫做什麼|\bname\b|\bcalled\b", re.I)
_NAMING = re.compile(r"叫|名字|名為|稱呼|\bname\b|\bcalled\b|\bnamed\b", re.I)
_NUMBER_ASK = re.compile(r"多少|幾(?:個|次|天|年|歲|點|小時|分鐘|本|隻|位|元|塊|公里|週|月)"
                         r"|\bhow (?:many|much|long|old)\b", re.I)
_WHEN = re.compile(r"什麼時候|何時|哪一天|哪天|幾月幾[日號]|哪一年|\bwhen\b|\bwhat date\b"
                   r"|\bwhich day\b", re.I)
_ZH_COUNT = {"兩": 2, "二": 2, "三": 3, "四": 4, "五": 5, "two": 2, "three": 3}
_COUNT = re.compile(r"哪([兩二三四五])[本家支個隻位件種間座部款台]|\bwhich (two|three) ", re.I)
_ORDER = re.compile(r"(?:哪一?(?:件事|個|項)|誰)(?:先|比較早|在前)|先發生|\bwhich\b.*\bfirst\b", re.I)
_ORDER_SPLIT = re.compile(r"和|跟|與|還是|或是|\band\b|\bor\b", re.I)
# "之前跟你說過…" is about when it was said, not about an earlier value.
_SAID_BEFORE = re.compile(r"(?:之前|以前|先前)(?:有)?(?:跟你|和你|對你)?(?:說|提|講|告訴)")
# "搬到台中之前, …": an event the question is anchored to.
_ANCHOR = re.compile(r"(?P<event>[^,,。??]{2,24}?)(?P<rel>之前|以前|之後|以後)"
                     r"|\b(?P<rel_en>before|after) (?P<event_en>[^,?]{3,40})", re.I)
_BEFORE = re.compile(r"以前|之前|原本|原來|先前|過去|\bused to\b|\bbefore\b|\bpreviously\b"
                     r"|\bformerly\b", re.I)
_NOW = re.compile(r"現在|目前|如今|\bnow\b|\bcurrently\b", re.I)
_FIRST = re.compile(r"第一次|最早|一開始|\bfirst\b", re.I)
_LAST = re.compile(r"最近一次|最後一次|\blast time\b|\bmost recently\b", re.I)
_HISTORY = re.compile(r"前後|先後|分別|各自|\bover time\b|\bbefore and after\b", re.I)
# A life period the conversations put no date on: no memory can say where it falls.
_PERIOD = re.compile(r"小時候|童年|小學|國中|高中時|大學時|學生時代|年輕時|\bas a (?:kid|child)\b"
                     r"|\bgrowing up\b|\bwhen i was (?:a kid|young|little|in (?:school|college))",
                     re.I)
_QUESTION_WORDS = re.compile(r"什麼|哪|誰|幾|多少|怎麼|如何|\b(?:what|which|who|how)\b", re.I)


def _trim(text: str) -> str:
    return re.sub(r"^[\s,,??]+|[\s,,??]+$", "", text)


def _canon(text: str) -> str:
    return normalize(text).replace(" ", "")


def terms(text: str) -> set[str]:
    """Content terms of a text: CJK bigrams inside stop-free runs (single characters of
    one-character runs) and English words, lower-cased."""
    out: set[str] = set()
    for run in _WORD.findall(normalize(text)):
        if run.isascii():
            if len(run) > 1 and not run.isdigit():
                out.add(run[:-1] if run.endswith("s") and len(run) > 3 else run)
            continue
        for piece in re.split(f"[{''.join(_STOP)}]+", run):
            if len(piece) == 1:
                out.add(piece)
            out.update(piece[i:i + 2] for i in range(len(piece) - 1))
    return out


def coverage(question_terms: set[str], text: str, strong: frozenset[str] = frozenset()) -> float:
    """Share of the question's content terms found in `text` (0–1). Single characters alone
    are no match when the question has longer terms, unless they are `strong` (a slot's own
    cue word, like 住 for where someone lives)."""
    if not question_terms:
        return 0.0
    low, plain = _canon(text), normalize(text)
    hits = [t for t in question_terms
            if (re.search(rf"(?<![a-z]){t}", plain) if t.isascii() else t in low)]
    if not any(len(t) > 1 or t in strong for t in hits) and any(
            len(t) > 1 for t in question_terms):
        return 0.0
    return len(hits) / len(question_terms)


@dataclass(frozen=True)
class Focus:
    """What a question asks about; built by `analyze`."""

    text: str
    keys: frozenset[str] = frozenset()  # slots its cue words point at
    entities: dict[str, set[str]] = field(default_factory=dict)
    values: tuple[str, ...] = ()  # slot values the question itself names (花生 in 我對花生過敏嗎)
    terms: frozenset[str] = frozenset()
    asks: str | None = None  # "name" | "number" | "when" | None
    time: str | None = None  # now | before | after | first | last | history | period | None
    as_of: date | None = None
    count: int = 1  # how many items it asks for (哪兩本 → 2)
    order: tuple[str, ...] = ()  # the events of "which came first?"
    anchor: str | None = None  # the event of "搬到台中之前, …" (time says before/after)


def _stated_values(question: str) -> tuple[str, ...]:
    from memlab.extract import match_slots  # the extractor's phrasings, read-only

    values = []
    for match in match_slots(question):
        value = (match.value or "").strip().lstrip("的")
        # 我養的狗: "狗" names the topic (checked as an entity), not a value to look for.
        if value and not _QUESTION_WORDS.search(value) and strip_entities(value).strip():
            values.append(value)
    return tuple(values)


def _anchor(question: str) -> tuple[str | None, str | None, str]:
    """(event, "before"/"after", the rest of the question) for "X之前/之後, …"."""
    m = _ANCHOR.search(question)
    if not m:
        return None, None, question
    event = (m.group("event") or m.group("event_en") or "").strip()
    if not terms(_FRAME.sub(" ", event)):  # 我以前… : no event, just "earlier"
        return None, None, question
    rel = (m.group("rel") or m.group("rel_en")).lower()
    relation = "before" if rel in ("之前", "以前", "before") else "after"
    return event, relation, (question[:m.start()] + " " + question[m.end():]).strip()


def analyze(question: str, year: int) -> Focus:
    """Read a question: its slots, topic entities, stated values, terms, ask and time frame."""
    said = _SAID_BEFORE.sub(" ", question)
    event, relation, rest = _anchor(said)
    count_match = _COUNT.search(question)
    count = _ZH_COUNT.get((count_match.group(1) or count_match.group(2)).lower(), 1) \
        if count_match else 1
    time = ("period" if _PERIOD.search(question) else relation if relation
            else "history" if _HISTORY.search(question) else "first" if _FIRST.search(question)
            else "last" if _LAST.search(question) else "before" if _BEFORE.search(said)
            else "now" if _NOW.search(question) else None)
    if time == "history" and count == 1:
        count = 2  # 前後 / 先後: the value before and the value after
    order: tuple[str, ...] = ()
    if _ORDER.search(question):
        head = re.split(r"[,,??]|哪一?(?:件事|個|項)|誰|\bwhich\b", question, maxsplit=1)[0]
        order = tuple(p for p in (_trim(x) for x in _ORDER_SPLIT.split(head)) if p)
        order = order if len(order) == 2 else ()
    asks = ("when" if _WHEN.search(rest) else "name" if _NAME_ASK.search(rest)
            else "number" if _NUMBER_ASK.search(rest) else None)
    return Focus(
        text=question, keys=frozenset(keys_for_text(_QUESTION_COMPOUNDS.sub("哪", rest))),
        entities=entities(rest), values=_stated_values(rest),
        terms=frozenset(terms(strip_entities(_FRAME.sub(" ", rest)))), asks=asks, time=time,
        as_of=min(normalize_dates(question, year), default=None), count=count, order=order,
        anchor=event)


def sub_questions(question: str) -> list[str]:
    """A question that asks two things (是什麼品種?叫什麼名字?) split into its parts."""
    parts = [p.strip() for p in re.split(r"(?<=[??])", question) if len(_trim(p)) >= 2]
    return parts if len(parts) > 1 else [question]


def with_topic(focus: Focus, previous: Focus) -> Focus:
    """A follow-up part (叫什麼名字?) inherits the topic of the part before it."""
    if focus.entities or not previous.entities:
        return focus
    return replace(focus, entities=previous.entities)


@dataclass(frozen=True)
class Support:
    """Whether a candidate text supports an answer, and why (for dashboards and tests)."""

    ok: bool
    slot: bool = False
    coverage: float = 0.0
    reason: str = ""


MIN_COVERAGE = 1 / 3


def _cues(keys: frozenset[str]) -> set[str]:
    # In a raw sentence a one-character cue (家, 住) is too common to point at a slot.
    return {c.lower() for s in SLOTS if s.key in keys for c in s.cues if len(c) > 1}


def _single_cues(keys: frozenset[str]) -> frozenset[str]:
    return frozenset(c for s in SLOTS if s.key in keys for c in s.cues if len(c) == 1)


def support(focus: Focus, text: str, key: str | None = None, value: str | None = None,
            strict_values: bool = True) -> Support:
    """Does `text` (a memory's content, or a raw sentence) support answering `focus`?

    `key`/`value` are the memory's slot; a raw sentence has none, and then the slot check
    looks for the question's (multi-character) slot cue words in the sentence itself.
    """
    body = f"{text} {value or ''}"
    named = entities(body)
    for kind, asked in focus.entities.items():
        if not compatible(asked, named.get(kind, set())):
            other = "/".join(sorted(named.get(kind, set()))) or f"no {kind}"
            return Support(False, reason=f"topic mismatch: asks about {'/'.join(sorted(asked))}, "
                                         f"candidate names {other}")
    low = _canon(body)
    if strict_values and not all(_canon(v) in low for v in focus.values):
        return Support(False, reason=f"question names {'/'.join(focus.values)}, candidate does not")
    if focus.asks == "number" and not re.search(r"\d", normalize(body)):
        return Support(False, reason="asks for a number, candidate has none")
    slot = (key.split(":", 1)[0] in focus.keys if key is not None
            else any(c in low for c in _cues(focus.keys)))
    cov = coverage(set(focus.terms), body, _single_cues(focus.keys))
    if focus.asks == "name":
        # 名字 / 叫什麼 point at every naming slot: the thing named must be the one asked about.
        if not _NAMING.search(body):
            return Support(False, reason="asks for a name, candidate names nothing")
        if not focus.entities and cov < MIN_COVERAGE:
            return Support(False, slot, cov, reason="asks for a name, but of something else")
        if focus.entities:  # the asked-about thing, and a name for it: that is the answer
            return Support(True, slot, cov, reason="names the thing asked about")
    if slot or cov >= MIN_COVERAGE:
        return Support(True, slot, cov, reason="slot cue" if slot else f"{cov:.0%} of the terms")
    return Support(False, slot, cov, reason=f"off focus: {cov:.0%} of the terms, no slot cue")
