"""Loaders that turn public benchmark files (LongMemEval, LoCoMo) into memlab Datasets.

The project ships none of these files: every loader takes a path. Malformed input raises
DatasetError naming the file and the JSON path of the bad field, e.g.
``longmemeval.json: [3].haystack_dates: expected a list``.

Conventions shared by both loaders:
- session ids are ``<user id>/<benchmark session id>`` so they are unique in the Dataset
  (``Dataset.turn("conv-26/D3:13")`` works); evidence refs use them.
- `accept` is ``[[answer]]`` for short answers (≤ 40 characters) and ``[]`` for long ones
  (rubrics, explanations), which the offline judge cannot grade; every question carries a
  set tag saying which judge can grade it: ``offline_judge`` or ``llm_judge_only``, plus
  the benchmark name and its original question type.
- ``Dataset.sessions`` is in global chronological order (stable), so replaying it keeps a
  frozen clock monotonic; each user's own sessions are therefore also sorted.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

from memlab.errors import DatasetError
from memlab.types import Dataset, Question, Session, Turn, User

__all__ = ["SHORT_ANSWER_CHARS", "load_locomo", "load_longmemeval"]

SHORT_ANSWER_CHARS = 40
OFFLINE_SET, LLM_SET = "offline_judge", "llm_judge_only"

_LME_CATEGORIES = {
    "single-session-user": "information_extraction",
    "single-session-assistant": "information_extraction",
    "single-session-preference": "information_extraction",
    "multi-session": "multi_session",
    "temporal-reasoning": "temporal_reasoning",
    "knowledge-update": "knowledge_update",
    "abstention": "abstention",  # not official, but used by converted copies (sample22)
}
# LoCoMo's integers are NOT in the paper's order (see the benchmarks README).
_LOCOMO_CATEGORIES = {
    1: ("multi_session", "multi_hop"),
    2: ("temporal_reasoning", "temporal"),
    3: ("information_extraction", "open_domain"),
    4: ("information_extraction", "single_hop"),
    5: ("abstention", "adversarial"),
}
_LME_DATE = re.compile(r"\s*(\d{4})/(\d{1,2})/(\d{1,2})\s*(?:\(\w+\))?\s*(\d{1,2}):(\d{2})\s*")
_LOCOMO_DATE = re.compile(  # "1:56 pm on 8 May, 2023"
    r"\s*(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([a-z]+)\.?,?\s*(\d{4})\s*", re.IGNORECASE)
_DIA_ID = re.compile(r"D(\d+):(\d+)")


class _File:
    """A benchmark file being read: knows its name, so every error can name it."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.name = self.path.name

    def error(self, where: str, problem: str) -> DatasetError:
        return DatasetError(f"{self.name}: {where}: {problem}")

    def load_list(self) -> list[Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise DatasetError(
                f"{self.name}: not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}"
            ) from None
        if not isinstance(data, list):
            raise self.error("(top level)", f"expected a list, got {type(data).__name__}")
        return data

    def get(self, obj: Any, key: str, where: str, kind: type | tuple[type, ...],
            *, optional: bool = False) -> Any:
        """obj[key], checked to be of `kind` (None allowed if optional)."""
        if not isinstance(obj, dict):
            raise self.error(where, f"expected an object, got {type(obj).__name__}")
        value = obj.get(key)
        if value is None:
            if optional:
                return None
            raise self.error(f"{where}.{key}".lstrip("."), "missing")
        # bool is an int in Python; a boolean is never a valid answer, id or count here.
        if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _tuple(kind)):
            names = " or ".join(_TYPE_NAMES.get(k, k.__name__) for k in _tuple(kind))
            raise self.error(f"{where}.{key}".lstrip("."),
                             f"expected {names}, got {type(value).__name__}")
        return value


_TYPE_NAMES = {list: "a list", dict: "an object", str: "a string", int: "an integer",
               float: "a number", bool: "true/false"}


def _tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _answer_fields(answer: str | None) -> tuple[list[list[str]], str]:
    """`accept` keywords and the judge set tag for a gold answer."""
    if answer is None:
        return [], OFFLINE_SET  # abstention: graded by abstention phrases
    if len(answer) <= SHORT_ANSWER_CHARS:
        return [[answer]], OFFLINE_SET
    return [], LLM_SET


def _safe_id(raw: str) -> str:
    # ':' separates session and turn in evidence refs, so it cannot appear in a session id.
    return re.sub(r"[\s:]+", "_", raw.strip())


def _chronological(sessions: list[Session]) -> list[Session]:
    return sorted(sessions, key=lambda s: s.date)  # stable: same-time sessions keep file order


# ---------------------------------------------------------------- LongMemEval
def _lme_date(f: _File, raw: Any, where: str) -> datetime:
    m = _LME_DATE.fullmatch(raw) if isinstance(raw, str) else None
    try:
        if m:
            return datetime(*(int(g) for g in m.groups()))
    except ValueError:
        pass
    raise f.error(where, f'expected a date like "2023/05/20 (Sat) 02:21", got {raw!r}')


def load_longmemeval(path: str | Path, limit: int | None = None) -> Dataset:
    """Load a LongMemEval JSON file (official schema); each question's haystack is its own user."""
    f = _File(path)
    users, sessions, questions = [], [], []
    for i, item in enumerate(f.load_list()[:limit]):
        w = f"[{i}]"
        qid = str(f.get(item, "question_id", w, (str, int)))
        user_id = f"lme_{_safe_id(qid)}"
        ids = f.get(item, "haystack_session_ids", w, list)
        dates = f.get(item, "haystack_dates", w, list)
        haystack = f.get(item, "haystack_sessions", w, list)
        if not haystack:
            raise f.error(f"{w}.haystack_sessions", "expected at least one session")
        if not len(ids) == len(dates) == len(haystack):
            raise f.error(f"{w}.haystack_sessions", "haystack_session_ids, haystack_dates and "
                          f"haystack_sessions differ in length ({len(ids)}, {len(dates)}, "
                          f"{len(haystack)})")
        own: list[Session] = []
        evidence: list[str] = []
        seen: set[str] = set()
        for j, (raw_id, raw_date, raw_turns) in enumerate(zip(ids, dates, haystack, strict=True)):
            at = _lme_date(f, raw_date, f"{w}.haystack_dates[{j}]")
            if not isinstance(raw_id, str | int):
                raise f.error(f"{w}.haystack_session_ids[{j}]", "expected a string")
            session_id = f"{user_id}/{_safe_id(str(raw_id))}"
            if session_id in seen:  # a repeated haystack id would make evidence ambiguous
                session_id = f"{session_id}_{j + 1}"
            seen.add(session_id)
            if not isinstance(raw_turns, list):
                raise f.error(f"{w}.haystack_sessions[{j}]", "expected a list of turns")
            turns = []
            for t, raw in enumerate(raw_turns, start=1):
                tw = f"{w}.haystack_sessions[{j}][{t - 1}]"
                role = f.get(raw, "role", tw, str)
                if role not in ("user", "assistant"):
                    raise f.error(f"{tw}.role", f'expected "user" or "assistant", got {role!r}')
                text = f.get(raw, "content", tw, str)
                turns.append(Turn(session_id=session_id, user_id=user_id, turn=t, role=role,
                                  text=text, at=at))
                if raw.get("has_answer") is True:
                    evidence.append(f"{session_id}:{t}")
            own.append(Session(id=session_id, user_id=user_id, date=at, turns=turns))
        raw_qdate = item.get("question_date")
        asked_at = (max(s.date for s in own) if raw_qdate is None  # null in converted copies
                    else _lme_date(f, raw_qdate, f"{w}.question_date"))
        qtype = f.get(item, "question_type", w, str)
        if qtype not in _LME_CATEGORIES:
            raise f.error(f"{w}.question_type", f"unknown type {qtype!r}; expected one of "
                          f"{', '.join(_LME_CATEGORIES)}")
        abstain = qid.endswith("_abs") or qtype == "abstention"
        raw_answer = f.get(item, "answer", w, (str, int, float), optional=abstain)
        answer = None if abstain else str(raw_answer)
        accept, judge_set = _answer_fields(answer)
        users.append(User(id=user_id))
        sessions.extend(own)
        questions.append(Question(
            id=qid, user_id=user_id, category="abstention" if abstain else _LME_CATEGORIES[qtype],
            question=f.get(item, "question", w, str), answer=answer, accept=accept,
            evidence=evidence, asked_at=asked_at, sets=["longmemeval", qtype, judge_set],
        ))
    return Dataset(name="longmemeval", language="en", users=users,
                   sessions=_chronological(sessions), questions=questions)


# ---------------------------------------------------------------- LoCoMo
def _locomo_date(f: _File, raw: Any, where: str) -> datetime:
    m = _LOCOMO_DATE.fullmatch(raw) if isinstance(raw, str) else None
    if m:
        hour, minute, ampm, day, month, year = m.groups()
        text = f"{hour}:{minute} {ampm.upper()} {day} {month.title()} {year}"
        for fmt in ("%I:%M %p %d %B %Y", "%I:%M %p %d %b %Y"):
            try:
                return datetime.strptime(text, fmt)
            except ValueError:
                continue
    raise f.error(where, f'expected a date like "1:56 pm on 8 May, 2023", got {raw!r}')


def _locomo_evidence(raw: Any, refs: dict[str, str]) -> list[str]:
    """Evidence refs for dia ids; "D8:6; D9:17" is split, unknown or malformed ids are dropped."""
    items = raw if isinstance(raw, list) else [raw] if isinstance(raw, str) else []
    found = [f"D{s}:{t}" for item in items if isinstance(item, str)
             for s, t in _DIA_ID.findall(item)]
    return list(dict.fromkeys(refs[d] for d in found if d in refs))


def load_locomo(path: str | Path, limit_conversations: int | None = None,
                *, speaker_names: bool = True) -> Dataset:
    """Load locomo10.json; each conversation is one user whose id is its sample_id.

    LoCoMo is a chat between two people, not a user and an assistant. We map speaker_a's
    turns to role "user" and speaker_b's to "assistant", and (with `speaker_names`) prefix
    each text with the speaker's name, because the questions ask about both people by
    name ("What did Melanie paint?"). Shared photos become "[shares a photo: caption]".
    Questions are asked after the last session (LoCoMo gives no question dates).
    """
    f = _File(path)
    users, sessions, questions = [], [], []
    for i, sample in enumerate(f.load_list()[:limit_conversations]):
        w = f"[{i}]"
        user_id = _safe_id(str(f.get(sample, "sample_id", w, (str, int))))
        conv = f.get(sample, "conversation", w, dict)
        cw = f"{w}.conversation"
        speakers = {f.get(conv, "speaker_a", cw, str): "user",
                    f.get(conv, "speaker_b", cw, str): "assistant"}
        # One conversation has more session_<n>_date_time keys than sessions: iterate the
        # session_<n> keys whose value is a list.
        numbers = sorted(int(k.split("_")[1]) for k, v in conv.items()
                         if re.fullmatch(r"session_\d+", k) and isinstance(v, list))
        if not numbers:
            raise f.error(cw, "expected at least one session_<n> list")
        refs: dict[str, str] = {}  # dia id "D3:13" → evidence ref "conv-26/D3:13"
        own: list[Session] = []
        for n in numbers:
            sw = f"{cw}.session_{n}"
            at = _locomo_date(f, f.get(conv, f"session_{n}_date_time", cw, str),
                              f"{cw}.session_{n}_date_time")
            session_id = f"{user_id}/D{n}"
            turns = []
            for t, raw in enumerate(conv[f"session_{n}"], start=1):
                tw = f"{sw}[{t - 1}]"
                speaker = f.get(raw, "speaker", tw, str)
                if speaker not in speakers:
                    raise f.error(f"{tw}.speaker", f"expected one of {sorted(speakers)}, "
                                  f"got {speaker!r}")
                text = f.get(raw, "text", tw, str)
                caption = raw.get("blip_caption")
                if isinstance(caption, str) and caption.strip():
                    text = f"{text} [shares a photo: {caption.strip()}]"
                if speaker_names:
                    text = f"{speaker}: {text}"
                turns.append(Turn(session_id=session_id, user_id=user_id, turn=t,
                                  role=speakers[speaker], text=text, at=at))
                dia_id = raw.get("dia_id")
                if isinstance(dia_id, str):
                    refs[dia_id.strip()] = f"{session_id}:{t}"
            own.append(Session(id=session_id, user_id=user_id, date=at, turns=turns))
        asked_at = max(s.date for s in own)
        for k, qa in enumerate(f.get(sample, "qa", w, list), start=1):
            qw = f"{w}.qa[{k - 1}]"
            code = f.get(qa, "category", qw, int)
            if code not in _LOCOMO_CATEGORIES:
                raise f.error(f"{qw}.category", f"expected 1-5, got {code}")
            category, tag = _LOCOMO_CATEGORIES[code]
            reject: list[str] = []
            if category == "abstention":
                answer = None
                adversarial = f.get(qa, "adversarial_answer", qw, (str, int), optional=True)
                reject = [] if adversarial is None else [str(adversarial)]
            else:
                answer = str(f.get(qa, "answer", qw, (str, int, float)))
            accept, judge_set = _answer_fields(answer)
            questions.append(Question(
                id=f"{user_id}_q{k}", user_id=user_id, category=category,
                question=f.get(qa, "question", qw, str), answer=answer, accept=accept,
                reject=reject, evidence=_locomo_evidence(qa.get("evidence"), refs),
                asked_at=asked_at, sets=["locomo", tag, judge_set],
            ))
        users.append(User(id=user_id, name=next(iter(speakers))))
        sessions.extend(own)
    return Dataset(name="locomo", language="en", users=users,
                   sessions=_chronological(sessions), questions=questions)
