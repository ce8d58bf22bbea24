"""Extraction: turn a session's turns into candidate memories, each with full provenance.

Offline strategy (default): split each turn into sentences, match the slot phrasings of
`memlab.slots` (zh and en), then fall back to the nearest labelled examples
(`memlab.classify`) for sentences no slot covers. Who said it decides trust: the user's own
words are trusted; attachments, pasted pages and tool output are not. Explicit statements get
high confidence, hedged ones medium, untrusted ones low. Plan, hedge and outward-action cues
are read in the *clause* that states the fact, so "我妹妹叫小晴,下週三是她生日" is a fact
about the sister, not a plan. With ``MEMLAB_BACKEND=openai`` an LLM does this job instead.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import NamedTuple
from zoneinfo import ZoneInfo

from memlab.markers import (
    ACKNOWLEDGE,
    CHITCHAT,
    HEDGE,
    OUTWARD,
    REQUEST,
    TRANSIENT,
    clause_at,
    is_plan,
    strip_fillers,
)
from memlab.phrasing import TOOL_USE, Slot, canon
from memlab.slots import _EPISODE, _EPISODE_ON_ATTACHMENT, SLOTS, utc_offset, zone_of
from memlab.types import Candidate, Turn

_SENTENCE_END = re.compile(r"(?<=[。!?!?;;\n])|(?<=[.!?])\s+")
_FIRST_PERSON = re.compile(r"我|\b(?:i|my|me|i'm|i've)\b", re.I)
_DELETE_REQUEST = (
    re.compile(r"(?:把|將)?(?:你)?(?:記得|記住|知道)(?:的|關於)(?P<topic>.+?)(?:的事|這件事|的部分)?"
               r"[,,]?(?:全部|都|通通|統統)?(?:刪掉|刪除|忘掉|忘記|清掉|移除)"),
    re.compile(r"(?:請|幫我)?(?:刪掉|刪除|忘掉|忘記)(?:你記得的)?(?:關於)?(?P<topic>.+?)(?:的記憶|的事)"),
    re.compile(r"(?P<topic>[^,,。]{2,30}?)(?:那件事|這件事|的事|那筆|這筆|的部分)[,,]?\s*(?:請|麻煩)?(?:你)?"
               r"(?:從(?:你的)?記憶(?:裡|中)?)?(?:全部|都)?(?:刪掉|刪除|忘掉|忘記|清掉|移除)"),
    re.compile(r"\b(?:please )?(?:forget|delete|erase|remove) (?:everything |all |what )?(?:you know |you "
               r"remember |you have )?(?:about )?(?P<topic>[^.?!]+)", re.I),
)
_TOPIC_PREFIX = re.compile(r"^(?:我)?(?:之前|以前|上次)?(?:跟你|和你)?(?:說過|提過|講過)的")
_CJK_LATIN = re.compile(r"(?<=[\u4e00-\u9fff])(?=[A-Za-z0-9])|(?<=[A-Za-z0-9])(?=[\u4e00-\u9fff])")


class SlotMatch(NamedTuple):
    """One slot phrasing found in a sentence: the memory key and value it states."""

    key: str
    value: str
    type: str
    template: str
    groups: dict
    slot: Slot
    span: tuple[int, int]  # where the value sits in the sentence


def split_sentences(text: str) -> list[str]:
    """Sentences of a turn (Chinese and English punctuation), stripped, empties dropped."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def deletion_request(text: str) -> str | None:
    """The topic of a request to forget something ("把你記得的我在哪裡上班全部刪掉"), or None."""
    for pattern in _DELETE_REQUEST:
        match = pattern.search(text)
        if match:
            return _TOPIC_PREFIX.sub("", _trim(match.group("topic"))) or None
    return None


def _local(at: datetime, tz: str) -> datetime:
    return at.astimezone(ZoneInfo(tz))


def _date_label(at: datetime, tz: str) -> str:
    local = _local(at, tz)
    return f"{local.month} 月 {local.day} 日"


_EDGE_PUNCTUATION = re.compile(r"^[\s,,。.!!??;;::]+|[\s,,。.!!??;;::]+$")
_QUOTES = re.compile(r"^[「『\"“]+|[」』\"”]+$")


def _trim(text: str) -> str:
    """`text` without spaces and punctuation at either end."""
    return _EDGE_PUNCTUATION.sub("", text)


def _unquote(value: str) -> str:
    return _trim(_QUOTES.sub("", value.strip()))


def tidy(text: str) -> str:
    """Spaces between CJK and Latin/digits ("用 Obsidian 記筆記"), none doubled."""
    return re.sub(r"\s{2,}", " ", _CJK_LATIN.sub(" ", text)).strip()


def _fill(slot: Slot, groups: dict[str, str], tz_label: str, english: bool) -> str:
    template = slot.template_en if english and slot.template_en else slot.template
    values = {k: (v or "").strip() for k, v in groups.items()}
    values["value"] = _unquote(values.get("value", ""))
    for name in ("limit", "tail"):
        if values.get(name):
            values[name] = (", " if english else ",") + values[name]
    if values.get("purpose"):
        values["use"] = TOOL_USE.get(canon(values["purpose"]), values["purpose"])
    names = set(re.findall(r"{(\w+)}", template)) - {"tz"}
    return tidy(template.format(tz=tz_label, **{n: values.get(n, "") for n in names}))


def _key(slot: Slot, groups: dict[str, str], value: str) -> str:
    if not slot.many:
        return slot.key
    group = slot.extra.get("key_group", "value")
    parts = group if isinstance(group, tuple) else (group,)
    suffix = "".join(canon(_unquote(groups.get(g) or "")) for g in parts) or canon(value)
    return f"{slot.key}:{suffix}"


def match_slots(sentence: str) -> list[SlotMatch]:
    """Every slot phrasing in a sentence, one per value: where two claim the same words,
    the earlier slot in `SLOTS` (the more specific one) wins."""
    found: list[SlotMatch] = []
    for slot in SLOTS:
        for pattern in slot.patterns:
            for match in pattern.finditer(sentence):
                groups = {k: v for k, v in match.groupdict().items() if v}
                value = _unquote(groups.get("value", ""))
                if not value or (slot.needs_city and not zone_of(value)):
                    continue
                if slot.not_city and zone_of(value):
                    continue
                span = match.span("value")
                if any(span[0] < f.span[1] and f.span[0] < span[1] for f in found):
                    continue  # one stretch of text states one fact
                found.append(SlotMatch(_key(slot, groups, value), value, slot.type, slot.template,
                                       groups, slot, span))
    return sorted(found, key=lambda m: m.span)


def _confidence(clause: str, trusted: bool) -> str:
    if not trusted:
        return "low"
    return "medium" if HEDGE.search(clause) else "high"


def _episode(sentence: str, at: datetime, tz: str,
             on_attachment: bool = False) -> tuple[str, str] | None:
    """(content, object) of an episode the sentence reports, dated; None if it is none."""
    for pattern in _EPISODE + (_EPISODE_ON_ATTACHMENT if on_attachment else ()):
        match = pattern.search(sentence)
        if match:
            obj = re.sub(r"(吧|嗎|好嗎|好不好|一下)$", "", _trim(match.group("obj")))
            obj = re.sub(r"^(?:今天|今日|這次|這週|本週)的?", "", obj)
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

    `classifier` is the nearest-labelled-example fallback for sentences no slot covers:
    None uses the shared default (`memlab.classify.default_classifier`), False turns the
    fallback off. Assistant turns are skipped (the assistant's words are not facts about the
    user), and so are requests to forget something (those go to `memlab.forget`).
    """
    if classifier is None:
        from memlab.classify import default_classifier

        classifier = default_classifier()
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
    for found in match_slots(sentence):
        clause = clause_at(sentence, found.span[0])
        zone = zone_of(found.value) if "{tz}" in found.template else None
        content = _fill(found.slot, found.groups, utc_offset(zone, turn.at) if zone else "",
                        sentence.isascii())
        plan = is_plan(clause)
        if plan:  # a plan is recorded as what was said, not as the fact it would become
            content = "計畫:" + _trim(strip_fillers(clause))
        out.append(Candidate(content=content, type=found.type, key=found.key, value=found.value,
                             confidence=_confidence(clause, trusted), is_plan=plan,
                             outward_action=found.slot.outward or bool(OUTWARD.search(clause)),
                             **base))
    if out:
        return out
    episode = _episode(sentence, turn.at, tz, on_attachment=turn.attachment is not None)
    if episode and trusted:
        return [Candidate(content=episode[0], type="episodic", key=None, value=episode[1],
                          confidence="high", **base)]
    return _nearest_example(sentence, trusted, classifier, base)


def worth_a_look(text: str) -> bool:
    """Whether a sentence no rule covers could state something lasting about the speaker:
    first person, not a request, not small talk, not a passing moment."""
    return (len(text) >= 6 and bool(_FIRST_PERSON.search(text)) and not REQUEST.search(text)
            and not CHITCHAT.search(text) and not TRANSIENT.search(text)
            and not ACKNOWLEDGE.match(text))


def _nearest_example(sentence: str, trusted: bool, classifier, base: dict) -> list[Candidate]:
    """The fallback: keep a first-person statement the labelled examples say is worth it."""
    text = _trim(strip_fillers(sentence))
    if not trusted or classifier is False or not worth_a_look(text):
        return []
    label = classifier.classify(text)
    if not label.remember or label.type not in ("semantic", "procedural") or label.agreement < 0.6:
        return []
    # No key: a guessed slot must not supersede a stated fact. Medium confidence: the words
    # are the user's, but that they are worth keeping is the classifier's guess.
    return [Candidate(content=text, type=label.type, key=None, value=None, confidence="medium",
                      is_plan=is_plan(text), outward_action=bool(OUTWARD.search(text)), **base)]
