"""The offline answerers' shared core: pick the supporting text and say it, or say 不知道.

Both offline answerers — the memory system's (candidates = retrieved memories plus their
supersede chains) and the full-context baseline's (candidates = the user's raw sentences) —
run the same steps, so the comparison between them is about what they read, not how:

1. `focus.analyze` reads the question (topic, slot, time frame, ask);
2. every candidate is checked by `focus.support`; unsupported ones are dropped;
3. the time frame picks among the supported: the current value (or, for raw sentences that
   have no supersede chain, the newest of the near-best: "newest wins"), the value before
   it (以前), the value held at a date (as of 3 月 15 日), the first or last mention, or the
   whole history (前後);
4. the answer quotes the chosen text and cites its id; a "when" question gets its date.

What this cannot do, and an LLM answerer can: arithmetic across facts (快幾個小時), reading
a fact that is only implied, telling whose birthday a sentence is about, or paraphrasing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from memlab.focus import Focus, Support, analyze, sub_questions, support, with_topic

ABSTAIN = "不知道:我的記憶裡沒有這件事。"
BAND = 0.08  # raw sentences scoring within this of the best count as "the same topic"
_EPSILON = timedelta(seconds=1)
_CHANGE = re.compile(r"換|搬|改|轉|調|\b(?:changed?|moved?|switched?)\b", re.I)


@dataclass(frozen=True)
class Item:
    """One candidate: a memory (key, chain) or a raw sentence (no key), with its score."""

    id: str
    text: str
    at: datetime
    key: str | None = None
    value: str | None = None
    current: bool = True  # False for a superseded memory: history, not the present
    until: datetime | None = None
    score: float = 0.0


def date_label(at: datetime, tz: str) -> str:
    local = at.astimezone(ZoneInfo(tz))
    return f"{local.year} 年 {local.month} 月 {local.day} 日"


def _say(item: Item, focus: Focus, tz: str) -> str:
    if focus.asks == "when":
        return f"{date_label(item.at, tz)}({item.text}) [{item.id}]"
    return f"{item.text} [{item.id}]"


def _rank(item: Item, s: Support) -> float:
    return item.score + 0.3 * s.slot + 0.5 * s.coverage


def _group(anchor: Item, supported: list[tuple[Item, Support]], items: list[Item]) -> list[Item]:
    """The anchor's history, oldest first: its supersede chain, or (no key) the near-best."""
    if anchor.key:
        group = [i for i in items if i.key == anchor.key]
    else:
        top = max(_rank(i, s) for i, s in supported)
        group = [i for i, s in supported if _rank(i, s) >= top - BAND]
    return sorted(group, key=lambda i: (i.at, i.id))


def _held(group: list[Item], moment: datetime) -> list[Item]:
    """The items of a history that held at `moment` (newest last)."""
    return [i for i in group if i.at <= moment and (i.until is None or i.until > moment)]


def _event(phrase: str, items: list[Item], year: int) -> Item | None:
    """The item that marks an event such as 搬到台中 / 換工作 (None if nothing supports it)."""
    # A change (換 / 搬 / 改) happened when a memory replaced an older value of its slot.
    replaced = {i.id for i in items if i.key and any(
        j.key == i.key and not j.current and j.at < i.at for j in items)}
    focus = analyze(phrase, year)
    hits = [(i, s) for i in items if (s := support(focus, i.text, i.key, i.value)).ok]
    if not hits:
        return None
    change = bool(_CHANGE.search(phrase))
    return max(hits, key=lambda p: (p[0].current, change and p[0].id in replaced,
                                    _rank(*p), p[0].id))[0]


def _one(focus: Focus, items: list[Item], tz: str, year: int,
         newest_wins: bool) -> tuple[str, list[str]]:
    if focus.order:
        return _which_first(focus, items, tz, year)
    if focus.time == "period":  # 小時候…: no conversation dates it
        return ABSTAIN, []
    checked = [(i, support(focus, i.text, i.key, i.value,
                           strict_values=focus.time != "history")) for i in items]
    supported = [(i, s) for i, s in checked if s.ok]
    # Superseded memories are history: they answer only through a chain, a date or an event.
    present = sorted(((i, s) for i, s in supported if i.current),
                     key=lambda p: (-_rank(*p), p[0].id))
    anchor = _event(focus.anchor, items, year) if focus.anchor else None
    if anchor is not None and focus.time in ("before", "after"):
        return _around(focus, anchor, supported, items, tz)
    if not present:
        return ABSTAIN, []
    best = present[0][0]
    group = _group(best, supported, items)
    if focus.as_of is not None:
        moment = datetime(focus.as_of.year, focus.as_of.month, focus.as_of.day, 23, 59,
                          tzinfo=ZoneInfo(tz))
        chosen = _held(group, moment)[-1:]
    elif focus.time == "before":
        chosen = [i for i in group if i.at < best.at][-1:]
    elif focus.time == "after":
        chosen = [best]
    elif focus.count > 1 or focus.time == "history":
        if len(group) < focus.count:  # not one chain: the best distinct items
            group = sorted((i for i, _ in present[:focus.count]), key=lambda i: (i.at, i.id))
        chosen = group[-focus.count:]
    elif focus.time == "first":  # the first mention of what is asked, not the chain's start
        chosen = [i for i in group if any(i is j for j, _ in supported)][:1]
    elif focus.time == "last" or (newest_wins and not best.key):
        chosen = group[-1:]
    else:
        chosen = [best]
    if not chosen:
        return ABSTAIN, []
    return ";".join(_say(i, focus, tz) for i in chosen), [i.id for i in chosen]


def _around(focus: Focus, anchor: Item, supported: list[tuple[Item, Support]],
            items: list[Item], tz: str) -> tuple[str, list[str]]:
    """Answer "before / after <event>": the value held just before it, or what came after."""
    same = [i for i, _ in supported if anchor.key and i.key == anchor.key]
    if same:  # the question asks about the event's own slot: walk its chain
        chain = sorted((i for i in items if i.key == anchor.key), key=lambda i: (i.at, i.id))
        chosen = ([i for i in chain if i.at < anchor.at][-1:] if focus.time == "before"
                  else [i for i in chain if i.at >= anchor.at][:1])
    elif focus.time == "before":
        chosen = sorted(_held([i for i, _ in supported], anchor.at - _EPSILON),
                        key=lambda i: -_rank(i, dict(supported)[i]))[:1]
    else:
        chosen = sorted((i for i, _ in supported if i.at > anchor.at and i.current),
                        key=lambda i: -_rank(i, dict(supported)[i]))[:1]
    if not chosen:
        return ABSTAIN, []
    return ";".join(_say(i, focus, tz) for i in chosen), [i.id for i in chosen]


def _which_first(focus: Focus, items: list[Item], tz: str, year: int) -> tuple[str, list[str]]:
    found = []
    for event in focus.order:
        item = _event(event, items, year)
        if item is None:
            return ABSTAIN, []
        found.append((event, item))
    (first, a), (second, b) = sorted(found, key=lambda p: p[1].at)
    if a.at == b.at or a.id == b.id:
        return ABSTAIN, []
    return (f"先{first}({date_label(a.at, tz)} [{a.id}]),後{second}"
            f"({date_label(b.at, tz)} [{b.id}])"), [a.id, b.id]


def respond(question: str, items: list[Item], *, year: int, tz: str = "Asia/Taipei",
            newest_wins: bool = False) -> tuple[str, list[str]]:
    """(answer text, cited ids) for `question` from candidate `items`; ABSTAIN if unsupported.

    >>> from datetime import datetime, timezone
    >>> at = datetime(2026, 3, 1, tzinfo=timezone.utc)
    >>> respond("我養的貓叫什麼?", [Item("m1", "狗叫豆花", at, "pet_name", "豆花")], year=2026)
    ('不知道:我的記憶裡沒有這件事。', [])
    """
    parts = sub_questions(question)
    if len(parts) == 1:
        return _one(analyze(question, year), items, tz, year, newest_wins)
    texts, ids, previous = [], [], None
    for part in parts:
        focus = analyze(part, year)
        focus = with_topic(focus, previous) if previous else focus
        text, cited = _one(focus, items, tz, year, newest_wins)
        texts.append(text)
        ids += [i for i in cited if i not in ids]
        previous = focus
    if not ids:
        return ABSTAIN, []
    return ";".join(texts), ids
