"""Deterministic industry and region for each real code (the reference file has neither).

Famous companies get their true industry; other names are classified by obvious keywords; the rest
are spread over board-typical industries by a hash of the code (stable, independent of the seed).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

from backend.domain.market.taxonomy import INDUSTRIES

# True industries of well-known companies (checked before any keyword rule).
KNOWN_INDUSTRY: dict[str, str] = {
    "600519": "白酒", "000858": "白酒", "000568": "白酒", "600809": "白酒", "002304": "白酒",
    "300750": "电池", "002594": "汽车整车", "601633": "汽车整车", "600104": "汽车整车",
    "688981": "半导体", "002371": "半导体", "603986": "半导体", "688041": "半导体", "688256": "半导体",
    "000001": "银行", "600036": "银行", "601398": "银行", "601288": "银行", "601939": "银行",
    "601318": "保险", "601628": "保险", "601601": "保险",
    "300059": "证券", "600030": "证券",
    "000333": "家用电器", "000651": "家用电器", "600690": "家用电器",
    "000725": "光学光电子", "000100": "光学光电子",
    "601012": "光伏设备", "300274": "光伏设备", "600438": "光伏设备",
    "002415": "计算机设备", "601138": "计算机设备",
    "600900": "电力", "600011": "电力",
    "601857": "石油石化", "600028": "石油石化", "601088": "煤炭开采",
    "000002": "房地产开发", "600048": "房地产开发",
    "600887": "饮料乳品", "603288": "食品加工",
    "002475": "消费电子", "300760": "医疗器械", "300015": "医疗服务", "600276": "化学制药",
    "002230": "软件开发", "688111": "软件开发", "600588": "软件开发",
    "601899": "工业金属", "600309": "化学原料", "600031": "工程机械", "000063": "通信设备",
    "601888": "零售", "300124": "通用设备", "601766": "专用设备", "600941": "通信设备",
    "600050": "通信设备", "002027": "传媒", "002555": "游戏", "601006": "港口航运",
    "600760": "军工", "600029": "航空机场", "002352": "物流", "600307": "钢铁", "603043": "食品加工",
}  # fmt: skip

# Name keyword -> industry, first match wins (so 酒店 is tried before 酒, 啤酒 before 酒).
KEYWORD_RULES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("银行", "农商", "商行"), "银行"),
    (("证券", "券商"), "证券"),
    (("保险", "人寿", "太保", "人保"), "保险"),
    (("酒店", "旅游", "景区", "旅业"), "旅游酒店"),
    (("啤酒", "乳", "饮料", "饮品"), "饮料乳品"),
    (("酒", "茅台", "老窖"), "白酒"),
    (("食品", "味业", "肉", "粮油", "调味"), "食品加工"),
    (("中药", "药业", "堂", "本草", "草药"), "中药"),
    (("生物", "疫苗"), "生物制品"),
    (("医药", "制药", "药"), "化学制药"),
    (("医院", "眼科", "健康", "医学"), "医疗服务"),
    (("医疗",), "医疗器械"),
    (("半导体", "芯", "微电", "集成", "晶"), "半导体"),
    (("光电", "光学", "显示"), "光学光电子"),
    (("电子",), "消费电子"),
    (("通信", "通讯", "网络"), "通信设备"),
    (("软件",), "软件开发"),
    (("信息", "数据", "数字", "智能"), "IT服务"),
    (("计算机", "电脑"), "计算机设备"),
    (("游戏", "互娱"), "游戏"),
    (("传媒", "文化", "影视", "出版", "广告"), "传媒"),
    (("地产", "置业", "房产"), "房地产开发"),
    (("钢",), "钢铁"),
    (("铝", "铜", "锌", "稀土", "金属", "矿业", "黄金"), "工业金属"),
    (("煤",), "煤炭开采"),
    (("石油", "石化", "油气", "油服"), "石油石化"),
    (("光伏", "太阳能", "硅"), "光伏设备"),
    (("风电", "风能"), "风电设备"),
    (("电池", "锂", "储能"), "电池"),
    (("电网", "电气", "电缆", "电工"), "电网设备"),
    (("电力", "能源", "水电", "火电", "核电", "热电"), "电力"),
    (("汽配", "零部件", "轮胎"), "汽车零部件"),
    (("汽车",), "汽车整车"),
    (("家电", "电器"), "家用电器"),
    (("纺织", "服饰", "服装", "家纺", "鞋"), "纺织服饰"),
    (("商业", "百货", "超市", "零售", "商贸"), "零售"),
    (("化工", "化学"), "化学制品"),
    (("水泥", "建材", "玻璃"), "建筑材料"),
    (("建设", "建工", "建筑", "路桥", "装饰"), "建筑装饰"),
    (("航天", "兵器", "船舶", "军"), "军工"),
    (("机场", "航空"), "航空机场"),
    (("物流", "快递", "运输", "供应链"), "物流"),
    (("港", "航运", "海运"), "港口航运"),
    (("农", "种业", "牧", "渔", "饲料"), "农业"),
    (("环保", "环境", "水务"), "环保"),
    (("重工", "机械"), "工程机械"),
    (("装备", "设备"), "专用设备"),
    (("精工", "机电", "精密"), "通用设备"),
    (("计算",), "计算机设备"),
)

# Where keywords say nothing, spread names over industries typical of their board.
_BOARD_POOL: dict[str, tuple[str, ...]] = {
    "科创板": (
        "半导体", "半导体", "软件开发", "医疗器械", "生物制品", "专用设备", "专用设备", "光学光电子",
        "计算机设备", "通信设备", "电池", "光伏设备", "化学制品", "IT服务", "元件",
    ),
    "创业板": (
        "软件开发", "IT服务", "医疗器械", "化学制药", "专用设备", "通用设备", "元件", "消费电子",
        "电池", "传媒", "游戏", "环保", "汽车零部件", "化学制品", "食品加工", "电网设备",
    ),
    "北交所": (
        "专用设备", "通用设备", "化学制品", "汽车零部件", "元件", "软件开发", "医疗器械", "建筑材料",
        "农业", "IT服务",
    ),
    # Banks, brokers, insurers and liquor makers say so in their names: the spread never invents one.
    "主板": tuple(i for i in INDUSTRIES if i not in ("银行", "证券", "保险", "白酒")),
}  # fmt: skip


@dataclass(frozen=True)
class IndustryProfile:
    """Typical fundamentals of an industry, used to draw each stock's parameters."""

    price_to_sales: float  # median P/S at the start of the demo
    net_margin: float  # median net margin
    gross_margin: float | None  # None where gross margin is not reported (financials)
    price_to_book: float
    debt_to_assets: float  # %
    beta: float
    idio_vol: float  # daily idiosyncratic volatility
    growth: float  # median yearly revenue growth


_DEFAULT = IndustryProfile(2.0, 0.07, 0.25, 2.2, 45.0, 1.0, 0.022, 0.06)
_TECH = IndustryProfile(5.0, 0.08, 0.38, 4.0, 35.0, 1.25, 0.028, 0.12)
_HEALTH = IndustryProfile(4.0, 0.12, 0.60, 3.5, 30.0, 0.9, 0.024, 0.08)
_CYCLICAL = IndustryProfile(0.9, 0.08, 0.22, 1.2, 55.0, 0.85, 0.018, 0.02)
_NEW_ENERGY = IndustryProfile(2.5, 0.09, 0.25, 3.0, 55.0, 1.2, 0.026, 0.15)
INDUSTRY_PROFILES: dict[str, IndustryProfile] = {
    "银行": IndustryProfile(2.0, 0.35, None, 0.6, 92.0, 0.6, 0.010, 0.03),
    "证券": IndustryProfile(5.0, 0.30, None, 1.4, 75.0, 1.3, 0.018, 0.04),
    "保险": IndustryProfile(0.9, 0.09, None, 1.1, 88.0, 0.9, 0.015, 0.04),
    "房地产开发": IndustryProfile(0.6, 0.05, 0.20, 0.7, 78.0, 1.0, 0.022, -0.06),
    "白酒": IndustryProfile(9.0, 0.36, 0.78, 6.0, 25.0, 1.0, 0.016, 0.12),
    "电力": IndustryProfile(1.8, 0.12, 0.25, 1.6, 62.0, 0.6, 0.013, 0.05),
    **{name: _TECH for name in ("半导体", "软件开发", "IT服务", "计算机设备", "通信设备", "游戏", "元件")},
    **{name: _HEALTH for name in ("化学制药", "中药", "生物制品", "医疗器械", "医疗服务")},
    **{name: _CYCLICAL for name in ("钢铁", "工业金属", "煤炭开采", "石油石化", "化学原料", "港口航运")},
    **{name: _NEW_ENERGY for name in ("电池", "光伏设备", "风电设备")},
}


def profile_of(industry: str) -> IndustryProfile:
    return INDUSTRY_PROFILES.get(industry, _DEFAULT)


def _stable_pick(code: str, salt: str, choices: tuple[str, ...]) -> str:
    return choices[zlib.crc32(f"{salt}:{code}".encode()) % len(choices)]


def industry_for(code: str, name: str, board: str) -> str:
    if code in KNOWN_INDUSTRY:
        return KNOWN_INDUSTRY[code]
    for keywords, industry in KEYWORD_RULES:
        if any(keyword in name for keyword in keywords):
            return industry
    return _stable_pick(code, "industry", _BOARD_POOL[board])


# Regions: a name prefix when it names one, else a spread weighted like the real listing geography.
_AREA_PREFIXES: tuple[tuple[str, str], ...] = (
    ("贵州", "贵州"), ("上海", "上海"), ("沪", "上海"), ("北京", "北京"), ("京", "北京"), ("深", "深圳"),
    ("粤", "广东"), ("广州", "广东"), ("渝", "重庆"), ("重庆", "重庆"), ("川", "四川"), ("四川", "四川"),
    ("苏", "江苏"), ("江苏", "江苏"), ("浙", "浙江"), ("杭", "浙江"), ("鲁", "山东"), ("山东", "山东"),
    ("皖", "安徽"), ("安徽", "安徽"), ("湘", "湖南"), ("湖南", "湖南"), ("鄂", "湖北"), ("武汉", "湖北"),
    ("闽", "福建"), ("福建", "福建"), ("厦门", "福建"), ("津", "天津"), ("天津", "天津"), ("陕", "陕西"),
    ("西安", "陕西"), ("新疆", "新疆"), ("云南", "云南"), ("滇", "云南"), ("吉林", "吉林"), ("海南", "海南"),
    ("河南", "河南"), ("郑州", "河南"), ("河北", "河北"), ("山西", "山西"), ("晋", "山西"), ("辽", "辽宁"),
    ("大连", "辽宁"), ("广西", "广西"), ("桂", "广西"), ("江西", "江西"), ("赣", "江西"), ("甘肃", "甘肃"),
    ("内蒙", "内蒙古"), ("西藏", "西藏"), ("青海", "青海"), ("宁夏", "宁夏"), ("黑龙江", "黑龙江"),
)  # fmt: skip
_AREA_SPREAD: tuple[str, ...] = (
    ("广东",) * 8 + ("浙江",) * 7 + ("江苏",) * 7 + ("北京",) * 4 + ("上海",) * 4 + ("深圳",) * 4
    + ("山东",) * 3 + ("安徽",) * 2 + ("四川",) * 2 + ("福建",) * 2 + ("湖北",) * 2 + ("湖南",) * 2
    + ("河南", "江西", "天津", "辽宁", "陕西", "重庆", "河北", "吉林", "云南", "新疆")
)  # fmt: skip


# Registered regions of the famous names (the reference file has no regions).
KNOWN_AREA: dict[str, str] = {
    "000001": "深圳", "000002": "深圳", "300750": "福建", "688981": "上海", "601318": "深圳",
    "000858": "四川", "300059": "上海", "600036": "深圳", "601398": "北京", "000333": "广东",
    "000651": "广东", "002594": "深圳", "600276": "江苏", "601012": "陕西", "002415": "浙江",
    "600900": "北京", "601857": "北京", "600030": "深圳", "300760": "深圳", "002475": "深圳",
    "688111": "北京", "601888": "北京", "600887": "内蒙古", "600519": "贵州",
}  # fmt: skip


def area_for(code: str, name: str) -> str:
    if code in KNOWN_AREA:
        return KNOWN_AREA[code]
    for prefix, area in _AREA_PREFIXES:
        if name.startswith(prefix):
            return area
    return _stable_pick(code, "area", _AREA_SPREAD)
