"""Rule on function calls that reach outside the market data (DESIGN.md §4).

Refused: functions that read files or call external services, that read dictionaries or Join
tables (both can be backed by other databases or URLs), that reveal the server, the user or the
session (hostnames, settings, macros, query ids, certificates…), that stall a worker, that write
(generateSerialID increments a Keeper counter), and ClickHouse-internal `__…` helpers. Everything
an analyst computes with — maths, dates, strings, arrays, lambdas, aggregates, window functions,
`now()`/`today()`/`timezone()` — stays allowed.
"""

from __future__ import annotations

from sqlglot import exp

from backend.domain.market.guard_rules.names import normalise, written_name
from backend.domain.market.guard_rules.parsed import ParsedStatement
from backend.domain.market.guard_rules.sources import TABLE_FUNCTION_RISK

_FUNCTION_RISKS = {
    "reads server files": "file",
    "calls an external AI service": (
        "aiClassify aiEmbed aiExtract aiFilter aiGenerate aiRedact aiSimilarity aiTranslate"
    ),
    "reads a Join table outside the query": "joinGet joinGetOrNull",
    "reveals the user or the session": (
        "currentUser user session_user authenticatedUser authUser currentDatabase database schema "
        "currentSchemas currentSchema currentProfiles enabledProfiles defaultProfiles "
        "currentRoles enabledRoles defaultRoles currentQueryID queryID initialQueryID "
        "initialQueryStartTime connectionId currentHandler currentRequestURL getClientHTTPHeader "
        "pgGetUserById pgTableIsVisible"
    ),
    "reveals server internals": (
        "hostName FQDN fullHostName displayName version currentVersion revision buildId uptime serverUUID "
        "getOSKernelVersion tcpPort getServerPort getMacro getSetting getSettingOrDefault "
        "getServerSetting getMergeTreeSetting getMaxTableNameLengthForDatabase globalVariable "
        "hasColumnInTable hasThreadFuzzer filesystemAvailable filesystemCapacity filesystemUnreserved "
        "shardNum shardCount zookeeperSessionUptime transactionID transactionLatestSnapshot "
        "transactionOldestSnapshot showCertificate addressToLine addressToLineWithInlines "
        "addressToSymbol demangle logTrace tid"
    ),
    "stalls a query worker on purpose": "sleep sleepEachRow",
    "writes to the coordination service": "generateSerialID",
}
FUNCTION_RISK: dict[str, str] = {
    normalise(name): risk for risk, names in _FUNCTION_RISKS.items() for name in names.split()
}


def _risk(name: str) -> str | None:
    key = normalise(name)
    if key in FUNCTION_RISK:
        return FUNCTION_RISK[key]
    if key.startswith("dict"):  # dictGet*, dictHas, dictIsIn: dictionaries can load from anywhere
        return "reads a dictionary, which can be backed by another database or a URL"
    if name.startswith("__"):
        return "is a ClickHouse-internal helper"
    if key in TABLE_FUNCTION_RISK:  # e.g. url(…) written as a scalar function
        return TABLE_FUNCTION_RISK[key]
    return None


def _passed_by_name(node: exp.Expr) -> str | None:
    """A function handed over by its bare name, which ClickHouse calls: `arrayMap(file, paths)`,
    `SELECT * APPLY(file)`. Columns that merely share such a name are refused with it."""
    if isinstance(node, exp.Var) and isinstance(node.parent, exp.Apply):
        return node.name
    if isinstance(node, exp.Column) and not node.table and isinstance(node.parent, exp.Func | exp.Apply):
        return node.name
    return None


def forbidden_functions(statement: ParsedStatement) -> str | None:
    for node in statement.nodes:
        if isinstance(node, exp.Func):
            if isinstance(node.parent, exp.Table) and node.parent.this is node:
                continue  # table sources are judged by sources.table_functions
            name, how = written_name(node), ""
        else:
            passed = _passed_by_name(node)
            if passed is None:
                continue
            name, how = passed, " (passed by name, ClickHouse calls it)"
        risk = _risk(name)
        if risk is not None:
            return f"function {name}(){how} is not allowed: it {risk}"
    return None
