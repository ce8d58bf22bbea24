"""Building blocks of the slot phrasings: the `Slot` record, value patterns, canonical names.

`memlab.slots` assembles the table of slots from these pieces.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from memlab.types import MemoryType

V = r"[^,。,.!?!?、;;::\s「」『』《》()()~]"  # one character of a CJK value
END = r"(?=[,,。.!!??;;、)\s]|了|$)"  # where a CJK value ends
LATIN = r"[A-Za-z][A-Za-z0-9.+&'-]*(?: [A-Za-z0-9][A-Za-z0-9.+&'-]*){0,3}"
# A name: 「quoted」, a Latin name (iPhone 13, VS Code) or a short CJK run.
NAME = rf"(?P<value>「[^」]{{1,20}}」|{LATIN}|{V}{{1,10}}?{END})"
EN_NAME = r"(?P<value>[A-Z][\w.&'-]*(?: [A-Z0-9][\w.&'-]*)*)"
RELATIONS = ("姊姊|姐姐|妹妹|哥哥|弟弟|太太|老婆|先生|老公|女兒|兒子|媽媽|爸爸|男朋友|女朋友|"
             "男友|女友|奶奶|爺爺|外婆|外公|阿嬤|阿公")
NOT_ME = rf"(?!{RELATIONS}|朋友|同事|主管|老闆|家人)"
CLAUSE_START = r"(?:^|(?<=[,,::;;]))\s*"
DEVICES = r"手機|筆電|筆記型電腦|電腦|平板|手錶|耳機|相機"
TITLES = (r"工程師|設計師|經理|老師|醫生|護理師|律師|會計師|記者|學生|研究員|分析師|主管|專員|"
          r"顧問|編輯|PM|業務")

# Canonical names for the part of a key that distinguishes several values of one slot.
CANON: dict[str, str] = {
    **dict.fromkeys("手機 phone".split(), "手機"),
    **dict.fromkeys("筆電 筆記型電腦 laptop".split(), "筆電"),
    **dict.fromkeys("電腦 computer".split(), "電腦"),
    **dict.fromkeys("平板 tablet".split(), "平板"),
    **dict.fromkeys("筆記 記筆記 寫筆記 做筆記 notes note-taking".split(), "筆記"),
    **dict.fromkeys("待辦 待辦事項 管理待辦 記待辦 tasks to-dos todos to-do".split(), "待辦"),
    **dict.fromkeys("行程 行事曆 排行程 管理行程 calendar".split(), "行程"),
    **dict.fromkeys("程式 程式碼 寫程式 coding code".split(), "程式"),
    **dict.fromkeys("簡報 做簡報 slides".split(), "簡報"),
    **dict.fromkeys("帳 記帳 expenses".split(), "記帳"),
}
TOOL_USE = {"筆記": "記筆記", "待辦": "管理待辦", "行程": "管理行程", "程式": "寫程式",
            "簡報": "做簡報", "記帳": "記帳"}


def canon(word: str) -> str:
    """The canonical form of a key part ("記筆記" → "筆記", "Phone" → "手機")."""
    return CANON.get(word.strip().lower(), CANON.get(word.strip(), word.strip()))


@dataclass(frozen=True)
class Slot:
    """One kind of fact, the phrasings that state it, and how it is stored and shown."""

    key: str
    type: MemoryType
    patterns: tuple[re.Pattern, ...]
    template: str  # content, formatted with the match's groups and {tz}
    cues: tuple[str, ...] = ()  # words in a question or deletion request that point here
    many: bool = False  # several values at once: the key becomes key:<key_group>
    inject: int = 0  # >0: needed every session; lower number = higher priority
    page: str = "profile"  # which representation page lists it
    derived: tuple[str, ...] = ()  # keys derived from this one (deleted with it)
    needs_city: bool = False  # value must be a known city
    not_city: bool = False  # value must not be a city (a company is not a place)
    template_en: str = ""  # content for an English sentence, if it differs
    outward: bool = False  # always asks the assistant to act outward (send, share, pay)
    extra: dict = field(default_factory=dict)


def p(*patterns: str, flags: int = 0) -> tuple[re.Pattern, ...]:
    return tuple(re.compile(p, flags) for p in patterns)
