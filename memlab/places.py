"""Known cities and their time zones: a place implies a zone (and a country).

That implication is *derived data*: deleting where someone works must also delete the time
zone it revealed. The table is small on purpose; an unknown place is simply not a city slot.
"""

from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo

CITIES: dict[str, str] = {
    **dict.fromkeys("台北 臺北 新北 桃園 新竹 台中 臺中 台南 臺南 高雄 基隆 嘉義 宜蘭 花蓮 台東 "
                    "屏東 苗栗 彰化 南投 雲林 Taipei Taichung Tainan Kaohsiung Hsinchu Hualien".split(),
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
    **dict.fromkeys("多倫多 Toronto".split(), "America/Toronto"),
}

# A regex group matching any known city; "NewYork" also matches "New York".
CITY = "(?P<value>" + "|".join(sorted(
    {c if not c.isascii() else re.sub(r"([a-z])([A-Z])", r"\1 ?\2", c) for c in CITIES},
    key=len, reverse=True)) + ")"


def zone_of(city: str) -> str | None:
    """The IANA time zone of a known city (spaces ignored), else None."""
    return CITIES.get(city.replace(" ", ""))


def utc_offset(zone: str, at: datetime) -> str:
    """'UTC+9'-style offset of `zone` at the moment `at` (so DST is right)."""
    hours = ZoneInfo(zone).utcoffset(at.replace(tzinfo=None)).total_seconds() / 3600
    return f"UTC{'+' if hours >= 0 else '-'}{abs(hours):g}"
