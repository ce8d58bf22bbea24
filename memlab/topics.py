"""Topics a question can name (animals, relatives, vehicles, devices, drinks): a small lexicon.

Two different entities of one kind contradict each other: a question about a cat is not
answered by a memory about a dog, one about a younger brother not by one about a sister.
The lexicon is general vocabulary of a personal assistant's users, not words of a dataset.
"""

from __future__ import annotations

import re

from memlab.judge import normalize

# Kind → canonical entity → its names (CJK names may be regexes). Longer names are matched
# first and consume their text (奶茶 is milk tea, not tea).
ENTITIES: dict[str, dict[str, tuple[str, ...]]] = {
    "animal": {
        "cat": ("貓", "cat", "kitten"), "rabbit": ("兔", "rabbit", "bunny"),
        "bird": ("鳥", "鸚鵡", "bird", "parrot"), "fish": ("金魚", "熱帶魚", "fish"),
        "dog": ("狗", "犬", "柯基", "貴賓", "哈士奇", "拉布拉多", "dog", "puppy"),
        "hamster": ("倉鼠", "hamster"), "turtle": ("烏龜", "turtle"), "pet": ("寵物", "pet"),
    },
    "relative": {
        "younger_sister": ("妹妹",), "older_sister": ("姊姊", "姐姐"), "sister": ("sister",),
        "younger_brother": ("弟弟",), "older_brother": ("哥哥",), "brother": ("brother",),
        "mother": ("媽媽", "母親", "mom", "mother"), "father": ("爸爸", "父親", "dad", "father"),
        "wife": ("太太", "老婆", "妻子", "wife"), "husband": ("老公", "丈夫", "husband"),
        "daughter": ("女兒", "daughter"), "son": ("兒子", "son"),
        "partner": ("男朋友", "女朋友", "男友", "女友", "boyfriend", "girlfriend"),
    },
    "vehicle": {
        "scooter": ("機車", "摩托車", "scooter", "motorcycle", "motorbike"),
        "bicycle": ("腳踏車", "單車", "自行車", "bike", "bicycle"),
        "metro": ("捷運", "地鐵", "mrt", "subway", "metro"),
        "bus": ("公車", "巴士", "bus"), "train": ("高鐵", "火車", "台鐵", "train"),
        "car": ("汽車", "轎車", "車子", "開(?:的|什麼|哪一?[台輛款種])?車", "car"),
    },
    "device": {
        "phone": ("手機", "iphone", "pixel", "galaxy", "phone"),
        "computer": ("筆電", "電腦", "laptop", "macbook", "computer"),
        "tablet": ("平板", "ipad", "tablet"),
    },
    "drink": {
        "coffee": ("咖啡", "拿鐵", "美式", "coffee", "latte"),
        "milk_tea": ("奶茶", "珍奶", "milk tea"),
        "tea": ("茶", "tea"), "beer": ("啤酒", "beer"), "wine": ("紅酒", "白酒", "葡萄酒", "wine"),
        "juice": ("果汁", "juice"),
    },
}
# A generic name covers its specific ones ("sister" fits 妹妹, a pet fits a dog).
COVERS = {"sister": {"younger_sister", "older_sister"},
           "brother": {"younger_brother", "older_brother"},
           "pet": set(ENTITIES["animal"]), "tea": {"milk_tea"}}
ENTITY_PATTERNS = {
    kind: [(name, re.compile("|".join(
        rf"(?<![a-z]){alias}(?:s|es)?(?![a-z])" if alias.isascii() else alias
        for alias in sorted(aliases, key=len, reverse=True))))
        for name, aliases in sorted(names.items(), key=lambda kv: -max(map(len, kv[1])))]
    for kind, names in ENTITIES.items()}


def entities(text: str) -> dict[str, set[str]]:
    """Kind → canonical entities named in `text` (e.g. {"animal": {"dog"}})."""
    found: dict[str, set[str]] = {}
    for kind, patterns in ENTITY_PATTERNS.items():
        rest = normalize(text)
        for name, pattern in patterns:
            if pattern.search(rest):
                found.setdefault(kind, set()).add(name)
                rest = pattern.sub(" ", rest)
    return found


def compatible(asked: set[str], named: set[str]) -> bool:
    """Whether a candidate naming `named` can answer a question about `asked` (same kind)."""
    return any(a == n or n in COVERS.get(a, ()) or a in COVERS.get(n, ())
               for a in asked for n in named)


def strip_entities(text: str) -> str:
    """`text` (normalised) with every entity name blanked out."""
    text = normalize(text)
    for patterns in ENTITY_PATTERNS.values():
        for _, pattern in patterns:
            text = pattern.sub(" ", text)
    return text
