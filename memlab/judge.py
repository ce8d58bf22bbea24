"""Offline judge: answer-key keywords, date/time/numeral normalisation, abstention phrases.

An honest classical baseline: it grades short factual answers, not rubrics. Questions
with no `accept` keywords (long LongMemEval answers) are reported as "needs LLM judge".
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date, time
from functools import lru_cache

from pydantic import BaseModel, ConfigDict

from memlab.types import Question

__all__ = ["Judgement", "is_abstention", "judge_offline", "keyword_in", "normalize",
           "normalize_dates", "normalize_times"]


class Judgement(BaseModel):
    """Verdict of a judge on one answer, with a human-readable reason."""

    model_config = ConfigDict(frozen=True)
    correct: bool
    reason: str


# ---------------------------------------------------------------- normalisation tables
# Simplified → traditional for the characters our phrase and unit tables use, plus 臺→台
# and curly quotes. Applied to both sides, so it can only ever create matches.
_VARIANTS = str.maketrans(dict((
    "没沒 无無 记記 忆憶 确確 资資 讯訊 关關 过過 这這 晓曉 诉訴 说說 讲講 录錄 个個 号號"
    " 点點 岁歲 时時 钟鐘 两兩 现現 后後 从從 离離 开開 旧舊 来來 间間 週周 臺台 ‘' ’' `'"
).split()))
_ZH_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "兩": 2, "三": 3, "四": 4, "五": 5,
              "六": 6, "七": 7, "八": 8, "九": 9}
_ZH_UNITS = {"十": 10, "百": 100, "千": 1000}
# A lone numeral is a number only next to a measure word (三次, 四月, 八日) or standing
# alone (是三。); otherwise 一起 / 統一 would turn into digits. (十分 "very" still becomes
# "10分": a known, harmless false positive.)
_ZH_MEASURES = set("個次天年月日號點分秒歲本隻位人家周星小時元塊杯件張種趟場間部台輛條顆頁倍名份"
                   "題遍晚層樓碗瓶片門堂所項%")
_ZH_NUMBER_PREFIXES = set("第是為共約有剩和與跟及或")
_EN_ONES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
            "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
            "seventeen", "eighteen", "nineteen"]
_EN_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_EN_NUMBER = re.compile(
    rf"\b(?:(?P<tens>{'|'.join(_EN_TENS)})(?:[- ]?(?P<unit>{'|'.join(_EN_ONES[1:10])}))?"
    rf"|(?P<small>{'|'.join(sorted(_EN_ONES, key=len, reverse=True))}))\b"
)
_ZH_RUN = re.compile(f"[{''.join(_ZH_DIGITS)}{''.join(_ZH_UNITS)}]+")


def _zh_value(run: str) -> int | None:
    """Value of a Chinese numeral run (二十三, 一百零五, 二〇二六), or None if not a number."""
    if not any(c in _ZH_UNITS for c in run):
        # Positional digits are years (二〇二六); 三四天 means "3–4 days", so leave it alone.
        if len(run) == 1 or len(run) >= 3 or any(c in "零〇" for c in run):
            return int("".join(str(_ZH_DIGITS[c]) for c in run))
        return None
    total, digit, last_unit = 0, None, 10_000
    for c in run:
        if c in _ZH_DIGITS:
            if digit:  # 三四十: two digits in a row is a range ("30 or 40"), not a number
                return None
            digit = _ZH_DIGITS[c]
        elif _ZH_UNITS[c] >= last_unit:  # 千千 / 十百: not a number
            return None
        else:
            total += (1 if digit is None else digit) * _ZH_UNITS[c]
            digit, last_unit = None, _ZH_UNITS[c]
    return total + (digit or 0)


def _zh_numerals_to_digits(text: str) -> str:
    def replace(m: re.Match[str]) -> str:
        run, before = m.group(), text[m.start() - 1] if m.start() else ""
        after = text[m.end()] if m.end() < len(text) else ""
        if len(run) == 1:
            standalone = (not _is_cjk(before) or before in _ZH_NUMBER_PREFIXES) and not (
                _is_cjk(after) and after not in _ZH_MEASURES)
            if after not in _ZH_MEASURES and not standalone:
                return run
        value = _zh_value(run)
        return run if value is None else str(value)

    return _ZH_RUN.sub(replace, text)


def _en_numerals_to_digits(text: str) -> str:
    def replace(m: re.Match[str]) -> str:
        if m.group("small"):
            return str(_EN_ONES.index(m.group("small")))
        unit = _EN_ONES.index(m.group("unit")) if m.group("unit") else 0
        return str(20 + 10 * _EN_TENS.index(m.group("tens")) + unit)

    return _EN_NUMBER.sub(replace, text)


def _is_cjk(char: str) -> bool:
    return bool(char) and "\u3400" <= char <= "\u9fff"


def normalize(text: str) -> str:
    """NFKC, casefold, unify script variants, numerals → digits, collapse whitespace."""
    text = unicodedata.normalize("NFKC", text).casefold().translate(_VARIANTS)
    text = _en_numerals_to_digits(_zh_numerals_to_digits(text))
    return re.sub(r"\s+", " ", text).strip()


# ---------------------------------------------------------------- dates and times
_MONTHS = {name: i for i, names in enumerate(
    [("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",),
     ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sept", "sep"),
     ("october", "oct"), ("november", "nov"), ("december", "dec")], start=1) for name in names}
_MON = "(?P<mon>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")(?![a-z])\.?"
_DAY = r"(?P<d>\d{1,2})(?:st|nd|rd|th)?(?![\d:])"
_YEAR = r"(?:\s*,?\s*(?P<y>\d{4})(?!\d))?"
# Every written form of a date we recognise, one row each; y is optional (→ default_year).
_DATE_PATTERNS = [re.compile(p) for p in (
    # 2026-04-08, 2026/4/8, 2026.4.8
    r"(?<!\d)(?P<y>\d{4})\s*[-/.]\s*(?P<m>\d{1,2})\s*[-/.]\s*(?P<d>\d{1,2})(?!\d)",
    r"(?<![\d/])(?P<m>\d{1,2})/(?P<d>\d{1,2})/(?P<y>\d{4})(?![\d/])",  # 4/8/2026
    r"(?<![\d/.])(?P<m>\d{1,2})/(?P<d>\d{1,2})(?![\d/])",  # 4/8
    r"(?:(?P<y>\d{4})\s*年\s*)?(?P<m>\d{1,2})\s*月\s*(?P<d>\d{1,2})\s*[日號]",  # 2026年4月8日
    rf"\b{_MON}\s*(?:the\s+)?{_DAY}{_YEAR}",  # April 8th, 2026
    rf"(?<!\d){_DAY}\s*(?:of\s+)?{_MON}{_YEAR}",  # 8 April 2026, the 8th of April
)]

_PERIODS = {"凌晨": "am", "清晨": "am", "早上": "am", "早晨": "am", "上午": "am", "中午": "noon",
            "下午": "pm", "傍晚": "pm", "晚上": "pm", "夜裡": "pm", "夜間": "pm", "半夜": "am"}
_ZP = "(?:(?P<zp>" + "|".join(_PERIODS) + r")\s*)?"
_AMPM = r"(?:\s*(?P<ep>[ap])\.?\s?m\b\.?)"
# Every written form of a clock time, one row each: 09:45, 9:45 pm, 9 點 45 分, 9點半, 9 am.
_TIME_PATTERNS = [re.compile(p) for p in (
    rf"{_ZP}(?<![\d:])(?P<h>\d{{1,2}})\s*:\s*(?P<mi>\d{{2}})(?!\d){_AMPM}?",
    rf"{_ZP}(?<![\d:])(?P<h>\d{{1,2}})\s*[點時]\s*(?:(?P<mi>\d{{1,2}})\s*分?|(?P<half>半))?",
    rf"(?<![\d:])(?P<h>\d{{1,2}}){_AMPM}",
    r"(?<![\d:])(?P<h>\d{1,2})\s*o'?clock",
)]


def _dates(norm: str, default_year: int, whole: bool = False) -> set[date]:
    found = set()
    for pattern in _DATE_PATTERNS:
        matches = [pattern.fullmatch(norm)] if whole else pattern.finditer(norm)
        for m in filter(None, matches):
            g = m.groupdict()
            month = _MONTHS[g["mon"]] if g.get("mon") else int(g["m"])
            try:
                found.add(date(int(g["y"]) if g.get("y") else default_year, month, int(g["d"])))
            except ValueError:
                continue  # 2/30, 13/1, a fraction: not a date
    return found


def normalize_dates(text: str, default_year: int) -> set[date]:
    """Every calendar date written in `text` (ISO, 4/8, 4月8日, 四月八日, April 8th, 8 Apr…)."""
    return _dates(normalize(text), default_year)


def _hours(hour: int, period: str | None, literal: bool) -> list[int]:
    if period == "am":
        return [0 if hour == 12 else hour]
    if period == "pm":
        return [hour if hour == 12 else hour + 12]
    if period == "noon":
        return [hour if hour >= 11 else hour + 12]
    # An unmarked "9:45" in an answer could be morning or evening; a keyword means what it says.
    return [hour] if literal or not 1 <= hour <= 11 else [hour, hour + 12]


def _times(norm: str, literal: bool = False, whole: bool = False) -> set[time]:
    found = set()
    for pattern in _TIME_PATTERNS:
        matches = [pattern.fullmatch(norm)] if whole else pattern.finditer(norm)
        for m in filter(None, matches):
            g = m.groupdict()
            period = _PERIODS.get(g.get("zp") or "") or (g["ep"] + "m" if g.get("ep") else None)
            hour = int(g["h"])
            minute = 30 if g.get("half") else int(g.get("mi") or 0)
            if period and not 1 <= hour <= 12:
                period = None  # "下午 15:00" is already 24-hour
            for h in _hours(hour, period, literal):
                if 0 <= h <= 23 and 0 <= minute <= 59:
                    found.add(time(h, minute))
    return found


def normalize_times(text: str) -> set[time]:
    """Every clock time written in `text`; an unmarked 1–11 o'clock yields both am and pm."""
    return _times(normalize(text))


# ---------------------------------------------------------------- keyword matching
@lru_cache(maxsize=4096)
def _keyword_pattern(keyword: str) -> re.Pattern[str]:
    chars = [c for c in normalize(keyword) if not c.isspace()]
    body = r"\s*".join(re.escape(c) for c in chars)
    # Whole numbers and words only: "3" must not match "13" or "3.5", "no" must not match "know".
    starts_alnum = bool(chars) and chars[0].isascii() and chars[0].isalnum()
    head = r"(?<![a-z0-9])(?<!\d[.,])" if starts_alnum else ""
    tail = ""
    if chars and chars[-1].isdigit():
        tail = r"(?![0-9]|[.,]\d)"
    elif chars and chars[-1].isascii() and chars[-1].isalpha():
        tail = r"(?:'?s|es)?(?![a-z])"  # allow a plural: "cat" matches "cats"
    return re.compile(head + body + tail)


def keyword_in(keyword: str, text: str) -> bool:
    """True if `keyword` occurs in `text`; a keyword that is a date or time matches any form."""
    norm_kw, norm_text = normalize(keyword), normalize(text)
    kw_dates = _dates(norm_kw, 1, whole=True)
    years = re.findall(r"\d{4}", norm_kw)
    if len(kw_dates) == 1 and years:  # a year-less keyword like "April 8" stays plain text
        (day,) = kw_dates
        return day in _dates(norm_text, day.year)
    kw_times = _times(norm_kw, literal=True, whole=True)
    if len(kw_times) == 1:
        return kw_times <= _times(norm_text)
    return _keyword_pattern(keyword).search(norm_text) is not None


# ---------------------------------------------------------------- abstention
# Phrases that mean "I can't answer that" (matched on normalize()d text, so full-width,
# simplified and traditional forms are covered by the same row).
_ABSTAIN = re.compile("|".join((
    r"不知道", r"不曉得", r"不清楚", r"不記得", r"記不得",
    r"無(?:法|從)(?:得知|確定|回答|判斷|知道)",
    r"(?:沒|未)有?(?:曾)?(?:提過|提到|提及|說過|講過|告訴過?我|分享過|透露過)",
    r"沒有(?:任何)?(?:相關|這方面|這類|此|這)?的?(?:記憶|資訊|資料|紀錄|記錄|信息|訊息)",
    r"找不到(?:相關|任何)?", r"查無",
    r"\bi (?:do not|don't|dont|did not|didn't) (?:know|remember|recall|have (?:any |that |this "
    r"|enough |the )?(?:information|info|record|details?|data|memory))",
    r"\bno (?:relevant |such |available )?(?:information|info|record|memory|mention|idea)\b",
    r"\bnot enough information\b", r"\binsufficient information\b",
    r"\binformation (?:provided |given )?is not enough\b",
    r"\byou (?:have not|haven't|never|did not|didn't|have never) (?:told|tell|mentioned|mention"
    r"|said|say|shared|share)", r"\b(?:not|never|wasn't|was not) mentioned\b",
    r"\b(?:cannot|can't|can not|unable to|not able to) (?:tell|determine|answer|say|find|know)",
    r"\bthere is no (?:record|information|mention)\b",
)))
# Hedges abstain only when nothing follows them: "I'm not sure, but it's Tokyo" is an answer.
_HEDGE = re.compile(r"不確定|不太確定|沒把握|\bnot (?:entirely |quite |totally |really )?sure\b"
                    r"|\bunsure\b|\bnot certain\b")
_HEDGE_THEN_ANSWER = re.compile(r"但|不過|可能|應該|大概|好像|似乎|也許|\bbut\b|\bprobably\b"
                                r"|\bi think\b|\bi believe\b|\blikely\b|\bmaybe\b|\bperhaps\b")


def is_abstention(text: str) -> bool:
    """True if `text` declines to answer (不知道, 沒有提過, "I don't know", "not mentioned"…)."""
    norm = normalize(text)
    if _ABSTAIN.search(norm):
        return True
    return bool(_HEDGE.search(norm)) and not _HEDGE_THEN_ANSWER.search(norm)


# ---------------------------------------------------------------- stale values (knowledge update)
# A clause is "marked as past" if it contains one of these; clauses split at punctuation
# and at the words that introduce the current value (現在 / now / but …).
_PAST_ZH = "以前 之前 原本 原來 先前 過去 曾 從前 搬離 不再 已經不".split()
_PAST_EN = ["used to", "previously", "formerly", "originally", "before", "earlier", "no longer",
            "in the past", "moved from", "moved away from", "was", "were", "had been"]
_PAST = re.compile("|".join(_PAST_ZH + [rf"\b{w}\b" for w in _PAST_EN]))
# Split at punctuation (not inside 1,000 / 3.5 / 9:45) and before the words that introduce
# the current value.
_CLAUSE_SPLIT = re.compile(r",(?!\d)|\.(?!\d)|[;!?。、\n]|(?=現在|目前|如今|但|不過|\bnow\b|\bbut\b"
                           r"|\bcurrently\b|\bhowever\b)")


def _stale_only_in_past(stale: list[str], answer: str) -> bool:
    clauses = [c for c in _CLAUSE_SPLIT.split(normalize(answer)) if c.strip()]
    return all(_PAST.search(c) for c in clauses if any(keyword_in(s, c) for s in stale))


# ---------------------------------------------------------------- the judge
def judge_offline(question: Question, answer: str) -> Judgement:
    """Grade `answer` against the question's answer key with keywords and abstention rules."""
    answer = answer or ""
    abstained = is_abstention(answer)
    if question.category == "abstention" or question.answer is None:
        if abstained:
            return Judgement(correct=True, reason="abstained, as it should")
        return Judgement(correct=False, reason="answered a question that has no answer")
    if abstained:
        return Judgement(correct=False, reason="abstained on an answerable question")
    if not question.accept:
        return Judgement(correct=False, reason="needs LLM judge: no answer-key keywords")
    missing = [[k for k in alt if not keyword_in(k, answer)] for alt in question.accept]
    accepted = next((alt for alt, miss in zip(question.accept, missing, strict=True)
                     if not miss), None)
    stale = [k for k in question.reject if keyword_in(k, answer)]
    if stale:
        if (question.category == "knowledge_update" and accepted is not None
                and _stale_only_in_past(stale, answer)):
            return Judgement(correct=True,
                             reason=f"gave {accepted}; stale {stale} only marked as past")
        return Judgement(correct=False, reason=f"mentions rejected value {stale}")
    if accepted is not None:
        return Judgement(correct=True, reason=f"matched {accepted}")
    closest = min(missing, key=len)
    return Judgement(correct=False, reason=f"missing {closest}")
