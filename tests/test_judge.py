"""Offline judge: written date/time forms, numerals, abstention phrases, stale values."""

from __future__ import annotations

from datetime import date, datetime, time

import pytest

from memlab.judge import (
    Judgement,
    is_abstention,
    judge_offline,
    keyword_in,
    normalize,
    normalize_dates,
    normalize_times,
)
from memlab.types import Question


def q(category: str = "information_extraction", answer: str | None = "x",
      accept: list[list[str]] | None = None, reject: list[str] | None = None) -> Question:
    return Question(id="q", user_id="u_017", category=category, question="?", answer=answer,
                    accept=accept or [], reject=reject or [], asked_at=datetime(2026, 5, 10))


# ---------------------------------------------------------------- dates
APRIL_8 = [
    "2026-04-08", "2026/4/8", "2026.04.08", "4/8", "4/8/2026", "4 月 8 日", "4月8日", "四月八日",
    "4月8號", "April 8", "Apr 8", "apr. 8", "8 April", "April 8th", "the 8th of April",
    "2026年4月8日", "二〇二六年四月八日", "April 8, 2026", "8 Apr, 2026", "APRIL 8", "4月8日",
    "４月８日", "你在 4 月 8 日 搬家", "It was on April 8th.", "Wednesday, April 8",
]


@pytest.mark.parametrize("written", APRIL_8)
def test_iso_date_keyword_matches_every_written_form(written: str) -> None:
    assert keyword_in("2026-04-08", written)
    assert normalize_dates(written, 2026) == {date(2026, 4, 8)}


@pytest.mark.parametrize("written", ["4/9", "April 18", "2025-04-08", "8/4", "4月18日",
                                     "April 8, 2025", "四月十八日", "8 May"])
def test_iso_date_keyword_rejects_other_dates(written: str) -> None:
    assert not keyword_in("2026-04-08", written)


def test_normalize_dates_finds_several_and_skips_impossible() -> None:
    assert normalize_dates("from 3/1 to 3/5, not 2/30", 2026) == {date(2026, 3, 1),
                                                                 date(2026, 3, 5)}
    assert normalize_dates("no dates here, 9:45 and 3.5 kg", 2026) == set()
    assert normalize_dates("may I ask", 2026) == set()


def test_written_date_keyword_with_year_matches_like_iso() -> None:
    # LoCoMo gold answers look like "7 May 2023"
    assert keyword_in("7 May 2023", "It was on 2023-05-07.")
    assert keyword_in("7 May 2023", "May 7th, 2023")
    assert not keyword_in("7 May 2023", "May 8, 2023")


# ---------------------------------------------------------------- times
@pytest.mark.parametrize("written", ["9:45", "09:45", "9 點 45 分", "9點45分", "上午 9:45",
                                     "九點四十五分", "9:45 am", "9:45 a.m.", "早上9點45",
                                     "９：４５", "at 9:45."])
def test_time_keyword_matches_written_forms(written: str) -> None:
    assert keyword_in("09:45", written)


@pytest.mark.parametrize("written", ["9:15", "10:45", "晚上 9:45", "9:45 pm", "19:45", "19:45:00"])
def test_time_keyword_rejects_other_times(written: str) -> None:
    assert not keyword_in("09:45", written)


def test_times_with_periods() -> None:
    assert normalize_times("下午 3 點") == {time(15, 0)}
    assert normalize_times("晚上九點半") == {time(21, 30)}
    assert normalize_times("6:45 AM") == {time(6, 45)}
    assert normalize_times("12 am") == {time(0, 0)}
    assert normalize_times("中午12點") == {time(12, 0)}
    assert normalize_times("9:45") == {time(9, 45), time(21, 45)}  # unmarked: either
    assert keyword_in("6:45 AM", "You woke up at 6:45.")
    assert keyword_in("21:45", "晚上 9 點 45 分")
    assert not keyword_in("6:45 AM", "6:45 pm")


# ---------------------------------------------------------------- numerals and normalisation
@pytest.mark.parametrize(("keyword", "answer"), [
    ("3", "三次"), ("三", "3 次"), ("3次", "三次"), ("12", "十二個"), ("20", "二十"),
    ("23", "二十三天"), ("99", "九十九"), ("0", "零"), ("2", "兩個"), ("105", "一百零五"),
    ("7", "seven"), ("seven", "7 days"), ("23", "twenty-three"), ("nine months", "9 months"),
    ("3", "答案是三。"), ("10%", "10 %"),
])
def test_numerals_match_both_ways(keyword: str, answer: str) -> None:
    assert keyword_in(keyword, answer)


@pytest.mark.parametrize(("keyword", "answer"), [
    ("3", "13"), ("3", "30"), ("3", "3.5"), ("1", "我們一起去"), ("1", "統一"), ("34", "三四天"),
    ("no", "I know"), ("cat", "category"), ("20", "2026"),
])
def test_numbers_and_words_match_whole(keyword: str, answer: str) -> None:
    assert not keyword_in(keyword, answer)


@pytest.mark.parametrize(("keyword", "answer"), [
    ("Tokyo", "you work in TOKYO"), ("台北", "臺北"), ("條列", "條 列"), ("不記得", "不记得"),
    ("New York", "newyork"), ("ＡＢＣ", "abc"), ("cat", "two cats"), ("沒有", "没有"),
])
def test_case_width_space_and_script_insensitive(keyword: str, answer: str) -> None:
    assert keyword_in(keyword, answer)


def test_normalize_is_idempotent_on_examples() -> None:
    for text in ["二〇二六年四月八日", "我們一起去", "Twenty-three ＣＡＴＳ", "三四天"]:
        assert normalize(normalize(text)) == normalize(text)


# ---------------------------------------------------------------- abstention
ABSTAIN = [
    "不知道", "我不知道。", "我不曉得", "你沒有提過", "你沒有告訴過我", "沒有相關記憶",
    "我沒有相關的記憶", "無法得知", "我不確定", "我沒有這方面的資訊", "你从来没有提过这件事",
    "我不知道,你沒有告訴過我。", "你沒提過你在哪裡工作", "I don't know.", "I do not know",
    "I don’t know", "There is no information about that.", "You haven't told me.",
    "You never mentioned it.", "That was not mentioned.", "I cannot tell from our chats.",
    "I'm not sure.", "I am not sure", "I have no idea", "No relevant memory.",
    "The information provided is not enough.", "I don't have any information about your job.",
    "抱歉,我沒有記錄。", "我無法確定。", "我不記得了", "I DON'T KNOW",
]
NOT_ABSTAIN = [
    "我知道你住台北", "你住在東京。", "I know you live in Taipei", "You mentioned Tokyo.",
    "I'm not sure, but I think it's Tokyo.", "我不確定,但應該是東京", "Tokyo", "",
    "You told me you moved to Tokyo.", "已知你喜歡條列",
]


@pytest.mark.parametrize("text", ABSTAIN)
def test_abstention_phrases(text: str) -> None:
    assert is_abstention(text)


@pytest.mark.parametrize("text", NOT_ABSTAIN)
def test_not_abstention(text: str) -> None:
    assert not is_abstention(text)


def test_abstention_question_needs_an_abstention() -> None:
    question = q("abstention", answer=None)
    assert judge_offline(question, "我不知道").correct
    assert judge_offline(question, "I don't know.").correct
    verdict = judge_offline(question, "你在東京工作")
    assert not verdict.correct and "no answer" in verdict.reason
    # answer None marks an abstention question even outside the abstention category
    assert judge_offline(q("information_extraction", answer=None), "不知道").correct


def test_abstaining_on_answerable_question_is_wrong() -> None:
    verdict = judge_offline(q(accept=[["東京"]]), "我不知道")
    assert verdict == Judgement(correct=False, reason="abstained on an answerable question")


# ---------------------------------------------------------------- accept / reject
def test_accept_alternatives_need_all_keywords() -> None:
    question = q(accept=[["條列", "三"], ["bullet", "3"]])
    assert judge_offline(question, "用條列,最多三點").correct
    assert judge_offline(question, "Bullets, at most 3 points").correct
    verdict = judge_offline(question, "用條列")
    assert not verdict.correct and "三" in verdict.reason


def test_reject_keyword_makes_answer_wrong() -> None:
    question = q(accept=[["東京"]], reject=["台北"])
    assert judge_offline(question, "東京").correct
    verdict = judge_offline(question, "台北或東京")
    assert not verdict.correct and "台北" in verdict.reason


def test_empty_accept_needs_llm_judge() -> None:
    verdict = judge_offline(q(accept=[]), "podcasts, probably")
    assert not verdict.correct and verdict.reason.startswith("needs LLM judge")


@pytest.mark.parametrize("answer", [
    "以前在台北,現在在東京", "以前在台北現在在東京", "你之前在台北工作,目前在東京",
    "原本在台北,後來搬到東京", "You used to work in Taipei, but now you work in Tokyo.",
    "Tokyo (previously Taipei)", "Tokyo. You formerly worked in Taipei.",
    "You moved from Taipei to Tokyo.", "你過去在台北,現在在東京。",
])
def test_knowledge_update_accepts_stale_value_marked_as_past(answer: str) -> None:
    question = q("knowledge_update", answer="東京", accept=[["東京"], ["Tokyo"]],
                 reject=["台北", "Taipei"])
    verdict = judge_offline(question, answer)
    assert verdict.correct, verdict.reason


@pytest.mark.parametrize("answer", [
    "台北", "你在台北工作", "台北,也可能是東京", "Taipei and Tokyo", "以前在東京,現在在台北",
    "以前在台北",  # the past marker alone is not enough: the new value must be given
])
def test_knowledge_update_rejects_unmarked_stale_value(answer: str) -> None:
    question = q("knowledge_update", answer="東京", accept=[["東京"], ["Tokyo"]],
                 reject=["台北", "Taipei"])
    assert not judge_offline(question, answer).correct


def test_past_marking_only_helps_knowledge_update() -> None:
    question = q("information_extraction", accept=[["東京"]], reject=["台北"])
    assert not judge_offline(question, "以前在台北,現在在東京").correct


def test_date_answer_through_the_judge() -> None:
    question = q("temporal_reasoning", answer="2026-04-08", accept=[["2026-04-08"]])
    for answer in ["你在 4 月 8 日搬到東京", "April 8th", "四月八日"]:
        assert judge_offline(question, answer).correct
    assert not judge_offline(question, "4 月 9 日").correct
