"""Benchmark loaders on hand-written fixtures in the real schemas, malformed input, real files."""

from __future__ import annotations

import copy
import json
import os
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from memlab.converters import load_locomo, load_longmemeval
from memlab.errors import DatasetError, MemlabError
from memlab.judge import judge_offline

# Hand-written in the real schemas; shipped under data/ so notebooks can use them too.
FIXTURES = Path(__file__).resolve().parents[1] / "data" / "samples"
LME = FIXTURES / "lme_tiny.json"
LOCOMO = FIXTURES / "locomo_tiny.json"
BENCHMARKS = Path(os.environ.get("MEMLAB_BENCHMARKS")
                  or Path(__file__).parents[2] / "shared/data/benchmarks")


# ---------------------------------------------------------------- LongMemEval
def test_longmemeval_users_sessions_and_turns() -> None:
    ds = load_longmemeval(LME)
    assert ds.name == "longmemeval" and ds.language == "en"
    assert [u.id for u in ds.users] == ["lme_ku01", "lme_ms01", "lme_tr01_abs", "lme_pref01"]
    # the same haystack id in two questions becomes two sessions, one per user
    assert {"lme_ku01/shared_a", "lme_ms01/shared_a"} <= {s.id for s in ds.sessions}
    assert len({s.id for s in ds.sessions}) == len(ds.sessions) == 6
    dates = [s.date for s in ds.sessions]
    assert dates == sorted(dates)
    ku = [s for s in ds.sessions if s.user_id == "lme_ku01"]
    assert [s.id for s in ku] == ["lme_ku01/shared_a", "lme_ku01/shared_b"]  # file order reversed
    assert ku[0].date == datetime(2023, 5, 20, 2, 21)
    assert [t.turn for t in ku[0].turns] == [1, 2, 3]
    assert all(t.at == ku[0].date and t.user_id == "lme_ku01" for t in ku[0].turns)
    assert ku[0].turns[1].role == "assistant"


def test_longmemeval_questions() -> None:
    questions = {q.id: q for q in load_longmemeval(LME).questions}
    ku = questions["ku01"]
    assert ku.category == "knowledge_update" and ku.answer == "Tokyo"
    assert ku.accept == [["Tokyo"]] and ku.asked_at == datetime(2023, 6, 1, 0, 58)
    assert ku.evidence == ["lme_ku01/shared_b:1", "lme_ku01/shared_a:3"]
    ms = questions["ms01"]
    assert ms.answer == "3" and ms.accept == [["3"]]  # int answer
    assert ms.asked_at == datetime(2023, 5, 23, 10, 26)  # null question_date → latest session
    assert ms.evidence == []  # no has_answer labels
    abstain = questions["tr01_abs"]
    assert abstain.category == "abstention" and abstain.answer is None
    assert "offline_judge" in abstain.sets
    pref = questions["pref01"]
    assert pref.category == "information_extraction" and pref.accept == []
    assert pref.sets == ["longmemeval", "single-session-preference", "llm_judge_only"]
    assert judge_offline(pref, "podcasts").reason.startswith("needs LLM judge")
    assert judge_offline(ms, "You bought three plants.").correct


def test_longmemeval_evidence_points_at_turns() -> None:
    ds = load_longmemeval(LME)
    ku = next(q for q in ds.questions if q.id == "ku01")
    assert "Tokyo" in ds.turn(ku.evidence[0]).text
    assert "Taipei" in ds.turn(ku.evidence[1]).text


def test_longmemeval_limit() -> None:
    ds = load_longmemeval(LME, limit=2)
    assert [q.id for q in ds.questions] == ["ku01", "ms01"] and len(ds.users) == 2


# ---------------------------------------------------------------- LoCoMo
def test_locomo_sessions_roles_and_text() -> None:
    ds = load_locomo(LOCOMO)
    assert [u.id for u in ds.users] == ["conv-t1", "conv-t2"]
    assert ds.users[0].name == "Caroline"
    own = [s for s in ds.sessions if s.user_id == "conv-t1"]
    # session_3 has a date but no turns: skipped; session_2 listed first in the file
    assert [s.id for s in own] == ["conv-t1/D1", "conv-t1/D2"]
    assert own[0].date == datetime(2023, 5, 8, 13, 56)
    first, second = own[0].turns[:2]
    assert (first.role, first.text) == ("user", "Caroline: Hey Mel! Good to see you!")
    assert second.role == "assistant" and second.text.startswith("Melanie: ")
    photo = own[1].turns[0]
    assert photo.text.endswith("[shares a photo: a photo of a painting of a sunset]")
    plain = load_locomo(LOCOMO, speaker_names=False).sessions
    assert any(t.text == "Hey Mel! Good to see you!" for s in plain for t in s.turns)


def test_locomo_questions() -> None:
    ds = load_locomo(LOCOMO)
    q1, q2, q3, q4, q5 = [q for q in ds.questions if q.user_id == "conv-t1"]
    assert q1.id == "conv-t1_q1" and q1.category == "temporal_reasoning"
    assert q1.asked_at == datetime(2023, 6, 9, 19, 55)  # after the last session
    assert q2.answer == "2" and q2.category == "information_extraction"  # int answer
    assert q2.evidence == ["conv-t1/D2:2", "conv-t1/D1:1"]  # "D2:2; D1:1" split
    assert q3.category == "multi_session"
    assert q3.evidence == ["conv-t1/D2:1"]  # "D", "D:2:1" and unknown "D9:9" dropped
    assert q4.category == "abstention" and q4.answer is None and q4.reject == ["a sunset"]
    assert q5.accept == [] and "llm_judge_only" in q5.sets
    assert ds.turn(q1.evidence[0]).text.endswith("support group yesterday.")
    assert judge_offline(q1, "On May 7, 2023.").correct
    assert judge_offline(q4, "You never mentioned Caroline painting anything.").correct


def test_locomo_limit_conversations() -> None:
    ds = load_locomo(LOCOMO, limit_conversations=1)
    assert [u.id for u in ds.users] == ["conv-t1"]
    assert {q.user_id for q in ds.questions} == {"conv-t1"}


# ---------------------------------------------------------------- malformed input
def _write(tmp_path: Path, name: str, data: Any) -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def _lme(edit) -> list[dict]:
    data = json.loads(LME.read_text(encoding="utf-8"))
    edit(data)
    return data


def _locomo(edit) -> list[dict]:
    data = json.loads(LOCOMO.read_text(encoding="utf-8"))
    edit(data)
    return data


LME_BREAKAGES = [
    (lambda d: d[3].__setitem__("haystack_dates", "2023/05/22"),
     "[3].haystack_dates: expected a list"),
    (lambda d: d[0].pop("question_id"), "[0].question_id: missing"),
    (lambda d: d[1]["haystack_dates"].__setitem__(1, "May 23"),
     "[1].haystack_dates[1]: expected a date"),
    (lambda d: d[0].__setitem__("question_type", "vibes"), "[0].question_type: unknown type"),
    (lambda d: d[0]["haystack_sessions"][1][2].__setitem__("role", "system"),
     "[0].haystack_sessions[1][2].role"),
    (lambda d: d[0]["haystack_sessions"][0][0].pop("content"),
     "[0].haystack_sessions[0][0].content: missing"),
    (lambda d: d[2]["haystack_dates"].append("2023/05/30 (Tue) 05:00"), "[2].haystack_sessions"),
    (lambda d: d[1].__setitem__("question_date", "tomorrow"), "[1].question_date"),
    (lambda d: d[0].pop("answer"), "[0].answer: missing"),
    (lambda d: d.__setitem__(0, "not an object"), "[0]: expected an object"),
]


@pytest.mark.parametrize(("edit", "where"), LME_BREAKAGES)
def test_malformed_longmemeval_names_file_and_field(tmp_path: Path, edit, where: str) -> None:
    path = _write(tmp_path, "longmemeval.json", _lme(edit))
    with pytest.raises(DatasetError) as info:
        load_longmemeval(path)
    message = str(info.value)
    assert message.startswith("longmemeval.json: ") and where in message


def test_abstention_answer_may_be_missing(tmp_path: Path) -> None:
    path = _write(tmp_path, "lme.json", _lme(lambda d: d[2].pop("answer")))
    assert load_longmemeval(path).questions[2].answer is None


LOCOMO_BREAKAGES = [
    (lambda d: d[0].pop("conversation"), "[0].conversation: missing"),
    (lambda d: d[0]["conversation"].pop("session_1_date_time"),
     "[0].conversation.session_1_date_time: missing"),
    (lambda d: d[0]["conversation"].__setitem__("session_2_date_time", "June 9th"),
     "[0].conversation.session_2_date_time: expected a date"),
    (lambda d: d[0]["conversation"]["session_1"][1].__setitem__("speaker", "Bob"),
     "[0].conversation.session_1[1].speaker"),
    (lambda d: d[0]["qa"][1].__setitem__("category", 9), "[0].qa[1].category"),
    (lambda d: d[0]["qa"][0].pop("answer"), "[0].qa[0].answer: missing"),
    (lambda d: d[1].__setitem__("qa", {}), "[1].qa: expected a list"),
    (lambda d: d[1]["conversation"].pop("session_1"), "[1].conversation: expected at least one"),
]


@pytest.mark.parametrize(("edit", "where"), LOCOMO_BREAKAGES)
def test_malformed_locomo_names_file_and_field(tmp_path: Path, edit, where: str) -> None:
    path = _write(tmp_path, "locomo10.json", _locomo(edit))
    with pytest.raises(DatasetError) as info:
        load_locomo(path)
    message = str(info.value)
    assert message.startswith("locomo10.json: ") and where in message


@pytest.mark.parametrize("loader", [load_longmemeval, load_locomo])
def test_not_json_or_not_a_list(tmp_path: Path, loader) -> None:
    with pytest.raises(DatasetError, match=r"broken\.json: not valid JSON \(line 1"):
        loader(_write(tmp_path, "broken.json", "[{"))
    with pytest.raises(DatasetError, match="dict.json: .*expected a list"):
        loader(_write(tmp_path, "dict.json", {"questions": []}))


def test_dataset_error_is_a_value_error() -> None:
    assert issubclass(DatasetError, ValueError) and issubclass(DatasetError, MemlabError)


def test_fixtures_unchanged_by_loading() -> None:
    before = LME.read_text(encoding="utf-8")
    data = json.loads(before)
    snapshot = copy.deepcopy(data)
    load_longmemeval(LME)
    assert json.loads(LME.read_text(encoding="utf-8")) == snapshot


# ---------------------------------------------------------------- the real files
@pytest.mark.skipif(not BENCHMARKS.is_dir(), reason=f"benchmarks not found at {BENCHMARKS}")
def test_real_benchmark_files() -> None:
    sample = load_longmemeval(BENCHMARKS / "longmemeval/longmemeval_sample22.lme_format.json")
    assert len(sample.questions) == len(sample.users) == 22
    assert sum(q.category == "abstention" for q in sample.questions) == 5
    oracle = load_longmemeval(
        BENCHMARKS / "longmemeval/longmemeval_oracle_sample2.official_format.json")
    assert len(oracle.questions) == 2 and oracle.questions[0].evidence
    locomo = load_locomo(BENCHMARKS / "locomo/locomo10.json")
    assert len(locomo.users) == 10 and len(locomo.questions) == 1986
    assert len(locomo.sessions) == 272 and sum(len(s.turns) for s in locomo.sessions) == 5882
    assert sum(q.category == "abstention" for q in locomo.questions) == 446
    for question in locomo.questions[:200]:
        for ref in question.evidence:
            locomo.turn(ref)  # every evidence ref resolves
