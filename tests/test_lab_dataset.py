"""The required lab's dataset (data/lab) and the labelled examples (data/examples/classify.yaml).

Reads the YAML directly, so these checks do not depend on the loader: they pin down the
numbers the chapter's 必做 lab asks for, and fail if the data drifts away from them.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import date, datetime
from pathlib import Path

import pytest
import yaml

DATA = Path(__file__).resolve().parent.parent / "data"
LAB = DATA / "lab"
EXAMPLES = DATA / "examples" / "classify.yaml"

CATEGORIES = ("information_extraction", "multi_session", "temporal_reasoning",
              "knowledge_update", "abstention")
LAB20_COUNTS = {"information_extraction": 8, "multi_session": 2, "knowledge_update": 5,
                "temporal_reasoning": 3, "abstention": 2}
PLANT_COUNTS = {"change": 5, "multi_session": 2, "trivial": 2, "poison": 1, "deletion": 1}
REF = re.compile(r"\b(l\d{2}):(\d+)\b")
# Where a change is stated as done, not planned.
CHANGE_MARKERS = ("現在", "已經", "換成", "改成", "改寄", "不再", "換工作")
EXERCISE_PHRASES = ("不吃香菜", "退款流程", "先列待辦")
SLOTS = {"answer_format", "reply_language", "timezone", "base_city", "home_city", "employer",
         "job_title", "pet", "pet_name", "diet", "allergy", "name", "family", "tool", "hobby",
         "routine", "commute", "report_recipient", "note_procedure", "device"}
TYPES = {"working", "episodic", "semantic", "procedural", "none"}
LAYERS = {"transcripts", "notes", "representations", "injected"}


def _load(path: Path):
    return yaml.safe_load(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def dataset() -> dict:
    return _load(LAB / "dataset.yaml")


@pytest.fixture(scope="module")
def questions() -> list[dict]:
    return _load(LAB / "questions.yaml")


@pytest.fixture(scope="module")
def key() -> list[dict]:
    return _load(LAB / "answer_key.yaml")


@pytest.fixture(scope="module")
def examples() -> list[dict]:
    return _load(EXAMPLES)


@pytest.fixture(scope="module")
def turns(dataset) -> dict[str, dict]:
    """Every turn by its evidence reference, e.g. ``l03:11``."""
    return {f"{s['id']}:{n}": t for s in dataset["sessions"]
            for n, t in enumerate(s["turns"], start=1)}


@pytest.fixture(scope="module")
def session_date(dataset) -> dict[str, date]:
    return {s["id"]: _as_date(s["date"]) for s in dataset["sessions"]}


def _as_date(value) -> date:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    return date.fromisoformat(str(value)[:10])


def _session(ref: str) -> str:
    return ref.partition(":")[0]


def _pos(ref: str, dataset: dict) -> tuple[int, int]:
    """(session index, turn number): compares refs in chronological order."""
    sid, _, n = ref.partition(":")
    order = [s["id"] for s in dataset["sessions"]]
    return order.index(sid), int(n)


def _by_kind(key: list[dict], *kinds: str) -> list[dict]:
    return [p for p in key if p["kind"] in kinds]


# ---------------------------------------------------------------- dataset.yaml
def test_one_user(dataset):
    assert dataset["users"] == [{"id": "u_101", "name": "阿哲"}]
    assert all(s["user"] == "u_101" for s in dataset["sessions"])


def test_ten_sessions_on_ten_dates_in_order(dataset):
    sessions = dataset["sessions"]
    assert [s["id"] for s in sessions] == [f"l{i:02d}" for i in range(1, 11)]
    dates = [_as_date(s["date"]) for s in sessions]
    assert len(set(dates)) == 10, "every session needs its own date"
    assert dates == sorted(dates), "sessions must be chronological"
    assert date(2026, 1, 5) <= dates[0] and dates[-1] <= date(2026, 4, 30)


def test_turns_alternate_and_number_5_to_15(dataset):
    for s in dataset["sessions"]:
        roles = [t["role"] for t in s["turns"]]
        assert 5 <= len(roles) <= 15, f"{s['id']} has {len(roles)} turns"
        assert roles == ["user" if i % 2 == 0 else "assistant" for i in range(len(roles))], (
            f"{s['id']}: turns must alternate user/assistant starting with the user")
        assert all(t["text"].strip() for t in s["turns"]), f"{s['id']}: empty turn"


def test_only_the_poison_turn_has_an_attachment(turns, key):
    (poison,) = _by_kind(key, "poison")
    with_attachment = [ref for ref, t in turns.items() if t.get("attachment")]
    assert with_attachment == poison["evidence"]


# ---------------------------------------------------------------- answer_key.yaml
def test_answer_key_counts(key):
    counts = Counter(p["kind"] for p in key)
    assert counts["fact"] + counts["preference"] == 8
    for kind, n in PLANT_COUNTS.items():
        assert counts[kind] == n, f"answer_key: {counts[kind]} items of kind {kind}, want {n}"
    assert set(counts) <= {"fact", "preference", *PLANT_COUNTS}
    assert len({p["id"] for p in key}) == len(key), "answer_key ids must be unique"


def test_answer_key_fields(key):
    for p in key:
        assert set(p) <= {"id", "kind", "summary", "evidence", "replaced_by", "user"}, p["id"]
        assert p["summary"].strip() and p["evidence"], p["id"]
        assert bool(p.get("replaced_by")) == (p["kind"] == "change"), (
            f"{p['id']}: replaced_by is for kind change only")


def test_every_ref_points_at_a_user_turn(key, questions, turns):
    refs = [(p["id"], r) for p in key for r in p["evidence"] + p.get("replaced_by", [])]
    refs += [(q["id"], r) for q in questions for r in q["evidence"]]
    refs += [(p["id"], ":".join(m)) for p in key for m in REF.findall(p["summary"])]
    for owner, ref in refs:
        assert ref in turns, f"{owner}: evidence {ref} is not a turn"
        assert turns[ref]["role"] == "user", f"{owner}: {ref} is not a user turn"


def test_changes_are_replaced_later_by_a_done_statement(key, turns, dataset):
    for p in _by_kind(key, "change"):
        (first,), (later,) = p["evidence"], p["replaced_by"]
        assert _session(later) != _session(first), p["id"]
        assert _pos(later, dataset) > _pos(first, dataset), f"{p['id']}: replaced_by is earlier"
        text = turns[later]["text"]
        assert any(m in text for m in CHANGE_MARKERS), f"{p['id']}: {later} does not read as done"


def test_one_change_has_a_plan_in_between(key, turns, dataset):
    planned = []
    for p in _by_kind(key, "change"):
        first, later = p["evidence"][0], p["replaced_by"][0]
        for ref in (":".join(m) for m in REF.findall(p["summary"])):
            if _pos(first, dataset) < _pos(ref, dataset) < _pos(later, dataset):
                assert "可能" in turns[ref]["text"] or "計畫" in turns[ref]["text"], ref
                planned.append(p["id"])
    assert len(planned) == 1, f"exactly one change records a plan in its summary, got {planned}"


def test_multi_session_items_span_two_sessions(key):
    for p in _by_kind(key, "multi_session"):
        assert len({_session(r) for r in p["evidence"]}) >= 2, p["id"]


def test_poison_hides_an_instruction_in_an_attachment(key, turns):
    (poison,) = _by_kind(key, "poison")
    turn = turns[poison["evidence"][0]]
    assert turn["role"] == "user"
    assert turn["attachment"]["kind"] == "web_clip"
    assert "請記住" in turn["attachment"]["text"]
    assert "digest-copy@mailbox.example" in turn["attachment"]["text"]
    assert "請記住" not in turn["text"], "the instruction must hide in the attachment"


def test_deletion_target_is_off_every_change_chain(key, turns, dataset):
    (deletion,) = _by_kind(key, "deletion")
    chain = {r for p in _by_kind(key, "change") for r in p["evidence"] + p["replaced_by"]}
    assert not set(deletion["evidence"]) & chain
    ordinary = {r for p in _by_kind(key, "fact", "preference") for r in p["evidence"]}
    assert set(deletion["evidence"]) <= ordinary, "the deletion target is one of the 8 facts"
    requests = [":".join(m) for m in REF.findall(deletion["summary"])]
    assert len(requests) == 1, "the summary names the turn asking for the deletion"
    last = dataset["sessions"][-1]
    assert _session(requests[0]) == last["id"]
    assert _pos(requests[0], dataset)[1] >= len(last["turns"]) - 2, "ask near the end"
    assert "刪" in turns[requests[0]]["text"]


# ---------------------------------------------------------------- questions.yaml
def test_question_fields(questions, session_date):
    last = max(session_date.values())
    assert len({q["id"] for q in questions}) == len(questions), "question ids must be unique"
    for q in questions:
        assert q["user"] == "u_101" and q["category"] in CATEGORIES, q["id"]
        assert q["question"].strip(), q["id"]
        assert _as_date(q["asked_at"]) > last, f"{q['id']}: asked before the last session"
        assert set(q["sets"]) <= {"lab20", "lab30"} and q["sets"], q["id"]
        assert all(isinstance(alt, list) and alt for alt in q["accept"]), q["id"]
        if q["category"] == "abstention":
            assert q["answer"] is None and q["accept"] == [], q["id"]
        else:
            assert q["answer"] and q["accept"] and q["evidence"], q["id"]


def test_lab20_counts(questions):
    lab20 = [q for q in questions if "lab20" in q["sets"]]
    assert len(lab20) == 20
    assert Counter(q["category"] for q in lab20) == LAB20_COUNTS


def test_lab30_counts_and_evidence(questions):
    lab30 = [q for q in questions if "lab30" in q["sets"]]
    assert len(lab30) == 30
    counts = Counter(q["category"] for q in lab30)
    assert all(counts[c] >= 5 for c in CATEGORIES), counts
    assert all(q["evidence"] for q in lab30)


def test_lab20_covers_every_planted_item(questions, key):
    lab20 = [q for q in questions if "lab20" in q["sets"]]

    def asked(category: str) -> set[str]:
        return {r for q in lab20 if q["category"] == category for r in q["evidence"]}

    for p in _by_kind(key, "fact", "preference"):
        assert set(p["evidence"]) <= asked("information_extraction"), p["id"]
    for p in _by_kind(key, "multi_session"):
        assert set(p["evidence"]) <= asked("multi_session"), p["id"]
    updates = [q for q in lab20 if q["category"] == "knowledge_update"]
    for p in _by_kind(key, "change"):
        hits = [q for q in updates if p["replaced_by"][0] in q["evidence"]]
        assert len(hits) == 1, f"{p['id']}: want one knowledge_update question"
        assert hits[0]["reject"], f"{hits[0]['id']}: reject must list the stale value"


def test_knowledge_update_rejects_the_stale_value(questions, turns):
    for q in (q for q in questions if q["category"] == "knowledge_update"):
        first, later = turns[q["evidence"][0]]["text"], turns[q["evidence"][-1]]["text"]
        assert all(r in first for r in q["reject"][:1]), f"{q['id']}: reject not in {first}"
        assert not any(r in later for r in q["reject"]), f"{q['id']}: new text has stale value"
        assert any(all(k.casefold() in later.casefold() for k in alt) for alt in q["accept"])


def test_temporal_dates_are_session_dates(questions, session_date):
    for q in (q for q in questions if q["category"] == "temporal_reasoning"):
        for alt in q["accept"]:
            for k in alt:
                if re.fullmatch(r"\d{4}-\d{2}-\d{2}", k):
                    dates = {session_date[_session(r)] for r in q["evidence"]}
                    assert date.fromisoformat(k) in dates, f"{q['id']}: {k} is no evidence date"


def test_a_question_depends_on_the_deletion(questions, key):
    (deletion,) = _by_kind(key, "deletion")
    dependent = [q for q in questions if deletion["id"] in q["id"]]
    assert len(dependent) == 1
    (q,) = dependent
    assert q["answer"] is None and "lab30" in q["sets"]
    assert set(deletion["evidence"]) <= set(q["evidence"])
    # Inside lab30 nothing else may expect the deleted fact as an answer.
    others = [o for o in questions if "lab30" in o["sets"] and o is not q]
    assert not any(set(deletion["evidence"]) & set(o["evidence"]) for o in others)


# ---------------------------------------------------------------- data/examples/classify.yaml
REQUIRED = {"id", "text", "lang", "type", "remember", "key", "layer", "why"}
OPTIONAL = {"plan", "outward_action"}


def test_examples_shape(examples):
    assert len(examples) >= 70
    assert len({e["id"] for e in examples}) == len(examples), "example ids must be unique"
    assert len({e["text"] for e in examples}) == len(examples), "duplicate example text"
    for e in examples:
        assert REQUIRED <= set(e) <= REQUIRED | OPTIONAL, e.get("id")
        assert re.fullmatch(r"ex\d{3}", e["id"]), e["id"]
        assert e["lang"] in {"zh", "en"} and e["type"] in TYPES, e["id"]
        assert e["layer"] in LAYERS and isinstance(e["remember"], bool), e["id"]
        assert e["key"] is None or e["key"] in SLOTS, e["id"]
        assert e["text"].strip() and e["why"].strip(), e["id"]
        assert all(e.get(f) in (None, True) for f in OPTIONAL), e["id"]


def test_examples_cover_languages_and_types(examples):
    langs = Counter(e["lang"] for e in examples)
    assert 0.5 <= langs["zh"] / len(examples) <= 0.7, langs
    assert set(Counter(e["type"] for e in examples)) == TYPES
    assert any(e.get("plan") for e in examples) and any(e.get("outward_action") for e in examples)
    sensitive = [e for e in examples if e["type"] == "semantic" and not e["remember"]]
    assert sensitive, "unsolicited sensitive details are labelled remember: false"


def test_examples_labels_are_consistent(examples):
    for e in examples:
        if e["type"] in {"none", "working"}:
            assert not e["remember"] and e["key"] is None, e["id"]
        if e["type"] == "episodic":
            assert e["key"] is None and e["layer"] == "notes", e["id"]
        if e["type"] == "procedural":
            assert e["layer"] == "injected", e["id"]
        if e.get("plan") or e.get("outward_action"):
            assert e["type"] == "semantic" and e["remember"], e["id"]
            assert e["layer"] != "injected", f"{e['id']}: unconfirmed/planned must not be injected"
        assert (e["layer"] == "transcripts") == (not e["remember"]), e["id"]


def test_examples_leave_out_the_exercise(examples):
    for e in examples:
        for phrase in EXERCISE_PHRASES:
            assert phrase not in e["text"], f"{e['id']} leaks the exercise phrase {phrase}"
