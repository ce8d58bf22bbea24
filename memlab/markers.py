"""Cue words that decide how a statement is stored: plan or fact, hedged or sure, a request.

Every test here is *clause-scoped*: "我妹妹叫小晴,下週三是她生日" states a fact in its first
clause and mentions next week only in the second, so the sister's name is not a plan.
"""

from __future__ import annotations

import re

_I = re.IGNORECASE

PLAN_MARKERS = re.compile(
    r"下週|下周|下禮拜|下星期|下個月|明年|明天|之後要|打算|準備要|計畫|計劃|可能會|預計|將會|將要|要調到|"
    r"考慮|\b(?:next (?:week|month|year|quarter|spring|summer|autumn|fall|winter)|going to|"
    r"plan(?:ning)? to|will|'ll|might|thinking about|considering)\b", _I)
DONE_MARKERS = re.compile(r"已經|現在|目前|了$|\b(?:already|now|currently|have|has)\b", _I)
# A habit may mention the future ("每週日晚上都會規劃下週的行程"): the future is its object.
HABIT_MARKERS = re.compile(r"每(?:個)?(?:天|晚|週|周|星期|禮拜|月|年|次)|平常|通常|總是|向來|"
                           r"\b(?:every|each|usually|always|often)\b", _I)
HEDGE = re.compile(r"好像|可能|應該|大概|也許|似乎|\b(?:maybe|probably|i think|i guess)\b", _I)
# The assistant would act outward on the user's behalf: send, forward, share, pay.
OUTWARD_VERB = r"(?:寄|轉寄|轉發|分享|傳給|付款|付給|轉帳|匯款|上傳到)"
OUTWARD = re.compile(
    rf"(?:幫我|替我|你|直接|自動)[^,,。]{{0,12}}?{OUTWARD_VERB}|寄一份|副本|"
    r"^(?:please )?(?:always )?(?:send|forward|share|post|pay|cc|e-?mail)\b|"
    r"\b(?:from now on|after each \w+|every time)\b[^.]*\b(?:send|forward|share|post|pay)\b", _I)
# A request for the assistant to do something now: one-off work, not a fact about the user.
REQUEST = re.compile(
    r"幫我|替我|提醒我|請你|麻煩你?|可以(?:幫|給|教|推薦)|能不能|有沒有|要怎麼|怎麼|如何|什麼|哪[裡些個]|"
    r"[??]$|\b(?:can you|could you|would you|please|help me|remind me|what|how|which)\b", _I)
# Small talk and passing moments: worth nothing next session.
CHITCHAT = re.compile(
    r"好熱|好冷|冷到|熱到|好累|好睏|好餓|好煩|下雨|天氣|寒流|颱風|哈哈|謝謝|謝啦|感謝|早安|晚安|午安|"
    r"辛苦了|真的假的|不客氣|\b(?:thanks|thank you|lol|haha|so hot|so tired|good morning|"
    r"good night|freezing)\b", _I)
TRANSIENT = re.compile(r"今天|剛剛|剛才|這禮拜|這週|午餐|中午|晚餐|早餐|\b(?:today|just now|lunch|"
                       r"dinner|breakfast)\b", _I)
ACKNOWLEDGE = re.compile(r"^(?:好|好啊|好的|好喔|嗯|OK|ok|收到|了解|懂了|可以|不錯|讚|沒問題)(?:[,,。!!]|$)")
FILLERS = re.compile(r"^(?:(?:對了|另外|還有|然後|順便(?:問一下)?|跟你說|跟你更新一下|先講一下|"
                     r"先交代一下背景|by the way|also|oh)\s*[,,::]?\s*)+", _I)

_CLAUSE = re.compile(r"[,,;;::]")


def clauses(sentence: str) -> list[tuple[int, int]]:
    """(start, end) spans of the clauses of a sentence (split at commas, semicolons, colons)."""
    spans, start = [], 0
    for match in _CLAUSE.finditer(sentence):
        spans.append((start, match.start()))
        start = match.end()
    spans.append((start, len(sentence)))
    return [(s, e) for s, e in spans if sentence[s:e].strip()]


def clause_at(sentence: str, position: int) -> str:
    """The clause of `sentence` that contains character `position`."""
    for start, end in clauses(sentence):
        if start <= position < end:
            return sentence[start:end].strip()
    return sentence.strip()


def is_plan(clause: str) -> bool:
    """A clause states a plan when it names the future, isn't done yet, and isn't a habit.

    >>> is_plan("下週要調到東京分公司"), is_plan("我已經在東京了"), is_plan("每週日都會規劃下週的行程")
    (True, False, False)
    """
    plan = PLAN_MARKERS.search(clause)
    if not plan or DONE_MARKERS.search(clause):
        return False
    habit = HABIT_MARKERS.search(clause)
    return not (habit and habit.start() < plan.start())


def strip_fillers(text: str) -> str:
    """The text without leading discourse fillers ("對了,", "另外,", "by the way,")."""
    return FILLERS.sub("", text.strip()).strip()
