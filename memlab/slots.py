"""The slots the offline extractor knows: what a memory is about (its `key`), in zh and en.

A slot is one kind of fact about a user that can hold one value at a time (where they are
based, what format they want answers in) or, when ``many`` is set, several values at once
(allergies, hobbies), each its own key ``allergy:花生``. Two memories with the same key
compete: the newer one supersedes the older. The patterns are general phrasings a person
uses to state such a fact, not sentences from any dataset; tests check them on new
phrasings. Anything no slot covers falls to the nearest-labelled-example classifier.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from zoneinfo import ZoneInfo

from memlab.types import MemoryType

# City → IANA zone. A place implies a time zone (and a country): derived data that a
# deletion of the place must also reach.
CITIES: dict[str, str] = {
    **dict.fromkeys("台北 臺北 新北 桃園 新竹 台中 臺中 台南 臺南 高雄 基隆 嘉義 宜蘭 花蓮 台東 "
                    "屏東 苗栗 彰化 南投 雲林 Taipei Taichung Tainan Kaohsiung Hsinchu".split(),
                    "Asia/Taipei"),
    **dict.fromkeys("東京 大阪 京都 福岡 名古屋 札幌 橫濱 Tokyo Osaka Kyoto Fukuoka".split(),
                    "Asia/Tokyo"),
    **dict.fromkeys("首爾 釜山 Seoul Busan".split(), "Asia/Seoul"),
    **dict.fromkeys("上海 北京 深圳 廣州 Shanghai Beijing Shenzhen".split(), "Asia/Shanghai"),
    **dict.fromkeys("香港 HongKong".split(), "Asia/Hong_Kong"),
    **dict.fromkeys("新加坡 Singapore".split(), "Asia/Singapore"),
    **dict.fromkeys("曼谷 Bangkok".split(), "Asia/Bangkok"),
    **dict.fromkeys("倫敦 London".split(), "Europe/London"),
    **dict.fromkeys("巴黎 Paris".split(), "Europe/Paris"),
    **dict.fromkeys("柏林 Berlin".split(), "Europe/Berlin"),
    **dict.fromkeys("紐約 NewYork".split(), "America/New_York"),
    **dict.fromkeys("舊金山 矽谷 西雅圖 洛杉磯 SanFrancisco Seattle LosAngeles".split(),
                    "America/Los_Angeles"),
    **dict.fromkeys("雪梨 Sydney".split(), "Australia/Sydney"),
    **dict.fromkeys("溫哥華 Vancouver".split(), "America/Vancouver"),
}
_CITY = "(?P<value>" + "|".join(sorted({c if c.isascii() is False else
                                         re.sub(r"([a-z])([A-Z])", r"\1 ?\2", c)
                                         for c in CITIES}, key=len, reverse=True)) + ")"

PLAN_MARKERS = re.compile(
    r"下週|下周|下禮拜|下個月|明年|明天|之後要|打算|準備要|計畫|計劃|可能會|預計|將會|將要|要調到|"
    r"\b(?:next (?:week|month|year)|going to|plan(?:ning)? to|will|might|thinking about)\b",
    re.IGNORECASE)
DONE_MARKERS = re.compile(r"已經|現在|目前|了[。!,,.]?$|\b(?:already|now|currently|have|has)\b",
                          re.IGNORECASE)
OUTWARD = re.compile(r"寄|轉寄|轉發|分享|傳給|付款|轉帳|匯款|\b(?:send|forward|share|pay|e-?mail)\b",
                     re.IGNORECASE)

_V = r"[^,。,!?!?、;;:\s「」]"  # one character of a value
_CJK_VALUE = rf"(?P<value>{_V}{{1,12}}?)"
_EN_VALUE = r"(?P<value>[A-Za-z][\w.&'-]*(?: [A-Z][\w.&'-]*)*)"
_I = re.IGNORECASE


def zone_of(city: str) -> str | None:
    """The IANA time zone of a known city (spaces ignored), else None."""
    return CITIES.get(city.replace(" ", ""))


def utc_offset(zone: str, at: datetime) -> str:
    """'UTC+9'-style offset of `zone` at the moment `at` (so DST is right)."""
    hours = ZoneInfo(zone).utcoffset(at.replace(tzinfo=None)).total_seconds() / 3600
    return f"UTC{'+' if hours >= 0 else '-'}{abs(hours):g}"


@dataclass(frozen=True)
class Slot:
    """One kind of fact, the phrasings that state it, and how it is stored and shown."""

    key: str
    type: MemoryType
    patterns: tuple[re.Pattern, ...]
    template: str  # content, formatted with the match's groups and {tz}
    cues: tuple[str, ...] = ()  # words in a question or deletion request that point here
    many: bool = False  # several values at once: the key becomes key:value
    inject: int = 0  # >0: needed every session; lower number = higher priority
    page: str = "profile"  # which representation page lists it
    derived: tuple[str, ...] = ()  # keys derived from this one (deleted with it)
    needs_city: bool = False  # value must be a known city
    extra: dict = field(default_factory=dict)


def _p(*patterns: str, flags: int = 0) -> tuple[re.Pattern, ...]:
    return tuple(re.compile(p, flags) for p in patterns)


SLOTS: tuple[Slot, ...] = (
    Slot("answer_format", "semantic", _p(
        r"(?:回答|回覆|答案|回應)(?:都|一律|請)?(?:用|改用|以|採用|寫成)(?P<value>條列|表格|重點|"
        r"條列式|編號清單|一段話|短句)(?:式|的方式)?(?:[,,]?(?P<limit>(?:最多|不超過|限)[一二三四五六七八九十\d]+(?:點|項|行|句)))?",
        r"(?P<value>條列|表格)(?:式)?(?:回答|回覆)(?:[,,]?(?P<limit>(?:最多|不超過)[一二三四五六七八九十\d]+(?:點|項|行)))?",
        r"\b(?:answer|reply|respond|format (?:your|the) answers?)\b[^.]*?\b(?:in|with|as|using) "
        r"(?P<value>bullet points|bullets|a table|tables|numbered lists?|short paragraphs?)"
        r"(?:[,;]? ?(?P<limit>(?:at most|max(?:imum)?|no more than) \w+(?: points| bullets| items)?))?",
        flags=_I), "回答用{value}{limit}", ("格式", "條列", "format", "bullet"), inject=1,
        page="preferences"),
    Slot("reply_language", "semantic", _p(
        r"(?:請|以後|之後)?(?:都)?(?:用|以|改用)(?P<value>中文|英文|日文|韓文|繁體中文|台語|English|Japanese)"
        r"(?:來)?(?:回答|回覆|回我|跟我說|溝通)",
        r"(?:回答|回覆)(?:請|都|一律)?(?:用|改用|以)(?P<value>中文|英文|日文|韓文|繁體中文|English)",
        r"\b(?:answer|reply|respond|talk to me|write to me)\b[^.]*?\bin (?P<value>English|Chinese|"
        r"Japanese|Korean|Mandarin|Spanish|French|German)\b", flags=_I),
        "回答語言:{value}", ("語言", "中文", "英文", "language"), inject=2, page="preferences"),
    Slot("base_city", "semantic", _p(
        rf"我(?:現在|目前|已經|平常|還是)?(?:都)?在{_CITY}(?:的[^,。]{{0,8}})?(?:上班|工作|任職)",
        rf"\bI(?: currently| now)? (?:work|am working|am based|'m based|'m working) in {_CITY}",
        flags=_I), "在{value}上班,時區 {tz}", ("上班", "工作地點", "哪裡工作", "城市", "work", "city",
                                          "based"),
        inject=3, derived=("timezone",), needs_city=True),
    Slot("base_city", "semantic", _p(
        rf"(?:我|人)(?:已經|現在|目前)(?:人)?(?:在|到){_CITY}(?:了)?",
        rf"(?:調|轉調|調職|外派)到{_CITY}(?:分公司|辦公室|總部)?(?:了)?",
        rf"\bI(?:'ve| have)? (?:moved|relocated|transferred) to {_CITY}",
        rf"\bI(?:'m| am) (?:now |already )?(?:in|at) {_CITY} now", flags=_I),
        "人在{value},時區 {tz}", ("上班", "城市", "work", "city"), inject=3, derived=("timezone",),
        needs_city=True),
    Slot("home_city", "semantic", _p(
        rf"我(?:現在|目前)?(?:住|住在|家在){_CITY}", rf"搬(?:家)?到{_CITY}",
        rf"\bI live in {_CITY}", flags=_I),
        "住在{value}", ("住", "家", "live", "home")),
    Slot("timezone", "semantic", _p(
        rf"(?:時間|時區)(?:都|一律)?(?:用|以|改用|設成|設為){_CITY}(?:時間|時區)",
        rf"\buse {_CITY} time\b", flags=_I),
        "時間以{value}為準({tz})", ("時區", "時間", "timezone"), inject=3, page="preferences",
        needs_city=True),
    Slot("employer", "semantic", _p(
        rf"我(?:現在|目前|已經)?(?:換到|跳槽到|轉到|進了|加入了?|在)(?P<value>[A-Za-z][\w&.]*(?: [A-Z][\w&.]*)*|"
        rf"{_V}{{2,10}}?(?:公司|科技|銀行|集團|工作室|事務所|醫院|大學))(?:上班|工作|任職|了)",
        r"\bI (?:work|am working) (?:at|for) (?P<value>[A-Z][\w&.]*(?: [A-Z][\w&.]*)*)",
        r"\bI(?:'ve| have)? (?:joined|started at|moved to) (?P<value>[A-Z][\w&.]*(?: [A-Z][\w&.]*)*)"),
        "在{value}工作", ("公司", "哪裡工作", "employer", "company")),
    Slot("job_title", "semantic", _p(
        rf"我(?:現在|目前)?(?:是|當|擔任)(?:一名|一位|一個|個)?(?P<value>{_V}{{0,6}}?(?:工程師|設計師|"
        r"經理|老師|醫生|護理師|律師|會計師|記者|學生|研究員|分析師|主管|PM|業務))",
        r"\bI(?:'m| am) (?:a|an) (?P<value>[a-z ]{0,20}?(?:engineer|designer|manager|teacher|"
        r"doctor|nurse|lawyer|student|researcher|analyst|writer|developer))\b", flags=_I),
        "職稱:{value}", ("職稱", "工作是", "做什麼", "job", "title")),
    Slot("pet", "semantic", _p(
        r"我(?:家)?(?:有)?養了?(?:一隻|兩隻|一條|隻)?(?P<value>[\u4e00-\u9fff]{0,4}?(?:貓|狗|犬|兔|鳥|魚|"
        r"倉鼠|烏龜|鸚鵡))",
        r"\bI (?:have|got|adopted) an? (?P<value>[a-z ]{0,15}?(?:cat|dog|puppy|kitten|rabbit|"
        r"parrot|hamster))\b", flags=_I),
        "養了一隻{value}", ("寵物", "養", "pet"), many=False),
    Slot("pet_name", "semantic", _p(
        r"(?:我家|我的)?(?:那隻|這隻)?(?P<species>貓|狗|柴犬|兔子|鸚鵡)(?:咪)?(?:叫做?|的名字(?:是|叫))「?"
        rf"(?P<value>{_V}{{1,8}})",
        r"\bmy (?P<species>cat|dog|puppy|kitten|rabbit|parrot)(?:'s name is| is called| is named) "
        r"(?P<value>[A-Z]\w+)", flags=_I),
        "{species}叫{value}", ("名字", "叫什麼", "name")),
    Slot("diet", "semantic", _p(
        r"我(?:現在|目前|已經)?(?P<value>吃全素|吃蛋奶素|吃素|不吃素|不再吃素|開始吃素|沒有吃素)",
        r"\bI(?:'m| am) (?:now )?(?P<value>vegetarian|vegan|no longer vegetarian|not vegetarian)",
        flags=_I), "飲食:{value}", ("吃素", "飲食", "diet", "vegetarian")),
    Slot("allergy", "semantic", _p(
        rf"我對(?P<value>{_V}{{1,6}}?)過敏", r"\bI(?:'m| am) allergic to (?P<value>[a-z ]+?)\b(?:[.,]|$)",
        flags=_I), "對{value}過敏", ("過敏", "allerg"), many=True, inject=4),
    Slot("food_avoid", "semantic", _p(
        rf"我(?:不吃|不敢吃|討厭吃|不能吃)(?P<value>{_V}{{1,6}})",
        r"\bI (?:don't|do not|can't) eat (?P<value>[a-z ]+?)\b(?:[.,]|$)", flags=_I),
        "不吃{value}", ("不吃", "飲食", "eat"), many=True),
    Slot("name", "semantic", _p(
        rf"我(?:的名字)?叫(?P<value>{_V}{{1,6}})", rf"叫我(?P<value>{_V}{{1,6}}?)就好",
        r"\bmy name is (?P<value>[A-Z]\w+)", r"\bcall me (?P<value>[A-Z]\w+)"),
        "名字:{value}", ("名字", "怎麼稱呼", "name")),
    Slot("family", "semantic", _p(
        rf"我(?:的)?(?P<rel>姊姊|姐姐|妹妹|哥哥|弟弟|太太|老婆|先生|老公|女兒|兒子|媽媽|爸爸)"
        rf"(?:叫做?|的名字(?:是|叫))(?P<value>{_V}{{1,6}})",
        r"\bmy (?P<rel>sister|brother|wife|husband|son|daughter|mom|mother|dad|father)"
        r"(?:'s name is| is called| is named) (?P<value>[A-Z]\w+)", flags=_I),
        "{rel}叫{value}", ("家人", "姊姊", "妹妹", "哥哥", "弟弟", "family", "sister", "brother"),
        many=True, extra={"key_group": "rel"}),
    Slot("tool", "semantic", _p(
        r"我(?:現在|目前|平常|都|改)?(?:都)?(?:改)?用(?P<value>[A-Za-z][\w.+ ]{1,20}?|[\u4e00-\u9fff]{2,6}?)"
        r"(?P<purpose>記筆記|寫筆記|做筆記|管理待辦|記待辦|排行程|管理行程|寫程式|做簡報|畫圖|記帳)",
        r"\bI (?:now )?use (?P<value>[A-Z][\w.+]*(?: [A-Z][\w.+]*)*) (?:for|to) "
        r"(?P<purpose>(?:take |taking )?notes|to-?dos|tasks|my calendar|coding|slides)", flags=_I),
        "用{value}{purpose}", ("工具", "用什麼", "app", "tool"), many=True,
        extra={"key_group": "purpose"}),
    Slot("commute", "semantic", _p(
        r"(?:每天|平常|都)(?:都)?(?P<value>搭高鐵|搭捷運|搭公車|騎機車|騎腳踏車|開車|走路)(?:通勤|上班|上下班)",
        r"\bI (?P<value>drive|bike|cycle|walk|take the (?:train|bus|subway|metro)) to work", flags=_I),
        "通勤方式:{value}", ("通勤", "commute")),
    Slot("hobby", "semantic", _p(
        rf"我的(?:興趣|嗜好)是(?P<value>{_V}{{1,10}})",
        rf"我(?:週末|假日|下班後|平常)(?:都|常常|會)?(?:喜歡)?(?:去)?(?P<value>(?:打|爬|跑|游|彈|畫|攝|露|騎){_V}{{1,6}})",
        r"\bmy hobby is (?P<value>[a-z ]+?)\b(?:[.,]|$)", r"\bI love (?P<value>\w+ing)\b", flags=_I),
        "興趣:{value}", ("興趣", "嗜好", "週末", "hobby"), many=True),
    Slot("report_recipient", "semantic", _p(
        rf"(?P<what>週報|月報|報告|日報)(?:都|固定|一律|要)?(?:寄|交|傳|送)(?:給|到)(?:我的)?(?:新)?(?:主管)?(?P<value>{_V}{{1,12}})",
        r"\bsend (?:my |the )?(?P<what>weekly report|reports?) to (?P<value>[A-Z]\w+)", flags=_I),
        "{what}寄給{value}", ("週報", "寄給誰", "report"), many=False),
    Slot("forward", "semantic", _p(
        r"(?P<what>摘要|筆記|報告|資料|會議紀錄)(?:都|也|一律)?(?:要)?(?:寄|轉寄|傳|分享|轉發)(?:一份)?(?:副本)?(?:給|到)"
        r"\s*(?P<value>[\w.+-]+@[\w.-]+\.\w+)",
        r"\b(?:send|forward|share|cc) (?:a copy of )?(?:all |every )?(?:the |my )?(?P<what>summar\w*|notes|"
        r"reports?)[^@]*? to (?P<value>[\w.+-]+@[\w.-]+\.\w+)", flags=_I),
        "{what}寄一份到 {value}", ("寄", "轉寄", "email", "send"), many=True,
        extra={"key_group": "what"}),
    Slot("procedure", "procedural", _p(
        rf"(?P<what>(?:整理|寫|做|摘要){_V}{{1,8}}?)(?:的)?(?:時(?:候)?)?[,,]?(?:請)?(?:一律|都|永遠|每次都)"
        rf"(?:要)?(?P<value>先{_V}{{2,12}})",
        r"\b(?:when(?:ever)? you|always,? when you) (?P<what>(?:summarize|write|organize|draft) [\w ]+?),"
        r" (?:always )?(?P<value>(?:start|begin|put|list) [\w ]+)", flags=_I),
        "{what}時{value}", ("怎麼整理", "做法", "procedure"), many=True, inject=5, page="procedures",
        extra={"key_group": "what"}),
)

_EPISODE = _p(
    r"(?:幫我|請你?幫我|可以幫我|麻煩你?)(?P<verb>整理|摘要|翻譯|草擬|規劃|潤飾|校對|寫)(?:一下)?"
    rf"(?P<obj>{_V}{{2,16}})",
    r"(?P<when>上週[一二三四五六日天]?|昨天|前天|上次|上個月)(?:我們)?(?:有)?(?:一起)?"
    rf"(?P<verb>討論|整理|開會討論|聊|規劃|檢討)(?:了|過)?(?P<obj>{_V}{{2,16}})",
    r"\b(?:please |can you |could you )?(?:help me )?(?P<verb>summarize|draft|organize|translate|"
    r"review|plan) (?P<obj>(?:the|my|this|our) [\w' -]{2,40})",
    r"\b(?P<when>last \w+|yesterday) we (?P<verb>discussed|reviewed|planned|organized) "
    r"(?P<obj>[\w' -]{2,40})", flags=_I)


def slot_for_key(key: str | None) -> Slot | None:
    """The slot a memory key belongs to (``allergy:花生`` → the allergy slot)."""
    if not key:
        return None
    base = key.split(":", 1)[0]
    return next((s for s in SLOTS if s.key == base), None)


def keys_for_text(text: str) -> set[str]:
    """Slot keys a question or deletion request points at, by their cue words."""
    low = text.lower()
    return {s.key for s in SLOTS if any(c.lower() in low for c in s.cues)}
