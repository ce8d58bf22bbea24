"""Extraction: turn a session's turns into candidate memories, each with full provenance.

Offline strategy (default): split each turn into sentences, match the slot phrasings of
`memlab.slots` (zh and en), then fall back to the nearest labelled examples
(`memlab.classify`) for sentences no slot covers. Who said it decides trust: the user's
own words are trusted; attachments, pasted pages and tool output are not. Explicit
statements get high confidence, hedged ones medium, untrusted ones low; plans are marked
as plans. With ``MEMLAB_BACKEND=openai`` the same job goes to an LLM with structured output.
"""

from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo

from memlab.slots import _EPISODE, DONE_MARKERS, OUTWARD, PLAN_MARKERS, SLOTS, utc_offset, zone_of
from memlab.types import Candidate, Turn

_SENTENCE_END = re.compile(r"(?<=[。!?!?;;\n])|(?<=[.!?])\s+")
_HEDGE = re.compile(r"好像|可能|應該|大概|也許|似乎|\b(?:maybe|probably|i think|i guess)\b", re.I)
_FIRST_PERSON = re.compile(r"我|\b(?:i|my|me|i'm|i've)\b", re.I)
_DELETE_REQUEST = (
    re.compile(r"(?:把|將)?(?:你)?(?:記得|記住|知道)(?:的|關於)(?P<topic>.+?)(?:的事|這件事|的部分)?"
               r"[,,]?(?:全部|都|通通|統統)?(?:刪掉|刪除|忘掉|忘記|清掉|移除)"),
    re.compile(r"(?:請|幫我)?(?:刪掉|刪除|忘掉|忘記)(?:你記得的)?(?:關於)?(?P<topic>.+?)(?:的記憶|的事)"),
    re.compile(r"\b(?:please )?(?:forget|delete|erase|remove) (?:everything |all |what )?(?:you know |you "
               r"remember |you have )?(?:about )?(?P<topic>[^.?!]+)", re.I),
)


def split_sentences(text: str) -> list[str]:
    """Sentences of a turn (Chinese and English punctuation), stripped, empties dropped."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def deletion_request(text: str) -> str | None:
    """The topic of a request to forget something ("把你記得的我在哪裡上班全部刪掉"), or None."""
    for pattern in _DELETE_REQUEST:
        match = pattern.search(text)
        if match:
            return match.group("topic").strip(" ,,。")
    return None


def _local(at: datetime, tz: str) -> datetime:
    return at.astimezone(ZoneInfo(tz))


def _date_label(at: datetime, tz: str) -> str:
    local = _local(at, tz)
    return f"{local.month} 月 {local.day} 日"


def _fill(template: str, groups: dict[str, str], tz_label: str) -> str:
    values = {k: (v or "").strip() for k, v in groups.items()}
    if values.get("limit"):
        values["limit"] = "," + values["limit"]
    names = set(re.findall(r"{(\w+)}", template))
    return template.format(tz=tz_label, **{n: values.get(n, "") for n in names if n != "tz"})


def _confidence(sentence: str, trusted: bool) -> str:
    if not trusted:
        return "low"
    return "medium" if _HEDGE.search(sentence) else "high"


def _is_plan(sentence: str) -> bool:
    return bool(PLAN_MARKERS.search(sentence)) and not DONE_MARKERS.search(sentence)


def match_slots(sentence: str) -> list[tuple[str, str, str, str, dict]]:
    """(key, value, type, content-template, groups) for every slot phrasing in a sentence."""
    found, seen_spans = [], []
    for slot in SLOTS:
        for pattern in slot.patterns:
            for match in pattern.finditer(sentence):
                if any(match.start() < end and start < match.end() for start, end in seen_spans):
                    continue  # one stretch of text states one fact
                groups = {k: v for k, v in match.groupdict().items() if v}
                value = groups.get("value", "").strip()
                if not value or (slot.needs_city and not zone_of(value)):
                    continue
                suffix = groups.get(slot.extra.get("key_group", "value"), value) if slot.many else ""
                key = f"{slot.key}:{suffix}" if suffix else slot.key
                found.append((key, value, slot.type, slot.template, groups))
                seen_spans.append(match.span())
    return found


def _episode(sentence: str, at: datetime, tz: str) -> tuple[str, str] | None:
    for pattern in _EPISODE:
        match = pattern.search(sentence)
        if match:
            obj = re.sub(r"(吧|嗎|好嗎|好不好|一下)$", "", match.group("obj").strip(" 。.,,"))
            verb, when = match.group("verb"), match.groupdict().get("when")
            if sentence.isascii():
                return f"On {_local(at, tz):%Y-%m-%d}: {verb} {obj}", obj
            prefix = f"{when}(於 {_date_label(at, tz)}提到)" if when else _date_label(at, tz)
            return f"{prefix}一起{verb}了{obj}", obj
    return None


def _sources(turn: Turn) -> list[tuple[str, bool]]:
    """(text, trusted) pieces of a turn: the user's own words vs pasted or tool content."""
    pieces: list[tuple[str, bool]] = []
    if turn.role == "user":
        pieces.append((turn.text, True))
    elif turn.role == "tool":
        pieces.append((turn.text, False))
    if turn.attachment is not None:
        pieces.append((turn.attachment.text, False))
    return pieces


def extract_offline(turns: list[Turn], tz: str = "Asia/Taipei", classifier=None) -> list[Candidate]:
    """Candidate memories from turns, in order, with session, turn, time, trust and confidence.

    Assistant turns are skipped (the assistant's words are not facts about the user), and so
    are requests to forget something (those go to `memlab.forget`).
    """
    candidates: list[Candidate] = []
    for turn in turns:
        for text, trusted in _sources(turn):
            if trusted and deletion_request(text):
                continue
            for sentence in split_sentences(text):
                candidates += _from_sentence(sentence, turn, trusted, tz, classifier)
    return candidates


def _from_sentence(sentence: str, turn: Turn, trusted: bool, tz: str,
                   classifier) -> list[Candidate]:
    base = dict(user_id=turn.user_id, source_session_id=turn.session_id, source_turn=turn.turn,
                created_at=turn.at, source_trusted=trusted, evidence=sentence)
    out = []
    for key, value, mtype, template, groups in match_slots(sentence):
        zone = zone_of(value) if "{tz}" in template else None
        content = _fill(template, groups, utc_offset(zone, turn.at) if zone else "")
        plan = _is_plan(sentence)
        if plan:  # a plan is recorded as what was said, not as the fact it would become
            content = "計畫:" + sentence.rstrip("。.!!")
        out.append(Candidate(content=content, type=mtype, key=key, value=value,
                             confidence=_confidence(sentence, trusted), is_plan=plan,
                             outward_action=bool(OUTWARD.search(sentence)) or key.startswith(
                                 ("forward", "report_recipient")), **base))
    if out:
        return out
    episode = _episode(sentence, turn.at, tz)
    if episode and trusted:
        return [Candidate(content=episode[0], type="episodic", key=None, value=episode[1],
                          confidence="high", **base)]
    if classifier is not None and _FIRST_PERSON.search(sentence) and len(sentence) >= 6:
        label = classifier.classify(sentence)
        if label.remember and label.type in ("semantic", "procedural") and label.agreement >= 0.6:
            return [Candidate(content=sentence.rstrip("。.!!"), type=label.type, key=None,
                              value=None, confidence="medium" if trusted else "low",
                              is_plan=_is_plan(sentence),
                              outward_action=bool(OUTWARD.search(sentence)), **base)]
    return []
