"""Load a dataset folder (dataset.yaml, questions.yaml, answer_key.yaml) into a `Dataset`.

Every problem is a `DatasetError` naming the file and the field, e.g.
``data/lab/dataset.yaml: sessions[3].date: not a date ('2026-13-01'); write it as 2026-03-02``.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import yaml
from pydantic import ValidationError

from memlab.errors import DatasetError
from memlab.types import Dataset, Plant, Question, Session, Turn, User

DATA_DIR = Path(__file__).resolve().parent.parent / "data"


def dataset_path(name_or_path: str | Path) -> Path:
    """A dataset folder: a path, or the name of one under the project's data/ folder."""
    path = Path(name_or_path)
    if path.is_dir():
        return path
    if (DATA_DIR / str(name_or_path)).is_dir():
        return DATA_DIR / str(name_or_path)
    raise DatasetError(f"{name_or_path}: no such dataset folder; pass a folder holding "
                       "dataset.yaml (e.g. data/xiaolin)")


def _read(path: Path, required: bool) -> Any:
    if not path.exists():
        if required:
            raise DatasetError(f"{path}: file missing; a dataset folder needs dataset.yaml")
        return None
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise DatasetError(f"{path}: not valid YAML ({exc})") from exc


def _where(file: Path, field: str) -> str:
    return f"{file}: {field}"


def _need(obj: Any, kind: type, file: Path, field: str) -> Any:
    if not isinstance(obj, kind):
        raise DatasetError(f"{_where(file, field)}: expected a {kind.__name__}, "
                           f"got {type(obj).__name__}")
    return obj


def parse_when(value: Any, tz: ZoneInfo, file: Path, field: str) -> datetime:
    """An ISO date (read as 09:00 local) or datetime (naive = local time) → aware datetime."""
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, date):
        parsed = datetime.combine(value, time(9, 0))
    else:
        try:
            parsed = datetime.fromisoformat(str(value))
        except ValueError:
            raise DatasetError(f"{_where(file, field)}: not a date ({value!r}); write it as "
                               "ISO, e.g. 2026-03-02 or 2026-03-02T10:00") from None
        if len(str(value)) <= 10:
            parsed = datetime.combine(parsed.date(), time(9, 0))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=tz)


def _validated(model, data: dict, file: Path, field: str):
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"])
        raise DatasetError(f"{_where(file, f'{field}.{loc}' if loc else field)}: "
                           f"{err['msg']}") from None


def load_dataset(path: str | Path) -> Dataset:
    """Read and check a dataset folder; raise `DatasetError` on the first problem found."""
    folder = dataset_path(path)
    main = folder / "dataset.yaml"
    raw = _need(_read(main, required=True), dict, main, "(top level)")
    for field in ("name", "users", "sessions"):
        if field not in raw:
            raise DatasetError(f"{_where(main, field)}: missing; see DESIGN.md 'Dataset format'")
    try:
        tz = ZoneInfo(str(raw.get("timezone", "Asia/Taipei")))
    except Exception:
        raise DatasetError(f"{_where(main, 'timezone')}: unknown time zone "
                           f"{raw.get('timezone')!r}; use an IANA name like Asia/Taipei") from None
    users = [_validated(User, _need(u, dict, main, f"users[{i}]"), main, f"users[{i}]")
             for i, u in enumerate(_need(raw["users"], list, main, "users"))]
    user_ids = {u.id for u in users}
    sessions: list[Session] = []
    seen: set[str] = set()
    for i, s in enumerate(_need(raw["sessions"], list, main, "sessions")):
        where = f"sessions[{i}]"
        _need(s, dict, main, where)
        for field in ("id", "user", "date", "turns"):
            if field not in s:
                raise DatasetError(f"{_where(main, f'{where}.{field}')}: missing")
        if s["id"] in seen:
            raise DatasetError(f"{_where(main, f'{where}.id')}: duplicate session id {s['id']!r}")
        seen.add(s["id"])
        if s["user"] not in user_ids:
            raise DatasetError(f"{_where(main, f'{where}.user')}: unknown user {s['user']!r}; "
                               f"add it under users (known: {sorted(user_ids)})")
        start = parse_when(s["date"], tz, main, f"{where}.date")
        turns = []
        for k, t in enumerate(_need(s["turns"], list, main, f"{where}.turns"), start=1):
            t = dict(_need(t, dict, main, f"{where}.turns[{k - 1}]"))
            data = {"session_id": str(s["id"]), "user_id": s["user"], "turn": k,
                    "at": start + timedelta(minutes=k - 1), **t}
            turns.append(_validated(Turn, data, main, f"{where}.turns[{k - 1}]"))
        if not turns:
            raise DatasetError(f"{_where(main, f'{where}.turns')}: a session needs turns")
        sessions.append(Session(id=str(s["id"]), user_id=s["user"], date=start, turns=turns))
    _check_order(sessions, main)
    dataset = Dataset(name=str(raw["name"]), language=str(raw.get("language", "zh-TW")),
                      timezone=str(tz), users=users, sessions=sessions)
    dataset.questions = _load_questions(folder / "questions.yaml", dataset, tz)
    dataset.answer_key = _load_answer_key(folder / "answer_key.yaml", dataset)
    return dataset


def _check_order(sessions: list[Session], file: Path) -> None:
    last: dict[str, datetime] = {}
    for i, s in enumerate(sessions):
        if s.user_id in last and s.date < last[s.user_id]:
            raise DatasetError(f"{_where(file, f'sessions[{i}].date')}: sessions must be listed "
                               f"in time order; {s.id} is earlier than the one before it")
        last[s.user_id] = s.date


def _check_refs(refs: list[str], dataset: Dataset, file: Path, field: str,
                user_id: str | None = None) -> None:
    for ref in refs:
        try:
            turn = dataset.turn(ref)
        except KeyError:
            raise DatasetError(f"{_where(file, field)}: evidence {ref!r} points at no turn; "
                               "write session:turn with a 1-based turn number, e.g. s3:2") from None
        if user_id and turn.user_id != user_id:
            raise DatasetError(f"{_where(file, field)}: evidence {ref!r} belongs to user "
                               f"{turn.user_id}, not {user_id}")


def _load_questions(file: Path, dataset: Dataset, tz: ZoneInfo) -> list[Question]:
    raw = _read(file, required=False) or []
    questions, ids = [], set()
    for i, q in enumerate(_need(raw, list, file, "(top level)")):
        where = f"[{i}]"
        q = dict(_need(q, dict, file, where))
        if "user" in q:
            q["user_id"] = q.pop("user")
        if "asked_at" not in q:
            raise DatasetError(f"{_where(file, f'{where}.asked_at')}: missing")
        q["asked_at"] = parse_when(q["asked_at"], tz, file, f"{where}.asked_at")
        if q.get("answer") is not None:
            q["answer"] = str(q["answer"])
        question = _validated(Question, q, file, where)
        if question.id in ids:
            raise DatasetError(f"{_where(file, f'{where}.id')}: duplicate question id {question.id}")
        ids.add(question.id)
        if question.user_id not in {u.id for u in dataset.users}:
            raise DatasetError(f"{_where(file, f'{where}.user')}: unknown user {question.user_id!r}")
        _check_refs(question.evidence, dataset, file, f"{where}.evidence", question.user_id)
        questions.append(question)
    return questions


def _load_answer_key(file: Path, dataset: Dataset) -> list[Plant]:
    raw = _read(file, required=False) or []
    plants = []
    for i, p in enumerate(_need(raw, list, file, "(top level)")):
        plant = _validated(Plant, _need(p, dict, file, f"[{i}]"), file, f"[{i}]")
        _check_refs(plant.evidence, dataset, file, f"[{i}].evidence")
        _check_refs(plant.replaced_by, dataset, file, f"[{i}].replaced_by")
        plants.append(plant)
    return plants
