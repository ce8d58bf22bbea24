"""Pydantic models shared by every stage: turns, sessions, memories, candidates, ops, questions.

Field names here are the public vocabulary of memlab: the DuckDB columns, the CLI's JSON
and the LLM's structured output all use them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Role = Literal["user", "assistant", "tool"]
SourceKind = Literal["user", "assistant", "tool", "attachment"]
AttachmentKind = Literal["web_clip", "email", "file", "tool_output"]
MemoryType = Literal["episodic", "semantic", "procedural"]
Confidence = Literal["high", "medium", "low"]
Status = Literal["active", "superseded", "quarantined", "pending_confirmation", "deleted"]
OpKind = Literal["ADD", "MERGE", "SUPERSEDE", "NOOP", "QUARANTINE", "CONFIRM"]
Category = Literal[
    "information_extraction",
    "multi_session",
    "temporal_reasoning",
    "knowledge_update",
    "abstention",
]
CATEGORIES: tuple[str, ...] = Category.__args__  # type: ignore[attr-defined]
PlantKind = Literal["fact", "preference", "change", "multi_session", "trivial", "poison", "deletion"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class User(_Model):
    id: str
    name: str = ""


class Attachment(_Model):
    """Pasted or fetched content inside a turn. Never the user's own words: untrusted."""

    kind: AttachmentKind
    title: str = ""
    text: str


class Turn(_Model):
    """One turn of a session; `turn` is the 1-based position in its session."""

    session_id: str
    user_id: str
    turn: int = Field(ge=1)
    role: Role
    text: str
    name: str | None = None  # tool name for role=tool
    attachment: Attachment | None = None
    at: datetime

    @property
    def ref(self) -> str:
        """Evidence reference, e.g. ``s3:2``."""
        return f"{self.session_id}:{self.turn}"


class Session(_Model):
    id: str
    user_id: str
    date: datetime
    turns: list[Turn]


class Candidate(_Model):
    """A memory the extractor proposes; consolidation decides what happens to it."""

    user_id: str
    content: str
    type: MemoryType
    key: str | None = None  # what the memory is about, e.g. "base_city"; same key → same slot
    value: str | None = None  # the slot's value, e.g. "東京"
    source_session_id: str
    source_turn: int
    created_at: datetime
    confidence: Confidence
    source_trusted: bool
    is_plan: bool = False  # "next week I'll move to Tokyo": not a fact yet
    outward_action: bool = False  # asks the agent to send / share / pay: needs confirmation
    evidence: str = ""  # the exact source sentence


class Memory(_Model):
    """One row of the notes layer, with full provenance."""

    id: str
    user_id: str
    content: str
    type: MemoryType
    key: str | None = None
    value: str | None = None
    source_session_id: str
    source_turn: int
    created_at: datetime
    confidence: Confidence
    source_trusted: bool
    status: Status = "active"
    superseded_by: str | None = None
    valid_from: datetime
    valid_to: datetime | None = None  # set when superseded: the value held until then
    evidence: str = ""
    outward_action: bool = False


class Op(_Model):
    """One consolidation decision, reviewable before it is applied."""

    op: OpKind
    candidate: Candidate
    target_id: str | None = None  # the existing memory merged into / superseded
    reason: str = ""


class Question(_Model):
    id: str
    user_id: str
    category: Category
    question: str
    answer: str | None = None  # None for abstention
    accept: list[list[str]] = Field(default_factory=list)
    reject: list[str] = Field(default_factory=list)
    evidence: list[str] = Field(default_factory=list)
    asked_at: datetime
    sets: list[str] = Field(default_factory=list)


class Plant(_Model):
    """One entry of a dataset's answer key: what was planted in the conversations."""

    id: str
    kind: PlantKind
    summary: str
    evidence: list[str] = Field(default_factory=list)
    replaced_by: list[str] = Field(default_factory=list)
    user: str | None = None


class Dataset(_Model):
    name: str
    language: str = "zh-TW"
    timezone: str = "Asia/Taipei"  # how naive dates in the files are read
    users: list[User]
    sessions: list[Session]
    questions: list[Question] = Field(default_factory=list)
    answer_key: list[Plant] = Field(default_factory=list)

    def turn(self, ref: str) -> Turn:
        """The turn an evidence reference like ``s3:2`` points at."""
        session_id, _, number = ref.partition(":")
        for session in self.sessions:
            if session.id == session_id:
                for turn in session.turns:
                    if str(turn.turn) == number:
                        return turn
        raise KeyError(ref)
