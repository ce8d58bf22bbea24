"""LLM strategies for extract / consolidate / answer / judge, on top of `llm.structured`.

The model proposes; this module checks. Provenance must point at a turn that was shown,
trust is decided from where the text came from (never from the model's say-so), targets and
citations must be ids that were shown.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal

import openai
from pydantic import BaseModel, ConfigDict

from memlab import prompts
from memlab.errors import LLMError, ScopeError
from memlab.llm import Settings, structured
from memlab.types import Candidate, Confidence, Memory, MemoryType, Op, Question, Turn

Winner = Literal["A", "B", "tie"]


class _Strict(BaseModel):
    # Closed and all-required, so the JSON schema the model sees and the validation agree.
    model_config = ConfigDict(extra="forbid")


class ExtractedMemory(_Strict):
    """One memory as the model proposes it; becomes a Candidate after checks."""

    content: str
    type: MemoryType
    key: str | None
    value: str | None
    source_turn: int
    confidence: Confidence
    source_trusted: bool
    is_plan: bool
    outward_action: bool
    evidence: str


class ExtractionResult(_Strict):
    """Structured output of the extraction prompt."""

    memories: list[ExtractedMemory]


class ConsolidationDecision(_Strict):
    """Structured output of the consolidation prompt."""

    op: Literal["ADD", "MERGE", "SUPERSEDE", "NOOP"]
    target_id: str | None
    reason: str


class AnswerResult(_Strict):
    """Structured output of the answer prompt."""

    answer: str
    cited: list[str]


class Verdict(_Strict):
    """Structured output of the judge prompt (reason first: the model thinks, then decides)."""

    reason: str
    correct: bool


class PairwiseVerdict(_Strict):
    """Structured output of the pairwise prompt."""

    reason: str
    winner: Winner


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _trusted(turn: Turn, evidence: str) -> bool:
    """Whether text quoted as `evidence` from `turn` is the user's own words."""
    if turn.role != "user":
        return False  # tool output and assistant text are not the user's statements
    if turn.attachment is None:
        return True
    # A turn with an attachment holds both: trust only evidence found in the user's own
    # text and not in the attachment. Paraphrased evidence cannot be placed, so it is not.
    quote = _squash(evidence)
    own, pasted = _squash(turn.text), _squash(turn.attachment.text)
    return bool(quote) and quote in own and quote not in pasted


def extract_llm(
    turns: Sequence[Turn],
    user_id: str,
    session_id: str,
    created_at: datetime,
    examples: Sequence[dict[str, Any]],
    slot_keys: Sequence[str],
    *,
    settings: Settings | None = None,
    client: openai.OpenAI | None = None,
) -> list[Candidate]:
    """Candidate memories from one session's `turns`; LLMError on made-up provenance."""
    by_number: dict[int, Turn] = {}
    for turn in turns:
        if turn.user_id != user_id:
            raise ScopeError(f"turn {turn.ref} belongs to {turn.user_id}, not {user_id}")
        if turn.session_id != session_id:
            raise ValueError(f"turn {turn.ref} is not in session {session_id}")
        by_number[turn.turn] = turn
    messages = prompts.build_extract_messages(turns, examples, slot_keys)
    result = structured(messages, ExtractionResult, settings=settings, client=client)
    candidates = []
    for item in result.memories:
        turn = by_number.get(item.source_turn)
        if turn is None:
            shown = ", ".join(f"{session_id}:{n}" for n in sorted(by_number))
            raise LLMError(
                f"The LLM cited source turn {session_id}:{item.source_turn} for "
                f"{item.content!r}, but only {shown} were shown; a memory without real "
                "provenance is not stored. Nothing was written."
            )
        candidates.append(
            Candidate(
                user_id=user_id,
                content=item.content,
                type=item.type,
                key=item.key or None,
                value=item.value or None,
                source_session_id=session_id,
                source_turn=item.source_turn,
                created_at=created_at,
                confidence=item.confidence,
                # The model may lower trust (e.g. the user quoting someone), never raise it.
                source_trusted=item.source_trusted and _trusted(turn, item.evidence),
                is_plan=item.is_plan,
                outward_action=item.outward_action,
                evidence=item.evidence,
            )
        )
    return candidates


def consolidate_llm(
    candidate: Candidate,
    existing: Sequence[Memory],
    *,
    settings: Settings | None = None,
    client: openai.OpenAI | None = None,
) -> Op:
    """The op the LLM chooses for `candidate` against the same user's `existing` memories."""
    for memory in existing:
        if memory.user_id != candidate.user_id:
            raise ScopeError(
                f"memory {memory.id} belongs to {memory.user_id}, not {candidate.user_id}"
            )
    messages = prompts.build_consolidate_messages(candidate, existing)
    decision = structured(messages, ConsolidationDecision, settings=settings, client=client)
    op, target, reason = decision.op, decision.target_id, decision.reason
    if op in ("ADD", "NOOP"):
        target = None
    elif target not in {m.id for m in existing}:
        raise LLMError(
            f"The LLM chose {op} with target_id={target!r}, which is not one of the memories "
            f"shown ({', '.join(m.id for m in existing) or 'none'}). Nothing was written."
        )
    if op == "SUPERSEDE" and candidate.is_plan:
        # The chapter's rule, enforced rather than hoped for: a plan is not yet a fact.
        op, target, reason = "ADD", None, f"plan kept beside {decision.target_id}: {reason}"
    return Op(op=op, candidate=candidate, target_id=target, reason=reason)


_CITATION = re.compile(r"\[([A-Za-z]*\d+)\]")


def answer_llm(
    question: str,
    injected_lines: Sequence[str],
    memories: Sequence[Memory],
    *,
    settings: Settings | None = None,
    client: openai.OpenAI | None = None,
) -> tuple[str, list[str]]:
    """(answer, cited ids) from the LLM; cited ids are always a subset of `memories`' ids."""
    messages = prompts.build_answer_messages(question, injected_lines, memories)
    result = structured(messages, AnswerResult, settings=settings, client=client)
    shown = {m.id for m in memories}
    # Ids from the `cited` field and from [m4]-style marks in the text; an id that was not
    # shown cannot be evidence, so it is dropped rather than passed on.
    mentioned = [*result.cited, *_CITATION.findall(result.answer)]
    cited = list(dict.fromkeys(i for i in mentioned if i in shown))
    return result.answer, cited


def judge_llm(
    question: Question,
    answer: str,
    *,
    settings: Settings | None = None,
    client: openai.OpenAI | None = None,
) -> bool:
    """Whether `answer` is correct for `question` under its category's rubric."""
    gold = question.answer
    if gold is None and question.accept:
        gold = " / ".join(" + ".join(group) for group in question.accept)
    messages = prompts.build_judge_messages(question.question, gold, answer, question.category)
    return structured(messages, Verdict, settings=settings, client=client).correct


def pairwise_llm(
    task: str,
    a: str,
    b: str,
    prefs: Sequence[str],
    *,
    settings: Settings | None = None,
    client: openai.OpenAI | None = None,
) -> Winner:
    """Which answer ('A', 'B' or 'tie') better follows the user's preferences, in one call."""
    messages = prompts.build_pairwise_messages(task, a, b, prefs)
    return structured(messages, PairwiseVerdict, settings=settings, client=client).winner


def pairwise_swapped(
    task: str,
    a: str,
    b: str,
    prefs: Sequence[str],
    *,
    settings: Settings | None = None,
    client: openai.OpenAI | None = None,
) -> Winner:
    """Pairwise judged twice with positions swapped; 'tie' unless both orders agree."""
    first = pairwise_llm(task, a, b, prefs, settings=settings, client=client)
    second = pairwise_llm(task, b, a, prefs, settings=settings, client=client)
    unswapped: Winner = {"A": "B", "B": "A", "tie": "tie"}[second]  # type: ignore[assignment]
    # LLM judges favour a position; a verdict that flips with the order is no verdict.
    return first if first == unswapped else "tie"
