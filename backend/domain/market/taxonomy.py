"""Fixed vocabularies of the A-share market shared by the demo generator and the semantic model.

Industries follow the style of Shenwan level-2 names. The demo generator assigns every stock one of
these; the semantic model maps words and groups (科技股, 新能源, 金融…) onto them.
"""

from __future__ import annotations

INDUSTRIES: tuple[str, ...] = (
    "银行", "证券", "保险", "房地产开发",
    "白酒", "饮料乳品", "食品加工", "家用电器", "纺织服饰", "零售", "旅游酒店",
    "汽车整车", "汽车零部件", "电池", "光伏设备", "风电设备", "电网设备",
    "半导体", "消费电子", "元件", "光学光电子", "通信设备", "计算机设备", "软件开发", "IT服务",
    "游戏", "传媒",
    "化学制药", "中药", "生物制品", "医疗器械", "医疗服务",
    "化学原料", "化学制品", "钢铁", "工业金属", "煤炭开采", "石油石化", "电力",
    "建筑装饰", "建筑材料", "工程机械", "通用设备", "专用设备", "军工",
    "航空机场", "物流", "港口航运", "农业", "环保",
)  # fmt: skip

# Board (market column) and exchange values exactly as stored.
BOARDS: tuple[str, ...] = ("主板", "创业板", "科创板", "北交所")
EXCHANGES: tuple[str, ...] = ("SSE", "SZSE", "BSE")

# Daily price limit in percent by board (ST stocks are not modelled).
DAILY_LIMIT_PCT: dict[str, float] = {"主板": 10.0, "创业板": 20.0, "科创板": 20.0, "北交所": 30.0}

# Indexes in the demo: code -> (short name, full name).
INDEXES: dict[str, tuple[str, str]] = {
    "000300.SH": ("沪深300", "沪深300指数"),
    "000016.SH": ("上证50", "上证50指数"),
    "000905.SH": ("中证500", "中证小盘500指数"),
    "399006.SZ": ("创业板指", "创业板指数"),
}
