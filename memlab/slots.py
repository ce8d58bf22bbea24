"""The slots the offline extractor knows: what a memory is about (its `key`), in zh and en.

A slot is one kind of fact about a user that holds one value at a time (where they are
based, which phone they use) or, when ``many`` is set, several at once (allergies, books),
each under its own key such as ``allergy:花生``. Two memories with the same key compete: the
newer one supersedes the older. The patterns are general phrasings people use to state a
fact ("我的{裝置}是X", "(把|將){裝置}換成X", "在「X」當Y", "我每週X都會Y"), never sentences or
values from a dataset; `tests/test_02_extract.py` checks each on sentences found in no
dataset. Order matters: when two slots claim the same words, the earlier (more specific)
one wins. Whatever no slot covers falls to the nearest-labelled-example classifier.
"""

from __future__ import annotations

import re

from memlab.markers import DONE_MARKERS, OUTWARD, PLAN_MARKERS  # noqa: F401  (re-exported)
from memlab.phrasing import (
    CLAUSE_START,
    DEVICES,
    EN_NAME,
    END,
    LATIN,
    NAME,
    NOT_ME,
    RELATIONS,
    TITLES,
    Slot,
    V,
    p,
)
from memlab.places import CITIES, CITY, utc_offset, zone_of  # noqa: F401  (re-exported)

_I = re.IGNORECASE
_ME = rf"(?:我{NOT_ME}|{CLAUSE_START})(?:現在|目前|已經|也|還是)*"  # "I", or a clause with no subject
_TITLE = rf"(?P<value>(?:[A-Za-z]+\s*)?{V}{{0,6}}?(?:{TITLES}))"
_LIMIT = r"(?:[,,]?(?P<limit>(?:最多|不超過|限)[一二三四五六七八九十\d]+(?:點|項|行|句)))?"
_DAYS = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"

SLOTS: tuple[Slot, ...] = (
    Slot("answer_format", "semantic", p(
        r"(?:回答|回覆|答案|回應)(?:都|一律|請)?(?:用|改用|以|採用|寫成)(?P<value>條列式?|表格|重點|編號清單|"
        rf"清單|一段話|短句|白話)(?:式|的方式)?{_LIMIT}",
        rf"(?P<value>條列|表格)(?:式)?(?:回答|回覆){_LIMIT}",
        r"\b(?:answer|reply|respond|format (?:your|the) answers?)\b[^.]*?\b(?:in|with|as|using) "
        r"(?P<value>bullet points|bullets|a table|tables|numbered lists?|short paragraphs?)"
        r"(?:[,;]? ?(?P<limit>(?:at most|max(?:imum)?|no more than) \w+(?: points| bullets| items)?))?",
        flags=_I), "回答用{value}{limit}", ("格式", "條列", "format", "bullet"), inject=1,
        page="preferences", template_en="Answer with {value}{limit}"),
    Slot("answer_format", "semantic", p(
        r"(?:回答|回覆|答覆)(?:我)?(?:的時候|時|問題時)?[,,]?\s*(?:請|都|一律|要)*"
        rf"(?P<value>先(?:講|說|給|寫|列|下)(?:一句|一個|個)?{V}{{1,8}}?){END}"
        rf"(?:[,,](?P<tail>{V}{{0,4}}?(?:再|放|留){V}{{1,8}}))?",
        rf"(?:回答|回覆)(?:盡量|請|都|一律)*(?:控制在|不要超過|不超過|限制在)(?P<value>{V}{{1,8}}?(?:字|句|行|段))",
        r"\b(?:always |from now on,? )?(?:give me|start with|lead with|begin with|open with) the "
        r"(?P<value>(?:short|brief|quick) answer|conclusion|bottom line|summary|key points?) first\b",
        flags=_I), "回答時{value}{tail}", ("格式", "先講", "結論", "format"), inject=1,
        page="preferences", template_en="Start answers with the {value}"),
    Slot("reply_language", "semantic", p(
        r"(?:請|以後|之後)?(?:都)?(?:用|以|改用)(?P<value>中文|英文|日文|韓文|繁體中文|台語|English|Japanese)"
        r"(?:來)?(?:回答|回覆|回我|跟我說|溝通)",
        r"(?:回答|回覆|對話|說話|聊天)(?:時)?(?:請|都|一律)*(?:用|使用|改用|以)(?P<value>繁體中文|中文|英文|日文|韓文|"
        r"English)",
        r"\b(?:answer|reply|respond|talk to me|write to me)\b[^.]*?\bin (?P<value>English|Chinese|"
        r"Japanese|Korean|Mandarin|Spanish|French|German)\b", flags=_I),
        "回答語言:{value}", ("語言", "中文", "英文", "language"), inject=2, page="preferences",
        template_en="Reply language: {value}"),
    Slot("terminology", "semantic", p(
        rf"(?P<what>(?:{V}{{1,8}}?的)?(?:專有名詞|術語|技術名詞|專業用語|英文名詞))(?:請|都|一律|要|就)*"
        r"(?P<verb>保留|維持|用|使用|寫)(?P<value>英文|原文|中文|日文)",
        r"\bkeep (?P<what>(?:[a-z]+ )?(?:terms|jargon|terminology)) in (?P<value>English|the original"
        r"(?: language)?)", flags=_I),
        "{what}{verb}{value}", ("專有名詞", "術語", "名詞", "jargon", "terminology"), inject=2,
        page="preferences", template_en="Keep {what} in {value}"),
    Slot("timezone", "semantic", p(
        rf"(?:時間|時區)(?:都|一律)?(?:用|以|改用|設成|設為){CITY}(?:時間|時區)",
        rf"\buse {CITY} time\b", flags=_I),
        "時間以{value}為準({tz})", ("時區", "時間", "timezone"), inject=3, page="preferences",
        needs_city=True),
    Slot("base_city", "semantic", p(
        rf"我(?:現在|目前|已經|平常|還是)?(?:都)?在{CITY}{V}{{0,8}}?(?:上班|工作|任職)",
        rf"\bI(?: currently| now)? (?:work|am working|am based|'m based|'m working) in {CITY}",
        rf"\bI (?:work out of|am based out of) (?:our |the )?{CITY}", flags=_I),
        "在{value}上班,時區 {tz}", ("上班", "工作地點", "哪裡工作", "城市", "work", "city", "based"),
        inject=3, derived=("timezone",), needs_city=True, template_en="Works in {value}, {tz}"),
    Slot("base_city", "semantic", p(
        rf"(?:我|人)(?:已經|現在|目前)(?:人)?(?:在|到){CITY}(?:了)?",
        rf"(?:調|轉調|調職|外派)(?:到|去){CITY}(?:分公司|辦公室|總部)?(?:了)?",
        rf"\bI(?:'ve| have)? (?:moved|relocated|transferred) to {CITY}",
        rf"\bI(?:'m| am) (?:now |already )?(?:in|at) {CITY} now", flags=_I),
        "人在{value},時區 {tz}", ("上班", "城市", "work", "city"), inject=3, derived=("timezone",),
        needs_city=True, template_en="Based in {value}, {tz}"),
    Slot("home_city", "semantic", p(
        rf"(?:住在|住|家在){CITY}(?:的)?(?!時)(?P<district>{V}{{1,3}}?(?:區|鎮|鄉)?)?{END}",
        rf"搬(?:家)?(?:到|來|去)(?:了)?{CITY}", rf"\bI live in {CITY}", flags=_I),
        "住在{value}{district}", ("住", "家", "搬", "live", "home"), needs_city=True,
        template_en="Lives in {value}"),
    Slot("employer", "semantic", p(
        rf"{_ME}(?:在|於)(?:一間|一家|一個)?(?:叫(?:做)?|名叫)?(?P<value>「[^」]{{1,20}}」)"
        rf"(?:的{V}{{0,10}}?)?\s*(?:當|擔任|做|上班|工作|任職|實習)",
        r"(?:換到|跳槽到|轉到|轉職到|加入了?|進了?)(?:一間|一家)?(?:叫(?:做)?)?(?P<value>「[^」]{1,20}」)",
        rf"我(?:現在|目前|已經)?(?:換到|跳槽到|轉到|進了|加入了?|在)\s*(?P<value>{LATIN}|{V}{{2,10}}?"
        r"(?:公司|科技|銀行|集團|工作室|事務所|醫院|大學|新創))\s*(?:上班|工作|任職|了)",
        rf"{_ME}在\s*(?!公司|家|學校|這|那|辦公室|一間|一家)(?P<value>{LATIN}|{V}{{2,8}}?)\s*(?:當|擔任)",
        r"\bI (?:work|am working) (?:at|for) (?P<value>[A-Z][\w&.]*(?: [A-Z][\w&.]*)*)",
        r"\bI(?:'ve| have)? (?:joined|started at|moved to) (?P<value>[A-Z][\w&.]*(?: [A-Z][\w&.]*)*)",
        rf"\b(?:company|startup|firm|agency|studio|bank|shop) (?:called|named) {EN_NAME}"),
        "在{value}工作", ("公司", "哪裡工作", "哪家", "employer", "company"), not_city=True,
        template_en="Works at {value}"),
    Slot("job_title", "semantic", p(
        rf"我(?:現在|目前)?(?:是|當|擔任)(?:一名|一位|一個|個)?\s*{_TITLE}",
        rf"{_ME}在[^,,。]{{1,24}}?(?:當|擔任)(?:一名|一位|一個|個)?\s*{_TITLE}",
        rf"職稱(?:是|為|:|:)\s*(?P<value>(?:[A-Za-z]+\s*)?{V}{{1,8}}?){END}",
        r"\bI(?:'m| am| work as) (?:a|an) (?P<value>[a-z ]{0,20}?(?:engineer|designer|manager|teacher|"
        r"doctor|nurse|lawyer|student|researcher|analyst|writer|developer))\b", flags=_I),
        "職稱:{value}", ("職稱", "工作是", "做什麼", "job", "title"), template_en="Job title: {value}"),
    Slot("device", "semantic", p(
        rf"我(?:現在|目前)?(?:用|使用)的(?P<device>{DEVICES})(?:是|:|:)\s*{NAME}",
        rf"我的(?P<device>{DEVICES})(?:是|:|:)\s*{NAME}",
        rf"(?:把|將)(?:我的)?(?P<device>{DEVICES})(?:換成|改成|升級成|升級到)(?:了)?\s*{NAME}",
        rf"(?P<device>{DEVICES})(?:已經)?(?:換成|改成|升級成)(?:了)?\s*{NAME}",
        r"\b(?i:my) (?P<device>phone|laptop|computer|tablet) is an? "
        r"(?P<value>[A-Z][\w+-]*(?: [A-Z0-9][\w+-]*)*)",
        r"\bI (?:switched|changed|upgraded) my (?P<device>phone|laptop|computer|tablet) to an? "
        r"(?P<value>[A-Z][\w+-]*(?: [A-Z0-9][\w+-]*)*)",
        r"\bI (?:got|bought) a new (?P<device>phone|laptop|computer|tablet)[,:]? an? "
        r"(?P<value>[A-Z][\w+-]*(?: [A-Z0-9][\w+-]*)*)"),
        "用的{device}是{value}", ("手機", "筆電", "電腦", "平板", "裝置", "phone", "laptop", "device"),
        many=True, template_en="{device}: {value}", extra={"key_group": "device"}),
    Slot("pet", "semantic", p(
        r"我(?:家)?(?:有)?養了?(?:一隻|兩隻|一條|隻)?(?P<value>[\u4e00-\u9fff]{0,4}?(?:貓|狗|犬|兔|鳥|魚|"
        r"倉鼠|烏龜|鸚鵡))",
        r"\bI (?:have|got|adopted) an? (?P<value>[a-z ]{0,15}?(?:cat|dog|puppy|kitten|rabbit|"
        r"parrot|hamster))\b", flags=_I),
        "養了一隻{value}", ("寵物", "養", "品種", "pet"), template_en="Has a {value}"),
    Slot("pet_name", "semantic", p(
        r"(?P<species>貓|狗|柴犬|兔子|鸚鵡)(?:咪|狗)?(?:叫做?|的名字(?:是|叫))「?"
        rf"(?P<value>{V}{{1,8}})",
        r"\bmy (?P<species>cat|dog|puppy|kitten|rabbit|parrot)(?:'s name is| is called| is named) "
        r"(?P<value>[A-Z]\w+)", flags=_I),
        "{species}叫{value}", ("名字", "叫什麼", "name"), template_en="{species} is called {value}"),
    Slot("diet", "semantic", p(
        r"我(?:現在|目前|已經)?(?P<value>吃全素|吃蛋奶素|吃素|不吃素|不再吃素|開始吃素|沒有吃素)",
        r"\bI(?:'m| am) (?:now )?(?P<value>vegetarian|vegan|no longer vegetarian|not vegetarian)",
        flags=_I), "飲食:{value}", ("吃素", "飲食", "diet", "vegetarian"), template_en="Diet: {value}"),
    Slot("allergy", "semantic", p(
        rf"我(?:好像|可能|應該|大概)?對(?P<value>{V}{{1,6}}?)過敏",
        r"\bI(?:'m| am) allergic to (?P<value>[a-z ]+?)\b(?:[.,]|$)",
        flags=_I), "對{value}過敏", ("過敏", "allerg"), many=True, inject=4,
        template_en="Allergic to {value}"),
    Slot("food_avoid", "semantic", p(
        rf"我(?:不吃|不敢吃|討厭吃|不能吃)(?P<value>{V}{{1,6}})",
        r"\bI (?:don't|do not|can't) eat (?P<value>[a-z ]+?)\b(?:[.,]|$)", flags=_I),
        "不吃{value}", ("不吃", "飲食", "eat"), many=True, template_en="Doesn't eat {value}"),
    Slot("food_pref", "semantic", p(
        rf"我(?P<verb>喝|吃)(?P<item>{V}{{1,4}}?)(?:都|一律|通常)?只(?:喝|吃|要|點)(?P<value>{V}{{1,8}}?){END}"
        rf"(?:[,,](?P<tail>不{V}{{1,12}}))?",
        r"\bI (?:only )?(?:drink|take|have) my (?P<item>coffee|tea) (?P<value>black|with [a-z ]+?|[a-z]+)\b",
        flags=_I), "{verb}{item}只{verb}{value}{tail}", ("咖啡", "喝", "coffee"),
        many=True, template_en="Takes {item} {value}", extra={"key_group": "item"}),
    Slot("name", "semantic", p(
        rf"我(?:的名字)?叫(?P<value>{V}{{1,6}})", rf"叫我(?P<value>{V}{{1,6}}?)就好",
        r"\b(?i:my name)(?: is|'s) (?P<value>[A-Z]\w+)", r"\b(?i:call me) (?P<value>[A-Z]\w+)"),
        "名字:{value}", ("名字", "怎麼稱呼", "name"), template_en="Name: {value}"),
    Slot("family", "semantic", p(
        rf"我(?:的)?(?P<rel>{RELATIONS})(?:叫做?|的名字(?:是|叫))(?P<value>{V}{{1,6}})",
        r"\bmy (?:older |younger |big |little )?(?P<rel>sister|brother|wife|husband|son|daughter|mom|"
        r"mother|dad|father)(?:'s name is| is called| is named) (?P<value>[A-Z]\w+)", flags=_I),
        "{rel}叫{value}", ("家人", "姊姊", "妹妹", "哥哥", "弟弟", "family", "sister", "brother"),
        many=True, template_en="{rel}: {value}", extra={"key_group": "rel"}),
    Slot("tool", "semantic", p(
        r"我(?:的)?(?P<purpose>筆記|待辦事項|待辦|行程|行事曆|帳|程式碼)(?:都|一律|全部|通常)?"
        rf"(?:記|寫|放|存|管理|整理)在\s*{NAME}",
        r"我(?:現在|目前)?(?P<purpose>寫程式|記筆記|寫筆記|做筆記|管理待辦|記帳|排行程|做簡報)"
        rf"(?:都|一律|通常)?(?:改)?(?:用|在)\s*{NAME}",
        rf"(?P<purpose>筆記|待辦|行程|行事曆)我?(?:都|一律|通常)?(?:改)?用\s*{NAME}",
        r"我(?:現在|目前|平常|都|改)?(?:都)?(?:改)?用\s*"
        r"(?P<value>[A-Za-z][\w.+ ]{1,20}?|[\u4e00-\u9fff]{2,6}?)"
        r"\s*(?P<purpose>記筆記|寫筆記|做筆記|管理待辦|記待辦|排行程|管理行程|寫程式|做簡報|記帳)",
        r"\bI (?:now )?use (?P<value>[A-Z][\w.+]*(?: [A-Z][\w.+]*)*) (?:for|to) "
        r"(?:take |taking |manage |keep )?"
        r"(?P<purpose>notes|to-?dos|tasks|my calendar|calendar|coding|slides)",
        r"\bI keep (?:all )?(?:of )?my (?P<purpose>tasks|notes|to-?dos|calendar) in "
        r"(?P<value>[A-Z][\w.+]*(?: [A-Z][\w.+]*)*)", flags=_I),
        "{use}用{value}", ("工具", "用什麼", "app", "tool"), many=True,
        template_en="Uses {value} for {purpose}", extra={"key_group": "purpose"}),
    Slot("commute", "semantic", p(
        r"(?:每天|平常|都|現在|目前)+(?:都)?(?P<value>(?:搭|坐)(?:高鐵|捷運|公車|火車|客運|計程車|台鐵|接駁車)|"
        r"騎(?:機車|摩托車|腳踏車|單車|自行車)|開車|走路)(?:去|到)?(?:通勤|上班|上學|公司|學校)"
        rf"(?:[,,](?P<tail>(?:單程|大概|差不多|約|大約){V}{{1,10}}))?",
        r"\bI (?P<value>drive|bike|cycle|walk|take the (?:train|bus|subway|metro|MRT)) to work", flags=_I),
        "通勤方式:{value}{tail}", ("通勤", "commute"), template_en="Commute: {value}"),
    Slot("report_recipient", "semantic", p(
        r"(?:把)?(?P<what>週報|月報|日報|報告|工作日誌)(?:現在|目前|以後|之後|都|固定|一律|要|改|是|也)*"
        rf"(?P<verb>寄|交|傳|送|回報)(?:給|到)(?:我的)?(?:新的?(?=主管|老闆|經理))?(?:主管|老闆|經理)?\s*{NAME}",
        r"\b(?:my )?(?P<what>weekly (?:status )?(?:report|update)|(?:monthly )?reports?)(?: now)? "
        r"(?:goes|go) to (?:my (?:new )?(?:manager|boss|lead),? )?(?P<value>[A-Z]\w+)",
        r"\bsend (?:my |the )?(?P<what>weekly report|reports?) to (?P<value>[A-Z]\w+)", flags=_I),
        "{what}{verb}給{value}", ("週報", "月報", "寄給誰", "report"), many=True,
        template_en="{what} goes to {value}", extra={"key_group": "what"}),
    Slot("forward", "semantic", p(
        r"(?P<what>摘要|筆記|報告|資料|會議紀錄)(?:都|也|一律)?(?:要)?(?:寄|轉寄|傳|分享|轉發)(?:一份)?(?:副本)?(?:給|到)"
        r"\s*(?P<value>[\w.+-]+@[\w.-]+\.\w+)",
        r"\b(?:send|forward|share|cc) (?:a copy of )?(?:all |every )?(?:the |my )?(?P<what>summar\w*|notes|"
        r"reports?)[^@]*? to (?P<value>[\w.+-]+@[\w.-]+\.\w+)", flags=_I),
        "{what}寄一份到 {value}", ("寄", "轉寄", "email", "send"), many=True, outward=True,
        template_en="Send {what} to {value}", extra={"key_group": "what"}),
    Slot("book", "semantic", p(
        r"(?P<verb>讀完|看完|讀過|看過)(?:了)?\s*《(?P<value>[^》]{1,30})》",
        r"\bI (?:just |recently )?(?:finished|read) (?:reading )?[\"“](?P<value>[^\"”]{1,40})[\"”]",
        flags=_I), "{verb}《{value}》", ("書", "讀完", "book"), many=True,
        template_en='Read "{value}"'),
    Slot("procedure", "procedural", p(
        rf"(?P<what>(?:整理|寫|做|摘要|翻譯|排){V}{{1,8}}?)(?:的)?(?:時(?:候)?)?[,,]?(?:請)?(?:一律|都|永遠|每次都)"
        rf"(?:要)?(?P<value>先{V}{{2,12}})",
        rf"(?P<what>(?:整理|寫|做|摘要|翻譯|排|改){V}{{1,8}}?)(?:的)?時(?:候)?[,,]\s*(?:請)?"
        r"(?P<value>[^,,。!?!?]{0,6}?(?:一律|一定|都要|永遠)[^,,。!?!?]{2,16}|先[^,,。]{2,12}"
        r"(?:[,,]再[^,,。]{2,12})?)",
        r"\b(?:when(?:ever)? you|always,? when you) (?P<what>(?:summarize|write|draft|organize|tidy up|"
        r"translate) [\w ]+?), (?:always )?(?P<value>(?:start|begin|put|list|group) [\w ,]+)", flags=_I),
        "{what}時{value}", ("怎麼整理", "做法", "procedure"), many=True, inject=5, page="procedures",
        template_en="When you {what}: {value}", extra={"key_group": "what"}),
    Slot("hobby", "semantic", p(
        rf"我的(?:興趣|嗜好)是(?P<value>{V}{{1,10}})",
        r"(?:週末|假日|下班(?:之?後)|有空(?:的時候|時)?|放假(?:的時候|時)?|平常)(?:都|常常|通常|固定|常)*(?:會)?"
        rf"(?:(?:最)?喜歡|愛|去)+\s*(?P<value>{V}{{1,6}}?)(?=[,,。.!!??;;]|放鬆|$)",
        rf"我(?:很|最|超)?(?:喜歡|愛)(?P<value>(?:打|爬|跑|游|彈|畫|攝|露|騎|拍|玩|下){V}{{1,5}}?){END}",
        r"\bmy hobby is (?P<value>[a-z ]+?)\b(?:[.,]|$)", r"\bI love (?P<value>\w+ing)\b",
        r"\bI (?:play|go) (?P<value>[a-z]+)(?: with [a-z ]+)? (?:on|every) (?:weekends|[A-Z][a-z]+ "
        r"(?:nights|mornings|evenings))", flags=_I),
        "興趣:{value}", ("興趣", "嗜好", "週末", "運動", "hobby"), many=True, template_en="Hobby: {value}"),
    Slot("routine", "semantic", p(
        r"(?P<when>每(?:個)?(?:週|周|星期|禮拜)[一二三四五六日天]|每天|每晚|每個?月[^,,。]{0,3}?號|每個?週末)"
        r"(?P<part>早上|晚上|下午|中午|睡前|上午|凌晨)?(?:都會|都要|都|會|固定|一定會?)*\s*"
        rf"(?P<value>{V}{{2,20}})",
        rf"\b(?P<when>every (?:day|morning|evening|night|weekday|{_DAYS})(?: (?:morning|evening|night))?)"
        r",? I (?:usually |always |normally )?(?P<value>[a-z][a-z' -]+?)(?=[.,]|$)",
        rf"\bI (?:usually |always |normally )?(?P<value>[a-z][a-z' -]+?) every (?P<when>(?:{_DAYS}|day|"
        r"morning|evening|night)(?: (?:morning|evening|night))?)\b", flags=_I),
        "{when}{part}{value}", ("每週", "每天", "固定", "routine"), many=True,
        template_en="{when}: {value}", extra={"key_group": ("when", "part")}),
)

# Episodes: something done together that names an event (a meeting, notes, a trip), or
# an explicitly dated past discussion. A one-off edit of "this sentence" is not an episode.
_EVENT = r"(?:會議|週會|月會|晨會|筆記|紀錄|簡報|行程|專案|企劃|提案|預算|面試|訪談|發表會|活動|旅行|旅遊)"
_EPISODE = p(
    r"(?:幫我|請你?幫我|可以幫我|麻煩你?|想請你幫我)(?P<verb>整理|摘要|規劃|排|準備|檢討)(?:一下)?"
    rf"(?P<obj>(?!這|那){V}{{0,10}}?{_EVENT}{V}{{0,4}}?)(?=[,,。.!!??;;::]|$)",
    r"(?P<when>上週[一二三四五六日天]?|上禮拜[一二三四五六日天]?|昨天|前天|上次|上個月)(?:我們)?(?:有)?(?:一起)?"
    rf"(?P<verb>討論|整理|開會討論|聊|規劃|檢討)(?:了|過)?(?P<obj>{V}{{2,16}})",
    r"\b(?:please |can you |could you )?(?:help me )?(?P<verb>summarize|organize|plan|prepare) "
    r"(?P<obj>(?:the|my|our) [\w' -]{0,30}?(?:meeting|notes|minutes|trip|presentation|project|budget|"
    r"interview|launch)[\w' -]{0,10})",
    r"\b(?P<when>last \w+|yesterday),? (?:we|you helped me) (?P<verb>discussed|reviewed|planned|"
    r"organized|rewrote|rewrite|went through) (?P<obj>[\w' -]{2,40})", flags=_I)
# Working on a document the user pasted in that turn is an episode too ("we summarised it").
_EPISODE_ON_ATTACHMENT = p(
    rf"(?:幫我|請你?幫我|可以幫我|麻煩你?)(?P<verb>整理|摘要|翻譯|校對|潤飾)(?:一下)?(?P<obj>這(?:篇|份|封){V}{{1,6}}?)"
    r"(?=[,,。.!!??;;::]|$)",
    r"\b(?:please |can you |could you )?(?P<verb>summarize|translate|proofread) (?P<obj>this [\w-]{2,20})",
    flags=_I)


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
